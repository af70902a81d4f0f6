//===- ShapeInferenceTest.cpp - Result shapes of every opcode -------------===//
//
// One valid case per opcode, its expected shape worked out by hand in the
// comment beside it, plus a check that no opcode in Opcodes.def is missed.
//
//===----------------------------------------------------------------------===//
#include "kiln/IR/Verifier.h"

#include <catch2/catch.hpp>
#include <set>

using namespace kiln;
using namespace kiln::ir;

namespace {

Shape f32(std::vector<int64_t> dims) { return Shape(DType::F32, dims); }
Shape s32(std::vector<int64_t> dims) { return Shape(DType::S32, dims); }
Shape pred(std::vector<int64_t> dims) { return Shape(DType::Pred, dims); }

Attributes withDims(std::vector<int64_t> dims) {
  Attributes attrs;
  attrs.dimensions = std::move(dims);
  return attrs;
}

/// Records which opcodes have a valid case, and checks each one.
struct Cases {
  std::set<Opcode> covered;

  void expect(Opcode opcode, std::vector<Shape> operands, Attributes attrs,
              Shape declared, Shape expected,
              const Computation *called = nullptr) {
    INFO("opcode " << opcodeName(opcode));
    covered.insert(opcode);
    Expected<Shape> result =
        inferShape(opcode, operands, attrs, declared, called);
    if (!result)
      FAIL(result.errorMessage());
    CHECK(result->toString() == expected.toString());
  }
  void expectCalls(Opcode opcode, std::vector<Shape> operands,
                   std::vector<const Computation *> called, Shape expected,
                   const Attributes &attrs = Attributes()) {
    INFO("opcode " << opcodeName(opcode));
    covered.insert(opcode);
    Expected<Shape> result =
        inferShape(opcode, operands, attrs, Shape(), called);
    if (!result)
      FAIL(result.errorMessage());
    CHECK(result->toString() == expected.toString());
  }
  void expect(Opcode opcode, std::vector<Shape> operands, Attributes attrs,
              Shape expected) {
    expect(opcode, std::move(operands), std::move(attrs), Shape(), expected);
  }
};

WindowDim window(int64_t size, int64_t stride, int64_t low = 0,
                 int64_t high = 0, int64_t baseDilation = 1,
                 int64_t windowDilation = 1) {
  return WindowDim{size, stride, low, high, baseDilation, windowDilation};
}

} // namespace

static void leafAndUnaryCases(Cases &cases) {
  Attributes param;
  param.index = 0;
  cases.expect(Opcode::Parameter, {}, param, f32({2, 3}), f32({2, 3}));
  cases.expect(Opcode::Constant, {}, {}, s32({4}), s32({4}));
  cases.expect(Opcode::Iota, {}, withDims({1}), s32({4, 5}), s32({4, 5}));
  for (Opcode op :
       {Opcode::Exp, Opcode::Log, Opcode::Sqrt, Opcode::Rsqrt, Opcode::Tanh,
        Opcode::Logistic, Opcode::Erf, Opcode::Sin, Opcode::Cos, Opcode::Floor,
        Opcode::Ceil, Opcode::RoundNearestEven, Opcode::RoundNearestAfz,
        Opcode::Negate, Opcode::Sign, Opcode::Copy})
    cases.expect(op, {f32({5})}, {}, f32({5}));
  cases.expect(Opcode::Abs, {s32({3})}, {}, s32({3}));
  cases.expect(Opcode::Abs, {Shape(DType::U8, {3})}, {},
               Shape(DType::U8, {3})); // XLA: identity on unsigned
  cases.expect(Opcode::Not, {pred({2})}, {}, pred({2}));
  cases.expect(Opcode::Not, {Shape(DType::U16, {2})}, {},
               Shape(DType::U16, {2}));
  cases.expect(Opcode::IsFinite, {Shape(DType::F16, {3})}, {}, pred({3}));
  // convert takes the dtype from the declared shape, dims from the operand.
  cases.expect(Opcode::Convert, {f32({2, 3})}, {}, Shape(DType::S8, {2, 3}),
               Shape(DType::S8, {2, 3}));
  cases.expect(Opcode::Convert, {f32({2, 3})}, {}, Shape(DType::S8, {6}),
               Shape(DType::S8, {2, 3}));
}

static void binaryCases(Cases &cases) {
  for (Opcode op : {Opcode::Add, Opcode::Subtract, Opcode::Multiply,
                    Opcode::Divide, Opcode::Remainder, Opcode::Power,
                    Opcode::Maximum, Opcode::Minimum, Opcode::Atan2})
    cases.expect(op, {f32({2, 3}), f32({2, 3})}, {}, f32({2, 3}));
  cases.expect(Opcode::Power, {s32({2}), s32({2})}, {}, s32({2}));
  cases.expect(Opcode::Maximum, {pred({2}), pred({2})}, {}, pred({2}));
  for (Opcode op : {Opcode::And, Opcode::Or, Opcode::Xor})
    cases.expect(op, {pred({4}), pred({4})}, {}, pred({4}));
  Shape u32 = Shape(DType::U32, {7});
  for (Opcode op : {Opcode::ShiftLeft, Opcode::ShiftRightArithmetic,
                    Opcode::ShiftRightLogical})
    cases.expect(op, {u32, u32}, {}, u32);
  Attributes lt;
  lt.direction = ComparisonDirection::LT;
  cases.expect(Opcode::Compare, {f32({2, 3}), f32({2, 3})}, lt, pred({2, 3}));
  cases.expect(Opcode::Select, {pred({2}), s32({2}), s32({2})}, {}, s32({2}));
  cases.expect(Opcode::Clamp, {f32({}), f32({4}), f32({})}, {}, f32({4}));
  cases.expect(Opcode::Clamp, {f32({4}), f32({4}), f32({})}, {}, f32({4}));
  // Scalars are arrays of rank 0.
  cases.expect(Opcode::Add, {f32({}), f32({})}, {}, f32({}));
}

static void dataMovementCases(Cases &cases) {
  // broadcast f32[3] into result dim 1 of the declared f32[2,3].
  cases.expect(Opcode::Broadcast, {f32({3})}, withDims({1}), f32({2, 3}),
               f32({2, 3}));
  cases.expect(Opcode::Broadcast, {f32({})}, withDims({}), f32({2, 3}),
               f32({2, 3}));
  cases.expect(Opcode::Reshape, {f32({2, 3})}, {}, f32({6}), f32({6}));
  cases.expect(Opcode::Reshape, {f32({0, 3})}, {}, f32({3, 0}), f32({3, 0}));
  // result dim i = operand dim perm[i]: [4,2,3].
  cases.expect(Opcode::Transpose, {f32({2, 3, 4})}, withDims({2, 0, 1}),
               f32({4, 2, 3}));
  Attributes slice;
  // ceil((8-1)/3) = 3; ceil(5/1) = 5; ceil((4-4)/2) = 0.
  slice.slice = {{1, 8, 3}, {0, 5, 1}, {4, 4, 2}};
  cases.expect(Opcode::Slice, {f32({10, 5, 4})}, slice, f32({3, 5, 0}));
  Attributes dynamicSlice;
  dynamicSlice.sizes = {2, 5};
  cases.expect(Opcode::DynamicSlice, {f32({10, 5}), s32({}), s32({})},
               dynamicSlice, f32({2, 5}));
  cases.expect(Opcode::DynamicUpdateSlice,
               {f32({10, 5}), f32({2, 5}), s32({}), s32({})}, {}, f32({10, 5}));
  // concatenate along 0: 2 + 4 + 1 = 7.
  cases.expect(Opcode::Concatenate, {f32({2, 3}), f32({4, 3}), f32({1, 3})},
               withDims({0}), f32({7, 3}));
  Attributes pad;
  // dim 0: 1 + 2 + 3 + (3-1)*1 = 8; dim 1: -1 + 0 + 4 = 3.
  pad.padding = {{1, 2, 1}, {-1, 0, 0}};
  cases.expect(Opcode::Pad, {f32({3, 4}), f32({})}, pad, f32({8, 3}));
  cases.expect(Opcode::Reverse, {f32({2, 3})}, withDims({0, 1}), f32({2, 3}));
}

static void gatherCases(Cases &cases) {
  // XLA's row gather: operand [3,3], indices [2] (implicit index vector),
  // one row per index -> [2,3].
  Attributes rows;
  rows.gather.offsetDims = {1};
  rows.gather.collapsedSliceDims = {0};
  rows.gather.startIndexMap = {0};
  rows.gather.indexVectorDim = 1;
  rows.sizes = {1, 3};
  cases.expect(Opcode::Gather, {f32({3, 3}), s32({2})}, rows, f32({2, 3}));
  // operand [5,6,7], indices [4,2] (vector dim 1 -> batch [4]); slices
  // {1,6,3} with dim 0 collapsed -> offsets 6,3 at output dims 1,2.
  Attributes g;
  g.gather.offsetDims = {1, 2};
  g.gather.collapsedSliceDims = {0};
  g.gather.startIndexMap = {0, 2};
  g.gather.indexVectorDim = 1;
  g.sizes = {1, 6, 3};
  cases.expect(Opcode::Gather, {f32({5, 6, 7}), s32({4, 2})}, g,
               f32({4, 6, 3}));
  // Offsets at output dims 0 and 2, the batch dim in between: [6,4,3].
  g.gather.offsetDims = {0, 2};
  cases.expect(Opcode::Gather, {f32({5, 6, 7}), s32({4, 2})}, g,
               f32({6, 4, 3}));
  // Index vector dim first: indices [2,4,5] -> batch dims [4,5]; no
  // collapsed dims so every slice dim is an offset dim: [4,5,1,6,3].
  Attributes first;
  first.gather.offsetDims = {2, 3, 4};
  first.gather.startIndexMap = {0, 2};
  first.gather.indexVectorDim = 0;
  first.sizes = {1, 6, 3};
  cases.expect(Opcode::Gather, {f32({5, 6, 7}), s32({2, 4, 5})}, first,
               f32({4, 5, 1, 6, 3}));
}

static void reductionCases(Cases &cases) {
  Attributes reduce = withDims({0, 2});
  cases.expect(Opcode::Reduce, {f32({2, 3, 4}), f32({})}, reduce, f32({3}));
  reduce = withDims({});
  reduce.reducer = ReducerKind::And;
  cases.expect(Opcode::Reduce, {pred({2}), pred({})}, reduce, pred({2}));
  Attributes rw;
  rw.reducer = ReducerKind::Max;
  // dim 0: (4-2)/2+1 = 2; dim 1: padded 6+2 = 8, (8-3)/1+1 = 6.
  rw.window = {window(2, 2), window(3, 1, 1, 1)};
  cases.expect(Opcode::ReduceWindow, {f32({4, 6}), f32({})}, rw, f32({2, 6}));
  // base dilation 2 of 5 -> 9; window 3 dilated by 2 -> 5; (9-5)/2+1 = 3.
  // A window larger than the padded input gives 0 (XLA's StridedBound).
  rw.window = {window(3, 2, 0, 0, 2, 2), window(5, 1)};
  cases.expect(Opcode::ReduceWindow, {f32({5, 4}), f32({})}, rw, f32({3, 0}));
  // Negative padding that empties the input also gives 0.
  rw.window = {window(1, 1, -2, -2)};
  cases.expect(Opcode::ReduceWindow, {f32({3}), f32({})}, rw, f32({0}));
  cases.expect(Opcode::ArgMax, {f32({3, 4})}, withDims({1}), s32({9}),
               s32({3}));
  cases.expect(Opcode::ArgMin, {f32({3, 4})}, withDims({0}),
               Shape(DType::S64, {}), Shape(DType::S64, {4}));
}

static void contractionCases(Cases &cases) {
  Attributes matmul;
  matmul.dot.lhsContracting = {1};
  matmul.dot.rhsContracting = {0};
  cases.expect(Opcode::Dot, {f32({2, 3}), f32({3, 5})}, matmul, f32({2, 5}));
  // Batch [8] first, then lhs free [2], then rhs free [5].
  Attributes batched;
  batched.dot.lhsBatch = {0};
  batched.dot.rhsBatch = {0};
  batched.dot.lhsContracting = {2};
  batched.dot.rhsContracting = {1};
  cases.expect(Opcode::Dot, {f32({8, 2, 3}), f32({8, 3, 5})}, batched,
               f32({8, 2, 5}));
  // Free dims keep their order; rhs batch at dim 2: [4] + [2] + [5,6].
  Attributes mixed;
  mixed.dot.lhsBatch = {1};
  mixed.dot.rhsBatch = {2};
  mixed.dot.lhsContracting = {2};
  mixed.dot.rhsContracting = {0};
  cases.expect(Opcode::Dot, {f32({2, 4, 3}), f32({3, 5, 4, 6})}, mixed,
               f32({4, 2, 5, 6}));

  // NHWC input [1,5,5,2], HWIO kernel [3,3,2,4], 3x3 window with padding 1
  // keeps 5x5: (5+2-3)/1+1 = 5 -> [1,5,5,4].
  Attributes conv;
  conv.conv = {0, 3, {1, 2}, 2, 3, {0, 1}, 0, 3, {1, 2}};
  conv.window = {window(3, 1, 1, 1), window(3, 1, 1, 1)};
  cases.expect(Opcode::Convolution, {f32({1, 5, 5, 2}), f32({3, 3, 2, 4})},
               conv, f32({1, 5, 5, 4}));
  // NCHW [2,8,7,7], OIHW kernel [6,4,3,3], 2 feature groups (8/2 = 4 input
  // features per group), stride 2: (7-3)/2+1 = 3 -> [2,6,3,3].
  Attributes grouped;
  grouped.conv = {0, 1, {2, 3}, 1, 0, {2, 3}, 0, 1, {2, 3}};
  grouped.window = {window(3, 2), window(3, 2)};
  grouped.featureGroupCount = 2;
  cases.expect(Opcode::Convolution, {f32({2, 8, 7, 7}), f32({6, 4, 3, 3})},
               grouped, f32({2, 6, 3, 3}));
  // batch_group_count 2: batch 4/2 = 2, kernel outputs 6 (divisible by 2).
  grouped.featureGroupCount = 1;
  grouped.batchGroupCount = 2;
  cases.expect(Opcode::Convolution, {f32({4, 4, 7, 7}), f32({6, 4, 3, 3})},
               grouped, f32({2, 6, 3, 3}));
}

static void structureCases(Cases &cases) {
  cases.expect(Opcode::Sort, {f32({3, 4})}, withDims({1}), f32({3, 4}));
  cases.expect(Opcode::Sort, {f32({3, 4}), s32({3, 4})}, withDims({0}),
               Shape::tuple({f32({3, 4}), s32({3, 4})}));
  Attributes topK;
  topK.k = 4;
  cases.expect(Opcode::TopK, {Shape(DType::F16, {3, 10})}, topK,
               Shape::tuple({Shape(DType::F16, {3, 4}), s32({3, 4})}));
  cases.expect(Opcode::Tuple, {f32({2}), s32({})}, {},
               Shape::tuple({f32({2}), s32({})}));
  cases.expect(Opcode::Tuple, {}, {}, Shape::tuple({}));
  Attributes gte;
  gte.index = 1;
  cases.expect(Opcode::GetTupleElement, {Shape::tuple({f32({2}), s32({})})},
               gte, s32({}));

  Module module("m");
  Computation *callee = module.addComputation("fused");
  Instruction *p0 = callee->addParameter(0, f32({2}));
  Instruction *p1 = callee->addParameter(1, f32({2}));
  callee->setRoot(callee->add(Opcode::Compare, pred({2}), {p0, p1}));
  cases.expect(Opcode::Fusion, {f32({2}), f32({2})}, {}, Shape(), pred({2}),
               callee);
  cases.expectCalls(Opcode::Call, {f32({2}), f32({2})}, {callee}, pred({2}));

  // map and reduce with to_apply apply a computation of scalars.
  Computation *scalarMax = module.addComputation("scalar_max");
  Instruction *sa = scalarMax->addParameter(0, f32({}));
  Instruction *sb = scalarMax->addParameter(1, f32({}));
  scalarMax->setRoot(scalarMax->add(Opcode::Maximum, f32({}), {sa, sb}));
  cases.expect(Opcode::Map, {f32({2, 3}), f32({2, 3})}, withDims({0, 1}),
               Shape(), f32({2, 3}), scalarMax);
  cases.expect(Opcode::Reduce, {f32({2, 3}), f32({})}, withDims({1}), Shape(),
               f32({2}), scalarMax);
  Attributes pool;
  pool.window = {window(2, 2), window(2, 2)};
  cases.expect(Opcode::ReduceWindow, {f32({4, 6}), f32({})}, pool, Shape(),
               f32({2, 3}), scalarMax);

  // sort's comparator and select-and-scatter's select: (f32, f32) -> pred.
  Computation *scalarLess = module.addComputation("scalar_less");
  Instruction *la = scalarLess->addParameter(0, f32({}));
  Instruction *lb = scalarLess->addParameter(1, f32({}));
  Attributes less;
  less.direction = ComparisonDirection::LT;
  scalarLess->setRoot(scalarLess->add(Opcode::Compare, pred({}), {la, lb}, less));
  cases.expect(Opcode::Sort, {f32({3, 4})}, withDims({1}), Shape(),
               f32({3, 4}), scalarLess);
  cases.expectCalls(Opcode::SelectAndScatter,
                    {f32({4, 6}), f32({2, 3}), f32({})},
                    {scalarLess, scalarMax}, f32({4, 6}), pool);

  // A loop over (s32[], f32[2]): condition i < 3, body the identity.
  Shape state = Shape::tuple({s32({}), f32({2})});
  Computation *condition = module.addComputation("condition");
  Instruction *cs = condition->addParameter(0, state);
  Attributes first;
  first.index = 0;
  Instruction *ci = condition->add(Opcode::GetTupleElement, s32({}), {cs}, first);
  Instruction *three = condition->addConstant(Literal::fromValues<int32_t>(s32({}), {3}));
  Attributes lt;
  lt.direction = ComparisonDirection::LT;
  condition->setRoot(condition->add(Opcode::Compare, pred({}), {ci, three}, lt));
  Computation *body = module.addComputation("body");
  body->setRoot(body->addParameter(0, state));
  cases.expectCalls(Opcode::While, {state}, {condition, body}, state);

  Computation *negate = module.addComputation("negate");
  negate->setRoot(negate->add(Opcode::Negate, f32({2}),
                              {negate->addParameter(0, f32({2}))}));
  cases.expectCalls(Opcode::Conditional, {pred({}), f32({2}), f32({2})},
                    {negate, negate}, f32({2}));
  cases.expectCalls(Opcode::Conditional, {s32({}), f32({2})}, {negate},
                    f32({2}));
}

static void bitsAndRandomCases(Cases &cases) {
  Shape u8x44(DType::U8, {4, 4});
  // Equal widths keep the dims; f32 -> u8 appends 4 bytes; u8[4,4] -> f32
  // consumes the minor 4; f64[] -> s32 appends 2; f16[3,2] -> f32[3].
  cases.expect(Opcode::BitcastConvert, {f32({2, 3})}, {}, s32({2, 3}),
               s32({2, 3}));
  cases.expect(Opcode::BitcastConvert, {f32({4})}, {}, u8x44, u8x44);
  cases.expect(Opcode::BitcastConvert, {u8x44}, {}, f32({4}), f32({4}));
  cases.expect(Opcode::BitcastConvert, {Shape(DType::F64, {})}, {}, s32({2}),
               s32({2}));
  cases.expect(Opcode::BitcastConvert, {Shape(DType::F16, {3, 2})}, {},
               f32({3}), f32({3}));
  Attributes bf16Like;
  bf16Like.exponentBits = 8;
  bf16Like.mantissaBits = 7;
  cases.expect(Opcode::ReducePrecision, {f32({2, 5})}, bf16Like, f32({2, 5}));
  bf16Like.mantissaBits = 0; // zero mantissa bits is allowed
  cases.expect(Opcode::ReducePrecision, {Shape(DType::F16, {3})}, bf16Like,
               Shape(DType::F16, {3}));
  // rng takes its shape from the declaration, its dtype from a and b.
  Attributes normal;
  normal.distribution = RngDistribution::Normal;
  cases.expect(Opcode::Rng, {f32({}), f32({})}, {}, f32({3, 7}), f32({3, 7}));
  cases.expect(Opcode::Rng, {Shape(DType::F64, {}), Shape(DType::F64, {})},
               normal, Shape(DType::F64, {5}), Shape(DType::F64, {5}));
}

/// A scalar combiner of `dtypes` (current values, then updates) returning
/// the updates: a scalar for one operand, a tuple for more.
static Computation *scatterCombiner(Module &module, std::vector<DType> dtypes) {
  Computation *combiner =
      module.addComputation("combine" + std::to_string(dtypes.size()));
  std::vector<Instruction *> updates;
  std::vector<Shape> shapes;
  for (size_t p = 0; p < 2 * dtypes.size(); ++p) {
    Instruction *param = combiner->addParameter(
        int64_t(p), Shape(dtypes[p % dtypes.size()], {}));
    if (p >= dtypes.size()) {
      updates.push_back(param);
      shapes.push_back(param->shape());
    }
  }
  combiner->setRoot(
      updates.size() == 1
          ? updates[0]
          : combiner->add(Opcode::Tuple, Shape::tuple(shapes), updates));
  return combiner;
}

static void scatterCases(Cases &cases, Module &module) {
  // Rows of f32[5,3] at s32[4,1] indices.
  Attributes rows;
  rows.scatter.updateWindowDims = {1};
  rows.scatter.insertedWindowDims = {0};
  rows.scatter.scatterDimsToOperandDims = {0};
  rows.scatter.indexVectorDim = 1;
  Computation *one = scatterCombiner(module, {DType::F32});
  cases.expect(Opcode::Scatter, {f32({5, 3}), s32({4, 1}), f32({4, 3})}, rows,
               Shape(), f32({5, 3}), one);
  // Implicit index vector, narrower windows than the operand.
  rows.scatter.indexVectorDim = 1;
  cases.expect(Opcode::Scatter, {f32({5, 3}), s32({4}), f32({4, 2})}, rows,
               Shape(), f32({5, 3}), one);
  // Two operands give a tuple; batching dim 0 pairs with indices dim 0.
  Attributes batched;
  batched.scatter.updateWindowDims = {2};
  batched.scatter.insertedWindowDims = {1};
  batched.scatter.scatterDimsToOperandDims = {1};
  batched.scatter.inputBatchingDims = {0};
  batched.scatter.scatterIndicesBatchingDims = {0};
  batched.scatter.indexVectorDim = 2;
  Computation *two = scatterCombiner(module, {DType::F32, DType::S32});
  cases.expect(Opcode::Scatter,
               {f32({2, 4, 3}), s32({2, 4, 3}), s32({2, 5, 1}), f32({2, 5, 3}),
                s32({2, 5, 3})},
               batched, Shape(), Shape::tuple({f32({2, 4, 3}), s32({2, 4, 3})}),
               two);
}

TEST_CASE("scatter", "[shape-inference]") {
  Cases cases;
  Module module("m");
  scatterCases(cases, module);
}

TEST_CASE("leaves, unary and convert", "[shape-inference]") {
  Cases cases;
  leafAndUnaryCases(cases);
}

TEST_CASE("binary and ternary elementwise", "[shape-inference]") {
  Cases cases;
  binaryCases(cases);
}

TEST_CASE("data movement", "[shape-inference]") {
  Cases cases;
  dataMovementCases(cases);
}

TEST_CASE("gather", "[shape-inference]") {
  Cases cases;
  gatherCases(cases);
}

TEST_CASE("reductions", "[shape-inference]") {
  Cases cases;
  reductionCases(cases);
}

TEST_CASE("contractions", "[shape-inference]") {
  Cases cases;
  contractionCases(cases);
}

TEST_CASE("ordering and structure", "[shape-inference]") {
  Cases cases;
  structureCases(cases);
}

TEST_CASE("bitcast-convert, reduce-precision and rng", "[shape-inference]") {
  Cases cases;
  bitsAndRandomCases(cases);
}

/// The error inferShape gives for a case that must be rejected.
static std::string rejection(Opcode opcode, std::vector<Shape> operands,
                             Attributes attrs, Shape declared) {
  Expected<Shape> result = inferShape(opcode, operands, attrs, declared);
  return result ? "accepted as " + result->toString() : result.errorMessage();
}

TEST_CASE("bitcast-convert, reduce-precision and rng reject misuse",
          "[shape-inference]") {
  using Catch::Contains;
  Shape u8x43(DType::U8, {4, 3});
  CHECK_THAT(rejection(Opcode::BitcastConvert, {u8x43}, {}, f32({4})),
             Contains("needs a last dimension of 4 (the width ratio) but the "
                      "operand has shape u8[4,3]"));
  CHECK_THAT(rejection(Opcode::BitcastConvert, {Shape(DType::U8, {})}, {},
                       Shape(DType::U16, {})),
             Contains("needs a last dimension of 2"));
  CHECK_THAT(
      rejection(Opcode::BitcastConvert, {pred({4})}, {}, Shape(DType::U8, {4})),
      Contains("expected numeric operands but found pred"));
  CHECK_THAT(
      rejection(Opcode::BitcastConvert, {Shape(DType::U8, {4})}, {}, pred({4})),
      Contains("must produce a numeric dtype but declares pred"));
  Attributes bits;
  bits.exponentBits = 0;
  bits.mantissaBits = 3;
  CHECK_THAT(rejection(Opcode::ReducePrecision, {f32({2})}, bits, Shape()),
             Contains("exponent_bits must be at least 1 but is 0"));
  bits.exponentBits = 5;
  bits.mantissaBits = -1;
  CHECK_THAT(rejection(Opcode::ReducePrecision, {f32({2})}, bits, Shape()),
             Contains("mantissa_bits must be at least 0 but is -1"));
  bits.mantissaBits = 2;
  CHECK_THAT(rejection(Opcode::ReducePrecision, {s32({2})}, bits, Shape()),
             Contains("expected floating-point operands but found s32"));
  CHECK_THAT(rejection(Opcode::Rng, {s32({}), s32({})}, {}, s32({3})),
             Contains("expected floating-point operands but found s32"));
  CHECK_THAT(rejection(Opcode::Rng, {f32({2}), f32({})}, {}, f32({3})),
             Contains("a (operand 0) must be a scalar but has shape f32[2]"));
  CHECK_THAT(
      rejection(Opcode::Rng, {f32({}), Shape(DType::F64, {})}, {}, f32({3})),
      Contains("operand 1 has dtype f64 but operand 0 has dtype f32"));
  CHECK_THAT(
      rejection(Opcode::Rng, {f32({}), f32({})}, {}, Shape(DType::F16, {3})),
      Contains("rng declares dtype f16 but its operands have dtype f32"));
}

TEST_CASE("every opcode has a valid shape-inference case",
          "[shape-inference]") {
  // Fails when an opcode is added to Opcodes.def without a case above.
  Cases cases;
  leafAndUnaryCases(cases);
  binaryCases(cases);
  dataMovementCases(cases);
  gatherCases(cases);
  reductionCases(cases);
  contractionCases(cases);
  structureCases(cases);
  bitsAndRandomCases(cases);
  Module module("m");
  scatterCases(cases, module);
  for (Opcode opcode : kAllOpcodes) {
    INFO(opcodeName(opcode));
    CHECK(cases.covered.count(opcode) == 1);
  }
}

TEST_CASE("instruction-level inferShape uses the operands",
          "[shape-inference]") {
  Module module("m");
  Computation *main = module.addComputation("main");
  Instruction *x = main->addParameter(0, f32({2, 3}), "x");
  Instruction *y = main->addParameter(1, f32({3, 4}), "y");
  Attributes attrs;
  attrs.dot.lhsContracting = {1};
  attrs.dot.rhsContracting = {0};
  // Declared wrong on purpose: inference ignores the declared dims of dot.
  Instruction *d = main->add(Opcode::Dot, f32({9}), {x, y}, attrs, "d");
  Expected<Shape> shape = inferShape(*d);
  REQUIRE(shape);
  CHECK(shape->toString() == "f32[2,4]");

  Instruction *c = main->addConstant(
      Literal::fromValues<float>(f32({2}), {1.0f, 2.0f}), "c");
  Expected<Shape> constant = inferShape(*c);
  REQUIRE(constant);
  CHECK(*constant == f32({2}));
}

namespace {

/// Deterministic garbage: small shapes and attribute values chosen to hit
/// every boundary (negative, zero, out of range, near-overflow).
class Garbage {
public:
  explicit Garbage(uint64_t seed) : state_(seed) {}
  uint64_t next() {
    state_ = state_ * 6364136223846793005ULL + 1442695040888963407ULL;
    return state_ >> 33;
  }
  int64_t value() {
    static const int64_t kValues[] = {
        -5, -1, 0, 1, 2, 3, 4, 1000, INT64_MAX, INT64_MIN, int64_t(1) << 40};
    return kValues[next() % std::size(kValues)];
  }
  std::vector<int64_t> values() {
    std::vector<int64_t> result(next() % 5);
    for (int64_t &v : result)
      v = next() % 3 ? int64_t(next() % 4) : value();
    return result;
  }
  Shape shape() {
    if (next() % 10 == 0)
      return Shape::tuple({shape(0), shape(0)});
    return shape(0);
  }
  Shape shape(int) {
    std::vector<int64_t> dims(next() % 4);
    for (int64_t &d : dims)
      d = int64_t(next() % 5);
    return Shape(kAllArrayDTypes[next() % std::size(kAllArrayDTypes)], dims);
  }
  WindowDim window() {
    return {value(), value(), value(), value(), value(), value()};
  }
  Attributes attrs() {
    Attributes a;
    a.dimensions = values();
    a.sizes = values();
    for (size_t i = next() % 4; i-- > 0;)
      a.slice.push_back({value(), value(), value()});
    for (size_t i = next() % 4; i-- > 0;)
      a.padding.push_back({value(), value(), value()});
    for (size_t i = next() % 4; i-- > 0;)
      a.window.push_back(next() % 2 ? window() : WindowDim{});
    a.dot = {values(), values(), values(), values()};
    a.conv = {value() % 4, value() % 4, values(),    value() % 4, value() % 4,
              values(),    value() % 4, value() % 4, values()};
    a.featureGroupCount = value();
    a.batchGroupCount = value();
    a.gather = {values(), values(), values(), int64_t(next() % 4)};
    a.reducer = ReducerKind(next() % 8); // includes invalid enumerators
    a.index = value();
    a.k = value();
    return a;
  }

private:
  uint64_t state_;
};

} // namespace

TEST_CASE("garbage operands and attributes give errors, never crashes",
          "[shape-inference]") {
  // Run under -DKILN_SANITIZE=ON to turn any out-of-bounds read or signed
  // overflow into a failure.
  Module module("m");
  Computation *callee = module.addComputation("fused");
  callee->setRoot(callee->addParameter(0, f32({2})));
  Garbage garbage(42);
  int successes = 0;
  for (int iteration = 0; iteration < 20000; ++iteration) {
    Opcode opcode = kAllOpcodes[garbage.next() % std::size(kAllOpcodes)];
    int arity = opcodeArity(opcode);
    size_t count =
        arity >= 0 && garbage.next() % 4 ? size_t(arity) : garbage.next() % 5;
    std::vector<Shape> operands;
    for (size_t i = 0; i < count; ++i)
      operands.push_back(garbage.shape());
    Expected<Shape> result =
        inferShape(opcode, operands, garbage.attrs(), garbage.shape(),
                   garbage.next() % 2 ? callee : nullptr);
    if (result)
      ++successes;
    else
      CHECK_FALSE(result.errorMessage().empty());
  }
  // Some random inputs are valid (e.g. unary ops on any float shape).
  CHECK(successes > 0);
}
