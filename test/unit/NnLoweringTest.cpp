//===- NnLoweringTest.cpp - Conv, pool, matmul and batch-norm lowering helpers ===//
//
// Builds HLO with the shared importer helpers (lib/Import/Common/
// ConvLowering, PoolLowering, MatMulLowering), runs the reference evaluator
// and compares with values worked out independently: by hand (in the
// comments) or with the NumPy loops in test/unit/Inputs/nn_lowering_ref.py
// (direct convolution/scatter loops, np.matmul), whose printed results are
// pasted here.
//
//===----------------------------------------------------------------------===//
#include "Common/ConvLowering.h"
#include "Common/MatMulLowering.h"
#include "Common/PoolLowering.h"

#include "kiln/Eval/Evaluator.h"
#include "kiln/Import/LiteralUtil.h"
#include "kiln/IR/Module.h"
#include "kiln/IR/Verifier.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <numeric>

using namespace kiln;
using namespace kiln::import;
using ir::DType;
using ir::Opcode;
using ir::Shape;

namespace {

struct Fixture {
  ir::Module module{"m"};
  ir::Computation *entry = nullptr;
  GraphBuilder b;
  std::vector<ir::Literal> args;

  Fixture() : entry(makeEntry(module)), b(*entry) {}

  static ir::Computation *makeEntry(ir::Module &module) {
    ir::Computation *c = module.addComputation("main");
    module.setEntry(c);
    return c;
  }

  /// A parameter holding `values` when the module runs.
  Value param(std::vector<int64_t> dims, std::vector<double> values) {
    Shape shape(DType::F32, std::move(dims));
    args.push_back(literalFromDoubles(shape, values));
    return b.parameter(int64_t(args.size() - 1), shape,
                       "p" + std::to_string(args.size() - 1));
  }

  Value constant(std::vector<int64_t> dims, std::vector<double> values) {
    return b.constant(literalFromDoubles(Shape(DType::F32, std::move(dims)),
                                         values));
  }

  std::vector<double> run(Value root) {
    REQUIRE(b.ok());
    REQUIRE(root);
    entry->setRoot(root);
    REQUIRE(!ir::verifyModule(module));
    auto results = eval::evaluateModule(module, args);
    REQUIRE(results);
    return literalToDoubles(results->at(0));
  }

  size_t count(Opcode opcode) const {
    size_t n = 0;
    for (ir::Instruction *i : entry->instructions())
      n += i->opcode() == opcode;
    return n;
  }
};

std::vector<double> iota(size_t n, double start = 0, double step = 1) {
  std::vector<double> v(n);
  for (size_t i = 0; i < n; ++i)
    v[i] = start + step * double(i);
  return v;
}

/// (i % mod + offset) * scale for i in [0, n).
std::vector<double> pattern(size_t n, int64_t mod, double offset,
                            double scale = 1) {
  std::vector<double> v(n);
  for (size_t i = 0; i < n; ++i)
    v[i] = (double(int64_t(i) % mod) + offset) * scale;
  return v;
}

void checkClose(const std::vector<double> &got,
                const std::vector<double> &want) {
  REQUIRE(got.size() == want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    INFO("element " << i);
    CHECK(got[i] == Approx(want[i]).margin(1e-5));
  }
}

} // namespace

TEST_CASE("samePadding matches TF SAME and ONNX SAME_LOWER", "[import][nn]") {
  // in 5, k 3, s 2: out 3, total (3-1)*2+3-5 = 2 -> 1/1.
  CHECK(samePadding(5, 3, 2, 1, true) == std::pair<int64_t, int64_t>{1, 1});
  // in 6, k 3, s 2: out 3, total 1 -> TF puts the odd one at the end.
  CHECK(samePadding(6, 3, 2, 1, true) == std::pair<int64_t, int64_t>{0, 1});
  CHECK(samePadding(6, 3, 2, 1, false) == std::pair<int64_t, int64_t>{1, 0});
  // dilation 2 makes k 3 span 5: in 4, s 1: total 4.
  CHECK(samePadding(4, 3, 1, 2, true) == std::pair<int64_t, int64_t>{2, 2});
  // A stride larger than the kernel needs no padding.
  CHECK(samePadding(4, 1, 3, 1, true) == std::pair<int64_t, int64_t>{0, 0});
  CHECK(parseAutoPad("SAME") == AutoPad::SameUpper);
  CHECK(parseAutoPad("NOTSET") == AutoPad::Explicit);
  CHECK(!parseAutoPad("same"));
}

TEST_CASE("convChannelsLast: SAME, stride 2", "[import][nn]") {
  Fixture f;
  Value x = f.param({1, 5, 5, 1}, iota(25));
  Value k = f.constant({3, 3, 1, 1}, iota(9));
  ConvParams params;
  params.strides = {2, 2};
  params.autoPad = AutoPad::SameUpper;
  Value y = convChannelsLast(f.b, x, k, params);
  REQUIRE(y);
  CHECK(y->shape().dims() == std::vector<int64_t>{1, 3, 3, 1});
  // Corner by hand: taps x[0,0],x[0,1],x[1,0],x[1,1] = 0,1,5,6 meet kernel
  // k[1,1],k[1,2],k[2,1],k[2,2] = 4,5,7,8: 0 + 5 + 35 + 48 = 88.
  checkClose(f.run(y), {88, 175, 136, 345, 528, 345, 232, 319, 184});
}

TEST_CASE("convChannelsFirst: groups, dilation, asymmetric pads, bias",
          "[import][nn]") {
  Fixture f;
  Value x = f.param({2, 4, 5, 5}, pattern(200, 7, -3, 0.5));
  Value w = f.constant({6, 2, 2, 2}, pattern(48, 5, -2));
  Value bias = f.constant({6}, {1, -1, 0.5, 0, 2, -2});
  ConvParams params;
  params.strides = {1, 2};
  params.dilations = {2, 1};
  params.padLow = {1, 0};
  params.padHigh = {0, 2};
  params.featureGroupCount = 2;
  Value y = convChannelsFirst(f.b, x, w, bias, params);
  REQUIRE(y);
  CHECK(y->shape().dims() == std::vector<int64_t>{2, 6, 4, 3});
  // The layout contract: input and output transposes around one NHWC
  // convolution; the constant kernel's OIHW -> HWIO transpose is folded.
  CHECK(f.count(Opcode::Transpose) == 2);
  CHECK(f.count(Opcode::Convolution) == 1);
  for (ir::Instruction *i : f.entry->instructions())
    if (i->opcode() == Opcode::Convolution) {
      CHECK(i->operand(1)->opcode() == Opcode::Constant);
      CHECK(i->operand(1)->shape().dims() == std::vector<int64_t>{2, 2, 2, 6});
      CHECK(i->attrs().conv.inputFeature == 3);
    }
  checkClose(
      f.run(y),
      {3,    -0.5, -0.5, 6,    10,   -2.5, -5,   6,    5.5,  -2,   -5,   6.5,
       -5.5, 2,    3,    -5,   -7.5, 3.5,  4.5,  -5,   -4.5, -3.5, 4.5,  -5.5,
       4.5,  -2,   0,    0,    3.5,  0.5,  0,    0,    -1,   3.5,  0,    1,
       -2,   -2.5, 3,    5,    -6.5, 0.5,  6,    5,    -3,   -3.5, 6,    0.5,
       9,    5,    0.5,  -2.5, 11,   1.5,  -2,   -2.5, 6.5,  5.5,  -2,   1,
       -3.5, -3.5, -0.5, 1.5,  -5,   -6,   -6,   1.5,  -5,   -6.5, -6,   3,
       -0.5, -0.5, 2,    10,   -3.5, -3.5, 6,    10,   -2.5, -5,   6,    5.5,
       2,    6,    -4,   -7.5, 4,    4.5,  -5,   -7.5, 3.5,  4.5,  -5,   -4.5,
       -2,   -1.5, 1,    3.5,  0,    -1.5, 0,    3.5,  0.5,  0,    0,    -1,
       -2.5, 4,    0,    -6.5, -4,   0.5,  5,    -6.5, 0.5,  6,    5,    -3,
       5,    -2.5, 3.5,  11,   7,    0,    -2.5, 11,   1.5,  -2,   -2.5, 6.5,
       -3.5, 0,    -1.5, -5,   -8,   3.5,  1.5,  -5,   -6,   -6,   1.5,  -5});
}

TEST_CASE("depthwise as a grouped channels-last convolution", "[import][nn]") {
  // TF DepthwiseConv2dNative: kernel [2,2,C=2,M=2] reshaped to [2,2,1,4],
  // C groups; output channel c*M+m.
  Fixture f;
  Value x = f.param({1, 4, 4, 2}, pattern(32, 9, 0));
  Value k = f.b.reshape(f.constant({2, 2, 2, 2}, pattern(16, 4, -1)),
                        {2, 2, 1, 4});
  ConvParams params;
  params.padLow = {0, 0};
  params.padHigh = {1, 1};
  params.featureGroupCount = 2;
  Value y = convChannelsLast(f.b, x, k, params);
  checkClose(f.run(y),
             {-11, 0, 6,  12, -10, 0, 14, 28, -18, 0, 22, 44, -11, 0, 13, 26,
              -16, 0, 11, 22, -6,  0, 10, 20, -14, 0, 18, 36, -9,  0, 11, 22,
              -21, 0, 16, 32, -11, 0, 6,  12, -10, 0, 14, 28, -7,  0, 9,  18,
              -14, 0, 7,  14, -9,  0, 2,  4,  -4,  0, 6,  12, -3,  0, 4,  8});
}

TEST_CASE("convTransposeChannelsLast: input gradient of a SAME stride-2 conv",
          "[import][nn]") {
  // TF Conv2DBackpropInput(input_sizes=[1,6,6,2], filter [3,3,2,1],
  // out_backprop [1,3,3,1], strides 2, SAME): forward pads (0, 1).
  Fixture f;
  Value g = f.param({1, 3, 3, 1}, iota(9, 1));
  Value k = f.constant({3, 3, 2, 1}, iota(18, 0, 0.25));
  ConvParams params;
  params.strides = {2, 2};
  params.autoPad = AutoPad::SameUpper;
  Value y = convTransposeChannelsLast(f.b, g, k, params, {6, 6});
  REQUIRE(y);
  CHECK(y->shape().dims() == std::vector<int64_t>{1, 6, 6, 2});
  checkClose(f.run(y),
             {0,    0.25, 0.5,  0.75, 1,    1.75, 1,    1.5,  2,    3.25,
              1.5,  2.25, 1.5,  1.75, 2,    2.25, 5.5,  6.25, 4,    4.5,
              9.5,  10.75, 6,   6.75, 3,    4.25, 5.5,  6.75, 14,   17,
              9.5,  11.25, 22,  26,   13.5, 15.75, 6,   7,    8,    9,
              17.5, 19.75, 10,  11.25, 21.5, 24.25, 12, 13.5, 12,   14.75,
              17.5, 20.25, 38,  44,   21.5, 24.75, 46,  53,   25.5, 29.25,
              10.5, 12.25, 14,  15.75, 29.5, 33.25, 16, 18,   33.5, 37.75,
              18,   20.25});
}

TEST_CASE("convTransposeChannelsLast: groups and output padding",
          "[import][nn]") {
  // 1-D, 2 groups, stride 2, no padding: each group scatters its own input
  // channel with its own kernel, so by hand (kernel [1,2] for group 0 and
  // [10,20] for group 1, one output channel per group):
  //   group 0: x = 1,2 -> [1,2,0,0] + [0,0,2,4] = [1,2,2,4], then the
  //   output padding adds a zero: [1,2,2,4,0].
  //   group 1: x = 3,4 -> [30,60,40,80,0].
  Fixture f;
  Value x = f.param({1, 2, 2}, {1, 3, 2, 4}); // [N, W, C]
  // Forward kernel [K=2, Cout/g=1, Cin=2].
  Value k = f.constant({2, 1, 2}, {1, 10, 2, 20});
  ConvParams params;
  params.strides = {2};
  params.featureGroupCount = 2;
  Value y = convTransposeChannelsLast(f.b, x, k, params, {5});
  REQUIRE(y);
  CHECK(y->shape().dims() == std::vector<int64_t>{1, 5, 2});
  checkClose(f.run(y), {1, 30, 2, 60, 2, 40, 4, 80, 0, 0});
}

TEST_CASE("avgPool leaves SAME padding out of the count", "[import][nn]") {
  // 3x3 input 1..9, 2x2 window, stride 1, TF SAME pads (0, 1): the last
  // row/column average fewer elements, e.g. (3 + 6) / 2 = 4.5 and 9 / 1.
  Fixture f;
  Value x = f.param({1, 3, 3, 1}, iota(9, 1));
  ConvParams params;
  params.autoPad = AutoPad::SameUpper;
  PoolWindow w = spatialPoolWindow({1, 3, 3, 1}, true, {2, 2}, params, false);
  CHECK(w.padHigh == std::vector<int64_t>{0, 1, 1, 0});
  checkClose(f.run(avgPool(f.b, x, w, false)),
             {3, 4, 4.5, 6, 7, 7.5, 7.5, 8.5, 9});
}

TEST_CASE("avgPool counting padding (count_include_pad)", "[import][nn]") {
  // 1-D [1,2,3] channels-first, kernel 2, pads 1/1: windows [pad,1],
  // [1,2], [2,3], [3,pad], each divided by 2 -> 0.5, 1.5, 2.5, 1.5.
  Fixture f;
  Value x = f.param({1, 1, 3}, {1, 2, 3});
  ConvParams params;
  params.padLow = {1};
  params.padHigh = {1};
  PoolWindow w = spatialPoolWindow({1, 1, 3}, false, {2}, params, false);
  checkClose(f.run(avgPool(f.b, x, w, true)), {0.5, 1.5, 2.5, 1.5});
}

TEST_CASE("ceil_mode pools (ONNX's averagepool/maxpool_2d_ceil)",
          "[import][nn]") {
  // ONNX's documented examples: 4x4 input 1..16, kernel 3, stride 2,
  // ceil_mode=1 -> 2x2; average [[6, 7.5], [12, 13.5]], max [[11, 12],
  // [15, 16]].
  Fixture f;
  Value x = f.param({1, 4, 4, 1}, iota(16, 1));
  ConvParams params;
  params.strides = {2, 2};
  PoolWindow w = spatialPoolWindow({1, 4, 4, 1}, true, {3, 3}, params, true);
  CHECK(w.extraHigh == std::vector<int64_t>{0, 1, 1, 0});
  Value avg = avgPool(f.b, x, w, false);
  Value max = maxPool(f.b, x, w);
  Value both = f.b.concatenate({avg, max}, 3);
  checkClose(f.run(both), {6, 11, 7.5, 12, 12, 15, 13.5, 16});
}

TEST_CASE("ceil_mode drops a window that starts in the padding",
          "[import][nn]") {
  // in 5, kernel 2, stride 2, pads 0/1: ceil((5+1-2)/2)+1 = 3 windows start
  // at 0, 2, 4 (all inside) -> no extra; with in 4 and pads 0/1, ceil gives
  // 3 windows but the third would start at 4 = in + padLow, so it is
  // dropped and the output has 2.
  ConvParams params;
  params.strides = {2};
  params.padLow = {0};
  params.padHigh = {1};
  PoolWindow w = spatialPoolWindow({1, 1, 4}, false, {2}, params, true);
  CHECK(w.extraHigh == std::vector<int64_t>{0, 0, 0});
}

TEST_CASE("maxPool pads with -inf; lpPool with p = 2", "[import][nn]") {
  Fixture f;
  Value x = f.param({1, 1, 3}, {-4, -2, 3});
  ConvParams params;
  params.padLow = {1};
  params.padHigh = {1};
  PoolWindow w = spatialPoolWindow({1, 1, 3}, false, {2}, params, false);
  // Windows [pad,-4], [-4,-2], [-2,3], [3,pad]; the padding never wins.
  Value max = maxPool(f.b, x, w);
  // sqrt(16), sqrt(16+4), sqrt(4+9), sqrt(9).
  Value lp = lpPool(f.b, x, w, 2);
  checkClose(f.run(f.b.concatenate({max, lp}, 2)),
             {-4, -2, 3, 3, 4, std::sqrt(20.0), std::sqrt(13.0), 3});
}

TEST_CASE("batchMatMul broadcasts batch dims and promotes vectors",
          "[import][nn]") {
  SECTION("broadcast batch") {
    Fixture f;
    Value a = f.param({2, 1, 2, 3}, iota(12, -5));
    Value b = f.param({3, 3, 2}, iota(18, 0, 0.5));
    Value y = batchMatMul(f.b, a, b);
    REQUIRE(y);
    CHECK(y->shape().dims() == std::vector<int64_t>{2, 3, 2, 2});
    checkClose(f.run(y), {-10, -16, -1,  -2.5, -46, -52, -10, -11.5,
                          -82, -88, -19, -20.5, 8,  11,  17,  24.5,
                          26,  29,  62,  69.5,  44, 47,  107, 114.5});
  }
  SECTION("vector on the left") {
    Fixture f;
    Value v = f.param({3}, {1, 2, 3});
    Value b = f.param({3, 3, 2}, iota(18, 0, 0.5));
    Value y = batchMatMul(f.b, v, b);
    REQUIRE(y);
    CHECK(y->shape().dims() == std::vector<int64_t>{3, 2});
    checkClose(f.run(y), {8, 11, 26, 29, 44, 47});
  }
  SECTION("vector on the right folds the batch into rows") {
    Fixture f;
    Value a = f.param({2, 1, 2, 3}, iota(12, -5));
    Value v = f.constant({3}, {1, 2, 3});
    Value y = batchMatMul(f.b, a, v);
    REQUIRE(y);
    CHECK(y->shape().dims() == std::vector<int64_t>{2, 1, 2});
    checkClose(f.run(y), {-22, -4, 14, 32});
  }
  SECTION("adjoints") {
    // [2,3]^T @ [4,2]^T = [3,4]; by hand the first row is
    // [0*0+3*1, 0*2+3*3, 0*4+3*5, 0*6+3*7] = [3, 9, 15, 21].
    Fixture f;
    Value a = f.param({2, 3}, iota(6));
    Value b = f.param({4, 2}, iota(8));
    checkClose(f.run(batchMatMul(f.b, a, b, true, true)),
               {3, 9, 15, 21, 4, 14, 24, 34, 5, 19, 33, 47});
  }
}

TEST_CASE("matMul2d folds the transpose of a constant operand",
          "[import][nn]") {
  Fixture f;
  Value a = f.param({2, 3}, iota(6));
  Value b = f.constant({4, 3}, iota(12)); // transB: b^T is [3, 4]
  Value y = matMul2d(f.b, a, b, false, true);
  REQUIRE(y);
  CHECK(f.count(Opcode::Transpose) == 0);
  CHECK(y->operand(1)->opcode() == Opcode::Constant);
  CHECK(y->attrs().dot.rhsContracting == std::vector<int64_t>{0});
  // row 0 of a = [0,1,2]; rows of b = [0,1,2], [3,4,5], ... -> 5, 14, 23, 32.
  checkClose(f.run(y), {5, 14, 23, 32, 14, 50, 86, 122});
}

TEST_CASE("batchNormInference folds constant statistics", "[import][nn]") {
  Fixture f;
  Value x = f.param({1, 2, 2}, {1, 2, 3, 4}); // channels at dim 1
  Value scale = f.constant({2}, {2, 0.5});
  Value offset = f.constant({2}, {1, -1});
  Value mean = f.constant({2}, {1, 4});
  Value var = f.constant({2}, {3.99, 0.24});
  Value y = batchNormInference(f.b, x, scale, offset, mean, var, 0.01, 1);
  // (x - mean) / sqrt(var + 0.01) * scale + offset:
  // channel 0: (1-1)/2*2+1 = 1, (2-1)/2*2+1 = 2;
  // channel 1: (3-4)/0.5*0.5-1 = -2, (4-4)/0.5*0.5-1 = -1.
  checkClose(f.run(y), {1, 2, -2, -1});
  // Only x * a + c remains at run time.
  CHECK(f.count(Opcode::Rsqrt) == 0);
  CHECK(f.count(Opcode::Multiply) == 1);
  CHECK(f.count(Opcode::Add) == 1);
}

TEST_CASE("helpers report shape errors instead of crashing", "[import][nn]") {
  Fixture f;
  Value x = f.param({1, 4, 4, 3}, iota(48));
  Value k = f.constant({3, 3, 2, 1}, iota(18)); // 2 input channels, not 3
  CHECK(!convChannelsLast(f.b, x, k, ConvParams{}));
  CHECK(!f.b.ok());
  Fixture g;
  CHECK(!batchMatMul(g.b, g.param({2, 3}, iota(6)), g.param({2, 3}, iota(6))));
  CHECK(!g.b.ok());
}

TEST_CASE("maxPoolWithIndices: flat NCHW offsets, first maximum wins",
          "[import][nn]") {
  // Two channels of [[1, 5, 2], [4, 3, 6]] and [[7, 7, 0], [7, 0, 0]]
  // (channel 1 starts at flat offset 6), 2x2 windows, stride 1:
  //   channel 0: max 5 at (0,1) -> 1, max 6 at (1,2) -> 5;
  //   channel 1: ties of 7 at (0,0),(0,1),(1,0) -> the first, 6 + 0 = 6;
  //              then 7 at (0,1) -> 6 + 1 = 7.
  // Column-major spatial offsets are w * H + h: (0,1) -> 2, (1,2) -> 5,
  // (0,0) -> 0, (0,1) -> 2.
  for (bool columnMajor : {false, true}) {
    Fixture f;
    Value x = f.param({1, 2, 2, 3}, {1, 5, 2, 4, 3, 6, 7, 7, 0, 7, 0, 0});
    PoolWindow w = spatialPoolWindow({1, 2, 2, 3}, false, {2, 2},
                                     ConvParams{}, false);
    auto [y, indices] = maxPoolWithIndices(f.b, x, w, columnMajor);
    REQUIRE(indices);
    CHECK(indices->shape().dtype() == DType::S64);
    Value both = f.b.concatenate({f.b.convert(indices, DType::F32), y}, 3);
    std::vector<double> want =
        columnMajor ? std::vector<double>{2, 5, 5, 6, 6, 8, 7, 7}
                    : std::vector<double>{1, 5, 5, 6, 6, 7, 7, 7};
    checkClose(f.run(both), want);
  }
}

TEST_CASE("maxPoolWithIndices skips padding (ONNX precomputed_pads)",
          "[import][nn]") {
  // ONNX's maxpool_with_argmax_2d_precomputed_pads: 5x5 input 1..25,
  // kernel 5, pads 2: the first output row is 13 14 15 15 15 with indices
  // 12 13 14 14 14.
  Fixture f;
  Value x = f.param({1, 1, 5, 5}, iota(25, 1));
  ConvParams params;
  params.padLow = {2, 2};
  params.padHigh = {2, 2};
  PoolWindow w = spatialPoolWindow({1, 1, 5, 5}, false, {5, 5}, params, false);
  auto [y, indices] = maxPoolWithIndices(f.b, x, w, false);
  REQUIRE(indices);
  Value row = f.b.sliceDim(f.b.convert(indices, DType::F32), 2, 0, 1);
  Value first = f.b.sliceDim(y, 2, 0, 1);
  checkClose(f.run(f.b.concatenate({first, row}, 3)),
             {13, 14, 15, 15, 15, 12, 13, 14, 14, 14});
}
