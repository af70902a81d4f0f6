//===- TransposeReshapeSinking.cpp - Transposes across reshapes -----------===//
//
// Transpose sinking (TransposeSinking.cpp) stops at a reshape, and NCHW
// models reshape right after the importer's NHWC -> NCHW transpose: an
// Unsqueeze that adds a unit dimension (openWakeWord's melspectrogram: a
// 1-D convolution, transpose, unsqueeze, power, transpose back), or a
// Flatten feeding a dense layer (a CNN classifier's head). Two rules carry
// the transpose on:
//
// - reshape(transpose(x, P)) that only inserts or removes size-1 dims
//   -> transpose(reshape(x), P'): the same elements in the same order, so
//   the transpose keeps sinking and meets its partner below.
// - dot(reshape(transpose(x, P)), W) where the reshape flattens everything
//   but the (unmoved) batch dimension into the contracted one and W is a
//   constant -> dot(reshape(x), W'), W's rows permuted to x's order once
//   at compile time (constant folding), so the transpose disappears.
//
//===----------------------------------------------------------------------===//
#include "SimplifierRules.h"
#include "TransformUtils.h"

#include <algorithm>

namespace kiln::transforms {

namespace {
using ir::Instruction;
using ir::Opcode;

/// The positions of the dims larger than 1.
std::vector<int64_t> nonUnitDims(const ir::Shape &shape) {
  std::vector<int64_t> out;
  for (int64_t i = 0; i < shape.rank(); ++i)
    if (shape.dim(i) != 1)
      out.push_back(i);
  return out;
}

/// A transpose of a computed value (not a constant or broadcast, which
/// folding handles) that `user` alone reads, so moving it duplicates
/// nothing.
bool movableTranspose(const Instruction &value) {
  if (value.opcode() != Opcode::Transpose || value.users().size() != 1)
    return false;
  Opcode source = value.operand(0)->opcode();
  return source != Opcode::Constant && source != Opcode::Broadcast;
}

Instruction *transposeOf(Instruction &value, std::vector<int64_t> permutation,
                         const std::string &name) {
  ir::Attributes attrs;
  attrs.dimensions = std::move(permutation);
  return build(*value.parent(), Opcode::Transpose, {&value}, std::move(attrs),
               {}, name);
}

/// reshape(transpose(x, P)) -> transpose(reshape(x, S), Q) when the reshape
/// only inserts or removes size-1 dims. S holds x's non-unit dims in x's
/// order, then 1s; Q places them where the reshape puts them.
Instruction *sinkTransposeBelowUnitReshape(Instruction &reshape) {
  Instruction *transpose = reshape.operand(0);
  if (!movableTranspose(*transpose))
    return nullptr;
  const ir::Shape &transposed = transpose->shape();
  const ir::Shape &result = reshape.shape();
  std::vector<int64_t> from = nonUnitDims(transposed);
  std::vector<int64_t> to = nonUnitDims(result);
  if (from.size() != to.size())
    return nullptr;
  for (size_t j = 0; j < from.size(); ++j)
    if (transposed.dim(from[j]) != result.dim(to[j]))
      return nullptr;
  const std::vector<int64_t> &permutation = transpose->attrs().dimensions;
  std::vector<int64_t> sources; // x's dim behind each non-unit dim, in order
  for (int64_t dim : from)
    sources.push_back(permutation[size_t(dim)]);
  std::vector<int64_t> sorted = sources;
  std::sort(sorted.begin(), sorted.end());

  Instruction *x = transpose->operand(0);
  std::vector<int64_t> dims(size_t(result.rank()), 1);
  for (size_t j = 0; j < sorted.size(); ++j)
    dims[j] = x->shape().dim(sorted[j]);
  std::vector<int64_t> moved(size_t(result.rank()), -1);
  for (size_t j = 0; j < to.size(); ++j)
    moved[size_t(to[j])] = std::find(sorted.begin(), sorted.end(), sources[j]) -
                           sorted.begin();
  int64_t nextUnit = int64_t(sorted.size());
  for (int64_t &position : moved)
    if (position < 0)
      position = nextUnit++;

  Instruction *flat =
      build(*reshape.parent(), Opcode::Reshape, {x}, {},
            ir::Shape(result.dtype(), std::move(dims)), reshape.name());
  if (!flat)
    return nullptr;
  return transposeOf(*flat, std::move(moved), reshape.name());
}

/// dot(reshape(transpose(x, P), [B, K]), W) -> dot(reshape(x, [B, K]), W')
/// for a constant W [K, N] that only this dot reads (a shared one would be
/// duplicated in the object) and P keeping dimension 0 (the batch) first:
/// W' = W with its K rows reordered from the transposed flattening order
/// to x's, written as reshape/transpose/reshape of W for constant folding.
Instruction *foldTransposeIntoDotWeights(Instruction &dot) {
  const ir::DotDimensionNumbers &numbers = dot.attrs().dot;
  Instruction *lhs = dot.operand(0);
  Instruction *weights = dot.operand(1);
  if (lhs->opcode() != Opcode::Reshape || lhs->users().size() != 1 ||
      weights->opcode() != Opcode::Constant || weights->users().size() != 1 ||
      !numbers.lhsBatch.empty() ||
      numbers.lhsContracting != std::vector<int64_t>{1} ||
      numbers.rhsContracting != std::vector<int64_t>{0} ||
      lhs->shape().rank() != 2 || weights->shape().rank() != 2)
    return nullptr;
  Instruction *transpose = lhs->operand(0);
  if (!movableTranspose(*transpose))
    return nullptr;
  const std::vector<int64_t> &permutation = transpose->attrs().dimensions;
  const ir::Shape &transposed = transpose->shape();
  if (permutation.empty() || permutation[0] != 0 ||
      transposed.dim(0) != lhs->shape().dim(0))
    return nullptr; // the batch moves, or is merged into the contraction

  // W indexed by the transposed dims 1.., then N; permuted to x's dims 1..
  int64_t order = transposed.rank();
  std::vector<int64_t> split;
  for (int64_t i = 1; i < order; ++i)
    split.push_back(transposed.dim(i));
  split.push_back(weights->shape().dim(1));
  std::vector<int64_t> toX(size_t(order), order - 1);
  std::vector<int64_t> inverse = inversePermutation(permutation);
  for (int64_t j = 1; j < order; ++j)
    toX[size_t(j - 1)] = inverse[size_t(j)] - 1;

  ir::Computation &computation = *dot.parent();
  Instruction *rows =
      build(computation, Opcode::Reshape, {weights}, {},
            ir::Shape(weights->shape().dtype(), split), weights->name());
  Instruction *reordered =
      rows ? transposeOf(*rows, std::move(toX), weights->name()) : nullptr;
  Instruction *permuted =
      reordered ? build(computation, Opcode::Reshape, {reordered}, {},
                        weights->shape(), weights->name())
                : nullptr;
  Instruction *flat =
      permuted ? build(computation, Opcode::Reshape, {transpose->operand(0)},
                       {}, lhs->shape(), lhs->name())
               : nullptr;
  if (!flat)
    return nullptr;
  return build(computation, Opcode::Dot, {flat, permuted}, dot.attrs(),
               dot.shape(), dot.name());
}

constexpr RuleRow kRules[] = {
    {Opcode::Reshape, sinkTransposeBelowUnitReshape},
    {Opcode::Dot, foldTransposeIntoDotWeights},
};
} // namespace

std::span<const RuleRow> transposeReshapeRules() { return kRules; }

} // namespace kiln::transforms
