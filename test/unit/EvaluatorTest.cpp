//===- EvaluatorTest.cpp - Reference evaluator on hand-computed cases -----===//
//
// Every expected value here is worked out by hand (the comment beside it says
// how); the broad per-opcode comparison with NumPy lives in test/eval.
//
//===----------------------------------------------------------------------===//
#include "kiln/Eval/Evaluator.h"

#include "kiln/IR/Module.h"
#include "kiln/Support/Float16.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <limits>

using namespace kiln;
using namespace kiln::ir;

namespace {

template <typename T>
Literal lit(DType type, std::vector<int64_t> dims, std::vector<T> values) {
  return Literal::fromValues(Shape(type, std::move(dims)), values);
}
Literal f32(std::vector<int64_t> dims, std::vector<float> values) {
  return lit(DType::F32, std::move(dims), std::move(values));
}
Literal s32(std::vector<int64_t> dims, std::vector<int32_t> values) {
  return lit(DType::S32, std::move(dims), std::move(values));
}

template <typename T> std::vector<T> values(const Literal &literal) {
  const T *data = literal.data<T>();
  return std::vector<T>(data, data + literal.numElements());
}

/// Runs one instruction on `operands` through evaluateInstruction.
Expected<Literal> tryEval(Opcode opcode, Shape shape,
                          const std::vector<Literal> &operands,
                          Attributes attrs = {}) {
  Instruction inst(opcode, std::move(shape), {}, std::move(attrs));
  inst.setName("op");
  std::vector<const Literal *> pointers;
  for (const Literal &operand : operands)
    pointers.push_back(&operand);
  return eval::evaluateInstruction(inst, pointers);
}

Literal eval1(Opcode opcode, Shape shape, const std::vector<Literal> &operands,
              Attributes attrs = {}) {
  Expected<Literal> result =
      tryEval(opcode, std::move(shape), operands, std::move(attrs));
  if (!result)
    FAIL(result.errorMessage());
  return std::move(*result);
}

/// A module whose entry applies `opcode` to parameters of `operandShapes`
/// and returns every result (sort/top-k tuples flattened).
std::vector<Literal> evalModule(Opcode opcode, Shape shape,
                                const std::vector<Literal> &args,
                                Attributes attrs = {}) {
  Module module("m");
  Computation *main = module.addComputation("main");
  std::vector<Instruction *> params;
  for (size_t i = 0; i < args.size(); ++i)
    params.push_back(main->addParameter(int64_t(i), args[i].shape()));
  main->setRoot(main->add(opcode, std::move(shape), params, std::move(attrs)));
  module.setEntry(main);
  auto results = eval::evaluateModule(module, args);
  if (!results)
    FAIL(results.errorMessage());
  return std::move(*results);
}

constexpr int32_t kIntMin = std::numeric_limits<int32_t>::min();
constexpr int32_t kIntMax = std::numeric_limits<int32_t>::max();
const float kNaN = std::numeric_limits<float>::quiet_NaN();
const float kInf = std::numeric_limits<float>::infinity();

} // namespace

TEST_CASE("integer divide and remainder follow XLA's rules", "[eval]") {
  Literal a = s32({4}, {7, -7, kIntMin, 5});
  Literal b = s32({4}, {0, 2, -1, 0});
  Shape shape(DType::S32, {4});
  // x/0 = -1, -7/2 truncates to -3, INT_MIN/-1 = INT_MIN.
  CHECK(values<int32_t>(eval1(Opcode::Divide, shape, {a, b})) ==
        std::vector<int32_t>{-1, -3, kIntMin, -1});
  // x%0 = x, remainder has the dividend's sign, INT_MIN%-1 = 0.
  CHECK(values<int32_t>(eval1(Opcode::Remainder, shape, {a, b})) ==
        std::vector<int32_t>{7, -1, 0, 5});
  Literal u = lit<uint8_t>(DType::U8, {2}, {200, 9});
  Literal zero = lit<uint8_t>(DType::U8, {2}, {0, 4});
  CHECK(values<uint8_t>(eval1(Opcode::Divide, Shape(DType::U8, {2}),
                              {u, zero})) == std::vector<uint8_t>{255, 2});
  Literal s8 = lit<int8_t>(DType::S8, {1}, {-128});
  Literal m1 = lit<int8_t>(DType::S8, {1}, {-1});
  CHECK(values<int8_t>(eval1(Opcode::Divide, Shape(DType::S8, {1}),
                             {s8, m1})) == std::vector<int8_t>{-128});
}

TEST_CASE("integer arithmetic wraps", "[eval]") {
  Shape shape(DType::S32, {3});
  Literal a = s32({3}, {kIntMax, kIntMin, 65536});
  Literal b = s32({3}, {1, -1, 65536});
  // INT_MAX+1 wraps to INT_MIN, INT_MIN-1 to INT_MAX, 2^32 to 0.
  CHECK(values<int32_t>(eval1(Opcode::Add, shape, {a, b})) ==
        std::vector<int32_t>{kIntMin, kIntMax, 131072});
  CHECK(values<int32_t>(eval1(Opcode::Multiply, shape, {a, b}))[2] == 0);
  // INT_MIN - 1 wraps to INT_MAX.
  CHECK(values<int32_t>(eval1(Opcode::Subtract, Shape(DType::S32, {1}),
                              {s32({1}, {kIntMin}), s32({1}, {1})}))[0] ==
        kIntMax);
  Literal edge = s32({2}, {kIntMin, -5});
  Shape two(DType::S32, {2});
  CHECK(values<int32_t>(eval1(Opcode::Abs, two, {edge})) ==
        std::vector<int32_t>{kIntMin, 5});
  CHECK(values<int32_t>(eval1(Opcode::Negate, two, {edge})) ==
        std::vector<int32_t>{kIntMin, 5});
  // 100 * 3 = 300 = 256 + 44 in s8.
  Literal hundred = lit<int8_t>(DType::S8, {1}, {100});
  Literal three = lit<int8_t>(DType::S8, {1}, {3});
  CHECK(values<int8_t>(eval1(Opcode::Multiply, Shape(DType::S8, {1}),
                             {hundred, three}))[0] == 44);
}

TEST_CASE("integer power", "[eval]") {
  Shape shape(DType::S32, {5});
  Literal base = s32({5}, {2, 3, -1, 2, 1});
  Literal exponent = s32({5}, {10, -1, -3, 32, -7});
  // 2^10; 3^-1 truncates to 0; (-1)^-3 = -1; 2^32 wraps to 0; 1^-7 = 1.
  CHECK(values<int32_t>(eval1(Opcode::Power, shape, {base, exponent})) ==
        std::vector<int32_t>{1024, 0, -1, 0, 1});
}

TEST_CASE("shifts by the bit width or more", "[eval]") {
  Shape shape(DType::S32, {4});
  Literal a = s32({4}, {1, -8, -8, 3});
  Literal by = s32({4}, {32, 40, 1, -1});
  CHECK(values<int32_t>(eval1(Opcode::ShiftLeft, shape, {a, by})) ==
        std::vector<int32_t>{0, 0, -16, 0});
  // Arithmetic: sign fill when too wide.
  CHECK(values<int32_t>(eval1(Opcode::ShiftRightArithmetic, shape, {a, by})) ==
        std::vector<int32_t>{0, -1, -4, 0});
  // Logical: -8 >>> 1 = 0x7ffffffc.
  CHECK(values<int32_t>(eval1(Opcode::ShiftRightLogical, shape, {a, by})) ==
        std::vector<int32_t>{0, 0, 0x7ffffffc, 0});
  Literal u = lit<uint8_t>(DType::U8, {2}, {0x80, 0x80});
  Literal amount = lit<uint8_t>(DType::U8, {2}, {8, 7});
  CHECK(values<uint8_t>(eval1(Opcode::ShiftRightLogical, Shape(DType::U8, {2}),
                              {u, amount})) == std::vector<uint8_t>{0, 1});
  // Arithmetic shift of u8 0x80 treats bit 7 as the sign: 0xff.
  CHECK(values<uint8_t>(eval1(Opcode::ShiftRightArithmetic,
                              Shape(DType::U8, {2}), {u, amount})) ==
        std::vector<uint8_t>{0xff, 0xff});
}

TEST_CASE("convert saturates floats and wraps integers", "[eval]") {
  Literal x = f32({7}, {1e10f, -1e10f, kNaN, -2.7f, 2.7f, kInf, -kInf});
  CHECK(values<int32_t>(eval1(Opcode::Convert, Shape(DType::S32, {7}), {x})) ==
        std::vector<int32_t>{kIntMax, kIntMin, 0, -2, 2, kIntMax, kIntMin});
  CHECK(values<uint8_t>(eval1(Opcode::Convert, Shape(DType::U8, {7}), {x})) ==
        std::vector<uint8_t>{255, 0, 0, 0, 2, 255, 0});
  Literal big = lit<double>(DType::F64, {2}, {9.3e18, -9.3e18});
  CHECK(values<int64_t>(eval1(Opcode::Convert, Shape(DType::S64, {2}), {big})) ==
        std::vector<int64_t>{std::numeric_limits<int64_t>::max(),
                             std::numeric_limits<int64_t>::min()});
  // f64 -> f32 overflows to infinity like IEEE rounding; just above FLT_MAX
  // (by a quarter ulp) still rounds down to FLT_MAX.
  Literal huge = lit<double>(DType::F64, {3}, {1e300, -1e300, 0x1.fffffe8p127});
  CHECK(values<float>(eval1(Opcode::Convert, Shape(DType::F32, {3}), {huge})) ==
        std::vector<float>{kInf, -kInf, std::numeric_limits<float>::max()});
  // 300 = 256 + 44, -129 = -256 + 127.
  Literal wide = s32({2}, {300, -129});
  CHECK(values<int8_t>(eval1(Opcode::Convert, Shape(DType::S8, {2}), {wide})) ==
        std::vector<int8_t>{44, 127});
  // Anything -> pred is x != 0 (NaN is != 0).
  Literal p = f32({4}, {0.0f, -0.0f, kNaN, 2.0f});
  CHECK(values<uint8_t>(eval1(Opcode::Convert, Shape(DType::Pred, {4}), {p})) ==
        std::vector<uint8_t>{0, 0, 1, 1});
  Literal flags = lit<uint8_t>(DType::Pred, {2}, {1, 0});
  CHECK(values<float>(eval1(Opcode::Convert, Shape(DType::F32, {2}),
                            {flags})) == std::vector<float>{1.0f, 0.0f});
}

TEST_CASE("f16 and bf16 round to nearest even through f32", "[eval]") {
  auto half = [](float v) { return floatToHalf(v); };
  // 1 + 2^-11 is a tie between 1 and 1 + 2^-10: even is 1.
  // 1 + 3*2^-11 ties between 1 + 2^-10 and 1 + 2^-9: even is 1 + 2^-9.
  // 60000 + 10000 exceeds the largest half (65504): +inf.
  Literal a = lit<uint16_t>(DType::F16, {3}, {half(1), half(1), half(60000)});
  Literal b = lit<uint16_t>(DType::F16, {3},
                            {half(0.00048828125f), half(0.00146484375f),
                             half(10000)});
  Literal sum = eval1(Opcode::Add, Shape(DType::F16, {3}), {a, b});
  std::vector<uint16_t> bits = values<uint16_t>(sum);
  CHECK(halfToFloat(bits[0]) == 1.0f);
  CHECK(halfToFloat(bits[1]) == 1.001953125f);
  CHECK(std::isinf(halfToFloat(bits[2])));
  // bf16 has 8 significant bits: 1 + 2^-8 ties to 1, 1 + 3*2^-8 to 1+2^-6.
  auto bf = [](float v) { return floatToBfloat16(v); };
  Literal c = lit<uint16_t>(DType::BF16, {2}, {bf(1), bf(1)});
  Literal d = lit<uint16_t>(DType::BF16, {2}, {bf(0.00390625f),
                                               bf(0.01171875f)});
  std::vector<uint16_t> bsum =
      values<uint16_t>(eval1(Opcode::Add, Shape(DType::BF16, {2}), {c, d}));
  CHECK(bfloat16ToFloat(bsum[0]) == 1.0f);
  CHECK(bfloat16ToFloat(bsum[1]) == 1.015625f);
  // f64 -> f16 must round once: 1 + 2^-11 + 2^-40 is just above the tie, so
  // 1 + 2^-10 (via f32 it would first become the tie and round to 1).
  Literal precise =
      lit<double>(DType::F64, {1}, {1.0 + std::ldexp(1.0, -11) +
                                    std::ldexp(1.0, -40)});
  Literal narrowed = eval1(Opcode::Convert, Shape(DType::F16, {1}), {precise});
  CHECK(halfToFloat(values<uint16_t>(narrowed)[0]) == 1.0009765625f);
}

TEST_CASE("maximum and minimum propagate NaN; clamp too", "[eval]") {
  Shape shape(DType::F32, {3});
  Literal a = f32({3}, {kNaN, 1.0f, 2.0f});
  Literal b = f32({3}, {1.0f, kNaN, 3.0f});
  std::vector<float> mx = values<float>(eval1(Opcode::Maximum, shape, {a, b}));
  std::vector<float> mn = values<float>(eval1(Opcode::Minimum, shape, {a, b}));
  CHECK(std::isnan(mx[0]));
  CHECK(std::isnan(mx[1]));
  CHECK(mx[2] == 3.0f);
  CHECK(std::isnan(mn[0]));
  CHECK(mn[2] == 2.0f);
  // Scalar bounds broadcast: clamp(0, x, 1).
  Literal x = f32({3}, {-5.0f, 0.5f, 7.0f});
  CHECK(values<float>(eval1(Opcode::Clamp, shape,
                            {f32({}, {0.0f}), x, f32({}, {1.0f})})) ==
        std::vector<float>{0.0f, 0.5f, 1.0f});
}

TEST_CASE("rounding opcodes", "[eval]") {
  Shape shape(DType::F32, {6});
  Literal x = f32({6}, {0.5f, 1.5f, 2.5f, -0.5f, -2.5f, 2.4f});
  CHECK(values<float>(eval1(Opcode::RoundNearestEven, shape, {x})) ==
        std::vector<float>{0.0f, 2.0f, 2.0f, -0.0f, -2.0f, 2.0f});
  CHECK(values<float>(eval1(Opcode::RoundNearestAfz, shape, {x})) ==
        std::vector<float>{1.0f, 2.0f, 3.0f, -1.0f, -3.0f, 2.0f});
}

TEST_CASE("pad with negative edges and interior padding", "[eval]") {
  Literal x = f32({5}, {1, 2, 3, 4, 5});
  Attributes attrs;
  attrs.padding = {PadDim{-1, 2, 1}};
  // Interior: 1 0 2 0 3 0 4 0 5; drop one at the front; two zeros at the end.
  CHECK(values<float>(eval1(Opcode::Pad, Shape(DType::F32, {10}),
                            {x, f32({}, {0.0f})}, attrs)) ==
        std::vector<float>{0, 2, 0, 3, 0, 4, 0, 5, 0, 0});
  attrs.padding = {PadDim{-2, -1, 0}};
  CHECK(values<float>(eval1(Opcode::Pad, Shape(DType::F32, {2}),
                            {x, f32({}, {0.0f})}, attrs)) ==
        std::vector<float>{3, 4});
}

TEST_CASE("slice with strides", "[eval]") {
  Literal x = s32({2, 5}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9});
  Attributes attrs;
  attrs.slice = {SliceDim{0, 2, 1}, SliceDim{1, 5, 3}};
  // Columns 1 and 4 of both rows.
  CHECK(values<int32_t>(eval1(Opcode::Slice, Shape(DType::S32, {2, 2}), {x},
                              attrs)) == std::vector<int32_t>{1, 4, 6, 9});
}

TEST_CASE("dynamic-slice and dynamic-update-slice clamp their starts",
          "[eval]") {
  Literal x = f32({5}, {0, 1, 2, 3, 4});
  Attributes attrs;
  attrs.sizes = {3};
  Shape three(DType::F32, {3});
  // Start 4 would read past the end: clamped to 5 - 3 = 2.
  CHECK(values<float>(eval1(Opcode::DynamicSlice, three,
                            {x, s32({}, {4})}, attrs)) ==
        std::vector<float>{2, 3, 4});
  CHECK(values<float>(eval1(Opcode::DynamicSlice, three,
                            {x, s32({}, {-3})}, attrs)) ==
        std::vector<float>{0, 1, 2});
  Literal update = f32({2}, {7, 8});
  CHECK(values<float>(eval1(Opcode::DynamicUpdateSlice, Shape(DType::F32, {5}),
                            {x, update, s32({}, {10})})) ==
        std::vector<float>{0, 1, 2, 7, 8});
}

TEST_CASE("gather rows and 2-d windows with clamping", "[eval]") {
  Literal x = f32({3, 3}, {0, 1, 2, 3, 4, 5, 6, 7, 8});
  Attributes rows;
  rows.gather.offsetDims = {1};
  rows.gather.collapsedSliceDims = {0};
  rows.gather.startIndexMap = {0};
  rows.gather.indexVectorDim = 1;
  rows.sizes = {1, 3};
  // Row 2, row 0, and row 5 clamped to row 2.
  CHECK(values<float>(eval1(Opcode::Gather, Shape(DType::F32, {3, 3}),
                            {x, s32({3, 1}, {2, 0, 5})}, rows)) ==
        std::vector<float>{6, 7, 8, 0, 1, 2, 6, 7, 8});
  Attributes windows;
  windows.gather.offsetDims = {1, 2};
  windows.gather.startIndexMap = {0, 1};
  windows.gather.indexVectorDim = 1;
  windows.sizes = {2, 2};
  // 2x2 windows at (1,1) and at (2,2) clamped to (1,1); (0,1).
  CHECK(values<float>(eval1(Opcode::Gather, Shape(DType::F32, {3, 2, 2}),
                            {x, s32({3, 2}, {1, 1, 2, 2, 0, 1})}, windows)) ==
        std::vector<float>{4, 5, 7, 8, 4, 5, 7, 8, 1, 2, 4, 5});
}

namespace {

/// A 1-d convolution in b0f_0io->b0f layout.
Attributes conv1d(ir::WindowDim window, int64_t groups = 1,
                  int64_t batchGroups = 1) {
  Attributes attrs;
  attrs.conv.inputBatch = 0;
  attrs.conv.inputSpatial = {1};
  attrs.conv.inputFeature = 2;
  attrs.conv.kernelSpatial = {0};
  attrs.conv.kernelInputFeature = 1;
  attrs.conv.kernelOutputFeature = 2;
  attrs.conv.outputBatch = 0;
  attrs.conv.outputSpatial = {1};
  attrs.conv.outputFeature = 2;
  attrs.window = {window};
  attrs.featureGroupCount = groups;
  attrs.batchGroupCount = batchGroups;
  return attrs;
}

} // namespace

TEST_CASE("convolution with feature groups and dilation", "[eval]") {
  // Feature 0 is 1 2 3 4, feature 1 is 10 20 30 40 (interleaved b0f).
  Literal x = f32({1, 4, 2}, {1, 10, 2, 20, 3, 30, 4, 40});
  // Two groups: output 0 = f0[s] + f0[s+1]; output 1 = f1[s] - f1[s+1].
  Literal k = f32({2, 1, 2}, {1, 1, 1, -1});
  ir::WindowDim w;
  w.size = 2;
  CHECK(values<float>(eval1(Opcode::Convolution, Shape(DType::F32, {1, 3, 2}),
                            {x, k}, conv1d(w, 2))) ==
        std::vector<float>{3, -10, 5, -10, 7, -10});
  // Window dilation 2: taps s and s+2.
  ir::WindowDim dilated = w;
  dilated.windowDilation = 2;
  CHECK(values<float>(eval1(Opcode::Convolution, Shape(DType::F32, {1, 2, 2}),
                            {x, k}, conv1d(dilated, 2))) ==
        std::vector<float>{4, -20, 6, -20});
  // Base dilation 2: input 1 _ 2 _ 3 _ 4, every window has one real tap.
  ir::WindowDim based = w;
  based.baseDilation = 2;
  CHECK(values<float>(eval1(Opcode::Convolution, Shape(DType::F32, {1, 6, 2}),
                            {x, k}, conv1d(based, 2))) ==
        std::vector<float>{1, 10, 2, -20, 2, 20, 3, -30, 3, 30, 4, -40});
  // Padding 1 on both sides with group 0 only: 0 1 2 3 4 0.
  ir::WindowDim padded = w;
  padded.padLow = padded.padHigh = 1;
  CHECK(values<float>(eval1(Opcode::Convolution, Shape(DType::F32, {1, 5, 2}),
                            {x, k}, conv1d(padded, 2))) ==
        std::vector<float>{1, -10, 3, -10, 5, -10, 7, -10, 4, 40});
}

TEST_CASE("convolution with batch groups", "[eval]") {
  // Batch 0 is 1 2 3, batch 1 is 4 5 6; output feature f reads batch f.
  Literal x = f32({2, 3, 1}, {1, 2, 3, 4, 5, 6});
  Literal k = f32({1, 1, 2}, {1, 10});
  ir::WindowDim w;
  w.size = 1;
  CHECK(values<float>(eval1(Opcode::Convolution, Shape(DType::F32, {1, 3, 2}),
                            {x, k}, conv1d(w, 1, 2))) ==
        std::vector<float>{1, 40, 2, 50, 3, 60});
}

TEST_CASE("dot with batch and contracting dimensions", "[eval]") {
  // Batch 0: [1 2] . [3 4]^T = 11; batch 1: [5 6] . [7 8]^T = 83.
  Literal a = f32({2, 1, 2}, {1, 2, 5, 6});
  Literal b = f32({2, 2, 1}, {3, 4, 7, 8});
  Attributes attrs;
  attrs.dot.lhsBatch = {0};
  attrs.dot.rhsBatch = {0};
  attrs.dot.lhsContracting = {2};
  attrs.dot.rhsContracting = {1};
  CHECK(values<float>(eval1(Opcode::Dot, Shape(DType::F32, {2, 1, 1}), {a, b},
                            attrs)) == std::vector<float>{11, 83});
}

TEST_CASE("reduce-window pads with the init value", "[eval]") {
  Literal x = f32({3}, {1, 2, 3});
  Attributes attrs;
  attrs.reducer = ReducerKind::Add;
  ir::WindowDim w;
  w.size = 2;
  w.padLow = w.padHigh = 1;
  attrs.window = {w};
  // Padded 0 1 2 3 0: sums of neighbours.
  CHECK(values<float>(eval1(Opcode::ReduceWindow, Shape(DType::F32, {4}),
                            {x, f32({}, {0.0f})}, attrs)) ==
        std::vector<float>{1, 3, 5, 3});
  // Base dilation 2 with max: 1 _ 2 _ 3, windows of 2 hold one element.
  attrs.reducer = ReducerKind::Max;
  w.padLow = w.padHigh = 0;
  w.baseDilation = 2;
  attrs.window = {w};
  CHECK(values<float>(eval1(Opcode::ReduceWindow, Shape(DType::F32, {4}),
                            {x, f32({}, {-kInf})}, attrs)) ==
        std::vector<float>{1, 2, 2, 3});
}

TEST_CASE("arg-max and arg-min: first tie, first NaN", "[eval]") {
  Attributes attrs;
  attrs.dimensions = {1};
  Literal x = f32({2, 5}, {1, 3, 3, kNaN, kNaN, 2, 1, 1, 0, 0});
  CHECK(values<int32_t>(eval1(Opcode::ArgMax, Shape(DType::S32, {2}), {x},
                              attrs)) == std::vector<int32_t>{3, 0});
  CHECK(values<int32_t>(eval1(Opcode::ArgMin, Shape(DType::S32, {2}), {x},
                              attrs)) == std::vector<int32_t>{3, 3});
}

TEST_CASE("sort is stable, NaN last ascending, first descending", "[eval]") {
  Literal keys = f32({5}, {3, kNaN, 1, 3, -kInf});
  Literal payload = s32({5}, {0, 1, 2, 3, 4});
  Attributes attrs;
  attrs.dimensions = {0};
  Shape tuple = Shape::tuple({keys.shape(), payload.shape()});
  auto ascending = evalModule(Opcode::Sort, tuple, {keys, payload}, attrs);
  REQUIRE(ascending.size() == 2);
  CHECK(values<int32_t>(ascending[1]) == std::vector<int32_t>{4, 2, 0, 3, 1});
  CHECK(std::isnan(values<float>(ascending[0])[4]));
  attrs.descending = true;
  auto descending = evalModule(Opcode::Sort, tuple, {keys, payload}, attrs);
  CHECK(values<int32_t>(descending[1]) == std::vector<int32_t>{1, 0, 3, 2, 4});
}

TEST_CASE("top-k breaks ties toward the lower index", "[eval]") {
  Literal x = f32({5}, {1, 5, 5, 2, 5});
  Attributes attrs;
  attrs.k = 2;
  Shape result = Shape::tuple({Shape(DType::F32, {2}), Shape(DType::S32, {2})});
  auto largest = evalModule(Opcode::TopK, result, {x}, attrs);
  CHECK(values<float>(largest[0]) == std::vector<float>{5, 5});
  CHECK(values<int32_t>(largest[1]) == std::vector<int32_t>{1, 2});
  attrs.largest = false;
  auto smallest = evalModule(Opcode::TopK, result, {x}, attrs);
  CHECK(values<float>(smallest[0]) == std::vector<float>{1, 2});
  CHECK(values<int32_t>(smallest[1]) == std::vector<int32_t>{0, 3});
}

TEST_CASE("fusion, tuple and get-tuple-element", "[eval]") {
  Module module("m");
  Shape vec(DType::F32, {2});
  Computation *fused = module.addComputation("fused");
  Instruction *p = fused->addParameter(0, vec, "p");
  fused->setRoot(fused->add(Opcode::Multiply, vec, {p, p}));
  Computation *main = module.addComputation("main");
  Instruction *x = main->addParameter(0, vec, "x");
  Instruction *square = main->add(Opcode::Fusion, vec, {x});
  square->setCalledComputation(fused);
  Instruction *pair =
      main->add(Opcode::Tuple, Shape::tuple({vec, vec}), {x, square});
  Attributes second;
  second.index = 1;
  Instruction *picked = main->add(Opcode::GetTupleElement, vec, {pair}, second);
  main->setRoot(main->add(Opcode::Tuple, Shape::tuple({vec, vec}),
                          {picked, x}));
  module.setEntry(main);
  auto results = eval::evaluateModule(module, {f32({2}, {3, -4})});
  REQUIRE(results);
  REQUIRE(results->size() == 2);
  CHECK(values<float>((*results)[0]) == std::vector<float>{9, 16});
  CHECK(values<float>((*results)[1]) == std::vector<float>{3, -4});
}

TEST_CASE("argument errors name the parameter", "[eval]") {
  Module module("m");
  Computation *main = module.addComputation("main");
  Shape shape(DType::F32, {2, 3});
  Instruction *x = main->addParameter(0, shape, "x");
  main->setRoot(main->add(Opcode::Negate, shape, {x}));
  module.setEntry(main);
  auto wrongShape = eval::evaluateModule(module, {f32({3}, {1, 2, 3})});
  REQUIRE(!wrongShape);
  CHECK(wrongShape.errorMessage() ==
        "argument 1 has shape f32[3] but parameter 'x' expects f32[2,3]");
  auto wrongCount = eval::evaluateModule(module, {});
  REQUIRE(!wrongCount);
  CHECK(wrongCount.errorMessage().find("expects 1 argument") !=
        std::string::npos);
}

TEST_CASE("unsupported instructions are errors, not crashes", "[eval]") {
  Literal ints = s32({2}, {1, 2});
  auto exp = tryEval(Opcode::Exp, Shape(DType::S32, {2}), {ints});
  REQUIRE(!exp);
  CHECK(exp.errorMessage().find("exponential") != std::string::npos);
  Attributes attrs;
  attrs.slice = {SliceDim{0, 5, 1}};
  auto slice = tryEval(Opcode::Slice, Shape(DType::S32, {5}), {ints}, attrs);
  CHECK(!slice);
  auto floats = tryEval(Opcode::And, Shape(DType::F32, {1}),
                        {f32({1}, {1}), f32({1}, {1})});
  CHECK(!floats);
}
