//===- ElementwiseLoweringTest.cpp - Shared math, reduction, norm lowerings ===//
//
// Builds HLO with the helpers of lib/Import/Common/{Elementwise,Reduction}
// Lowering, runs it on the reference evaluator and compares with values
// worked out by hand (in the comments) or computed with NumPy 1.x in float64
// (the script is quoted beside each table).
//
//===----------------------------------------------------------------------===//
#include "../../lib/Import/Common/ElementwiseLowering.h"
#include "../../lib/Import/Common/ReductionLowering.h"
#include "../../lib/Import/Common/EinsumLowering.h"

#include "kiln/Eval/Evaluator.h"
#include "kiln/Import/LiteralUtil.h"
#include "kiln/IR/Module.h"
#include "kiln/IR/Verifier.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <functional>
#include <limits>

using namespace kiln;
using namespace kiln::import;
using ir::DType;
using ir::Shape;

namespace {
constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNan = std::numeric_limits<double>::quiet_NaN();

/// One module whose entry takes the given parameters; `run` evaluates the
/// value built from them and returns its elements as doubles.
struct Harness {
  ir::Module module{"m"};
  ir::Computation *entry = nullptr;
  GraphBuilder b{*makeEntry()};
  std::vector<ir::Literal> args;
  ir::Shape resultShape;

  ir::Computation *makeEntry() {
    entry = module.addComputation("main");
    module.setEntry(entry);
    return entry;
  }
  Value param(DType dtype, std::vector<int64_t> dims,
              const std::vector<double> &values) {
    Shape shape(dtype, std::move(dims));
    args.push_back(literalFromDoubles(shape, values));
    return b.parameter(int64_t(args.size() - 1), shape,
                       "p" + std::to_string(args.size() - 1));
  }
  std::vector<double> run(Value root) {
    REQUIRE(b.ok());
    REQUIRE(root);
    resultShape = root->shape();
    entry->setRoot(root);
    REQUIRE(!ir::verifyModule(module));
    auto results = eval::evaluateModule(module, args);
    REQUIRE(results);
    return literalToDoubles(results->at(0));
  }
};

/// Applies `fn` to an f64 parameter holding `inputs`.
std::vector<double> applyTo(const std::function<Value(GraphBuilder &, Value)> &fn,
                          const std::vector<double> &inputs,
                          DType dtype = DType::F64) {
  Harness h;
  Value x = h.param(dtype, {int64_t(inputs.size())}, inputs);
  return h.run(fn(h.b, x));
}

void checkClose(const std::vector<double> &got,
                const std::vector<double> &want, double rtol = 1e-12,
                double atol = 1e-15) {
  REQUIRE(got.size() == want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    INFO("element " << i << ": got " << got[i] << ", want " << want[i]);
    if (std::isnan(want[i]))
      CHECK(std::isnan(got[i]));
    else if (std::isinf(want[i]))
      CHECK(got[i] == want[i]);
    else
      CHECK(std::fabs(got[i] - want[i]) <= atol + rtol * std::fabs(want[i]));
  }
}
} // namespace

TEST_CASE("floor division and modulo round toward -inf for ints and floats",
          "[import][elementwise]") {
  for (DType dtype : {DType::S32, DType::S8, DType::F32}) {
    Harness h;
    // 7 // 2 = 3, -7 // 2 = -4, 7 // -2 = -4, -7 // -2 = 3, 6 // -3 = -2.
    Value x = h.param(dtype, {5}, {7, -7, 7, -7, 6});
    Value y = h.param(dtype, {5}, {2, 2, -2, -2, -3});
    CHECK(h.run(floorDivide(h.b, x, y)) ==
          std::vector<double>{3, -4, -4, 3, -2});
  }
  for (DType dtype : {DType::S64, DType::F64}) {
    Harness h;
    // Python: 7 % 2 = 1, -7 % 2 = 1, 7 % -2 = -1, -7 % -2 = -1, 6 % -3 = 0.
    Value x = h.param(dtype, {5}, {7, -7, 7, -7, 6});
    Value y = h.param(dtype, {5}, {2, 2, -2, -2, -3});
    CHECK(h.run(floorRemainder(h.b, x, y)) ==
          std::vector<double>{1, 1, -1, -1, 0});
  }
  Harness h;
  // -7.5 // 2 = -4 and -7.5 % 2 = 0.5; 7.5 % -2 = -0.5.
  Value x = h.param(DType::F32, {3}, {7.5, -7.5, 7.5});
  Value y = h.param(DType::F32, {3}, {2, 2, -2});
  Value both = h.b.concatenate(
      {floorDivide(h.b, x, y), floorRemainder(h.b, x, y)}, 0);
  CHECK(h.run(both) == std::vector<double>{3, -4, -4, 1.5, 0.5, -0.5});
}

TEST_CASE("unsigned floor division is plain division", "[import][elementwise]") {
  Harness h;
  Value x = h.param(DType::U8, {2}, {250, 7});
  Value y = h.param(DType::U8, {2}, {7, 2});
  CHECK(h.run(floorDivide(h.b, x, y)) == std::vector<double>{35, 3});
}

TEST_CASE("truncating division and DivNoNan", "[import][elementwise]") {
  Harness h;
  // 7.5 / 2 = 3.75 -> 3; -7.5 / 2 = -3.75 -> -3.
  Value x = h.param(DType::F32, {3}, {7.5, -7.5, 1});
  Value y = h.param(DType::F32, {3}, {2, 2, 0});
  Value both = h.b.concatenate(
      {truncateDivide(h.b, x, y), divideNoNan(h.b, x, y)}, 0);
  CHECK(h.run(both) == std::vector<double>{3, -3, kInf, 3.75, -3.75, 0});
}

TEST_CASE("expm1 and log1p stay accurate near zero", "[import][elementwise]") {
  std::vector<double> xs = {-1e-7, 1e-7, 1e-3, 0.5, -2, 30};
  std::vector<double> wantE, wantL;
  for (double x : xs) {
    wantE.push_back(std::expm1(x));
    wantL.push_back(std::log1p(x));
  }
  // f32: exp(1e-7) rounds to 1 + 1.19e-7, so exp(x) - 1 would be 19% off.
  checkClose(applyTo(import::expm1, xs, DType::F32), wantE, 2e-7, 0);
  checkClose(applyTo(import::log1p, xs, DType::F32), wantL, 2e-7, 0);
  checkClose(applyTo(import::expm1, xs), wantE, 1e-14, 0);
  checkClose(applyTo(import::log1p, {-1, kInf, 1e-300}), {-kInf, kInf, 1e-300}, 1e-15);
  checkClose(applyTo(import::expm1, {kInf, -kInf, 1e-300}), {kInf, -1, 1e-300}, 1e-15);
}

TEST_CASE("trigonometric and hyperbolic compositions match NumPy",
          "[import][elementwise]") {
  using Fn = Value (*)(GraphBuilder &, Value);
  // np.<fn>(np.array(points)) in float64.
  struct Case {
    Fn fn;
    std::vector<double> points, expected;
  };
  std::vector<double> general = {-2.0, 1e-6, 0.5, 3.0};
  std::vector<double> unit = {-0.9, 0, 0.5, 1.0};
  const Case cases[] = {
      {tanOf, general, {2.185039863261519, 1.0000000000003333e-06, 0.5463024898437905, -0.1425465430742778}},
      {asinOf, unit, {-1.1197695149986342, 0.0, 0.5235987755982989, 1.5707963267948966}},
      {acosOf, unit, {2.6905658417935308, 1.5707963267948966, 1.0471975511965976, 0.0}},
      {atanOf, general, {-1.1071487177940904, 9.999999999996666e-07, 0.4636476090008061, 1.2490457723982544}},
      {sinhOf, general, {-3.6268604078470186, 1.0000000000001666e-06, 0.5210953054937474, 10.017874927409903}},
      {coshOf, general, {3.7621956910836314, 1.0000000000005, 1.1276259652063807, 10.067661995777764}},
      {asinhOf, general, {-1.4436354751788103, 9.999999999998333e-07, 0.48121182505960347, 1.8184464592320668}},
      {acoshOf, {1.0, 1.5, 10.0, 1e6}, {0.0, 0.9624236501192069, 2.993222846126381, 14.508657738523969}},
      {atanhOf, {-0.9, 0, 1e-6, 0.5}, {-1.4722194895832204, 0.0, 1.0000000000003333e-06, 0.5493061443340549}},
      {erfcOf, {-1, 0, 0.5, 3}, {1.842700792949715, 1.0, 0.4795001221869535, 2.2090496998585438e-05}},
  };
  for (const Case &c : cases)
    checkClose(applyTo(c.fn, c.points), c.expected, 1e-13, 1e-15);
  // Out of domain gives NaN like the C library.
  CHECK(std::isnan(applyTo(asinOf, {1.5})[0]));
  CHECK(std::isnan(applyTo(acoshOf, {0.5})[0]));
  // f16 inputs are computed in f32 and rounded once.
  checkClose(applyTo(sinhOf, {0.5}, DType::F16), {0.5210953054937474}, 1e-3);
}

TEST_CASE("classification, sign and rounding", "[import][elementwise]") {
  std::vector<double> xs = {kNan, kInf, -kInf, 0, -2.5};
  CHECK(applyTo(isNan, xs) == std::vector<double>{1, 0, 0, 0, 0});
  auto both = [](GraphBuilder &b, Value x) { return isInf(b, x); };
  CHECK(applyTo(both, xs) == std::vector<double>{0, 1, 1, 0, 0});
  auto negOnly = [](GraphBuilder &b, Value x) { return isInf(b, x, true, false); };
  CHECK(applyTo(negOnly, xs) == std::vector<double>{0, 0, 1, 0, 0});
  CHECK(applyTo(isNan, {1, 2}, DType::S32) == std::vector<double>{0, 0});
  // Half to even: 0.5 -> 0, 1.5 -> 2, 2.5 -> 2, -0.5 -> -0, -1.5 -> -2.
  CHECK(applyTo(roundHalfEven, {0.5, 1.5, 2.5, -0.5, -1.5, 2.6}, DType::F32) ==
        std::vector<double>{0, 2, 2, 0, -2, 3});
  CHECK(applyTo(signOf, {0, 7, 255}, DType::U8) == std::vector<double>{0, 1, 1});
  CHECK(applyTo(signOf, {-3, 0, 7}, DType::S32) == std::vector<double>{-1, 0, 1});
}

TEST_CASE("activations", "[import][elementwise]") {
  std::vector<double> xs = {-3, -1, 0, 1, 3, 7};
  CHECK(applyTo(relu6, xs) == std::vector<double>{0, 0, 0, 1, 3, 6});
  auto leaky = [](GraphBuilder &b, Value x) { return leakyRelu(b, x, 0.2); };
  checkClose(applyTo(leaky, xs), {-0.6, -0.2, 0, 1, 3, 7});
  // elu(-1) = e^-1 - 1; selu = 1.0507 * elu_1.6733.
  auto eluFn = [](GraphBuilder &b, Value x) { return elu(b, x, 1.0); };
  checkClose(applyTo(eluFn, {-1, 2}), {std::exp(-1.0) - 1, 2});
  auto seluFn = [](GraphBuilder &b, Value x) { return selu(b, x, 2.0, 3.0); };
  checkClose(applyTo(seluFn, {-1, 2}), {3 * 2 * (std::exp(-1.0) - 1), 6});
  // celu(-1, alpha=2) = 2 * (exp(-0.5) - 1).
  auto celuFn = [](GraphBuilder &b, Value x) { return celu(b, x, 2.0); };
  checkClose(applyTo(celuFn, {-1, 2}), {2 * (std::exp(-0.5) - 1), 2});
  // np.logaddexp(0, x): no overflow at 100, no underflow to 0 at -100.
  checkClose(applyTo(softplus, {-100, -1, 0, 1, 100}),
             {3.720075976020836e-44, 0.31326168751822286, 0.6931471805599453,
              1.3132616875182228, 100.0},
             1e-14);
  checkClose(applyTo(mish, {-3, -1, 0, 1, 3}),
             {-0.1456474612756246, -0.30340146137410895, 0.0,
              0.8650983882673103, 2.986535004967957},
             1e-14);
  // softsign(x) = x / (1 + |x|); hard sigmoid 0.2x + 0.5 clipped.
  checkClose(applyTo(softsign, {-3, 1}), {-0.75, 0.5});
  auto hs = [](GraphBuilder &b, Value x) { return hardSigmoid(b, x, 0.2, 0.5); };
  checkClose(applyTo(hs, {-5, 0, 1, 5}), {0, 0.5, 0.7, 1});
  // hard swish: x * clip(x / 6 + 0.5): -4 -> 0, 1 -> 2/3, 4 -> 4.
  checkClose(applyTo(hardSwish, {-4, 1, 4}), {0, 2.0 / 3.0, 4});
  auto thr = [](GraphBuilder &b, Value x) { return thresholdedRelu(b, x, 1.0); };
  CHECK(applyTo(thr, {0.5, 1, 2}) == std::vector<double>{0, 0, 2});
  auto shr = [](GraphBuilder &b, Value x) { return shrink(b, x, 1.5, 1.0); };
  CHECK(applyTo(shr, {-2, -1, 0, 1, 2}) == std::vector<double>{-1, 0, 0, 0, 1});
}

TEST_CASE("prelu and clip broadcast their second operands",
          "[import][elementwise]") {
  Harness h;
  Value x = h.param(DType::F32, {2, 2}, {-1, 2, -3, 4});
  Value slope = h.param(DType::F32, {2}, {0.5, 0.25});
  CHECK(h.run(preluOf(h.b, x, slope)) == std::vector<double>{-0.5, 2, -1.5, 4});
  Harness g;
  Value y = g.param(DType::S32, {4}, {-5, 0, 5, 10});
  // A lower bound above the upper one gives the upper one (NumPy's clip).
  Value lo = g.b.scalar(DType::S32, 3), hi = g.b.scalar(DType::S32, 1);
  Value both = g.b.concatenate(
      {clip(g.b, y, nullptr, g.b.scalar(DType::S32, 4)), clip(g.b, y, lo, hi)},
      0);
  CHECK(g.run(both) == std::vector<double>{-5, 0, 4, 4, 1, 1, 1, 1});
}

TEST_CASE("softmax and log-softmax subtract the maximum",
          "[import][elementwise]") {
  // x = [1000, 1001, 1002]: exp overflows without the shift.
  checkClose(applyTo([](GraphBuilder &b, Value x) { return softmax(b, x, 0); },
                   {1000, 1001, 1002}, DType::F32),
             {0.0900305732, 0.2447284711, 0.6652409558}, 1e-6);
  checkClose(applyTo([](GraphBuilder &b, Value x) { return logSoftmax(b, x, 0); },
                   {1000, 1001, 1002}),
             {-2.4076059644, -1.4076059644, -0.4076059644}, 1e-9);
  Harness h;
  Value x = h.param(DType::F32, {2, 3}, {1, 5, 5, 0, 0, -1});
  // Ties pick the first maximum.
  CHECK(h.run(hardmax(h.b, x, 1)) == std::vector<double>{0, 1, 0, 1, 0, 0});
}

TEST_CASE("reduction lowerings", "[import][reduction]") {
  auto reduce = [](DType dtype, std::vector<int64_t> dims,
                   std::vector<double> values, std::vector<int64_t> axes,
                   ReduceKind kind, bool keep = false) {
    Harness h;
    Value x = h.param(dtype, std::move(dims), values);
    auto r = h.run(reduceAxes(h.b, x, axes, kind, keep));
    return std::make_pair(r, h.resultShape);
  };
  // Integer mean truncates: (1+2)/2 = 1, (-3-2)/2 = -2.
  auto mean = reduce(DType::S32, {2, 2}, {1, 2, -3, -2}, {1}, ReduceKind::Mean);
  CHECK(mean.first == std::vector<double>{1, -2});
  auto meanKeep = reduce(DType::F32, {2, 2}, {1, 2, 3, 5}, {0}, ReduceKind::Mean, true);
  CHECK(meanKeep.first == std::vector<double>{2, 3.5});
  CHECK(meanKeep.second == Shape(DType::F32, {1, 2}));
  CHECK(reduce(DType::F32, {4}, {1, -2, 3, -4}, {0}, ReduceKind::L1).first ==
        std::vector<double>{10});
  CHECK(reduce(DType::F32, {2}, {3, 4}, {0}, ReduceKind::L2).first ==
        std::vector<double>{5});
  CHECK(reduce(DType::F32, {2}, {3, 4}, {0}, ReduceKind::SumSquare).first ==
        std::vector<double>{25});
  CHECK(reduce(DType::F32, {3}, {2, 3, 4}, {0}, ReduceKind::Prod).first ==
        std::vector<double>{24});
  CHECK(reduce(DType::Pred, {2, 2}, {1, 0, 1, 1}, {1}, ReduceKind::All).first ==
        std::vector<double>{0, 1});
  CHECK(reduce(DType::Pred, {2, 2}, {0, 0, 1, 0}, {1}, ReduceKind::Any).first ==
        std::vector<double>{0, 1});
  CHECK(reduce(DType::S32, {3}, {-5, 2, 1}, {0}, ReduceKind::Min).first ==
        std::vector<double>{-5});
  // log(e + e^2 + e^3) = 3.40760596444438; stable at 1000 and at all -inf.
  checkClose(reduce(DType::F64, {3}, {1, 2, 3}, {0}, ReduceKind::LogSumExp).first,
             {3.40760596444438}, 1e-14);
  checkClose(reduce(DType::F32, {2}, {1000, 1000}, {0}, ReduceKind::LogSumExp).first,
             {1000 + std::log(2.0)}, 1e-7);
  CHECK(reduce(DType::F32, {2}, {-kInf, -kInf}, {0}, ReduceKind::LogSumExp).first ==
        std::vector<double>{-kInf});
  checkClose(reduce(DType::F64, {2}, {1, 2}, {0}, ReduceKind::LogSum).first,
             {std::log(3.0)});
  // f16 sums accumulate in f32: 2048 + 1 + 1 is 2050, not 2048.
  CHECK(reduce(DType::F16, {3}, {2048, 1, 1}, {0}, ReduceKind::Sum).first ==
        std::vector<double>{2050});
}

TEST_CASE("arg-max/arg-min with keepdims and select_last_index",
          "[import][reduction]") {
  Harness h;
  Value x = h.param(DType::F32, {2, 4}, {1, 3, 3, 0, 2, 0, 2, 0});
  Value firstMax = argMinMax(h.b, x, 1, true, DType::S64, false);
  Value lastMax = argMinMax(h.b, x, 1, true, DType::S64, false, true);
  Value lastMin = argMinMax(h.b, x, 1, false, DType::S32, true, true);
  CHECK(lastMin->shape() == Shape(DType::S32, {2, 1}));
  Value all = h.b.concatenate({firstMax, lastMax,
                               h.b.convert(h.b.reshape(lastMin, {2}), DType::S64)},
                              0);
  CHECK(h.run(all) == std::vector<double>{1, 0, 2, 2, 3, 3});
}

TEST_CASE("cumulative sums: exclusive and reverse", "[import][reduction]") {
  auto cum = [](bool exclusive, bool reverse) {
    Harness h;
    Value x = h.param(DType::S32, {2, 4}, {1, 2, 3, 4, 10, 20, 30, 40});
    return h.run(cumulative(h.b, x, 1, exclusive, reverse));
  };
  CHECK(cum(false, false) == std::vector<double>{1, 3, 6, 10, 10, 30, 60, 100});
  CHECK(cum(true, false) == std::vector<double>{0, 1, 3, 6, 0, 10, 30, 60});
  CHECK(cum(false, true) == std::vector<double>{10, 9, 7, 4, 100, 90, 70, 40});
  CHECK(cum(true, true) == std::vector<double>{9, 7, 4, 0, 90, 70, 40, 0});
  Harness h;
  Value x = h.param(DType::F32, {4}, {1, 2, 3, 4});
  CHECK(h.run(cumulative(h.b, x, 0, false, false, ir::ReducerKind::Mul)) ==
        std::vector<double>{1, 2, 6, 24});
}

TEST_CASE("normalizations match NumPy", "[import][reduction]") {
  {
    // m = x.mean(1); v = ((x-m)**2).mean(1); (x-m)/sqrt(v+1e-5)*s + b
    Harness h;
    Value x = h.param(DType::F64, {2, 3}, {1, 2, 3, 4, 6, 8});
    Value s = h.param(DType::F64, {3}, {1, 2, 0.5});
    Value c = h.param(DType::F64, {3}, {0, 1, -1});
    LayerNormResult r = layerNormalization(h.b, x, s, c, 1, 1e-5);
    checkClose(h.run(r.y),
               {-1.2247356859, 1., -0.387632157, -1.224742575, 1., -0.3876287125},
               1e-9);
    CHECK(r.mean->shape() == Shape(DType::F64, {2, 1}));
  }
  {
    // x = np.arange(8).reshape(1,2,2,2)**2, scale [1,2], bias [0.5,-1].
    Harness h;
    Value x = h.param(DType::F32, {1, 2, 2, 2}, {0, 1, 4, 9, 16, 25, 36, 49});
    Value s = h.param(DType::F32, {2}, {1, 2});
    Value c = h.param(DType::F32, {2}, {0.5, -1});
    checkClose(h.run(instanceNormalization(h.b, x, s, c, 1e-5)),
               {-0.4999995918, -0.2142854227, 0.6428570845, 2.07142793,
                -3.5123667028, -2.0535731334, -0.2706032153, 1.8365430515},
               1e-5);
  }
  {
    // TF LRN over [1,2,3,4,5], radius 1, alpha .5, beta .75, bias 1.
    Harness h;
    Value x = h.param(DType::F32, {1, 5}, {1, 2, 3, 4, 5});
    checkClose(h.run(localResponseNormalization(h.b, x, 1, 1, 1, 0.5, 0.75, 1)),
               {0.3907949714, 0.4204482076, 0.3840364806, 0.347400133,
                0.5007732932},
               1e-6);
  }
  {
    Harness h;
    Value x = h.param(DType::F64, {2, 2}, {1, 2, 3, 7});
    checkClose(h.run(meanVarianceNormalization(h.b, x, {0})),
               {-0.999999999, -0.9999999996, 0.999999999, 0.9999999996}, 1e-9);
  }
  {
    Harness h;
    Value x = h.param(DType::F32, {2, 2}, {3, 4, -1, 1});
    checkClose(h.run(lpNormalization(h.b, x, 1, 1)),
               {3.0 / 7, 4.0 / 7, -0.5, 0.5}, 1e-7);
  }
}

TEST_CASE("normalizeAxes wraps negatives and rejects out-of-range axes",
          "[import][reduction]") {
  ir::Computation computation("c");
  GraphBuilder b(computation);
  CHECK(*normalizeAxes(b, {-1, 0, 2}, 3) == std::vector<int64_t>{0, 2});
  CHECK(!normalizeAxes(b, {3}, 3));
  CHECK(!b.ok());
}

TEST_CASE("einsum: matmul, diagonal, implicit output, ellipsis",
          "[import][reduction]") {
  {
    // [[1,2],[3,4]] @ [[5,6],[7,8]] = [[19,22],[43,50]], batched twice.
    Harness h;
    Value x = h.param(DType::F32, {2, 2, 2}, {1, 2, 3, 4, 1, 0, 0, 1});
    Value y = h.param(DType::F32, {2, 2, 2}, {5, 6, 7, 8, 5, 6, 7, 8});
    CHECK(h.run(einsum(h.b, "bij, bjk -> bik", {x, y})) ==
          std::vector<double>{19, 22, 43, 50, 5, 6, 7, 8});
  }
  {
    // Batch diagonal of [[1,2],[3,4]] and [[5,6],[7,8]].
    Harness h;
    Value x = h.param(DType::F32, {2, 2, 2}, {1, 2, 3, 4, 5, 6, 7, 8});
    Value d = einsum(h.b, "...ii->...i", {x});
    CHECK(h.run(d) == std::vector<double>{1, 4, 5, 8});
    CHECK(h.resultShape == Shape(DType::F32, {2, 2}));
  }
  {
    // Implicit output: "i,i" is the inner product 1*4 + 2*5 + 3*6 = 32;
    // "ij" alone is the identity, "ji" the transpose.
    Harness h;
    Value x = h.param(DType::F32, {3}, {1, 2, 3});
    Value y = h.param(DType::F32, {3}, {4, 5, 6});
    CHECK(h.run(einsum(h.b, "i,i", {x, y})) == std::vector<double>{32});
  }
  {
    Harness h;
    Value x = h.param(DType::F32, {2, 3}, {1, 2, 3, 4, 5, 6});
    Value t = einsum(h.b, "ij->ji", {x});
    Value s = einsum(h.b, "ij->i", {x});
    CHECK(h.run(h.b.concatenate({h.b.reshape(t, {6}), s}, 0)) ==
          std::vector<double>{1, 4, 2, 5, 3, 6, 6, 15});
  }
  {
    // Three operands: (x y) z with a summed label (trace of x y z).
    Harness h;
    Value x = h.param(DType::F64, {2, 2}, {1, 2, 3, 4});
    Value y = h.param(DType::F64, {2, 2}, {0, 1, 1, 0});
    Value z = h.param(DType::F64, {2, 2}, {2, 0, 0, 3});
    // x y = [[2,1],[4,3]]; (x y) z = [[4,3],[8,9]]; trace 13.
    CHECK(h.run(einsum(h.b, "ij,jk,ki->", {x, y, z})) == std::vector<double>{13});
  }
}

TEST_CASE("einsum broadcasts size-1 ellipsis dimensions like NumPy",
          "[import][reduction]") {
  {
    // x is one [2,2] matrix (batch 1), y two: x @ y[0] and x @ y[1].
    // [[1,2],[3,4]] @ I = x; [[1,2],[3,4]] @ [[0,1],[1,0]] = [[2,1],[4,3]].
    Harness h;
    Value x = h.param(DType::F32, {1, 2, 2}, {1, 2, 3, 4});
    Value y = h.param(DType::F32, {2, 2, 2}, {1, 0, 0, 1, 0, 1, 1, 0});
    Value r = einsum(h.b, "...ij,...jk->...ik", {x, y});
    CHECK(h.run(r) == std::vector<double>{1, 2, 3, 4, 2, 1, 4, 3});
    CHECK(h.resultShape == Shape(DType::F32, {2, 2, 2}));
  }
  {
    // Fewer ellipsis dimensions on one side align to the right: x [3]
    // against y [2,3] is a row-wise dot product: [1*1+2*2+3*3, 1*4+2*5+3*6].
    Harness h;
    Value x = h.param(DType::F32, {3}, {1, 2, 3});
    Value y = h.param(DType::F32, {2, 3}, {1, 2, 3, 4, 5, 6});
    CHECK(h.run(einsum(h.b, "...i,...i->...", {x, y})) ==
          std::vector<double>{14, 32});
  }
  {
    // A letter label with two sizes is an error, not a broadcast.
    Harness h;
    Value x = h.param(DType::F32, {1, 3}, {1, 2, 3});
    Value y = h.param(DType::F32, {2, 3}, {1, 2, 3, 4, 5, 6});
    einsum(h.b, "ij,ij->ij", {x, y});
    CHECK(!h.b.ok());
  }
}
