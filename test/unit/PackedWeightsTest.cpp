//===- PackedWeightsTest.cpp - Dot operand geometry without listing -------===//
//
// dimProgression describes the offsets dimOffsets lists (how many, and
// their common difference when evenly spaced) from the dimensions alone, so
// the dot kernel can look at operands of any declared size. It must agree
// with the listing on every small shape and every ordered choice of
// dimensions.
//
//===----------------------------------------------------------------------===//
#include "Kernels/PackedWeights.h"

#include <catch2/catch.hpp>

#include <functional>

using namespace kiln;
using namespace kiln::codegen::kernels;

namespace {
/// The common difference of `offsets` (0 for fewer than two), else nullopt:
/// the definition dimProgression must match.
std::optional<int64_t> listedStride(const std::vector<int64_t> &offsets) {
  if (offsets.size() < 2)
    return 0;
  int64_t stride = offsets[1] - offsets[0];
  for (size_t i = 2; i < offsets.size(); ++i)
    if (offsets[i] - offsets[i - 1] != stride)
      return std::nullopt;
  return stride;
}

/// Calls `visit` with every ordered selection of distinct dimensions of a
/// rank-`rank` shape (the empty one included).
void forEachDimList(int64_t rank,
                    const std::function<void(std::vector<int64_t>)> &visit) {
  std::function<void(std::vector<int64_t>)> grow =
      [&](std::vector<int64_t> dims) {
        visit(dims);
        for (int64_t d = 0; d < rank; ++d)
          if (std::find(dims.begin(), dims.end(), d) == dims.end()) {
            std::vector<int64_t> longer = dims;
            longer.push_back(d);
            grow(longer);
          }
      };
  grow({});
}
} // namespace

TEST_CASE("dimProgression agrees with the listed offsets", "[kernels]") {
  std::vector<std::vector<int64_t>> shapes;
  for (int64_t a : {0, 1, 2, 3})
    for (int64_t b : {1, 2, 3})
      for (int64_t c : {1, 2, 4}) {
        shapes.push_back({a, b, c});
        shapes.push_back({b, c, a, 2});
      }
  int checked = 0;
  for (const std::vector<int64_t> &dims : shapes) {
    ir::Shape shape(ir::DType::F32, dims);
    forEachDimList(shape.rank(), [&](std::vector<int64_t> selected) {
      std::vector<int64_t> listed = dimOffsets(shape, selected);
      DimProgression progression = dimProgression(shape, selected);
      INFO(shape.toString() << " dims " << selected.size());
      CHECK(progression.count == int64_t(listed.size()));
      CHECK(progression.stride == listedStride(listed));
      ++checked;
    });
  }
  CHECK(checked > 1000);
}

TEST_CASE("dimProgression of a huge operand lists nothing", "[kernels]") {
  // [1e12, 4]: 8 TB of offsets if listed.
  ir::Shape shape(ir::DType::F32, {1000000000000, 4});
  DimProgression rows = dimProgression(shape, std::vector<int64_t>{0});
  CHECK(rows.count == 1000000000000);
  CHECK(rows.stride == 4);
  DimProgression all = dimProgression(shape, std::vector<int64_t>{0, 1});
  CHECK(all.count == 4000000000000);
  CHECK(all.stride == 1);
  CHECK_FALSE(dimProgression(shape, std::vector<int64_t>{1, 0}).stride);
}
