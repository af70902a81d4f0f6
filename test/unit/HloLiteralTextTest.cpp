//===- HloLiteralTextTest.cpp - Constant values in HLO text ---------------===//
//
// Expected spellings are written by hand; the float values behind them were
// checked with NumPy (np.float32(2**-149) == 1e-45, np.float16(0.1) has bits
// 0x2e66, ...). Every literal must also parse back to the identical bytes.
//
//===----------------------------------------------------------------------===//
#include "kiln/IR/Parser.h"
#include "kiln/IR/Printer.h"

#include <catch2/catch.hpp>

#include <cstring>
#include <limits>

using namespace kiln;
using namespace kiln::ir;

namespace {

/// Parses `c = SHAPE constant(TEXT)` and returns the constant's literal.
Literal parseConstant(const Shape &shape, const std::string &text) {
  std::string module = "HloModule m\nENTRY e {\n  ROOT c = " + shape.toString() +
                       " constant(" + text + ")\n}\n";
  auto parsed = parseModule(module, "literal.hlo");
  if (!parsed)
    FAIL(parsed.errorMessage());
  return (*parsed)->entry()->root()->literal();
}

/// Prints `literal`, checks the text, and checks it parses to the same bytes.
void checkLiteral(const Literal &literal, const std::string &expected) {
  std::string text = printLiteral(literal);
  CHECK(text == expected);
  Literal back = parseConstant(literal.shape(), text);
  CHECK(back == literal);
}

template <typename T>
void checkScalar(DType type, T value, const std::string &expected) {
  INFO(expected);
  checkLiteral(Literal::fromValues<T>(Shape::scalar(type), {value}), expected);
}

template <typename Bits> Bits bitsOf(auto value) {
  Bits bits;
  std::memcpy(&bits, &value, sizeof bits);
  return bits;
}
float floatFromBits(uint32_t bits) {
  float value;
  std::memcpy(&value, &bits, sizeof value);
  return value;
}
double doubleFromBits(uint64_t bits) {
  double value;
  std::memcpy(&value, &bits, sizeof value);
  return value;
}

} // namespace

TEST_CASE("f32 scalars print shortest and round-trip", "[literal]") {
  checkScalar<float>(DType::F32, 1.5f, "1.5");
  checkScalar<float>(DType::F32, 0.1f, "0.1");
  checkScalar<float>(DType::F32, -0.0f, "-0");
  checkScalar<float>(DType::F32, 0.0f, "0");
  checkScalar<float>(DType::F32, 1e10f, "1e+10");
  checkScalar<float>(DType::F32, floatFromBits(1), "1e-45"); // smallest denormal
  checkScalar<float>(DType::F32, floatFromBits(0x007fffff), "1.1754942e-38");
  checkScalar<float>(DType::F32, std::numeric_limits<float>::max(), "3.4028235e+38");
  checkScalar<float>(DType::F32, std::numeric_limits<float>::infinity(), "inf");
  checkScalar<float>(DType::F32, -std::numeric_limits<float>::infinity(), "-inf");
  checkScalar<float>(DType::F32, floatFromBits(0x7fc00000), "nan");
  checkScalar<float>(DType::F32, floatFromBits(0xffc00000), "-nan");
  checkScalar<float>(DType::F32, floatFromBits(0x7f800001), "nan(0x7f800001)");
}

TEST_CASE("f64 scalars print shortest and round-trip", "[literal]") {
  checkScalar<double>(DType::F64, 0.1, "0.1");
  checkScalar<double>(DType::F64, doubleFromBits(1), "5e-324");
  checkScalar<double>(DType::F64, std::numeric_limits<double>::max(),
                      "1.7976931348623157e+308");
  checkScalar<double>(DType::F64, -0.0, "-0");
  checkScalar<double>(DType::F64, doubleFromBits(0x7ff8000000000000ull), "nan");
  checkScalar<double>(DType::F64, doubleFromBits(0xfff8000000000001ull),
                      "nan(0xfff8000000000001)");
}

TEST_CASE("f16 and bf16 print the float value of their bits", "[literal]") {
  checkScalar<uint16_t>(DType::F16, 0x3c00, "1");
  checkScalar<uint16_t>(DType::F16, 0x7bff, "65504");
  checkScalar<uint16_t>(DType::F16, 0x0001, "5.9604645e-08"); // 2^-24
  checkScalar<uint16_t>(DType::F16, 0x2e66, "0.099975586");
  checkScalar<uint16_t>(DType::F16, 0x8000, "-0");
  checkScalar<uint16_t>(DType::F16, 0xfc00, "-inf");
  checkScalar<uint16_t>(DType::F16, 0x7e00, "nan");
  checkScalar<uint16_t>(DType::F16, 0xfe00, "-nan");
  checkScalar<uint16_t>(DType::F16, 0x7c01, "nan(0x7c01)");
  checkScalar<uint16_t>(DType::BF16, 0x3f80, "1");
  checkScalar<uint16_t>(DType::BF16, 0x4049, "3.140625");
  checkScalar<uint16_t>(DType::BF16, 0x0001, "9.1835e-41"); // 2^-133
  checkScalar<uint16_t>(DType::BF16, 0x7fc0, "nan");
  checkScalar<uint16_t>(DType::BF16, 0x7f80, "inf");
  // Decimal input rounds to nearest: np.float16(0.1) has bits 0x2e66.
  CHECK(parseConstant(Shape::scalar(DType::F16), "0.1") ==
        Literal::fromValues<uint16_t>(Shape::scalar(DType::F16), {0x2e66}));
}

TEST_CASE("integer extremes are exact", "[literal]") {
  checkScalar<int64_t>(DType::S64, std::numeric_limits<int64_t>::min(),
                       "-9223372036854775808");
  checkScalar<int64_t>(DType::S64, std::numeric_limits<int64_t>::max(),
                       "9223372036854775807");
  checkScalar<uint64_t>(DType::U64, std::numeric_limits<uint64_t>::max(),
                        "18446744073709551615");
  checkScalar<int8_t>(DType::S8, -128, "-128");
  checkScalar<uint8_t>(DType::U8, 255, "255");
  checkScalar<int16_t>(DType::S16, -32768, "-32768");
  checkScalar<uint32_t>(DType::U32, 4294967295u, "4294967295");
  checkScalar<int32_t>(DType::S32, -2147483647 - 1, "-2147483648");
  checkScalar<uint8_t>(DType::Pred, 1, "true");
  checkScalar<uint8_t>(DType::Pred, 0, "false");
}

TEST_CASE("arrays nest one brace level per dimension", "[literal]") {
  checkLiteral(Literal::fromValues<float>(Shape(DType::F32, {3}), {1, 2, 3}),
               "{1, 2, 3}");
  checkLiteral(Literal::fromValues<int32_t>(Shape(DType::S32, {2, 2}), {1, 2, 3, 4}),
               "{ {1, 2}, {3, 4} }");
  checkLiteral(Literal::fromValues<int32_t>(Shape(DType::S32, {2, 1, 2}), {1, 2, 3, 4}),
               "{ { {1, 2} }, { {3, 4} } }");
  checkLiteral(Literal::fromValues<uint8_t>(Shape(DType::Pred, {2}), {1, 0}),
               "{true, false}");
  checkLiteral(Literal::fromValues<float>(Shape(DType::F32, {1, 1, 1, 1, 1, 2}), {1, 2}),
               "{ { { { { {1, 2} } } } } }");
  checkLiteral(Literal(Shape(DType::F32, {1})), "{0}");
}

TEST_CASE("arrays with a zero dimension", "[literal]") {
  checkLiteral(Literal(Shape(DType::F32, {0})), "{}");
  checkLiteral(Literal(Shape(DType::F32, {0, 3})), "{}");
  checkLiteral(Literal(Shape(DType::F32, {2, 0})), "{ {}, {} }");
  checkLiteral(Literal(Shape(DType::S64, {2, 0, 5})), "{ {}, {} }");
  checkLiteral(Literal(Shape(DType::F32, {1, 2, 0})), "{ { {}, {} } }");
}

TEST_CASE("non-canonical literal spellings", "[literal]") {
  Shape f32x2(DType::F32, {2});
  CHECK(parseConstant(f32x2, "{ 1.0e0 ,2.50 }") ==
        Literal::fromValues<float>(f32x2, {1.0f, 2.5f}));
  // Underflow rounds to zero (as a C compiler does) instead of failing.
  CHECK(parseConstant(f32x2, "{1e-50, -1e-50}") ==
        Literal::fromValues<float>(f32x2, {0.0f, -0.0f}));
  CHECK(parseConstant(Shape::scalar(DType::S32), "-0") ==
        Literal::fromValues<int32_t>(Shape::scalar(DType::S32), {0}));
}

TEST_CASE("a large constant prints and parses in linear time", "[literal]") {
  // One million elements: quadratic behaviour would take minutes here.
  Shape shape(DType::F32, {1000, 1000});
  std::vector<float> values(1000000);
  for (size_t i = 0; i < values.size(); ++i)
    values[i] = float(i) * 0.25f - 1000.0f;
  Literal literal = Literal::fromValues<float>(shape, values);
  std::string text = printLiteral(literal);
  CHECK(text.size() < 16 * values.size());
  CHECK(parseConstant(shape, text) == literal);
}
