//===- GraphBuilderTest.cpp - The importers' shared HLO builder -----------===//
//
// Broadcasting follows NumPy's rules, all-constant instructions fold at once,
// errors are sticky, and the literal helpers round-trip. Expected values are
// worked out by hand in the comments.
//
//===----------------------------------------------------------------------===//
#include "kiln/Import/GraphBuilder.h"

#include "kiln/Eval/Evaluator.h"
#include "kiln/Import/Import.h"
#include "kiln/Import/LiteralUtil.h"
#include "kiln/IR/Module.h"
#include "kiln/IR/Verifier.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <limits>

using namespace kiln;
using namespace kiln::import;
using ir::DType;
using ir::Opcode;
using ir::Shape;

namespace {
struct Fixture {
  ir::Module module{"m"};
  ir::Computation *entry = nullptr;
  Fixture() {
    entry = module.addComputation("main");
    module.setEntry(entry);
  }
  std::vector<double> run(Value root, const std::vector<ir::Literal> &args) {
    entry->setRoot(root);
    REQUIRE(!ir::verifyModule(module));
    auto results = eval::evaluateModule(module, args);
    REQUIRE(results);
    return literalToDoubles(results->at(0));
  }
};
} // namespace

TEST_CASE("broadcastDims follows NumPy's trailing alignment", "[import]") {
  auto dims = GraphBuilder::broadcastDims({3, 1}, {4});
  REQUIRE(dims);
  CHECK(*dims == std::vector<int64_t>{3, 4});
  auto scalar = GraphBuilder::broadcastDims({}, {2, 5});
  REQUIRE(scalar);
  CHECK(*scalar == std::vector<int64_t>{2, 5});
  auto bad = GraphBuilder::broadcastDims({3}, {4});
  REQUIRE(!bad);
  CHECK(bad.errorMessage().find("cannot be broadcast") != std::string::npos);
}

TEST_CASE("binary broadcasts a column against a row", "[import]") {
  Fixture f;
  GraphBuilder b(*f.entry);
  Value x = b.parameter(0, Shape(DType::F32, {2, 1}), "x");
  Value y = b.constant(literalFromDoubles(Shape(DType::F32, {3}), {10, 20, 30}));
  Value sum = b.binary(Opcode::Add, x, y);
  REQUIRE(b.ok());
  CHECK(sum->shape() == Shape(DType::F32, {2, 3}));
  // x = [[1],[2]]: rows are 1+[10,20,30] and 2+[10,20,30].
  auto values = f.run(sum, {literalFromDoubles(Shape(DType::F32, {2, 1}), {1, 2})});
  CHECK(values == std::vector<double>{11, 21, 31, 12, 22, 32});
}

TEST_CASE("all-constant instructions fold into constants", "[import]") {
  Fixture f;
  GraphBuilder b(*f.entry);
  Value shape = b.ints(DType::S32, {1, 224, 224, 3});
  Value tail = b.sliceDim(shape, 0, 1, 3);     // [224, 224]
  Value doubled = b.binary(Opcode::Multiply, tail, b.scalar(DType::S32, 2));
  REQUIRE(b.ok());
  REQUIRE(doubled->opcode() == Opcode::Constant);
  CHECK(*GraphBuilder::constantInts(doubled) == std::vector<int64_t>{448, 448});
  // Folding leaves no dead slice/multiply behind.
  for (ir::Instruction *instruction : f.entry->instructions())
    CHECK(instruction->opcode() == Opcode::Constant);
}

TEST_CASE("large broadcasts of constants stay broadcasts", "[import]") {
  Fixture f;
  GraphBuilder b(*f.entry);
  Value zeros = b.broadcastTo(b.scalar(DType::F32, 0), {256, 256});
  REQUIRE(b.ok());
  CHECK(zeros->opcode() == Opcode::Broadcast);
}

TEST_CASE("errors are sticky and later calls do nothing", "[import]") {
  Fixture f;
  GraphBuilder b(*f.entry);
  Value x = b.parameter(0, Shape(DType::F32, {3}), "x");
  Value y = b.parameter(1, Shape(DType::F32, {4}), "y");
  Value bad = b.binary(Opcode::Add, x, y);
  CHECK(bad == nullptr);
  size_t count = f.entry->instructionCount();
  CHECK(b.unary(Opcode::Negate, x) == nullptr);
  CHECK(f.entry->instructionCount() == count);
  Error error = b.takeError();
  REQUIRE(error);
  CHECK(error.message().find("[3] and [4]") != std::string::npos);
  CHECK(b.ok());
}

TEST_CASE("reduce uses the reducer's identity and keeps dims on request",
          "[import]") {
  Fixture f;
  GraphBuilder b(*f.entry);
  Value x = b.parameter(0, Shape(DType::S32, {2, 3}), "x");
  Value max = b.reduce(x, {1}, ir::ReducerKind::Max, /*keepDims=*/true);
  REQUIRE(b.ok());
  CHECK(max->shape() == Shape(DType::S32, {2, 1}));
  // All-negative rows: an init of 0 would be wrong; INT32_MIN is the identity.
  auto values = f.run(max, {literalFromInts(Shape(DType::S32, {2, 3}),
                                            {-5, -2, -9, -7, -8, -3})});
  CHECK(values == std::vector<double>{-2, -3});
}

TEST_CASE("literal helpers convert across dtypes", "[import]") {
  ir::Literal half = literalFromDoubles(Shape(DType::F16, {2}), {1.5, -2});
  CHECK(literalToDoubles(half) == std::vector<double>{1.5, -2});
  ir::Literal pred = literalFromInts(Shape(DType::Pred, {3}), {0, 5, -1});
  CHECK(literalToInts(pred) == std::vector<int64_t>{0, 1, 1});
  ir::Literal u8 = literalFromInts(Shape(DType::U8, {1}), {200});
  CHECK(elementAsInt(u8, 0) == 200);
  // Doubles to integers as `convert` does: truncate, clamp, NaN to 0.
  ir::Literal s32 = literalFromDoubles(
      Shape(DType::S32, {4}), {-2.5, 1e30, -1e30, std::nan("")});
  CHECK(literalToInts(s32) ==
        std::vector<int64_t>{-2, 2147483647, -2147483648LL, 0});
  // Float shape values past int64 saturate too (a TF BroadcastArgs on a
  // float constant of 1e26 converted it with undefined behaviour).
  ir::Literal f32 =
      literalFromDoubles(Shape(DType::F32, {3}), {1e26, -1e26, 7.9});
  CHECK(literalToInts(f32) ==
        std::vector<int64_t>{std::numeric_limits<int64_t>::max(),
                             std::numeric_limits<int64_t>::min(), 7});
}

TEST_CASE("normalizeAxis accepts [-rank, rank)", "[import]") {
  CHECK(normalizeAxis(-1, 4) == 3);
  CHECK(normalizeAxis(3, 4) == 3);
  CHECK(!normalizeAxis(4, 4));
  CHECK(!normalizeAxis(-5, 4));
}

TEST_CASE("--shape specs parse and reject bad dimensions", "[import]") {
  auto shapes = parseShapeOverrides({"x=1,224,224,3", "y=[]"});
  REQUIRE(shapes);
  CHECK(shapes->at("x") == std::vector<int64_t>{1, 224, 224, 3});
  CHECK(shapes->at("y").empty());
  auto bad = parseShapeOverrides({"x=1,-2"});
  REQUIRE(!bad);
  CHECK(bad.errorMessage().find("x=1,-2") != std::string::npos);
  CHECK(!parseShapeOverrides({"nodims"}));
}

TEST_CASE("formatUnsupported lists every op with its nodes", "[import]") {
  std::string text = formatUnsupported(
      "m.pb", {{"Switch", {"c/Switch", "c/Switch_1"}, "control flow"},
               {"Foo", {"f"}, ""}});
  CHECK(text.find("2 unsupported ops (3 nodes)") != std::string::npos);
  CHECK(text.find("Switch (control flow): nodes c/Switch, c/Switch_1") !=
        std::string::npos);
  CHECK(text.find("Foo: node f") != std::string::npos);
}
