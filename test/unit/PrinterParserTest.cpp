//===- PrinterParserTest.cpp - HLO text printer/parser round trips --------===//
#include "kiln/IR/Parser.h"
#include "kiln/IR/Printer.h"

#include <catch2/catch.hpp>

#include <fstream>
#include <set>
#include <sstream>

using namespace kiln;
using namespace kiln::ir;

namespace {

std::string readFile(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  REQUIRE(in.good());
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

std::unique_ptr<Module> parseOrFail(std::string_view text) {
  auto module = parseModule(text, "test.hlo");
  if (!module)
    FAIL(module.errorMessage());
  return std::move(*module);
}

/// Every field of two modules, instruction by instruction: a printer that
/// drops information (and a parser that fills in a default) cannot hide.
void requireSameModule(const Module &a, const Module &b) {
  REQUIRE(a.name() == b.name());
  REQUIRE(a.entry()->name() == b.entry()->name());
  auto ca = a.computations(), cb = b.computations();
  REQUIRE(ca.size() == cb.size());
  for (size_t c = 0; c < ca.size(); ++c) {
    REQUIRE(ca[c]->name() == cb[c]->name());
    REQUIRE(ca[c]->root()->name() == cb[c]->root()->name());
    auto ia = ca[c]->instructions(), ib = cb[c]->instructions();
    REQUIRE(ia.size() == ib.size());
    for (size_t i = 0; i < ia.size(); ++i) {
      INFO(ia[i]->name());
      CHECK(ia[i]->name() == ib[i]->name());
      CHECK(ia[i]->opcode() == ib[i]->opcode());
      CHECK(ia[i]->shape() == ib[i]->shape());
      CHECK(ia[i]->attrs() == ib[i]->attrs());
      CHECK(ia[i]->literal() == ib[i]->literal());
      REQUIRE(ia[i]->operandCount() == ib[i]->operandCount());
      for (size_t o = 0; o < ia[i]->operandCount(); ++o)
        CHECK(ia[i]->operand(o)->name() == ib[i]->operand(o)->name());
      CHECK(bool(ia[i]->calledComputation()) ==
            bool(ib[i]->calledComputation()));
    }
  }
}

void requireRoundTrip(const Module &module) {
  std::string first = printModule(module);
  auto reparsed = parseOrFail(first);
  CHECK(printModule(*reparsed) == first);
  requireSameModule(module, *reparsed);
}

Shape f32(std::vector<int64_t> dims) { return Shape(DType::F32, std::move(dims)); }

/// A module built through the API with non-default values for every
/// attribute, so defaults that the printer omits are exercised both ways.
std::unique_ptr<Module> buildUnusualModule() {
  auto module = std::make_unique<Module>("unusual");
  Computation *fused = module->addComputation("fused");
  Instruction *fp = fused->addParameter(0, f32({4}), "fp");
  fused->setRoot(fused->add(Opcode::Negate, f32({4}), {fp}, {}, "fneg"));

  Computation *main = module->addComputation("main");
  module->setEntry(main);
  Instruction *x = main->addParameter(0, f32({1, 8, 8, 4}), "x");
  Instruction *k = main->addParameter(1, f32({3, 3, 2, 4}), "k");
  Instruction *v = main->addParameter(2, f32({4}), "v");
  Instruction *c = main->addConstant(Literal::fromValues<float>(f32({}), {-0.0f}), "c");
  Attributes conv;
  conv.window = {{3, 2, -1, 2, 2, 3}, {3, 1, 0, 1, 1, 1}};
  conv.conv = {3, 0, {1, 2}, 3, 2, {0, 1}, 0, 3, {2, 1}};
  conv.featureGroupCount = 2;
  conv.batchGroupCount = 1;
  Instruction *cv = main->add(Opcode::Convolution, f32({1, 8, 8, 4}), {x, k}, conv, "cv");
  Attributes dot;
  dot.dot = {{0}, {0}, {2}, {1}};
  Instruction *d = main->add(Opcode::Dot, f32({1, 8, 4}), {cv, cv}, dot, "d");
  Attributes rw;
  rw.window = {{1, 1, 0, 0, 1, 1}, {2, 2, -1, 3, 1, 2}, {1, 1, 0, 0, 1, 1}};
  rw.reducer = ReducerKind::Min;
  Instruction *r = main->add(Opcode::ReduceWindow, f32({1, 5, 4}), {d, c}, rw, "r");
  Attributes pad;
  pad.padding = {{-1, 2, 0}, {0, 0, 3}, {5, -2, 1}};
  Instruction *p = main->add(Opcode::Pad, f32({2, 17, 10}), {r, c}, pad, "p");
  Attributes sort;
  sort.dimensions = {2};
  sort.descending = true;
  Instruction *s = main->add(Opcode::Sort, f32({2, 17, 10}), {p}, sort, "s");
  Attributes topk;
  topk.k = 3;
  topk.largest = false;
  Instruction *t = main->add(Opcode::TopK, Shape::tuple({f32({2, 17, 3}), Shape(DType::S32, {2, 17, 3})}), {s}, topk, "t");
  Attributes cmp;
  cmp.direction = ComparisonDirection::GE;
  Instruction *ge = main->add(Opcode::Compare, Shape(DType::Pred, {4}), {v, v}, cmp, "ge");
  Attributes fusion;
  fusion.fusionKind = FusionKind::Output;
  Instruction *f = main->add(Opcode::Fusion, f32({4}), {v}, fusion, "f");
  f->setCalledComputation(fused);
  Attributes slice;
  slice.slice = {{1, 4, 3}};
  Instruction *sl = main->add(Opcode::Slice, f32({1}), {f}, slice, "sl");
  Instruction *scalarPad = main->add(Opcode::Pad, f32({}), {c, c}, {}, "scalar_pad");
  Attributes emptyWindow;
  emptyWindow.reducer = ReducerKind::Or;
  Instruction *pr = main->add(Opcode::ReduceWindow, Shape(DType::Pred, {}),
                              {main->addConstant(Literal::fromValues<uint8_t>(Shape(DType::Pred, {}), {1}), "b"),
                               main->addConstant(Literal::fromValues<uint8_t>(Shape(DType::Pred, {}), {0}), "b0")},
                              emptyWindow, "pr");
  main->setRoot(main->add(Opcode::Tuple, Shape::tuple({t->shape(), ge->shape(), sl->shape(), scalarPad->shape(), pr->shape()}),
                          {t, ge, sl, scalarPad, pr}, {}, "root"));
  return module;
}

} // namespace

TEST_CASE("the every-opcode file prints back byte for byte", "[printer][parser]") {
  std::string golden = readFile(std::string(KILN_TEST_SOURCE_DIR) +
                                "/lit/IR/Inputs/every-opcode.expected");
  auto module = parseOrFail(golden);
  CHECK(printModule(*module) == golden);
  requireRoundTrip(*module);

  // A newly added opcode fails here until the file shows it.
  std::set<Opcode> seen;
  for (Computation *computation : module->computations())
    for (Instruction *instruction : computation->instructions())
      seen.insert(instruction->opcode());
  for (Opcode opcode : kAllOpcodes) {
    INFO("opcode missing from every-opcode.expected: " << opcodeName(opcode));
    CHECK(seen.count(opcode) == 1);
  }
}

TEST_CASE("non-default attributes round-trip", "[printer][parser]") {
  auto module = buildUnusualModule();
  std::string text = printModule(*module);
  // Expected spellings written by hand from docs/hlo.md.
  CHECK(text.find("window={size=3x3 stride=2x1 pad=-1_2x0_1 lhs_dilate=2x1 "
                  "rhs_dilate=3x1}, dim_labels=f01b_01oi->b10f, "
                  "feature_group_count=2\n") != std::string::npos);
  CHECK(text.find("lhs_batch_dims={0}, lhs_contracting_dims={2}, "
                  "rhs_batch_dims={0}, rhs_contracting_dims={1}\n") !=
        std::string::npos);
  CHECK(text.find("window={size=1x2x1 stride=1x2x1 pad=0_0x-1_3x0_0 "
                  "rhs_dilate=1x2x1}, "
                  "reducer=min\n") != std::string::npos);
  CHECK(text.find("padding=-1_2_0x0_0_3x5_-2_1\n") != std::string::npos);
  CHECK(text.find("dimensions={2}, descending=true\n") != std::string::npos);
  CHECK(text.find("k=3, largest=false\n") != std::string::npos);
  CHECK(text.find("direction=GE\n") != std::string::npos);
  CHECK(text.find("kind=kOutput, calls=fused\n") != std::string::npos);
  CHECK(text.find("slice={[1:4:3]}\n") != std::string::npos);
  CHECK(text.find("scalar_pad = f32[] pad(c, c), padding={}\n") != std::string::npos);
  CHECK(text.find("window={}, reducer=or\n") != std::string::npos);
  CHECK(text.find("c = f32[] constant(-0)\n") != std::string::npos);
  CHECK(text.rfind("HloModule unusual, entry=main\n\nfused {\n", 0) == 0);
  CHECK(text.find("\nENTRY main {\n") != std::string::npos);
  requireRoundTrip(*module);
}

TEST_CASE("accepted spellings that print canonically", "[parser]") {
  // '%' sigils, comments, any whitespace, stride 1, attribute order, and
  // omitted defaulted attributes are accepted; the printed form is canonical.
  std::string_view text = R"(HloModule m
// comment
ENTRY %main{%x=f32[4]parameter(0) /* c */ %s=f32[2]slice(%x),slice={[0:2:1]}
ROOT %t=(f32[4],(f32[2]))tuple(%x,%u) %u=(f32[2]) tuple(%s)})";
  auto bad = parseModule(text, "t.hlo"); // %u used before definition
  REQUIRE_FALSE(bad);
  CHECK(bad.errorMessage().find("use of undefined value 'u'") != std::string::npos);

  auto module = parseOrFail(R"(HloModule m
// comment
ENTRY %main{%x=f32[4]parameter(0) /* c */ %s=f32[2]slice(%x),slice={[0:2:1]}
%u=(f32[2]) tuple(%s) ROOT %t=(f32[4],(f32[2]))tuple(%x,%u)
%srt = f32[4] sort(%x), dimensions={0}
%tk = (f32[1], s32[1]) top-k(%x), k=1})");
  CHECK(printModule(*module) == R"(HloModule m, entry=main

ENTRY main {
  x = f32[4] parameter(0)
  s = f32[2] slice(x), slice={[0:2]}
  u = (f32[2]) tuple(s)
  ROOT t = (f32[4], (f32[2])) tuple(x, u)
  srt = f32[4] sort(x), dimensions={0}, descending=false
  tk = (f32[1], s32[1]) top-k(x), k=1, largest=true
}
)");
}

TEST_CASE("entry rule: ENTRY marker, entry= attribute, or both agreeing", "[parser]") {
  auto byAttr = parseOrFail("HloModule m, entry=b\na { ROOT x = f32[] parameter(0) }\n"
                            "b { ROOT y = f32[] parameter(0) }");
  CHECK(byAttr->entry()->name() == "b");
  auto byMarker = parseOrFail("HloModule m\nENTRY a { ROOT x = f32[] parameter(0) }");
  CHECK(byMarker->entry()->name() == "a");
  CHECK(printModule(*byAttr).find("ENTRY b {") != std::string::npos);
}

TEST_CASE("docs/hlo.md documents every opcode", "[docs]") {
  std::string docs = readFile(std::string(KILN_TEST_SOURCE_DIR) + "/../docs/hlo.md");
  for (Opcode opcode : kAllOpcodes) {
    INFO("docs/hlo.md has no table row for " << opcodeName(opcode));
    CHECK(docs.find("\n| " + std::string(opcodeName(opcode)) + " |") !=
          std::string::npos);
  }
}
