//===- ConvGeometry.h - Convolutions as the kernels see them ----*- C++ -*-===//
//
// The convolution kernels need the output in batch, spatial..., feature
// order (so output pixels are rows of a matrix with unit-stride features)
// and input features innermost (so a pixel's channels are contiguous).
// Input batch and spatial dimensions may come in any order; window
// strides, padding, both dilations and feature groups are all honoured.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_LIB_CODEGEN_KERNELS_CONVGEOMETRY_H
#define KILN_LIB_CODEGEN_KERNELS_CONVGEOMETRY_H

#include "../EmitterContext.h"

#include <optional>
#include <string>
#include <vector>

namespace kiln::codegen::kernels {

struct ConvGeometry {
  int64_t groups = 1, inPerGroup = 0, outFeatures = 0, outPerGroup = 0;
  int64_t inBatchStride = 0;
  std::vector<int64_t> inSizes, inStrides; // per spatial dimension
  std::vector<int64_t> outSizes;           // per spatial dimension
  std::vector<int64_t> kernelSizes;        // per spatial dimension
  std::vector<ir::WindowDim> window;
  int64_t taps = 1;   // product of kernelSizes
  int64_t pixels = 0; // batch * product of outSizes (rows of the output)

  /// The batch (pixels / product of outSizes); 0 for an empty output.
  int64_t batch() const {
    int64_t perImage = 1;
    for (int64_t size : outSizes)
      perImage *= size;
    return perImage > 0 ? pixels / perImage : 0;
  }
};

/// The geometry when the layout fits (see above), else nullopt.
std::optional<ConvGeometry> convGeometry(const ir::Instruction &convolution);

/// A 1x1 window with unit stride, no padding and no dilation.
bool isPointwise(const ConvGeometry &g);

/// Input pixels are rows of `inFeatures` elements, in output pixel order.
bool isDenseNhwc(const ir::Instruction &conv);

/// The window, spatial sizes and input strides as text, for kernel keys.
std::string windowKey(const ConvGeometry &g);

/// Where output position `out` with kernel tap `tap` reads the input along
/// one spatial dimension: the input index and whether it exists (false in
/// padding and in the holes of lhs dilation). `index` is only meaningful
/// when valid.
struct InputPosition {
  llvm::Value *index = nullptr;
  llvm::Value *valid = nullptr;
};
InputPosition inputPosition(EmitterContext &ctx, const ir::WindowDim &window,
                            int64_t inSize, llvm::Value *out, llvm::Value *tap);

} // namespace kiln::codegen::kernels

#endif // KILN_LIB_CODEGEN_KERNELS_CONVGEOMETRY_H
