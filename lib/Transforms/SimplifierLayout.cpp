//===- SimplifierLayout.cpp - Data-movement rules -------------------------===//
//
// Rules for ops that only move or repeat elements: no-op forms become
// their operand, and chains of the same op become one. Importers produce
// these freely (NCHW<->NHWC transposes, Squeeze/ExpandDims reshapes,
// identity Pads and Slices), and each left in the module costs a copy loop
// and arena bytes.
//
//===----------------------------------------------------------------------===//
#include "SimplifierRules.h"
#include "TransformUtils.h"

#include <algorithm>
#include <numeric>

namespace kiln::transforms {

namespace {
using ir::Instruction;
using ir::Opcode;

ir::Attributes dimensionsAttr(std::vector<int64_t> dims) {
  ir::Attributes attrs;
  attrs.dimensions = std::move(dims);
  return attrs;
}

/// reshape to the operand's own dims -> the operand; reshape(reshape(x))
/// -> reshape(x) (row-major order is unchanged by either); reshape of a
/// scalar broadcast -> a broadcast to the new dims.
Instruction *simplifyReshape(Instruction &reshape) {
  Instruction *x = reshape.operand(0);
  if (x->shape() == reshape.shape())
    return x;
  ir::Computation &computation = *reshape.parent();
  if (x->opcode() == Opcode::Reshape) {
    Instruction *inner = x->operand(0);
    if (inner->shape() == reshape.shape())
      return inner;
    return build(computation, Opcode::Reshape, {inner}, {}, reshape.shape(),
                 reshape.name());
  }
  if (x->opcode() == Opcode::Broadcast && x->operand(0)->shape().rank() == 0)
    return build(computation, Opcode::Broadcast, {x->operand(0)}, {},
                 reshape.shape(), reshape.name());
  return nullptr;
}

/// Identity transposes vanish; transpose(transpose(x)) is one transpose
/// (or x when they cancel); a transpose of a broadcast is a broadcast; a
/// transpose that moves only size-1 dims is a reshape.
Instruction *simplifyTranspose(Instruction &transpose) {
  const std::vector<int64_t> &permutation = transpose.attrs().dimensions;
  Instruction *x = transpose.operand(0);
  if (isIdentityPermutation(permutation))
    return x;
  if (x->opcode() == Opcode::Transpose) {
    std::vector<int64_t> combined =
        composePermutations(x->attrs().dimensions, permutation);
    Instruction *inner = x->operand(0);
    if (isIdentityPermutation(combined))
      return inner;
    return build(*transpose.parent(), Opcode::Transpose, {inner},
                 dimensionsAttr(std::move(combined)), {}, transpose.name());
  }
  if (x->opcode() == Opcode::Broadcast)
    return transposeBroadcast(*x, permutation, transpose.name());
  // Moving only size-1 dims keeps row-major element order: a reshape
  // (NCHW -> NHWC of a one-channel image, say).
  std::vector<int64_t> moved;
  for (int64_t dim : permutation)
    if (x->shape().dim(size_t(dim)) != 1)
      moved.push_back(dim);
  if (std::is_sorted(moved.begin(), moved.end()))
    return build(*transpose.parent(), Opcode::Reshape, {x}, {},
                 transpose.shape(), transpose.name());
  return nullptr;
}

/// A broadcast that adds nothing -> its operand; broadcast(broadcast(x))
/// -> one broadcast (operand dim k lands on outer[inner[k]]); a broadcast
/// of a one-element array -> a broadcast of that scalar (which kernels'
/// epilogues and splat recognition take as a scalar).
Instruction *simplifyBroadcast(Instruction &broadcast) {
  Instruction *x = broadcast.operand(0);
  if (x->shape() == broadcast.shape())
    return x; // equal ranks and increasing dims make the mapping identity
  if (x->shape().rank() > 0 && x->shape().numElements() == 1) {
    Instruction *scalar =
        build(*broadcast.parent(), Opcode::Reshape, {x}, {},
              ir::Shape(x->shape().dtype(), {}), x->name());
    if (!scalar)
      return nullptr;
    return build(*broadcast.parent(), Opcode::Broadcast, {scalar}, {},
                 broadcast.shape(), broadcast.name());
  }
  if (x->opcode() != Opcode::Broadcast)
    return nullptr;
  const std::vector<int64_t> &outer = broadcast.attrs().dimensions;
  std::vector<int64_t> dims;
  for (int64_t inner : x->attrs().dimensions)
    dims.push_back(outer[size_t(inner)]);
  return build(*broadcast.parent(), Opcode::Broadcast, {x->operand(0)},
               dimensionsAttr(std::move(dims)), broadcast.shape(),
               broadcast.name());
}

/// Slices, pads and reversals that keep every element in place, dynamic
/// slices as large as their operand (clamping forces the start to 0), and
/// one-operand concatenations are their operand.
Instruction *sameShapeOperand(Instruction &op) {
  Instruction *x = op.operand(0);
  return x->shape() == op.shape() ? x : nullptr;
}

Instruction *simplifySlice(Instruction &slice) {
  for (const ir::SliceDim &dim : slice.attrs().slice)
    if (dim.start != 0 || dim.stride != 1)
      return nullptr;
  return sameShapeOperand(slice); // limits are then the operand's dims
}

Instruction *simplifyPad(Instruction &pad) {
  for (const ir::PadDim &dim : pad.attrs().padding)
    if (dim.low != 0 || dim.high != 0 || dim.interior != 0)
      return nullptr;
  return sameShapeOperand(pad);
}

Instruction *simplifyReverse(Instruction &reverse) {
  const ir::Shape &shape = reverse.shape();
  for (int64_t dim : reverse.attrs().dimensions)
    if (shape.dim(size_t(dim)) > 1)
      return nullptr;
  return reverse.operand(0);
}

Instruction *simplifyConcatenate(Instruction &concatenate) {
  return concatenate.operandCount() == 1 ? sameShapeOperand(concatenate)
                                         : nullptr;
}

Instruction *simplifyDynamicSlice(Instruction &slice) {
  return sameShapeOperand(slice);
}

/// get-tuple-element(tuple(a, b, ...), i) -> the i-th operand.
Instruction *forwardTupleElement(Instruction &element) {
  Instruction *tuple = element.operand(0);
  if (tuple->opcode() != Opcode::Tuple)
    return nullptr;
  return tuple->operand(size_t(element.attrs().index));
}

/// bitcast-convert to the operand's own shape -> the operand; and
/// bitcast-convert(bitcast-convert(x)) back to x's shape -> x: both keep
/// the row-major bytes, so equal shapes mean equal values.
Instruction *simplifyBitcastConvert(Instruction &bitcast) {
  Instruction *x = bitcast.operand(0);
  if (x->shape() == bitcast.shape())
    return x;
  if (x->opcode() == Opcode::BitcastConvert &&
      x->operand(0)->shape() == bitcast.shape())
    return x->operand(0);
  return nullptr;
}

constexpr RuleRow kLayoutRules[] = {
    {Opcode::Reshape, simplifyReshape},
    {Opcode::Transpose, simplifyTranspose},
    {Opcode::Broadcast, simplifyBroadcast},
    {Opcode::Slice, simplifySlice},
    {Opcode::Pad, simplifyPad},
    {Opcode::Reverse, simplifyReverse},
    {Opcode::Concatenate, simplifyConcatenate},
    {Opcode::DynamicSlice, simplifyDynamicSlice},
    {Opcode::GetTupleElement, forwardTupleElement},
    {Opcode::BitcastConvert, simplifyBitcastConvert},
};
} // namespace

std::span<const RuleRow> layoutRules() { return kLayoutRules; }

Instruction *transposeBroadcast(Instruction &broadcast,
                                const std::vector<int64_t> &permutation,
                                const std::string &name) {
  // Operand dim k sits at broadcast dim D[k], which the transpose moves to
  // position inverse[D[k]].
  std::vector<int64_t> inverse = inversePermutation(permutation);
  Instruction *operand = broadcast.operand(0);
  const std::vector<int64_t> &dims = broadcast.attrs().dimensions;
  std::vector<int64_t> moved(dims.size());
  for (size_t k = 0; k < dims.size(); ++k)
    moved[k] = inverse[size_t(dims[k])];
  // Broadcast dims must increase: reorder the (smaller) operand to match.
  std::vector<int64_t> order(dims.size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(),
            [&](int64_t a, int64_t b) { return moved[size_t(a)] < moved[size_t(b)]; });
  ir::Computation &computation = *broadcast.parent();
  if (!isIdentityPermutation(order)) {
    operand = build(computation, Opcode::Transpose, {operand},
                    dimensionsAttr(order), {}, operand->name());
    if (!operand)
      return nullptr;
  }
  std::vector<int64_t> sorted;
  for (int64_t k : order)
    sorted.push_back(moved[size_t(k)]);
  std::vector<int64_t> resultDims;
  for (int64_t p : permutation)
    resultDims.push_back(broadcast.shape().dim(size_t(p)));
  ir::Shape declared(broadcast.shape().dtype(), std::move(resultDims));
  return build(computation, Opcode::Broadcast, {operand},
               dimensionsAttr(std::move(sorted)), declared, name);
}

} // namespace kiln::transforms
