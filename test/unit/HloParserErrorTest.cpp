//===- HloParserErrorTest.cpp - Diagnostics for malformed HLO text --------===//
#include "kiln/IR/Parser.h"
#include "kiln/IR/Printer.h"

#include <catch2/catch.hpp>

#include <fstream>
#include <random>
#include <sstream>

using namespace kiln;
using namespace kiln::ir;

namespace {

struct ErrorCase {
  std::string body;    // the text after the "HloModule m\n" header line
  std::string message; // the expected message after "error: "
  std::string anchor;  // the caret points at the first occurrence of this
};

/// Line and column of `anchor` in `text`, computed independently of the
/// parser's own location code.
std::string lineColumn(const std::string &text, const std::string &anchor) {
  size_t offset = anchor.empty() ? text.size() : text.find(anchor);
  REQUIRE(offset != std::string::npos);
  int line = 1, column = 1;
  for (size_t i = 0; i < offset; ++i) {
    column = text[i] == '\n' ? 1 : column + 1;
    line += text[i] == '\n';
  }
  return std::to_string(line) + ":" + std::to_string(column);
}

const std::string kEntry = "ENTRY e {\n  x = f32[2] parameter(0)\n";

// clang-format off
const ErrorCase kCases[] = {
  {kEntry + "  ROOT y = f32[2] addd(x, x)\n}", "unknown opcode 'addd'", "addd"},
  {kEntry + "  ROOT y = f32[2] add(x[0], x)\n}", "expected ',' or ')' but found '['", "[0]"},
  {kEntry + "  ROOT y = f32[2] add(x, z)\n}", "use of undefined value 'z'", "z)"},
  {kEntry + "  x = f32[2] parameter(1)\n  ROOT y = f32[2] add(x, x)\n}", "value 'x' defined twice (first at 3:3)", "x = f32[2] parameter(1)"},
  {kEntry + "  ROOT y = f32[2] add(x, x, x)\n}", "'add' takes 2 operands but 3 were given", "add"},
  {kEntry + "  ROOT y = f32[2] negate()\n}", "'negate' takes 1 operand but 0 were given", "negate"},
  {kEntry + "  ROOT y = f33[2] negate(x)\n}", "unknown dtype 'f33'", "f33"},
  {kEntry + "  ROOT y = f32[2] f32[2]\n}", "unknown opcode 'f32'", "f32[2]\n}"},
  {kEntry + "  ROOT y = broadcast(x), dimensions={0}\n}", "'broadcast' needs its result shape written before the opcode (it cannot be inferred from the operands)", "broadcast"},
  {kEntry + "  ROOT y = add(x, x, x)\n}", "'add' takes 2 operands but 3 were given", "add"},
  {"ENTRY e {\n  ROOT x = f32[2,-1] parameter(0)\n}", "dimension -1 is negative", "-1"},
  {"ENTRY e {\n  ROOT x = f32[99999999999999999999] parameter(0)\n}", "dimension 99999999999999999999 overflows int64", "9999"},
  {"ENTRY e {\n  ROOT x = f32[4294967296,4294967296] parameter(0)\n}", "the product of dimensions overflows", "4294967296]"},
  {"ENTRY e {\n  ROOT x = f32[2,x] parameter(0)\n}", "expected a dimension but found 'x'", "x]"},
  {"ENTRY e {\n  ROOT c = f32[2,2] constant({ {1, 2}, {3} })\n}", "constant has 3 elements but shape f32[2,2] needs 4", "{ {"},
  {"ENTRY e {\n  ROOT c = f32[2,2] constant({ {1, 2, 3}, {4} })\n}", "dimension 1 of the constant has 3 entries but shape f32[2,2] needs 2", "}, {4"},
  {"ENTRY e {\n  ROOT c = f32[2,2] constant({1, 2, 3, 4})\n}", "expected '{' (shape f32[2,2] has rank 2) but found '1'", "1,"},
  {"ENTRY e {\n  ROOT c = f32[2] constant({ {1, 2} })\n}", "expected an f32 value but found '{' (shape f32[2] has rank 1)", "{1"},
  {"ENTRY e {\n  ROOT c = f32[2] constant({1,})\n}", "expected an f32 value but found '}'", "})"},
  {"ENTRY e {\n  ROOT c = s8[2] constant({1, 300})\n}", "value 300 is out of range for s8", "300"},
  {"ENTRY e {\n  ROOT c = u8[] constant(-1)\n}", "value -1 is out of range for u8", "-1"},
  {"ENTRY e {\n  ROOT c = s64[] constant(9223372036854775808)\n}", "value 9223372036854775808 is out of range for s64", "9223"},
  {"ENTRY e {\n  ROOT c = f16[] constant(1e10)\n}", "value 1e10 is out of range for f16", "1e10"},
  {"ENTRY e {\n  ROOT c = f32[] constant(1e999)\n}", "value 1e999 is out of range for f32", "1e999"},
  {"ENTRY e {\n  ROOT c = f32[] constant(1.5.2)\n}", "expected an f32 value but found '1.5.2'", "1.5.2"},
  {"ENTRY e {\n  ROOT c = pred[] constant(2)\n}", "expected 'true' or 'false' for pred but found '2'", "2)"},
  {"ENTRY e {\n  ROOT c = f32[] constant(nan(0x1))\n}", "'0x1' is not a NaN bit pattern of f32", "0x1"},
  {"ENTRY e {\n  ROOT c = (f32[]) constant(1)\n}", "a constant needs an array shape, not a tuple", "(f32[])"},
  {kEntry + "  ROOT y = f32[2] negate(x)\n", "unexpected end of file, expected '}'", ""},
  {kEntry + "  ROOT y = f32[2] fusion(x), kind=kLoop, calls=foo\n}", "unknown computation 'foo' (a called computation must be defined before its caller)", "foo"},
  {"e {\n  ROOT x = f32[] parameter(0)\n}", "no ENTRY computation (mark one computation ENTRY or add entry=NAME to the HloModule line)", "HloModule"},
  {"ENTRY e (a: f32[2]) -> f32[] {\n  x = f32[] parameter(0)\n}", "the signature of computation 'e' gives parameter 0 shape f32[2] but parameter(0) 'x' is f32[]", "f32[2]) ->"},
  {"ENTRY e {\n  x = f32[2]{1,0} parameter(0)\n}", "layout {1,0} of f32[2] is not a permutation of its 1 dimension (minor to major, e.g. {0})", "{1,0}"},
  {"ENTRY e {\n  x = f32[] parameter(0), metadata={op_name=\"a\" colour=1}\n}", "unknown metadata field 'colour' (expected op_type, op_name, source_file, source_line, ...)", "colour"},
  {"ENTRY e {\n}", "computation 'e' has no instructions", "e {"},
  {kEntry + "  ROOT y = f32[2] negate(x)\n  ROOT z = f32[2] negate(x)\n}", "second ROOT instruction in computation 'e' (first at 4:3)", "ROOT z"},
  {kEntry + "  ROOT y = f32[2] negate(x)\n}\nENTRY f {\n  ROOT p = f32[] parameter(0)\n}", "second ENTRY computation 'f' (first is 'e' at 2:7)", "f {"},
  {kEntry + "  ROOT y = f32[2] \x01negate(x)\n}", "unexpected character '\\x01'", "\x01"},
  {kEntry + "  ROOT y = f32[2] negate(x)\xc3\xa9\n}", "unexpected character '\\xc3'", "\xc3"},
  {kEntry + std::string("  ROOT y = f32[2] negate(x)\0\n}", 31), "unexpected character '\\x00'", std::string("\0", 1)},
  {kEntry + "  ROOT y = f32[2] negate(x) /* never closed\n}", "unterminated '/*' comment", "/*"},
  {kEntry + "  ROOT y = f32[2] negate(x), foo=1\n}", "unknown attribute 'foo'", "foo"},
  {kEntry + "  ROOT y = f32[2] negate(x), dimensions={0}\n}", "'negate' takes no attributes but found 'dimensions'", "dimensions"},
  {kEntry + "  ROOT y = f32[2] reverse(x), direction=LT\n}", "attribute 'direction' is not valid for 'reverse' (expected dimensions)", "direction"},
  {kEntry + "  ROOT y = f32[2] reverse(x), dimensions={0}, dimensions={0}\n}", "duplicated attribute 'dimensions' (first at 4:31)", "dimensions={0}\n"},
  {kEntry + "  ROOT y = f32[2] reverse(x)\n}", "'reverse' requires attribute 'dimensions'", "reverse"},
  {kEntry + "  ROOT y = f32[2] reverse(x), dimensions={0,}\n}", "expected a dimension but found '}'", "}\n}"},
  {kEntry + "  ROOT y = pred[2] compare(x, x), direction=LTE\n}", "unknown comparison direction 'LTE' (expected EQ, NE, LT, LE, GT, GE)", "LTE"},
  {kEntry + "  c = f32[] constant(0)\n  ROOT y = f32[] reduce(x, c), dimensions={0}, reducer=addd\n}", "unknown reducer 'addd' (expected add, mul, max, min, and, or)", "addd"},
  {kEntry + "  ROOT y = f32[4] concatenate(x, x), dimensions={0,1}\n}", "'concatenate' takes exactly one dimension but dimensions has 2", "concatenate"},
  {kEntry + "  c = f32[] constant(0)\n  ROOT y = f32[3] pad(x, c), padding=1\n}", "padding '1' should be low_high_interior or low_high", "1\n"},
  {kEntry + "  c = f32[] constant(0)\n  ROOT y = f32[1] reduce-window(x, c), window={sizes=2}, reducer=add\n}", "unknown window field 'sizes' (expected size, stride, pad, lhs_dilate, rhs_dilate)", "sizes"},
  {kEntry + "  c = f32[] constant(0)\n  ROOT y = f32[1] reduce-window(x, c), window={size=2 stride=1x1}, reducer=add\n}", "window field 'stride' has 2 dimensions but an earlier field has 1", "1x1"},
  {kEntry + "  ROOT y = f32[2] convolution(x, x), window={size=2}, dim_labels=b0f_0io->b0x\n}", "invalid dim_labels 'b0f_0io->b0x': unexpected label 'x' in 'b0x'", "b0f"},
  {kEntry + "  ROOT y = f32[2] slice(x), slice={[0:2:1:1]}\n}", "expected ':' or ']' but found ':'", ":1]"},
  {"ENTRY e {\n  x = f32[] parameter(0)\n  ROOT y = f32[] parameter(0)\n}", "parameter number 0 used twice (first at 3:23)", "0)\n}"},
  {"f {\n  ROOT p = f32[] parameter(0)\n}\nENTRY e {\n  ROOT y = f32[] negate(p)\n}", "value 'p' belongs to computation 'f'", "p)"},
  {"f {\n  ROOT x = f32[] parameter(0)\n}\nENTRY f {\n  ROOT y = f32[] parameter(0)\n}", "computation 'f' defined twice (first at 2:1)", "f {\n  ROOT y"},
  {"ENTRY e {\n  ROOT 1x = f32[] parameter(0)\n}", "invalid instruction name '1x': names match [A-Za-z_][A-Za-z0-9_.-]*", "1x"},
  {"ENTRY e {\n  ROOT x = f32[] parameter(0), index=0\n}", "'parameter' takes no attributes but found 'index'", "index"},
  {"ENTRY e {\n  ROOT x = " + std::string(100, '(') + "f32[]" + std::string(100, ')') + " parameter(0)\n}", "tuple shapes nest deeper than 64 levels", std::string(36, '(') + "f32"},
  {kEntry + "  ROOT y = f32[2] add(, x)\n}", "expected an operand name but found ','", ", x)"},
  {kEntry + "  ROOT y = f32[2] negate(x)\n}\n:", "expected a computation name but found ':'", ":"},
  {"ENTRY e {\n  ROOT x = f32[] parameter(0)\n}\nf {\n  ROOT y = f32[] fusion(), kind=kLoop, calls=f\n}", "computation 'f' cannot call itself", "f\n}"},
  {"ENTRY e {\n  ROOT x = f32[] parameter(0), \n}", "expected an attribute name but found '}'", "}"},
};
// clang-format on

} // namespace

TEST_CASE("malformed input gives a located, specific error", "[parser]") {
  for (const ErrorCase &c : kCases) {
    std::string text = "HloModule m\n" + c.body;
    INFO(text);
    auto module = parseModule(text, "bad.hlo");
    REQUIRE_FALSE(module);
    std::string expected =
        "bad.hlo:" + lineColumn(text, c.anchor) + ": error: " + c.message + "\n";
    std::string message = module.errorMessage();
    CHECK(message.substr(0, message.find('\n') + 1) == expected);
  }
}

TEST_CASE("errors show the source line and a caret", "[parser]") {
  auto module = parseModule("HloModule m\nENTRY e {\n  ROOT x = f32[2,] "
                            "parameter(0)\n}\n",
                            "model.hlo");
  REQUIRE_FALSE(module);
  CHECK(module.errorMessage() == "model.hlo:3:18: error: expected a dimension "
                                 "but found ']'\n"
                                 "    ROOT x = f32[2,] parameter(0)\n"
                                 "                   ^");
}

TEST_CASE("header errors", "[parser]") {
  auto check = [](std::string text, std::string expected) {
    auto module = parseModule(text, "h.hlo");
    REQUIRE_FALSE(module);
    std::string message = module.errorMessage();
    CHECK(message.substr(0, message.find('\n')) == expected);
  };
  // The HloModule line is optional (XLA's rule).
  check("", "h.hlo:1:1: error: no ENTRY computation (mark one computation "
            "ENTRY or add entry=NAME to the HloModule line)");
  check("ENTRY e {}", "h.hlo:1:7: error: computation 'e' has no instructions");
  check("HloModule m, foo=e",
        "h.hlo:1:14: error: unknown module attribute 'foo' (expected entry, "
        "entry_computation_layout, is_scheduled, replica_count, "
        "num_partitions, input_output_alias, buffer_donor, "
        "frontend_attributes, allow_spmd_sharding_propagation_to_parameters "
        "or allow_spmd_sharding_propagation_to_output)");
  check("HloModule m, entry=z\nENTRY e {\n  ROOT x = f32[] parameter(0)\n}",
        "h.hlo:1:20: error: unknown computation 'z'");
  check("HloModule m, entry=f\nf {\n  ROOT y = f32[] parameter(0)\n}\n"
        "ENTRY e {\n  ROOT x = f32[] parameter(0)\n}",
        "h.hlo:5:7: error: ENTRY computation 'e' disagrees with entry=f in the "
        "HloModule line");
  check("HloModule m, entry=x\nENTRY e {\n  ROOT x = f32[] parameter(0)\n}",
        "h.hlo:1:20: error: unknown computation 'x'");
}

TEST_CASE("no input crashes or hangs the parser", "[parser][robustness]") {
  std::ifstream in(std::string(KILN_TEST_SOURCE_DIR) +
                       "/lit/IR/Inputs/every-opcode.expected",
                   std::ios::binary);
  std::stringstream buffer;
  buffer << in.rdbuf();
  const std::string golden = buffer.str();
  REQUIRE(!golden.empty());
  auto tryParse = [](const std::string &text) {
    auto module = parseModule(text, "fuzz.hlo");
    if (!module)
      CHECK(module.errorMessage().rfind("fuzz.hlo:", 0) == 0);
    else
      (void)printModule(**module);
  };
  // Every truncation point.
  for (size_t cut = 0; cut < golden.size(); cut += 3)
    tryParse(golden.substr(0, cut));
  // Random byte edits, deterministic seed.
  std::mt19937 rng(12345);
  const char kAlphabet[] = "{}[](),=:%_-x.0123456789abefnt \n\x00\xff/*";
  for (int round = 0; round < 3000; ++round) {
    std::string text = golden;
    int edits = 1 + int(rng() % 4);
    for (int e = 0; e < edits; ++e) {
      size_t at = rng() % text.size();
      char c = kAlphabet[rng() % (sizeof kAlphabet - 1)];
      switch (rng() % 3) {
      case 0: text[at] = c; break;
      case 1: text.insert(text.begin() + long(at), c); break;
      default: text.erase(at, 1 + rng() % 8); break;
      }
    }
    tryParse(text);
  }
  // Pathological nesting and sizes.
  tryParse("HloModule m\nENTRY e {\n  ROOT c = f32[" + std::string(20000, '1') + "] constant(0)\n}");
  std::string deep = "HloModule m\nENTRY e {\n  ROOT c = f32[";
  for (int i = 0; i < 5000; ++i)
    deep += i ? ",1" : "1";
  tryParse(deep + "] constant(" + std::string(5000, '{') + "1" + std::string(5000, '}') + ")\n}");
  tryParse("HloModule m\nENTRY e {\n  ROOT c = f32[1000000000000] constant({1})\n}");
  tryParse("HloModule m\nENTRY e {\n  ROOT c = f32[] constant(" + std::string(100000, '{') + ")\n}");
}

TEST_CASE("no mutation of XLA-style text crashes or hangs the parser",
          "[parser][robustness]") {
  // The corpus modules exercise what kiln's own form lacks: layouts,
  // signatures, strings, metadata, skipped brackets, stack-frame tables.
  for (const char *name : {"jax-dump.hlo", "tf-dump.hlo", "text-layout.hlo"}) {
    std::ifstream in(std::string(KILN_TEST_SOURCE_DIR) + "/lit/IR/xla/" + name,
                     std::ios::binary);
    std::stringstream buffer;
    buffer << in.rdbuf();
    const std::string golden = buffer.str();
    REQUIRE(!golden.empty());
    REQUIRE(parseModule(golden, "golden.hlo"));
    auto tryParse = [](const std::string &text) {
      auto module = parseModule(text, "fuzz.hlo");
      if (!module)
        CHECK(module.errorMessage().rfind("fuzz.hlo:", 0) == 0);
      else
        (void)printModule(**module);
    };
    for (size_t cut = 0; cut < golden.size(); cut += 7)
      tryParse(golden.substr(0, cut));
    std::mt19937 rng(2024);
    const char kAlphabet[] = "{}[](),=:%_-x.0123456789\"\\<*>T /\n\x00";
    for (int round = 0; round < 1500; ++round) {
      std::string text = golden;
      int edits = 1 + int(rng() % 4);
      for (int e = 0; e < edits; ++e) {
        size_t at = rng() % text.size();
        char c = kAlphabet[rng() % (sizeof kAlphabet - 1)];
        switch (rng() % 3) {
        case 0: text[at] = c; break;
        case 1: text.insert(text.begin() + long(at), c); break;
        default: text.erase(at, 1 + rng() % 8); break;
        }
      }
      tryParse(text);
    }
  }
  // Deeply nested brackets in a skipped value use no recursion.
  std::string nested = "HloModule m, frontend_attributes=" +
                       std::string(100000, '{') + std::string(100000, '}') +
                       "\nENTRY e {\n  ROOT x = f32[] parameter(0)\n}";
  CHECK(parseModule(nested, "deep.hlo"));
}
