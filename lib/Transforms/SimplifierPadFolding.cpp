//===- SimplifierPadFolding.cpp - Explicit pads into window padding -------===//
//
// tf2onnx and paddle2onnx models pad explicitly (an ONNX Pad, often in
// NCHW, then the NCHW<->NHWC transposes kiln's importers add around each
// convolution) where TensorFlow had padding="SAME" or a ZeroPadding2D
// layer. Each such pad is a copy of the whole activation through memory.
// These rules move the pad next to the window op that consumes it and then
// make it that op's own padding, which the kernels handle for free:
//
//   transpose(pad(x)) -> pad(transpose(x))   (the pad's only user)
//   convolution(pad(x, 0), w) -> convolution(x, w), window padding + pad
//   reduce-window(pad(x, v), init=v) -> reduce-window(x), padding + pad
//
// Bit-exactness: a convolution's window padding contributes nothing, an
// explicit zero contributes 0 * w, which is a (signed) zero when w is
// finite; added to an accumulator that starts at +0.0, a zero never changes
// it. So the convolution rule needs finite constant weights. A padded
// reduce-window position combines the init value; the explicit pad's value
// must be that same init, and combining it must leave any accumulator
// (which already holds init) unchanged: max, min, and, or always; add only
// with a zero, mul only with a one.
//
//===----------------------------------------------------------------------===//
#include "SimplifierRules.h"
#include "TransformUtils.h"

#include <cstring>

namespace kiln::transforms {

namespace {
using ir::DType;
using ir::Instruction;
using ir::Opcode;

/// Whether `pad` only adds non-negative edges: no interior padding and no
/// cropping, which window padding cannot express.
bool isEdgePadding(const Instruction &pad) {
  for (const ir::PadDim &dim : pad.attrs().padding)
    if (dim.interior != 0 || dim.low < 0 || dim.high < 0)
      return false;
  return true;
}

bool padsDimension(const Instruction &pad, int64_t dim) {
  const ir::PadDim &padding = pad.attrs().padding[size_t(dim)];
  return padding.low != 0 || padding.high != 0;
}

/// The exponent mask of a floating-point dtype: all ones means inf or NaN.
template <typename Bits>
bool allFinite(const ir::Literal &literal, Bits exponentMask) {
  const uint8_t *bytes = literal.bytes().data();
  for (int64_t i = 0; i < literal.numElements(); ++i) {
    Bits bits;
    std::memcpy(&bits, bytes + size_t(i) * sizeof(Bits), sizeof(Bits));
    if ((bits & exponentMask) == exponentMask)
      return false;
  }
  return true;
}

/// Whether `value` is a constant without infinities or NaNs (integers
/// always are), so that 0 * value is a zero.
bool isFiniteConstant(const Instruction &value) {
  if (value.opcode() != Opcode::Constant)
    return false;
  const ir::Literal &literal = value.literal();
  switch (value.shape().dtype()) {
  case DType::F32:
    return allFinite<uint32_t>(literal, 0x7f800000u);
  case DType::F64:
    return allFinite<uint64_t>(literal, 0x7ff0000000000000ull);
  case DType::F16:
    return allFinite<uint16_t>(literal, 0x7c00u);
  case DType::BF16:
    return allFinite<uint16_t>(literal, 0x7f80u);
  default:
    return true;
  }
}

/// transpose(pad(x, v)) -> pad(transpose(x), v) with the padding permuted,
/// when the transpose is the pad's only user: the pad then meets the window
/// op the importer's layout transpose feeds, and the transpose may meet
/// (and cancel) the one that produced x.
Instruction *sinkPadBelowTranspose(Instruction &transpose) {
  Instruction *pad = transpose.operand(0);
  if (pad->opcode() != Opcode::Pad || pad->users().size() != 1)
    return nullptr;
  const std::vector<int64_t> &permutation = transpose.attrs().dimensions;
  ir::Computation &computation = *transpose.parent();
  ir::Attributes transposeAttrs;
  transposeAttrs.dimensions = permutation;
  Instruction *moved = build(computation, Opcode::Transpose, {pad->operand(0)},
                             transposeAttrs, {}, transpose.name());
  if (!moved)
    return nullptr;
  ir::Attributes padAttrs;
  for (int64_t dim : permutation)
    padAttrs.padding.push_back(pad->attrs().padding[size_t(dim)]);
  return build(computation, Opcode::Pad, {moved, pad->operand(1)}, padAttrs,
               transpose.shape(), pad->name());
}

/// convolution(pad(x, 0), w) -> convolution(x, w) with the pad's spatial
/// edges added to the window padding; batch and feature dims unpadded.
Instruction *foldPadIntoConvolution(Instruction &convolution) {
  Instruction *pad = convolution.operand(0);
  if (pad->opcode() != Opcode::Pad || !isEdgePadding(*pad) ||
      !(isSplat(pad->operand(1), SplatValue::Zero) ||
        isSplat(pad->operand(1), SplatValue::NegativeZero)) ||
      !isFiniteConstant(*convolution.operand(1)))
    return nullptr;
  const ir::ConvolutionDimensionNumbers &dims = convolution.attrs().conv;
  if (padsDimension(*pad, dims.inputBatch) ||
      padsDimension(*pad, dims.inputFeature))
    return nullptr;
  ir::Attributes attrs = convolution.attrs();
  for (size_t i = 0; i < attrs.window.size(); ++i) {
    ir::WindowDim &window = attrs.window[i];
    if (window.baseDilation != 1)
      return nullptr; // the pad would be dilated too
    const ir::PadDim &edge = pad->attrs().padding[size_t(dims.inputSpatial[i])];
    window.padLow += edge.low;
    window.padHigh += edge.high;
  }
  return build(*convolution.parent(), Opcode::Convolution,
               {pad->operand(0), convolution.operand(1)}, attrs,
               convolution.shape(), convolution.name());
}

/// Whether combining `init` into an accumulator that already holds init
/// leaves it unchanged, for every accumulator value.
bool combiningInitIsIdentity(ir::ReducerKind reducer, const Instruction &init) {
  switch (reducer) {
  case ir::ReducerKind::Max:
  case ir::ReducerKind::Min:
  case ir::ReducerKind::And:
  case ir::ReducerKind::Or:
    return true; // idempotent: the accumulator already includes init
  case ir::ReducerKind::Add:
    return isSplat(&init, SplatValue::Zero) ||
           isSplat(&init, SplatValue::NegativeZero);
  case ir::ReducerKind::Mul:
    return isSplat(&init, SplatValue::One);
  }
  return false;
}

/// Whether two scalars are the same constant bit for bit.
bool sameConstant(const Instruction &a, const Instruction &b) {
  if (&a == &b)
    return true;
  return a.opcode() == Opcode::Constant && b.opcode() == Opcode::Constant &&
         a.shape() == b.shape() && a.literal() == b.literal();
}

/// reduce-window(pad(x, v), v) -> reduce-window(x, v) with the pad's edges
/// added to the window padding (which pads with the init value).
Instruction *foldPadIntoReduceWindow(Instruction &reduceWindow) {
  if (!reduceWindow.calledComputations().empty())
    return nullptr; // a to_apply is no reducer kind with an identity
  Instruction *pad = reduceWindow.operand(0);
  Instruction *init = reduceWindow.operand(1);
  if (pad->opcode() != Opcode::Pad || !isEdgePadding(*pad) ||
      !sameConstant(*pad->operand(1), *init) ||
      !combiningInitIsIdentity(reduceWindow.attrs().reducer, *init))
    return nullptr;
  ir::Attributes attrs = reduceWindow.attrs();
  for (size_t dim = 0; dim < attrs.window.size(); ++dim) {
    ir::WindowDim &window = attrs.window[dim];
    if (window.baseDilation != 1)
      return nullptr;
    window.padLow += pad->attrs().padding[dim].low;
    window.padHigh += pad->attrs().padding[dim].high;
  }
  return build(*reduceWindow.parent(), Opcode::ReduceWindow,
               {pad->operand(0), init}, attrs, reduceWindow.shape(),
               reduceWindow.name());
}

constexpr RuleRow kPadFoldingRules[] = {
    {Opcode::Transpose, sinkPadBelowTranspose},
    {Opcode::Convolution, foldPadIntoConvolution},
    {Opcode::ReduceWindow, foldPadIntoReduceWindow},
};
} // namespace

std::span<const RuleRow> padFoldingRules() { return kPadFoldingRules; }

} // namespace kiln::transforms
