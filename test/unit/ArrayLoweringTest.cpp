//===- ArrayLoweringTest.cpp - TensorFlow data-movement lowerings ---------===//
//
// Builds HLO through the TF array-op lowerings (driven by a fake node
// context, so no importer is needed), runs the reference evaluator and
// compares with TensorFlow.js 4.22.0 (tfjs-backend-cpu) outputs, or NumPy
// where noted. The ONNX side is in OnnxArrayLoweringTest.cpp.
//
//===----------------------------------------------------------------------===//
#include "ArrayLoweringTestUtil.h"

using namespace kiln;
using namespace kiln::import;
using namespace kiln::import::testing;
using ir::DType;
using ir::Shape;

// ============================ TensorFlow =====================================

TEST_CASE("TF StridedSlice masks, negative strides and new axes (TF.js)",
          "[import][array]") {
  struct Case {
    const char *what;
    Dims begin, end, strides;
    int64_t beginMask, endMask, ellipsis, newAxis, shrink;
    Dims dims;
    Values expected;
  };
  const Case cases[] = {
      {"x[..., ::-2]", {0, 0}, {0, 0}, {1, -2}, 2, 2, 1, 0, 0, {2, 3, 2},
       {3, 1, 7, 5, 11, 9, 15, 13, 19, 17, 23, 21}},
      {"x[1, :, newaxis, 1:3]", {1, 0, 0, 1}, {2, 0, 0, 3}, {1, 1, 1, 1}, 2, 2,
       0, 4, 1, {3, 1, 2}, {13, 14, 17, 18, 21, 22}},
      {"x[:, -1:0:-1]", {0, -1}, {0, 0}, {1, -1}, 1, 1, 0, 0, 0, {2, 2, 4},
       {8, 9, 10, 11, 4, 5, 6, 7, 20, 21, 22, 23, 16, 17, 18, 19}},
      // NumPy: x[-1, ..., -5:-1:3] (TF.js 4.22 mishandles this one).
      {"x[-1, ..., -5:-1:3]", {-1, 0, -5}, {0, 0, -1}, {1, 1, 3}, 0, 0, 2, 0, 1,
       {3, 1}, {12, 16, 20}},
  };
  for (const Case &c : cases) {
    SECTION(c.what) {
      Graph g;
      Value x = g.param(Shape(DType::F32, {2, 3, 4}), iotaValues(24));
      auto out = lowerTf(g, "StridedSlice",
                         {x, g.ints(c.begin), g.ints(c.end), g.ints(c.strides)},
                         {{"begin_mask", c.beginMask},
                          {"end_mask", c.endMask},
                          {"ellipsis_mask", c.ellipsis},
                          {"new_axis_mask", c.newAxis},
                          {"shrink_axis_mask", c.shrink}});
      auto [dims, values] = g.run(out.at(0));
      CHECK(dims == c.dims);
      CHECK(values == c.expected);
    }
  }
}

TEST_CASE("TF shape subgraph folds to constants at import", "[import][array]") {
  // Reshape(x, Pack([StridedSlice(Shape(x), [0], [1], shrink), -1])).
  Graph g;
  Value x = g.param(Shape(DType::F32, {3, 2, 2}), iotaValues(12));
  Value shape = lowerTf(g, "Shape", {x}).at(0);
  Value batch = lowerTf(g, "StridedSlice",
                        {shape, g.ints({0}), g.ints({1}), g.ints({1})},
                        {{"shrink_axis_mask", int64_t(1)}})
                    .at(0);
  REQUIRE(GraphBuilder::constantValue(batch));
  Value packed =
      lowerTf(g, "Pack", {batch, g.b.scalar(DType::S32, -1)}).at(0);
  auto target = GraphBuilder::constantInts(packed);
  REQUIRE(target);
  CHECK(*target == Dims{3, -1});
  auto [dims, values] = g.run(lowerTf(g, "Reshape", {x, packed}).at(0));
  CHECK(dims == Dims{3, 4});
  CHECK(values == iotaValues(12));
}

TEST_CASE("TF gathers: GatherV2 with axis and batch_dims, GatherNd (TF.js)",
          "[import][array]") {
  Graph g;
  Value x = g.param(Shape(DType::F32, {2, 3, 4}), iotaValues(24));
  SECTION("batch_dims=1 axis=2") {
    Value idx = g.param(Shape(DType::S32, {2, 2}), {3, 0, 1, 1});
    auto [dims, values] = g.run(
        lowerTf(g, "GatherV2", {x, idx, g.b.scalar(DType::S32, 2)},
                {{"batch_dims", int64_t(1)}})
            .at(0));
    CHECK(dims == Dims{2, 3, 2});
    CHECK(values == Values{3, 0, 7, 4, 11, 8, 13, 13, 17, 17, 21, 21});
  }
  SECTION("axis=1") {
    Value idx = g.param(Shape(DType::S32, {2}), {2, 0});
    auto [dims, values] = g.run(
        lowerTf(g, "GatherV2", {x, idx, g.b.scalar(DType::S32, 1)}).at(0));
    CHECK(dims == Dims{2, 2, 4});
    CHECK(values == Values{8, 9, 10, 11, 0, 1, 2, 3, 20, 21, 22, 23, 12, 13, 14, 15});
  }
  SECTION("GatherNd") {
    Value idx = g.param(Shape(DType::S32, {2, 2}), {1, 2, 0, 1});
    auto [dims, values] = g.run(lowerTf(g, "GatherNd", {x, idx}).at(0));
    CHECK(dims == Dims{2, 4});
    CHECK(values == Values{20, 21, 22, 23, 4, 5, 6, 7});
  }
}

TEST_CASE("TF padding: Pad, PadV2, MirrorPad (TF.js)", "[import][array]") {
  Graph g;
  Value m = g.param(Shape(DType::F32, {2, 3}), {1, 2, 3, 4, 5, 6});
  auto pads = [&](Dims v) {
    return g.b.constant(literalFromInts(Shape(DType::S32, {2, 2}), v));
  };
  SECTION("REFLECT") {
    auto [dims, values] = g.run(
        lowerTf(g, "MirrorPad", {m, pads({1, 1, 2, 2})}, {{"mode", std::string("REFLECT")}})
            .at(0));
    CHECK(dims == Dims{4, 7});
    CHECK(values == Values{6, 5, 4, 5, 6, 5, 4, 3, 2, 1, 2, 3, 2, 1,
                           6, 5, 4, 5, 6, 5, 4, 3, 2, 1, 2, 3, 2, 1});
  }
  SECTION("SYMMETRIC") {
    auto [dims, values] = g.run(
        lowerTf(g, "MirrorPad", {m, pads({1, 0, 3, 2})},
                {{"mode", std::string("SYMMETRIC")}})
            .at(0));
    CHECK(dims == Dims{3, 8});
    CHECK(values == Values{3, 2, 1, 1, 2, 3, 3, 2, 3, 2, 1, 1, 2, 3, 3, 2,
                           6, 5, 4, 4, 5, 6, 6, 5});
  }
  SECTION("PadV2") {
    auto [dims, values] = g.run(
        lowerTf(g, "PadV2", {m, pads({0, 1, 2, 0}), g.b.scalar(DType::F32, 7)}).at(0));
    CHECK(dims == Dims{3, 5});
    CHECK(values == Values{7, 7, 1, 2, 3, 7, 7, 4, 5, 6, 7, 7, 7, 7, 7});
  }
}

TEST_CASE("TF TopKV2 breaks ties toward the lower index (TF.js)", "[import][array]") {
  Graph g;
  Value t = g.param(Shape(DType::F32, {2, 5}), {3, 1, 3, 2, 1, 0, 5, 5, 5, -1});
  auto out = lowerTf(g, "TopKV2", {t, g.b.scalar(DType::S32, 3)});
  Value both = g.b.concatenate({out.at(0), g.b.convert(out.at(1), DType::F32)}, 1);
  auto [dims, values] = g.run(both);
  CHECK(dims == Dims{2, 6});
  CHECK(values == Values{3, 3, 2, 0, 2, 3, 5, 5, 5, 1, 2, 3});
}

TEST_CASE("TF space/depth/batch reorderings (TF.js)", "[import][array]") {
  Graph g;
  SECTION("DepthToSpace NHWC") {
    Value d = g.param(Shape(DType::F32, {1, 1, 2, 8}), iotaValues(16));
    auto [dims, values] =
        g.run(lowerTf(g, "DepthToSpace", {d}, {{"block_size", int64_t(2)}}).at(0));
    CHECK(dims == Dims{1, 2, 4, 2});
    CHECK(values == Values{0, 1, 2, 3, 8, 9, 10, 11, 4, 5, 6, 7, 12, 13, 14, 15});
  }
  SECTION("SpaceToDepth inverts DepthToSpace") {
    Value d = g.param(Shape(DType::F32, {1, 2, 4, 2}),
                      {0, 1, 2, 3, 8, 9, 10, 11, 4, 5, 6, 7, 12, 13, 14, 15});
    auto [dims, values] =
        g.run(lowerTf(g, "SpaceToDepth", {d}, {{"block_size", int64_t(2)}}).at(0));
    CHECK(dims == Dims{1, 1, 2, 8});
    CHECK(values == iotaValues(16));
  }
  SECTION("SpaceToBatchND") {
    Value s = g.param(Shape(DType::F32, {1, 4, 2, 2}), iotaValues(16));
    Value crops = g.b.constant(literalFromInts(Shape(DType::S32, {2, 2}), {0, 0, 1, 1}));
    auto [dims, values] =
        g.run(lowerTf(g, "SpaceToBatchND", {s, g.ints({2, 2}), crops}).at(0));
    CHECK(dims == Dims{4, 2, 2, 2});
    CHECK(values == Values{0, 0, 2, 3, 0, 0, 10, 11, 0, 1, 0, 0, 8, 9, 0, 0,
                           0, 0, 6, 7, 0, 0, 14, 15, 4, 5, 0, 0, 12, 13, 0, 0});
  }
  SECTION("BatchToSpaceND") {
    Value s = g.param(Shape(DType::F32, {4, 2, 2, 1}), iotaValues(16));
    Value crops = g.b.constant(literalFromInts(Shape(DType::S32, {2, 2}), {0, 1, 1, 0}));
    auto [dims, values] =
        g.run(lowerTf(g, "BatchToSpaceND", {s, g.ints({2, 2}), crops}).at(0));
    CHECK(dims == Dims{1, 3, 3, 1});
    CHECK(values == Values{4, 1, 5, 12, 9, 13, 6, 3, 7});
  }
}

TEST_CASE("TF Tile, OneHot, SparseToDense, MatrixBandPart, Range, ReverseV2 (TF.js)",
          "[import][array]") {
  Graph g;
  Value m = g.param(Shape(DType::F32, {2, 3}), {1, 2, 3, 4, 5, 6});
  SECTION("Tile") {
    auto [dims, values] = g.run(lowerTf(g, "Tile", {m, g.ints({2, 2})}).at(0));
    CHECK(dims == Dims{4, 6});
    CHECK(values == Values{1, 2, 3, 1, 2, 3, 4, 5, 6, 4, 5, 6,
                           1, 2, 3, 1, 2, 3, 4, 5, 6, 4, 5, 6});
  }
  SECTION("OneHot with a negative index") {
    Value idx = g.param(Shape(DType::S32, {4}), {0, 2, -1, 1});
    auto [dims, values] = g.run(
        lowerTf(g, "OneHot", {idx, g.b.scalar(DType::S32, 3), g.b.scalar(DType::F32, 5),
                              g.b.scalar(DType::F32, -1)})
            .at(0));
    CHECK(dims == Dims{4, 3});
    CHECK(values == Values{5, -1, -1, -1, -1, 5, -1, -1, -1, -1, 5, -1});
  }
  SECTION("SparseToDense") {
    Value idx = g.b.constant(literalFromInts(Shape(DType::S32, {2, 2}), {0, 1, 1, 3}));
    Value vals = g.param(Shape(DType::F32, {2}), {7, 8});
    auto [dims, values] = g.run(
        lowerTf(g, "SparseToDense", {idx, g.ints({2, 4}), vals, g.b.scalar(DType::F32, -1)})
            .at(0));
    CHECK(dims == Dims{2, 4});
    CHECK(values == Values{-1, 7, -1, -1, -1, -1, -1, 8});
  }
  SECTION("SparseToDense rejects unsorted indices") {
    Value idx = g.b.constant(literalFromInts(Shape(DType::S32, {2, 2}), {1, 3, 0, 1}));
    lowerTf(g, "SparseToDense",
            {idx, g.ints({2, 4}), g.b.scalar(DType::F32, 1), g.b.scalar(DType::F32, 0)});
    CHECK(!g.b.ok());
  }
  SECTION("MatrixBandPart") {
    Value x = g.param(Shape(DType::F32, {3, 4}), iotaValues(12, 1));
    auto [dims, values] = g.run(
        lowerTf(g, "MatrixBandPart", {x, g.b.scalar(DType::S64, 1), g.b.scalar(DType::S64, 0)})
            .at(0));
    CHECK(values == Values{1, 0, 0, 0, 5, 6, 0, 0, 0, 10, 11, 0});
  }
  SECTION("Range") {
    Value r = lowerTf(g, "Range",
                      {g.b.scalar(DType::F32, 0.5), g.b.scalar(DType::F32, -1),
                       g.b.scalar(DType::F32, -0.4)},
                      {{"Tidx", DType::F32}})
                  .at(0);
    auto [dims, values] = g.run(r);
    checkClose(values, {0.5, 0.1, -0.3, -0.7});
  }
  SECTION("ReverseV2") {
    auto [dims, values] = g.run(lowerTf(g, "ReverseV2", {m, g.ints({-1})}).at(0));
    CHECK(values == Values{3, 2, 1, 6, 5, 4});
  }
  SECTION("Split, SplitV, Unpack, ConcatV2") {
    auto split = lowerTf(g, "SplitV", {m, g.ints({1, -1}), g.b.scalar(DType::S32, 1)});
    auto rows = lowerTf(g, "Unpack", {m}, {{"num", int64_t(2)}});
    Value joined = lowerTf(g, "ConcatV2",
                           {split.at(1), split.at(0), g.b.scalar(DType::S32, -1)})
                       .at(0);
    Value both = lowerTf(g, "Pack", {rows.at(1), rows.at(0)}, {{"axis", int64_t(1)}}).at(0);
    auto [dims, values] = g.run(g.b.concatenate({joined, g.b.reshape(both, {2, 3})}, 0));
    CHECK(values == Values{2, 3, 1, 5, 6, 4, 4, 1, 5, 2, 6, 3});
  }
}

TEST_CASE("TF ResizeBilinear matches TF.js for every corner mode",
          "[import][array][resize]") {
  // x = [1,3,4,1]; expected from tf.image.resizeBilinear(x, [5,3], ac, hp).
  const Values x = {1.5, 3.5, 4.5, 5, 9.5, 9, 10.5, 12.25, 13.5, 15, 19.5, 18};
  struct Case {
    bool alignCorners, halfPixel;
    Values expected;
  };
  const Case cases[] = {
      {false, false, {1.5, 3.83333325, 4.83333349, 6.30000019, 7.23333311,
                      8.93333340, 10.3000002, 10.8999996, 13.0333338, 12.6999998,
                      15.1000004, 17.1333332, 13.5, 16.5, 18.5}},
      {true, false, {1.5, 4, 5, 5.5, 6.875, 8.625, 9.5, 9.75, 12.25, 11.5, 13.5,
                     15.125, 13.5, 17.25, 18}},
      {false, true, {1.83333337, 4, 4.91666651, 4.86666679, 6.30000019, 7.73333311,
                     9.41666698, 9.75, 11.9583330, 12.0166664, 14.25, 15.7333336,
                     13.75, 17.25, 18.25}},
  };
  for (const Case &c : cases) {
    Graph g;
    Value in = g.param(Shape(DType::F32, {1, 3, 4, 1}), x);
    auto [dims, values] = g.run(
        lowerTf(g, "ResizeBilinear", {in, g.ints({5, 3})},
                {{"align_corners", int64_t(c.alignCorners)},
                 {"half_pixel_centers", int64_t(c.halfPixel)}})
            .at(0));
    CHECK(dims == Dims{1, 5, 3, 1});
    checkClose(values, c.expected, 2e-6);
  }
}

TEST_CASE("TF ResizeNearestNeighbor matches TF.js for every corner mode",
          "[import][array][resize]") {
  const Values x = {1.5, 3.5, 4.5, 5, 9.5, 9, 10.5, 12.25, 13.5, 15, 19.5, 18};
  struct Case {
    bool alignCorners, halfPixel;
    Dims size;
    Values expected;
  };
  const Case cases[] = {
      {false, false, {5, 3}, {1.5, 3.5, 4.5, 1.5, 3.5, 4.5, 9.5, 9, 10.5, 9.5, 9, 10.5, 13.5, 15, 19.5}},
      {false, false, {2, 7}, {1.5, 1.5, 3.5, 3.5, 4.5, 4.5, 5, 9.5, 9.5, 9, 9, 10.5, 10.5, 12.25}},
      {true, false, {5, 3}, {1.5, 4.5, 5, 9.5, 10.5, 12.25, 9.5, 10.5, 12.25, 13.5, 19.5, 18, 13.5, 19.5, 18}},
      {true, false, {2, 7}, {1.5, 3.5, 3.5, 4.5, 4.5, 5, 5, 13.5, 15, 15, 19.5, 19.5, 18, 18}},
      {false, true, {5, 3}, {1.5, 4.5, 5, 1.5, 4.5, 5, 9.5, 10.5, 12.25, 13.5, 19.5, 18, 13.5, 19.5, 18}},
      {false, true, {2, 7}, {1.5, 1.5, 3.5, 4.5, 4.5, 5, 5, 13.5, 13.5, 15, 19.5, 19.5, 18, 18}},
  };
  for (const Case &c : cases) {
    Graph g;
    Value in = g.param(Shape(DType::F32, {1, 3, 4, 1}), x);
    auto [dims, values] = g.run(
        lowerTf(g, "ResizeNearestNeighbor", {in, g.ints(c.size)},
                {{"align_corners", int64_t(c.alignCorners)},
                 {"half_pixel_centers", int64_t(c.halfPixel)}})
            .at(0));
    CHECK(dims == Dims{1, c.size[0], c.size[1], 1});
    CHECK(values == c.expected);
  }
}

