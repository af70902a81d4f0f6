//===- InOrderDepthwiseTest.cpp - When the A53 depthwise block runs -------===//
//
// The depthwise kernel's assembly block (Kernels/InOrderDepthwise.h) runs
// only where its fixed registers and immediate offsets are right: the
// Cortex-A53, f32, little endian, not under +strict-align, a stride-1
// undilated innermost window of at most 4 taps, at most 8 kernel rows, and
// pixel and tap offsets `ldr q` encodes. Numerics: test/e2e kdw_blk_*.
//
//===----------------------------------------------------------------------===//
#include "Kernels/InOrderDepthwise.h"

#include <catch2/catch.hpp>

using namespace kiln;
using namespace kiln::codegen::kernels;

namespace {

codegen::TargetInfo aarch64(const std::string &cpu) {
  codegen::TargetInfo info;
  info.triple = "aarch64-linux-gnu";
  info.cpu = cpu;
  info.isAArch64 = true;
  info.vectorBits = 128;
  info.vectorRegisters = 32;
  return info;
}

/// The block's shape for a 3x3-style kernel of `rows` x `columns` taps over
/// pixels of `channels` floats (tap stride: channels rounded up to 4).
std::optional<InOrderDepthwiseShape>
shapeFor(const codegen::TargetInfo &target, int64_t channels,
         ir::WindowDim window = {3, 1, 1, 1, 1, 1}, int64_t rows = 3,
         int64_t columns = 3, ir::DType dtype = ir::DType::F32) {
  return inOrderDepthwiseShape(target, dtype, rows, columns, window, channels,
                               (channels + 3) / 4 * 4);
}

} // namespace

TEST_CASE("inOrderDepthwiseShape: the A53 block's cores and types",
          "[codegen][depthwise]") {
  std::optional<InOrderDepthwiseShape> a53 =
      shapeFor(aarch64("cortex-a53"), 64);
  REQUIRE(a53);
  CHECK(a53->rows == 3);
  CHECK(a53->columns == 3);
  CHECK(a53->pixelBytes == 256);
  CHECK(a53->tapBytes == 256);

  CHECK_FALSE(shapeFor(aarch64("cortex-a55"), 64));
  CHECK_FALSE(shapeFor(aarch64("cortex-a72"), 64));
  CHECK_FALSE(shapeFor(aarch64("neoverse-n1"), 64));
  codegen::TargetInfo strict = aarch64("cortex-a53");
  strict.strictAlign = true;
  CHECK_FALSE(shapeFor(strict, 64));
  codegen::TargetInfo bigEndian = aarch64("cortex-a53");
  bigEndian.triple = "aarch64_be-linux-gnu";
  CHECK_FALSE(shapeFor(bigEndian, 64));
  CHECK_FALSE(shapeFor(aarch64("cortex-a53"), 64, {3, 1, 1, 1, 1, 1}, 3, 3,
                       ir::DType::F64));
}

TEST_CASE("inOrderDepthwiseShape: windows and offsets the block encodes",
          "[codegen][depthwise]") {
  codegen::TargetInfo a53 = aarch64("cortex-a53");
  // Stride, window and base dilation of the innermost dimension.
  CHECK_FALSE(shapeFor(a53, 64, {3, 2, 1, 1, 1, 1}));
  CHECK_FALSE(shapeFor(a53, 64, {3, 1, 1, 1, 1, 2}));
  CHECK_FALSE(shapeFor(a53, 64, {3, 1, 1, 1, 2, 1}));
  // Kernel widths up to 4 (2 x 4 + 7 of v0-v15), rows up to 8.
  CHECK(shapeFor(a53, 16, {4, 1, 1, 2, 1, 1}, 2, 4));
  CHECK_FALSE(shapeFor(a53, 16, {5, 1, 2, 2, 1, 1}, 5, 5));
  CHECK(shapeFor(a53, 16, {3, 1, 1, 1, 1, 1}, 8, 3));
  CHECK_FALSE(shapeFor(a53, 16, {3, 1, 1, 1, 1, 1}, 9, 3));
  CHECK(shapeFor(a53, 16, {3, 1, 1, 1, 1, 1}, 1, 3)); // 1-D
  // Pixels 16-byte multiples apart: 4, 12, 36 channels, not 18 or 6.
  CHECK(shapeFor(a53, 4));
  CHECK(shapeFor(a53, 12));
  CHECK(shapeFor(a53, 36));
  CHECK_FALSE(shapeFor(a53, 18));
  CHECK_FALSE(shapeFor(a53, 6));
  // The last pixel, 9 pixels on, within ldr q's 65520 bytes: 1820
  // channels (65520), not 1824.
  CHECK(shapeFor(a53, 1820));
  CHECK_FALSE(shapeFor(a53, 1824));
}
