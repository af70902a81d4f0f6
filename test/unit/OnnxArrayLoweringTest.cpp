//===- OnnxArrayLoweringTest.cpp - ONNX data-movement lowerings -----------===//
//
// Builds HLO through the ONNX tensor-op lowerings (driven by a fake node
// context), runs the reference evaluator and compares with NumPy, the ONNX
// spec's examples or the values of ONNX's backend node tests, as noted.
//
//===----------------------------------------------------------------------===//
#include "ArrayLoweringTestUtil.h"

using namespace kiln;
using namespace kiln::import;
using namespace kiln::import::testing;
using ir::DType;
using ir::Shape;

// ================================ ONNX =======================================

TEST_CASE("ONNX Slice: negative steps and clamping (NumPy)", "[import][array]") {
  // x = arange(24).reshape(2,3,4)
  Graph g;
  Value x = g.param(Shape(DType::F32, {2, 3, 4}), iotaValues(24));
  auto i64 = [&](Dims v) { return g.b.ints(DType::S64, v); };
  SECTION("x[:, ::-1, 10:-100:-2] (axes 1,2)") {
    auto [dims, values] = g.run(
        lowerOnnx(g, "Slice", 13,
                  {x, i64({-1, 10}), i64({INT64_MIN, -100}), i64({1, 2}), i64({-1, -2})})
            .at(0));
    CHECK(dims == Dims{2, 3, 2});
    CHECK(values == Values{11, 9, 7, 5, 3, 1, 23, 21, 19, 17, 15, 13});
  }
  SECTION("opset 9 attributes: x[1:1000, 1:2]") {
    auto [dims, values] = g.run(
        lowerOnnx(g, "Slice", 9, {x},
                  {{"starts", Dims{1, 1}}, {"ends", Dims{1000, 2}}, {"axes", Dims{0, -1}}})
            .at(0));
    CHECK(dims == Dims{1, 3, 1});
    CHECK(values == Values{13, 17, 21});
  }
}

TEST_CASE("ONNX Reshape copies zeros unless allowzero; Flatten; Unsqueeze",
          "[import][array]") {
  Graph g;
  Value x = g.param(Shape(DType::F32, {2, 3, 4}), iotaValues(24));
  Value r = lowerOnnx(g, "Reshape", 14, {x, g.b.ints(DType::S64, {0, -1})}).at(0);
  CHECK(dimsOf(r) == Dims{2, 12});
  Value f = lowerOnnx(g, "Flatten", 13, {x}, {{"axis", int64_t(-1)}}).at(0);
  CHECK(dimsOf(f) == Dims{6, 4});
  Value u = lowerOnnx(g, "Unsqueeze", 13, {x, g.b.ints(DType::S64, {-1, 0})}).at(0);
  CHECK(dimsOf(u) == Dims{1, 2, 3, 4, 1});
  Value s = lowerOnnx(g, "Squeeze", 11, {u}, {{"axes", Dims{0}}}).at(0);
  CHECK(dimsOf(s) == Dims{2, 3, 4, 1});
  lowerOnnx(g, "Reshape", 14, {x, g.b.ints(DType::S64, {0, -1})},
            {{"allowzero", int64_t(1)}});
  CHECK(!g.b.ok()); // 0 elements cannot hold 24
}

TEST_CASE("ONNX gathers with negative indices (NumPy)", "[import][array]") {
  Graph g;
  Value x = g.param(Shape(DType::F32, {3, 4}), iotaValues(12));
  SECTION("Gather axis 1") {
    Value idx = g.param(Shape(DType::S64, {2}), {-1, 1});
    auto [dims, values] =
        g.run(lowerOnnx(g, "Gather", 13, {x, idx}, {{"axis", int64_t(1)}}).at(0));
    CHECK(dims == Dims{3, 2});
    CHECK(values == Values{3, 1, 7, 5, 11, 9});
  }
  SECTION("GatherElements axis 0") {
    Value idx = g.b.constant(literalFromInts(Shape(DType::S64, {2, 2}), {2, -3, 1, 0}));
    auto [dims, values] = g.run(lowerOnnx(g, "GatherElements", 13, {x, idx}).at(0));
    // np.take_along_axis(x, [[2,0],[1,0]], 0)[:, :2]
    CHECK(values == Values{8, 1, 4, 1});
  }
  SECTION("GatherND batch_dims=1") {
    Value idx = g.b.constant(literalFromInts(Shape(DType::S64, {3, 1}), {3, 0, -2}));
    auto [dims, values] = g.run(
        lowerOnnx(g, "GatherND", 13, {x, idx}, {{"batch_dims", int64_t(1)}}).at(0));
    CHECK(dims == Dims{3});
    CHECK(values == Values{3, 4, 10});
  }
}

TEST_CASE("ONNX ScatterND and ScatterElements with reductions (spec examples)",
          "[import][array]") {
  Graph g;
  SECTION("ScatterND add with a repeated index") {
    Value data = g.param(Shape(DType::F32, {4}), {1, 2, 3, 4});
    Value idx = g.b.constant(literalFromInts(Shape(DType::S64, {3, 1}), {1, 3, 1}));
    Value upd = g.param(Shape(DType::F32, {3}), {10, 20, 30});
    auto [dims, values] = g.run(
        lowerOnnx(g, "ScatterND", 16, {data, idx, upd}, {{"reduction", std::string("add")}})
            .at(0));
    CHECK(values == Values{1, 42, 3, 24});
  }
  SECTION("ScatterElements axis 1") {
    // The ONNX spec's example: data [[1,2,3,4,5]], indices [[1,3]], updates [[1.1,2.1]].
    Value data = g.param(Shape(DType::F32, {1, 5}), {1, 2, 3, 4, 5});
    Value idx = g.b.constant(literalFromInts(Shape(DType::S64, {1, 2}), {1, -2}));
    Value upd = g.param(Shape(DType::F32, {1, 2}), {1.5, 2.5});
    auto [dims, values] = g.run(
        lowerOnnx(g, "ScatterElements", 13, {data, idx, upd}, {{"axis", int64_t(1)}}).at(0));
    CHECK(values == Values{1, 1.5, 3, 2.5, 5});
  }
}

TEST_CASE("ONNX Pad modes and opset forms (NumPy np.pad)", "[import][array]") {
  Graph g;
  Value m = g.param(Shape(DType::F32, {2, 3}), {1, 2, 3, 4, 5, 6});
  SECTION("edge, opset 11 inputs") {
    auto [dims, values] = g.run(
        lowerOnnx(g, "Pad", 11, {m, g.b.ints(DType::S64, {0, 2, 1, 0})},
                  {{"mode", std::string("edge")}})
            .at(0));
    // np.pad(m, ((0,1),(2,0)), 'edge')
    CHECK(dims == Dims{3, 5});
    CHECK(values == Values{1, 1, 1, 2, 3, 4, 4, 4, 5, 6, 4, 4, 4, 5, 6});
  }
  SECTION("constant with negative pads (crop), opset 2 attributes") {
    auto [dims, values] = g.run(
        lowerOnnx(g, "Pad", 2, {m}, {{"pads", Dims{0, -1, 1, 0}}, {"value", 9.0}}).at(0));
    CHECK(dims == Dims{3, 2});
    CHECK(values == Values{2, 3, 5, 6, 9, 9});
  }
  SECTION("reflect with axes (opset 18)") {
    auto [dims, values] = g.run(
        lowerOnnx(g, "Pad", 18,
                  {m, g.b.ints(DType::S64, {2, 1}), nullptr, g.b.ints(DType::S64, {-1})},
                  {{"mode", std::string("reflect")}})
            .at(0));
    // np.pad(m, ((0,0),(2,1)), 'reflect')
    CHECK(values == Values{3, 2, 1, 2, 3, 2, 6, 5, 4, 5, 6, 5});
  }
}

TEST_CASE("ONNX Split, TopK, Trilu, Shape slices (NumPy)", "[import][array]") {
  Graph g;
  Value x = g.param(Shape(DType::F32, {2, 5}), {3, 1, 3, 2, 1, 0, 5, 5, 5, -1});
  SECTION("Split num_outputs=2 (opset 18) gives 3 + 2") {
    auto parts = lowerOnnx(g, "Split", 18, {x}, {{"axis", int64_t(1)}, {"num_outputs", int64_t(2)}}, 2);
    CHECK(dimsOf(parts.at(0)) == Dims{2, 3});
    CHECK(dimsOf(parts.at(1)) == Dims{2, 2});
  }
  SECTION("TopK smallest along axis 0") {
    auto out = lowerOnnx(g, "TopK", 11, {x, g.b.ints(DType::S64, {1})},
                         {{"axis", int64_t(0)}, {"largest", int64_t(0)}}, 2);
    REQUIRE(out.at(1));
    CHECK(out.at(1)->shape().dtype() == DType::S64);
    auto [dims, values] = g.run(out.at(0));
    CHECK(values == Values{0, 1, 3, 2, -1});
  }
  SECTION("Trilu lower with k=1") {
    auto [dims, values] = g.run(
        lowerOnnx(g, "Trilu", 14, {x, g.b.ints(DType::S64, {1})}, {{"upper", int64_t(0)}}).at(0));
    // np.tril(x, 1)
    CHECK(values == Values{3, 1, 0, 0, 0, 0, 5, 5, 0, 0});
  }
  SECTION("Shape start/end") {
    Value s = lowerOnnx(g, "Shape", 15, {x}, {{"start", int64_t(-1)}}).at(0);
    CHECK(GraphBuilder::constantInts(s) == std::optional(Dims{5}));
  }
}

TEST_CASE("ONNX DepthToSpace DCR and CRD (ONNX test data)", "[import][array]") {
  // test_depthtospace_example / _crd_mode_example: x[0,c,h,w] = 9c + 3h + w.
  Values input;
  for (int c = 0; c < 8; ++c)
    for (int h = 0; h < 2; ++h)
      for (int w = 0; w < 3; ++w)
        input.push_back(9 * c + 3 * h + w);
  auto run = [&](const char *mode) {
    Graph g;
    Value x = g.param(Shape(DType::F32, {1, 8, 2, 3}), input);
    auto [dims, values] = g.run(lowerOnnx(g, "DepthToSpace", 13, {x},
                                          {{"blocksize", int64_t(2)},
                                           {"mode", std::string(mode)}})
                                    .at(0));
    CHECK(dims == Dims{1, 2, 4, 6});
    return Values(values.begin(), values.begin() + 16);
  };
  CHECK(run("DCR") == Values{0, 18, 1, 19, 2, 20, 36, 54, 37, 55, 38, 56, 3, 21, 4, 22});
  CHECK(run("CRD") == Values{0, 9, 1, 10, 2, 11, 18, 27, 19, 28, 20, 29, 3, 12, 4, 13});
}

TEST_CASE("ONNX Resize matches the ONNX test data", "[import][array][resize]") {
  // Inputs and expected outputs from onnx's backend node tests
  // (test_resize_*), whose values come from the ONNX reference code.
  const Values data4 = iotaValues(16, 1); // [1,1,4,4]
  auto scales = [](Graph &g, Values s) {
    return g.b.constant(literalFromDoubles(Shape(DType::F32, {int64_t(s.size())}), s));
  };
  SECTION("upsample_scales_nearest") {
    Graph g;
    Value x = g.param(Shape(DType::F32, {1, 1, 2, 2}), {1, 2, 3, 4});
    auto [dims, values] = g.run(
        lowerOnnx(g, "Resize", 13, {x, nullptr, scales(g, {1, 1, 2, 3})}).at(0));
    CHECK(dims == Dims{1, 1, 4, 6});
    CHECK(values == Values{1, 1, 1, 2, 2, 2, 1, 1, 1, 2, 2, 2,
                           3, 3, 3, 4, 4, 4, 3, 3, 3, 4, 4, 4});
  }
  SECTION("downsample_scales_linear") {
    Graph g;
    Value x = g.param(Shape(DType::F32, {1, 1, 2, 4}), iotaValues(8, 1));
    auto [dims, values] = g.run(
        lowerOnnx(g, "Resize", 13, {x, nullptr, scales(g, {1, 1, 0.6, 0.6})},
                  {{"mode", std::string("linear")}})
            .at(0));
    CHECK(dims == Dims{1, 1, 1, 2});
    checkClose(values, {2.6666665, 4.3333331}, 1e-5);
  }
  SECTION("upsample_scales_linear_align_corners") {
    Graph g;
    Value x = g.param(Shape(DType::F32, {1, 1, 2, 2}), {1, 2, 3, 4});
    auto [dims, values] = g.run(
        lowerOnnx(g, "Resize", 13, {x, nullptr, scales(g, {1, 1, 2, 2})},
                  {{"mode", std::string("linear")},
                   {"coordinate_transformation_mode", std::string("align_corners")}})
            .at(0));
    checkClose(values, {1, 1.33333333, 1.66666667, 2, 1.66666667, 2, 2.33333333,
                        2.66666667, 2.33333333, 2.66666667, 3, 3.33333333, 3,
                        3.33333333, 3.66666667, 4},
               1e-5);
  }
  SECTION("downsample_scales_cubic") {
    Graph g;
    Value x = g.param(Shape(DType::F32, {1, 1, 4, 4}), data4);
    auto [dims, values] = g.run(
        lowerOnnx(g, "Resize", 13, {x, nullptr, scales(g, {1, 1, 0.8, 0.8})},
                  {{"mode", std::string("cubic")}})
            .at(0));
    CHECK(dims == Dims{1, 1, 3, 3});
    checkClose(values, {1.47119141, 2.78125, 4.08251953, 6.71142578, 8.02148438,
                        9.32275391, 11.91650391, 13.2265625, 14.52783203},
               1e-5);
  }
  SECTION("upsample_sizes_nearest_ceil_half_pixel") {
    Graph g;
    Value x = g.param(Shape(DType::F32, {1, 1, 4, 4}), data4);
    Value sizes = g.b.ints(DType::S64, {1, 1, 8, 8});
    auto [dims, values] = g.run(
        lowerOnnx(g, "Resize", 13, {x, nullptr, nullptr, sizes},
                  {{"nearest_mode", std::string("ceil")}})
            .at(0));
    CHECK(dims == Dims{1, 1, 8, 8});
    CHECK(Values(values.begin(), values.begin() + 16) ==
          Values{1, 2, 2, 3, 3, 4, 4, 4, 5, 6, 6, 7, 7, 8, 8, 8});
  }
}
