//===- ShapeInferenceErrorTest.cpp - Shape inference error messages -----===//
//
// One table row per distinct error of the opcode-level inferShape, each
// asserting its specific message. Structural errors are in VerifierTest.cpp.
//
//===----------------------------------------------------------------------===//
#include "kiln/IR/Verifier.h"

#include <catch2/catch.hpp>
#include <functional>
#include <set>

using namespace kiln;
using namespace kiln::ir;

namespace {

Shape f32(std::vector<int64_t> dims) { return Shape(DType::F32, dims); }
Shape s32(std::vector<int64_t> dims) { return Shape(DType::S32, dims); }
Shape pred(std::vector<int64_t> dims) { return Shape(DType::Pred, dims); }

struct BadCase {
  std::string_view what;
  Opcode opcode;
  std::vector<Shape> operands;
  std::function<void(Attributes &)> setAttrs;
  Shape declared;
  std::string_view message; // expected substring
};

void noAttrs(Attributes &) {}
auto dims(std::vector<int64_t> d) {
  return [d](Attributes &a) { a.dimensions = d; };
}

void convNhwc(Attributes &a) {
  a.conv = {0, 3, {1, 2}, 2, 3, {0, 1}, 0, 3, {1, 2}};
  a.window = {WindowDim{3, 1, 0, 0, 1, 1}, WindowDim{3, 1, 0, 0, 1, 1}};
}

void rowGather(Attributes &a) {
  a.gather.offsetDims = {1};
  a.gather.collapsedSliceDims = {0};
  a.gather.startIndexMap = {0};
  a.gather.indexVectorDim = 1;
  a.sizes = {1, 3};
}

const int64_t kHuge = int64_t(1) << 62;

// One row per distinct shape-inference error.
const std::vector<BadCase> &badCases() {
  static const std::vector<BadCase> cases = {
      {"operand count",
       Opcode::Add,
       {f32({2}), f32({2}), f32({2})},
       noAttrs,
       {},
       "expected 2 operands but found 3"},
      {"no broadcasting",
       Opcode::Add,
       {f32({2, 3}), f32({3, 2})},
       noAttrs,
       {},
       "operand 1 has dimensions [3,2] but operand 0 has [2,3]"},
      {"mixed dtypes",
       Opcode::Multiply,
       {f32({2}), s32({2})},
       noAttrs,
       {},
       "operand 1 has dtype s32 but operand 0 has dtype f32"},
      {"sqrt of int",
       Opcode::Sqrt,
       {s32({2})},
       noAttrs,
       {},
       "expected floating-point operands but found s32"},
      {"is-finite of int",
       Opcode::IsFinite,
       {s32({2})},
       noAttrs,
       {},
       "expected floating-point operands but found s32"},
      {"and of float",
       Opcode::And,
       {f32({2}), f32({2})},
       noAttrs,
       {},
       "expected pred or integer operands but found f32"},
      {"shift of pred",
       Opcode::ShiftLeft,
       {pred({2}), pred({2})},
       noAttrs,
       {},
       "expected integer operands but found pred"},
      {"add of pred",
       Opcode::Add,
       {pred({2}), pred({2})},
       noAttrs,
       {},
       "expected numeric operands but found pred"},
      {"sign of unsigned",
       Opcode::Sign,
       {Shape(DType::U8, {2})},
       noAttrs,
       {},
       "expected signed integer or floating-point operands but found u8"},
      {"tuple operand",
       Opcode::Negate,
       {Shape::tuple({f32({2})})},
       noAttrs,
       {},
       "operand 0 must be an array but has tuple shape (f32[2])"},
      {"select predicate dtype",
       Opcode::Select,
       {s32({2}), f32({2}), f32({2})},
       noAttrs,
       {},
       "predicate (operand 0) must have dtype pred but has s32"},
      {"select predicate dims",
       Opcode::Select,
       {pred({3}), f32({2}), f32({2})},
       noAttrs,
       {},
       "predicate dimensions [3] do not match on_true dimensions [2]"},
      {"select branches",
       Opcode::Select,
       {pred({2}), f32({2}), s32({2})},
       noAttrs,
       {},
       "on_true shape f32[2] does not match on_false shape s32[2]"},
      {"clamp bound dims",
       Opcode::Clamp,
       {f32({3}), f32({4}), f32({})},
       noAttrs,
       {},
       "min (operand 0) must be a scalar or have x's dimensions [4] but has "
       "[3]"},
      {"clamp bound dtype",
       Opcode::Clamp,
       {f32({}), f32({4}), s32({})},
       noAttrs,
       {},
       "max (operand 2) has dtype s32 but x has dtype f32"},
      {"broadcast order",
       Opcode::Broadcast,
       {f32({2, 2})},
       dims({1, 0}),
       f32({2, 2}),
       "broadcast dimensions [1,0] must be strictly increasing"},
      {"broadcast size",
       Opcode::Broadcast,
       {f32({3})},
       dims({1}),
       f32({3, 4}),
       "operand dimension 0 has size 3 but result dimension 1 has size 4"},
      {"broadcast dim 1000",
       Opcode::Broadcast,
       {f32({3})},
       dims({1000}),
       f32({3, 4}),
       "broadcast dimension 1000 is out of range for rank 2"},
      {"broadcast arity",
       Opcode::Broadcast,
       {f32({3})},
       dims({}),
       f32({3}),
       "broadcast dimensions [] must have one entry per operand dimension"},
      {"reshape count",
       Opcode::Reshape,
       {f32({2, 3})},
       noAttrs,
       f32({7}),
       "cannot reshape f32[2,3] (6 elements) to f32[7] (7 elements)"},
      {"transpose repeat",
       Opcode::Transpose,
       {f32({2, 3})},
       dims({0, 0}),
       {},
       "transpose dimension 0 is repeated in [0,0]"},
      {"transpose -5",
       Opcode::Transpose,
       {f32({2, 3})},
       dims({-5, 0}),
       {},
       "transpose dimension -5 is out of range for rank 2"},
      {"slice limit",
       Opcode::Slice,
       {f32({10})},
       [](Attributes &a) {
         a.slice = {{0, 11, 1}};
       },
       {},
       "slice dimension 0 [0:11] must satisfy 0 <= start <= limit <= 10"},
      {"slice stride",
       Opcode::Slice,
       {f32({10})},
       [](Attributes &a) {
         a.slice = {{0, 10, 0}};
       },
       {},
       "slice dimension 0 has stride 0; expected >= 1"},
      {"slice rank",
       Opcode::Slice,
       {f32({10, 2})},
       [](Attributes &a) {
         a.slice = {{0, 10, 1}};
       },
       {},
       "slice has 1 dimension specs but the operand has rank 2"},
      {"dynamic-slice index count",
       Opcode::DynamicSlice,
       {f32({10, 5}), s32({})},
       [](Attributes &a) {
         a.sizes = {1, 1};
       },
       {},
       "expected 2 start indices (one per operand dimension) but found 1"},
      {"dynamic-slice float index",
       Opcode::DynamicSlice,
       {f32({10}), f32({})},
       [](Attributes &a) { a.sizes = {1}; },
       {},
       "start index (operand 1) must be an integer but has dtype f32"},
      {"dynamic-slice vector index",
       Opcode::DynamicSlice,
       {f32({10}), s32({1})},
       [](Attributes &a) { a.sizes = {1}; },
       {},
       "start index (operand 1) must be a scalar but has shape s32[1]"},
      {"dynamic-slice mixed index types",
       Opcode::DynamicSlice,
       {f32({10, 5}), s32({}), Shape(DType::S64, {})},
       [](Attributes &a) {
         a.sizes = {1, 1};
       },
       {},
       "operand 2 has dtype s64 but operand 1 has dtype s32"},
      {"dynamic-slice size",
       Opcode::DynamicSlice,
       {f32({10}), s32({})},
       [](Attributes &a) { a.sizes = {11}; },
       {},
       "slice size 11 of dimension 0 must be in [0, 10]"},
      {"dynamic-update-slice update",
       Opcode::DynamicUpdateSlice,
       {f32({10, 5}), f32({2, 6}), s32({}), s32({})},
       noAttrs,
       {},
       "update dimension 1 has size 6 but the operand's has only 5"},
      {"dynamic-update-slice rank",
       Opcode::DynamicUpdateSlice,
       {f32({10, 5}), f32({2}), s32({}), s32({})},
       noAttrs,
       {},
       "update has rank 1 but the operand has rank 2"},
      {"concatenate other dims",
       Opcode::Concatenate,
       {f32({2, 3}), f32({2, 4})},
       dims({0}),
       {},
       "operand 1 has dimensions [2,4] but operand 0 has [2,3]; only "
       "concatenate dimension 0 may differ"},
      {"concatenate dim range",
       Opcode::Concatenate,
       {f32({2, 3})},
       dims({2}),
       {},
       "concatenate dimension 2 is out of range for rank 2"},
      {"concatenate no dim",
       Opcode::Concatenate,
       {f32({2, 3})},
       dims({}),
       {},
       "expected exactly one concatenate dimension but found []"},
      {"concatenate no operands",
       Opcode::Concatenate,
       {},
       dims({0}),
       {},
       "expected at least 1 operand but found 0"},
      {"concatenate overflow",
       Opcode::Concatenate,
       {pred({kHuge}), pred({kHuge})},
       dims({0}),
       {},
       "concatenated dimension size overflows int64"},
      {"pad negative size",
       Opcode::Pad,
       {f32({3}), f32({})},
       [](Attributes &a) {
         a.padding = {{-2, -2, 0}};
       },
       {},
       "padding (-2, -2, interior 0) of dimension 0 (size 3) gives a negative "
       "size"},
      {"pad interior",
       Opcode::Pad,
       {f32({3}), f32({})},
       [](Attributes &a) {
         a.padding = {{0, 0, -1}};
       },
       {},
       "interior padding -1 of dimension 0 must be >= 0"},
      {"pad value",
       Opcode::Pad,
       {f32({3}), f32({1})},
       [](Attributes &a) {
         a.padding = {{0, 0, 0}};
       },
       {},
       "padding value (operand 1) must be a scalar but has shape f32[1]"},
      {"pad overflow",
       Opcode::Pad,
       {pred({3}), pred({})},
       [](Attributes &a) {
         a.padding = {{0, 0, kHuge}};
       },
       {},
       "padded dimension 0 overflows int64"},
      {"reverse dims",
       Opcode::Reverse,
       {f32({3})},
       dims({1}),
       {},
       "reverse dimension 1 is out of range for rank 1"},
      {"gather slice size",
       Opcode::Gather,
       {f32({3, 3}), s32({2})},
       [](Attributes &a) {
         rowGather(a);
         a.sizes = {1, 4};
       },
       {},
       "slice size 4 of operand dimension 1 must be in [0, 3]"},
      {"gather collapsed size",
       Opcode::Gather,
       {f32({3, 3}), s32({2})},
       [](Attributes &a) {
         rowGather(a);
         a.sizes = {3, 3};
       },
       {},
       "collapsed slice dimension 0 has slice size 3; expected 0 or 1"},
      {"gather index_vector_dim",
       Opcode::Gather,
       {f32({3, 3}), s32({2})},
       [](Attributes &a) {
         rowGather(a);
         a.gather.indexVectorDim = 5;
       },
       {},
       "index_vector_dim 5 must be in [0, 1]"},
      {"gather start_index_map",
       Opcode::Gather,
       {f32({3, 3}), s32({2})},
       [](Attributes &a) {
         rowGather(a);
         a.gather.startIndexMap = {0, 1};
       },
       {},
       "start_index_map [0,1] must have one entry per start index (1 in "
       "the index vector)"},
      {"gather offset dims",
       Opcode::Gather,
       {f32({3, 3}), s32({2})},
       [](Attributes &a) {
         rowGather(a);
         a.gather.offsetDims = {7};
       },
       {},
       "offset_dims entry 7 is out of range for rank 2"},
      {"gather float indices",
       Opcode::Gather,
       {f32({3, 3}), f32({2})},
       rowGather,
       {},
       "start indices must be integers but have dtype f32"},
      {"reduce init",
       Opcode::Reduce,
       {f32({2, 3}), f32({2})},
       dims({0}),
       {},
       "init value (operand 1) must be a scalar but has shape f32[2]"},
      {"reduce init dtype",
       Opcode::Reduce,
       {f32({2, 3}), s32({})},
       dims({0}),
       {},
       "operand 1 has dtype s32 but operand 0 has dtype f32"},
      {"reduce and on float",
       Opcode::Reduce,
       {f32({2, 3}), f32({})},
       [](Attributes &a) {
         a.reducer = ReducerKind::And;
         a.dimensions = {0};
       },
       {},
       "reducer and does not apply to dtype f32"},
      {"reduce repeated dim",
       Opcode::Reduce,
       {f32({2, 3}), f32({})},
       dims({1, 1}),
       {},
       "reduce dimension 1 is repeated in [1,1]"},
      {"reduce-window stride",
       Opcode::ReduceWindow,
       {f32({4}), f32({})},
       [](Attributes &a) {
         a.window = {WindowDim{2, 0, 0, 0, 1, 1}};
       },
       {},
       "window dimension 0 has size 2, stride 0, base dilation 1, window "
       "dilation 1; each must be >= 1"},
      {"reduce-window rank",
       Opcode::ReduceWindow,
       {f32({4, 4}), f32({})},
       [](Attributes &a) { a.window = {WindowDim{}}; },
       {},
       "window has 1 dimensions but the operand has rank 2"},
      {"arg-max result dtype",
       Opcode::ArgMax,
       {f32({3, 4})},
       dims({1}),
       f32({3}),
       "result must be an integer index array but is declared f32[3]"},
      {"arg-min two dims",
       Opcode::ArgMin,
       {f32({3, 4})},
       dims({0, 1}),
       s32({}),
       "expected exactly one reduced dimension but found [0,1]"},
      {"dot contracting size",
       Opcode::Dot,
       {f32({2, 3}), f32({4, 5})},
       [](Attributes &a) {
         a.dot.lhsContracting = {1};
         a.dot.rhsContracting = {0};
       },
       {},
       "lhs contracting dimension 1 has size 3 but rhs contracting dimension "
       "0 has size 4"},
      {"dot batch size",
       Opcode::Dot,
       {f32({2, 3, 4}), f32({5, 4, 6})},
       [](Attributes &a) {
         a.dot.lhsBatch = {0};
         a.dot.rhsBatch = {0};
         a.dot.lhsContracting = {2};
         a.dot.rhsContracting = {1};
       },
       {},
       "lhs batch dimension 0 has size 2 but rhs batch dimension 0 has "
       "size 5"},
      {"dot contracting count",
       Opcode::Dot,
       {f32({2, 3}), f32({3, 5})},
       [](Attributes &a) {
         a.dot.lhsContracting = {1};
         a.dot.rhsContracting = {0, 1};
       },
       {},
       "lhs has 1 contracting dimensions but rhs has 2"},
      {"dot dim reused",
       Opcode::Dot,
       {f32({3, 3}), f32({3, 3})},
       [](Attributes &a) {
         a.dot.lhsBatch = {0};
         a.dot.rhsBatch = {0};
         a.dot.lhsContracting = {0};
         a.dot.rhsContracting = {1};
       },
       {},
       "lhs batch/contracting dimension 0 is repeated in [0,0]"},
      {"dot dim range",
       Opcode::Dot,
       {f32({2, 3}), f32({3, 5})},
       [](Attributes &a) {
         a.dot.lhsContracting = {-1};
         a.dot.rhsContracting = {0};
       },
       {},
       "lhs batch/contracting dimension -1 is out of range for rank 2"},
      {"conv feature groups",
       Opcode::Convolution,
       {f32({1, 5, 5, 8}), f32({3, 3, 3, 4})},
       [](Attributes &a) {
         convNhwc(a);
         a.featureGroupCount = 2;
       },
       {},
       "input feature size 8 / feature_group_count 2 must equal the kernel "
       "input feature size 3"},
      {"conv output groups",
       Opcode::Convolution,
       {f32({1, 5, 5, 8}), f32({3, 3, 4, 3})},
       [](Attributes &a) {
         convNhwc(a);
         a.featureGroupCount = 2;
       },
       {},
       "kernel output feature size 3 must be divisible by "
       "feature_group_count 2"},
      {"conv window size",
       Opcode::Convolution,
       {f32({1, 5, 5, 2}), f32({3, 3, 2, 4})},
       [](Attributes &a) {
         convNhwc(a);
         a.window[0].size = 2;
       },
       {},
       "window dimension 0 has size 2 but kernel spatial dimension 0 has "
       "size 3"},
      {"conv labels",
       Opcode::Convolution,
       {f32({1, 5, 5, 2}), f32({3, 3, 2, 4})},
       [](Attributes &a) {
         convNhwc(a);
         a.conv.inputFeature = 0;
       },
       {},
       "input dimension label 0 is repeated in [0,0,1,2]"},
      {"conv label range",
       Opcode::Convolution,
       {f32({1, 5, 5, 2}), f32({3, 3, 2, 4})},
       [](Attributes &a) {
         convNhwc(a);
         a.conv.outputSpatial = {1, 1000};
       },
       {},
       "output dimension label 1000 is out of range for rank 4"},
      {"conv rank",
       Opcode::Convolution,
       {f32({1, 5, 2}), f32({3, 3, 2, 4})},
       convNhwc,
       {},
       "window has 2 spatial dimensions, so input and kernel must have rank 4 "
       "but have ranks 3 and 4"},
      {"conv both groups",
       Opcode::Convolution,
       {f32({2, 5, 5, 4}), f32({3, 3, 2, 4})},
       [](Attributes &a) {
         convNhwc(a);
         a.featureGroupCount = 2;
         a.batchGroupCount = 2;
       },
       {},
       "cannot both exceed 1"},
      {"conv batch groups",
       Opcode::Convolution,
       {f32({3, 5, 5, 2}), f32({3, 3, 2, 4})},
       [](Attributes &a) {
         convNhwc(a);
         a.batchGroupCount = 2;
       },
       {},
       "input batch size 3 is not divisible by batch_group_count 2"},
      {"sort dims",
       Opcode::Sort,
       {f32({4}), s32({3})},
       dims({0}),
       {},
       "operand 1 has dimensions [3] but the keys (operand 0) have [4]"},
      {"sort dimension",
       Opcode::Sort,
       {f32({4})},
       dims({1}),
       {},
       "sort dimension 1 is out of range for rank 1"},
      {"top-k k",
       Opcode::TopK,
       {f32({3, 10})},
       [](Attributes &a) { a.k = 11; },
       {},
       "k = 11 must be in [0, 10]"},
      {"top-k scalar",
       Opcode::TopK,
       {f32({})},
       [](Attributes &a) { a.k = 1; },
       {},
       "operand must have rank >= 1 but is a scalar"},
      {"gte of array",
       Opcode::GetTupleElement,
       {f32({2})},
       noAttrs,
       {},
       "operand must be a tuple but has shape f32[2]"},
      {"gte index",
       Opcode::GetTupleElement,
       {Shape::tuple({f32({2}), f32({3})})},
       [](Attributes &a) { a.index = 2; },
       {},
       "tuple index 2 is out of range for a tuple of 2 elements"},
      {"fusion without callee",
       Opcode::Fusion,
       {f32({2})},
       noAttrs,
       {},
       "fusion has no called computation"},
      {"iota dimension",
       Opcode::Iota,
       {},
       dims({2}),
       s32({2, 3}),
       "iota dimension 2 is out of range for rank 2"},
      {"iota pred",
       Opcode::Iota,
       {},
       dims({0}),
       pred({2}),
       "iota must have a numeric dtype but has pred"},
      {"parameter number",
       Opcode::Parameter,
       {},
       [](Attributes &a) { a.index = -1; },
       f32({2}),
       "parameter number -1 must be >= 0"},
      {"negative dimension",
       Opcode::Parameter,
       {},
       noAttrs,
       f32({-1}),
       "declared shape f32[-1] has negative dimension -1"},
      {"byte size overflow",
       Opcode::Parameter,
       {},
       noAttrs,
       f32({kHuge, kHuge}),
       "has a byte size that overflows int64"},
      {"operand overflow",
       Opcode::Negate,
       {f32({kHuge})},
       noAttrs,
       {},
       "operand 0 f32[4611686018427387904] has a byte size that overflows"},
      {"invalid dtype",
       Opcode::Negate,
       {Shape(DType(200), {2})},
       noAttrs,
       {},
       "operand 0 has an invalid dtype (value 200)"},
      {"tuple with dims",
       Opcode::Negate,
       {Shape(DType::Tuple, {2})},
       noAttrs,
       {},
       "operand 0 is a tuple with dimensions [2]"},
      {"unknown opcode",
       Opcode(250),
       {},
       noAttrs,
       {},
       "unknown opcode (value 250)"},
  };
  return cases;
}

} // namespace

TEST_CASE("shape inference rejects inconsistent operands and attributes",
          "[verifier]") {
  std::set<std::string_view> distinct;
  for (const BadCase &bad : badCases()) {
    INFO(bad.what);
    Attributes attrs;
    bad.setAttrs(attrs);
    Expected<Shape> result =
        inferShape(bad.opcode, bad.operands, attrs, bad.declared);
    REQUIRE_FALSE(result);
    CHECK_THAT(result.errorMessage(),
               Catch::Contains(std::string(bad.message)));
    distinct.insert(bad.message);
  }
  CHECK(distinct.size() >= 25);
}
