//===- RunDriverTest.cpp - The pieces of `kiln run` in lib/Driver ---------===//
#include "kiln/Driver/Driver.h"

#include "kiln/IR/Parser.h"

#include <catch2/catch.hpp>

using namespace kiln;

namespace {
std::unique_ptr<ir::Module> parse(std::string_view text) {
  auto module = ir::parseModule(text, "test.hlo");
  REQUIRE(module);
  return std::move(*module);
}
} // namespace

TEST_CASE("result file names replace unsafe characters", "[driver]") {
  CHECK(driver::sanitizeFileName("dense/BiasAdd:0") == "dense_BiasAdd_0");
  CHECK(driver::sanitizeFileName("a-b_c.9Z") == "a-b_c.9Z");
  CHECK(driver::sanitizeFileName("../x y") == ".._x_y");
  CHECK(driver::sanitizeFileName("\xc3\xa9") == "__"); // UTF-8 bytes too
}

TEST_CASE("splitList drops empty items", "[driver]") {
  CHECK(driver::splitList("a,b,,c,") == std::vector<std::string>{"a", "b", "c"});
  CHECK(driver::splitList("").empty());
}

TEST_CASE("results are named by the root or the root tuple's operands",
          "[driver]") {
  auto single = parse("HloModule m, entry=main\n\nENTRY main {\n"
                      "  x = f32[2] parameter(0)\n"
                      "  ROOT y = f32[2] negate(x)\n}\n");
  CHECK(driver::resultNames(*single) == std::vector<std::string>{"y"});
  auto tuple = parse("HloModule m, entry=main\n\nENTRY main {\n"
                     "  x = f32[2] parameter(0)\n"
                     "  n = f32[2] negate(x)\n"
                     "  ROOT t = (f32[2], f32[2]) tuple(n, x)\n}\n");
  CHECK(driver::resultNames(*tuple) == std::vector<std::string>{"n", "x"});
  auto sorted = parse("HloModule m, entry=main\n\nENTRY main {\n"
                      "  x = f32[3] parameter(0)\n"
                      "  ROOT t = (f32[3], s32[3]) top-k(x), k=3, largest=true\n}\n");
  CHECK(driver::resultNames(*sorted) == std::vector<std::string>{"t.0", "t.1"});
}

TEST_CASE("npy arrays and literals convert both ways", "[driver]") {
  NpyArray array{"int16", {2, 1}, {1, 0, 0xff, 0xff}};
  auto literal = driver::literalFromNpy(array);
  REQUIRE(literal);
  CHECK(literal->shape() == ir::Shape(ir::DType::S16, {2, 1}));
  CHECK(literal->data<int16_t>()[1] == -1);
  NpyArray back = driver::npyFromLiteral(*literal);
  CHECK(back.dtype == "int16");
  CHECK(back.shape == array.shape);
  CHECK(back.data == array.data);

  // Any non-zero bool byte means true; literals hold exactly 0 or 1.
  auto pred = driver::literalFromNpy({"bool", {3}, {0, 2, 255}});
  REQUIRE(pred);
  CHECK(pred->bytes() == std::vector<uint8_t>{0, 1, 1});

  auto wrongSize = driver::literalFromNpy({"float32", {2}, {0, 0, 0}});
  REQUIRE(!wrongSize);
  CHECK(wrongSize.errorMessage() ==
        "float32[2] needs 8 bytes of data but has 3");
}

TEST_CASE("describeArrayType spells dtype and dims like the errors do",
          "[driver]") {
  CHECK(driver::describeArrayType("float32", {2, 3}) == "float32[2,3]");
  CHECK(driver::describeArrayType("bool", {}) == "bool[]");
}
