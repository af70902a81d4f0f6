//===- SelectionLoweringTest.cpp - NMS, Where and NonZero lowerings -------===//
//
// The data-dependent selections (Common/SelectionLowering.h) through the TF
// and ONNX op lowerings, evaluated with the reference evaluator: the padded
// result, its run-time count and what the builder's dynamic table records.
// Expected values come from TensorFlow.js 4.22.0 (tfjs-backend-cpu:
// tf.whereAsync, tf.image.nonMaxSuppressionAsync / WithScoreAsync, run on
// the same inputs, restricted to the valid rows for a dynamic input) and
// from ONNX's backend test data (libonnx-testdata); the padding rows after
// the count are zero by kiln's contract. The tf-ops and ONNX conformance
// suites cover the same ops compiled, on x86-64 and AArch64.
//
//===----------------------------------------------------------------------===//
#include "ArrayLoweringTestUtil.h"

#include <cmath>

using namespace kiln;
using namespace kiln::import;
using namespace kiln::import::testing;
using ir::DType;
using ir::Shape;

namespace {
/// The run-time count recorded for dim `dim` of `v`, evaluated.
int64_t countOf(Graph &g, Value v, int64_t dim) {
  const DynamicDim *d = g.b.dynamic().dim(v, dim);
  REQUIRE(d);
  auto [dims, values] = g.run(d->size);
  REQUIRE(values.size() == 1);
  return int64_t(values[0]);
}

/// A run-time s32 scalar holding `value` whose form is a fresh symbol in
/// [0, hi] (as a Shape-derived size would have).
Value boundedScalar(Graph &g, int64_t value, int64_t hi) {
  Value v = g.param(Shape(DType::S32, {}), {double(value)});
  g.b.dynamic().setForms(v, {g.b.dynamic().newSymbol(0, hi, "size")});
  return v;
}

const std::vector<double> kBoxes = {0, 0,   1, 1,    0, 0.1,  1, 1.1,
                                    1, 1,   0, 0,    0, 10,   1, 11,
                                    0, 10.1, 1, 11.1, 0, 100, 1, 101};
const std::vector<double> kScores = {0.6, 0.75, 0.9, 0.95, 0.5, 0.99};
} // namespace

TEST_CASE("TF Where: coordinates in row-major order, padded at numel "
          "(TF.js)",
          "[import][selection]") {
  Graph g;
  Value x = g.param(Shape(DType::F32, {2, 3}), {0, 1.5, 0, -2, 0, NAN});
  Value w = lowerTf(g, "Where", {x}).at(0);
  auto [dims, values] = g.run(w);
  CHECK(dims == Dims{6, 2});
  // TF.js: [[0,1],[1,0],[1,2]] (NaN is nonzero), then zero padding.
  CHECK(values == Values{0, 1, 1, 0, 1, 2, 0, 0, 0, 0, 0, 0});
  CHECK(countOf(g, w, 0) == 3);
  const DynamicDim *d = g.b.dynamic().dim(w, 0);
  CHECK(g.b.dynamic().upperBound(d->form) == 6);
  const std::vector<SizeForm> *forms = g.b.dynamic().forms(d->size);
  REQUIRE(forms);
  CHECK((*forms)[0] == d->form);
}

TEST_CASE("TF Where: elements past a dynamic dim's run-time size are false "
          "(TF.js on the valid rows)",
          "[import][selection]") {
  Graph g;
  Value x = g.param(Shape(DType::F32, {3, 2}), {1, 0, 0, 2, 5, 5});
  g.b.dynamic().setDim(x, 0, {g.param(Shape(DType::S32, {}), {2}),
                              g.b.dynamic().newSymbol(0, 3, "rows")});
  Value w = lowerTf(g, "Where", {x}).at(0);
  auto [dims, values] = g.run(w);
  CHECK(dims == Dims{6, 2});
  CHECK(values == Values{0, 0, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0});
  CHECK(countOf(g, w, 0) == 2);
}

TEST_CASE("ONNX NonZero: [rank, numel] with dim 1 counted (ONNX "
          "test_nonzero_example)",
          "[import][selection]") {
  Graph g;
  Value x = g.param(Shape(DType::Pred, {2, 2}), {1, 0, 1, 1});
  Value nz = lowerOnnx(g, "NonZero", 13, {x}).at(0);
  auto [dims, values] = g.run(nz);
  CHECK(dims == Dims{2, 4});
  // Expected [[0,1,1],[0,0,1]], padded with a zero column.
  CHECK(values == Values{0, 1, 1, 0, 0, 0, 1, 0});
  CHECK(!g.b.dynamic().dim(nz, 0));
  CHECK(countOf(g, nz, 1) == 3);
}

TEST_CASE("TF NonMaxSuppressionV3 ignores boxes past a dynamic N's run-time "
          "size (TF.js on the first 4 boxes)",
          "[import][selection]") {
  Graph g;
  Value boxes = g.param(Shape(DType::F32, {6, 4}), kBoxes);
  Value scores = g.param(Shape(DType::F32, {6}), kScores);
  Value n = g.param(Shape(DType::S32, {}), {4});
  SizeForm form = g.b.dynamic().newSymbol(0, 6, "n");
  g.b.dynamic().setDim(boxes, 0, {n, form});
  g.b.dynamic().setDim(scores, 0, {n, form});
  Value nms = lowerTf(g, "NonMaxSuppressionV3",
                      {boxes, scores, g.ints({5}),
                       g.b.scalar(DType::F32, 0.5), g.b.scalar(DType::F32, 0)})
                  .at(0);
  auto [dims, values] = g.run(nms);
  CHECK(dims == Dims{5});
  // Box 5 (score 0.99) is padding; the flipped box 2 suppresses 0 and 1.
  CHECK(values == Values{3, 2, 0, 0, 0});
  CHECK(countOf(g, nms, 0) == 2);
}

TEST_CASE("TF NonMaxSuppressionV5 with a max_output_size bounded by a size "
          "form (TF.js)",
          "[import][selection]") {
  Graph g;
  Value boxes = g.param(Shape(DType::F32, {6, 4}), kBoxes);
  Value scores = g.param(Shape(DType::F32, {6}), kScores);
  auto out = lowerTf(g, "NonMaxSuppressionV5",
                     {boxes, scores, boundedScalar(g, 2, 3),
                      g.b.scalar(DType::F32, 0.5), g.b.scalar(DType::F32, 0.55),
                      g.b.scalar(DType::F32, 0)});
  REQUIRE(out.size() == 3);
  auto [dims, indices] = g.run(out[0]);
  CHECK(dims == Dims{3}); // the form's upper bound
  CHECK(indices == Values{5, 3, 0});
  auto [scoreDims, selected] = g.run(out[1]);
  checkClose(selected, {0.99, 0.95, 0});
  auto [countDims, count] = g.run(out[2]);
  CHECK(count == Values{2});
  CHECK(g.b.dynamic().dim(out[1], 0));
}

TEST_CASE("TF NonMaxSuppressionV4 with pad_to_max_output_size is static "
          "(TF.js nonMaxSuppressionPaddedAsync)",
          "[import][selection]") {
  Graph g;
  Value boxes = g.param(Shape(DType::F32, {6, 4}), kBoxes);
  Value scores = g.param(Shape(DType::F32, {6}), kScores);
  auto out = lowerTf(g, "NonMaxSuppressionV4",
                     {boxes, scores, g.ints({8}), g.b.scalar(DType::F32, 0.5),
                      g.b.scalar(DType::F32, 0.55)},
                     {{"pad_to_max_output_size", int64_t(1)}});
  REQUIRE(out.size() == 2);
  auto [dims, indices] = g.run(out[0]);
  CHECK(dims == Dims{8}); // max_output_size, though only 6 boxes exist
  CHECK(indices == Values{5, 3, 2, 0, 0, 0, 0, 0});
  CHECK(!g.b.dynamic().hasDynamicDims(out[0]));
  auto [countDims, count] = g.run(out[1]);
  CHECK(count == Values{3});
  CHECK(g.b.dynamic().forms(out[1])); // Slice by it sees a size
}

TEST_CASE("ONNX NonMaxSuppression: (batch, class, box) rows at the running "
          "count (ONNX test data)",
          "[import][selection]") {
  // test_nonmaxsuppression_suppress_by_IOU_and_scores: [[0,0,3],[0,0,0]],
  // padded to the bound 3.
  Graph g;
  const std::vector<double> boxes = {0, 0,    1, 1,    0, 0.1,  1, 1.1,
                                     0, -0.1, 1, 0.9,  0, 10,   1, 11,
                                     0, 10.1, 1, 11.1, 0, 100,  1, 101};
  Value b = g.param(Shape(DType::F32, {1, 6, 4}), boxes);
  Value s = g.param(Shape(DType::F32, {1, 1, 6}),
                    {0.9, 0.75, 0.6, 0.95, 0.5, 0.3});
  Value nms = lowerOnnx(g, "NonMaxSuppression", 11,
                        {b, s, g.b.ints(DType::S64, {3}),
                         g.b.scalar(DType::F32, 0.5),
                         g.b.scalar(DType::F32, 0.4)})
                  .at(0);
  auto [dims, rows] = g.run(nms);
  CHECK(dims == Dims{3, 3});
  CHECK(rows == Values{0, 0, 3, 0, 0, 0, 0, 0, 0});
  CHECK(countOf(g, nms, 0) == 2);
}

TEST_CASE("ONNX NonMaxSuppression: identical boxes and two batches (ONNX "
          "test data)",
          "[import][selection]") {
  Graph g;
  // test_nonmaxsuppression_identical_boxes in batch 0 ([[0,0,0]]), and
  // test_nonmaxsuppression_suppress_by_IOU's boxes and scores in batch 1
  // ([[0,0,3],[0,0,0],[0,0,5]], so batch 1's rows are [1,0,3],...), with
  // 4 boxes of score 0 appended, which threshold 0 leaves out: batch 1's
  // rows must follow batch 0's single row.
  std::vector<double> boxes, scores(20, 0.9);
  for (int i = 0; i < 10; ++i)
    boxes.insert(boxes.end(), {0, 0, 1, 1});
  const std::vector<double> second = {0, 0,    1, 1,    0, 0.1,  1, 1.1,
                                      0, -0.1, 1, 0.9,  0, 10,   1, 11,
                                      0, 10.1, 1, 11.1, 0, 100,  1, 101};
  boxes.insert(boxes.end(), second.begin(), second.end());
  for (int i = 0; i < 4; ++i) // unselectable fillers far away, score 0
    boxes.insert(boxes.end(), {0, 1000.0 + 2 * i, 1, 1001.0 + 2 * i});
  const double secondScores[] = {0.9, 0.75, 0.6, 0.95, 0.5, 0.3, 0, 0, 0, 0};
  for (int i = 0; i < 10; ++i)
    scores[size_t(10 + i)] = secondScores[i];
  Value b = g.param(Shape(DType::F32, {2, 10, 4}), boxes);
  Value s = g.param(Shape(DType::F32, {2, 1, 10}), scores);
  Value nms = lowerOnnx(g, "NonMaxSuppression", 11,
                        {b, s, g.b.ints(DType::S64, {3}),
                         g.b.scalar(DType::F32, 0.5),
                         g.b.scalar(DType::F32, 0.0)})
                  .at(0);
  auto [dims, rows] = g.run(nms);
  CHECK(dims == Dims{6, 3});
  CHECK(rows ==
        Values{0, 0, 0, 1, 0, 3, 1, 0, 0, 1, 0, 5, 0, 0, 0, 0, 0, 0});
  CHECK(countOf(g, nms, 0) == 4);
}
