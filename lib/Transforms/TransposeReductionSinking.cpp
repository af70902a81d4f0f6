//===- TransposeReductionSinking.cpp - Transposes below reductions --------===//
//
// A reduction commutes with a permutation of its operand once its
// per-dimension attributes are permuted along: reducing dims D of
// transpose(x, P) reduces dims P[D] of x, and a window over dim i of the
// transposed value is a window over dim P[i] of x. Moving the transpose
// below lets the reduction run in its operand's layout (an NHWC producer's,
// when an NCHW model pools or averages between two convolutions) and leaves
// the transpose on the smaller result, or on none: a global average over H
// and W of an NCHW value keeps [N, C] in x's order, so no transpose is left.
// Floating-point sums and products move only when the reduced (windowed)
// dims keep their relative order, so the elements combine in the same order
// and the result is the same to the bit (H before W in NCHW and NHWC alike).
//
//===----------------------------------------------------------------------===//
#include "SimplifierRules.h"
#include "TransformUtils.h"

#include <algorithm>

namespace kiln::transforms {

namespace {
using ir::Instruction;
using ir::Opcode;

/// The transpose a single-input, named-reducer reduction reads, when that
/// reduction is its only user (moving it then duplicates nothing) and it
/// transposes a computed value (constants and broadcasts fold instead).
Instruction *soleTransposeOperand(const Instruction &reduction) {
  if (reduction.operands().size() != 2 ||
      !reduction.calledComputations().empty() ||
      reduction.shape().isTuple())
    return nullptr;
  Instruction *transpose = reduction.operand(0);
  if (transpose->opcode() != Opcode::Transpose ||
      transpose->users().size() != 1)
    return nullptr;
  Opcode source = transpose->operand(0)->opcode();
  if (source == Opcode::Constant || source == Opcode::Broadcast)
    return nullptr;
  return transpose;
}

/// Whether combining in another order gives the same bits: max, min, and,
/// or, and integer add and multiply (floating-point add and multiply round
/// after every step, so their result depends on the order).
bool orderFree(const Instruction &reduction) {
  switch (reduction.attrs().reducer) {
  case ir::ReducerKind::Add:
  case ir::ReducerKind::Mul:
    return !ir::isFloat(reduction.shape().dtype());
  default:
    return true;
  }
}

/// Whether `dims` of the transposed value come from x's dims in the same
/// relative order: a reduction visits its reduced elements in row-major
/// order of its operand's dims, so it then combines them in the same order
/// before and after the move.
bool keepsRelativeOrder(const std::vector<int64_t> &permutation,
                        std::vector<int64_t> dims) {
  std::sort(dims.begin(), dims.end());
  for (size_t i = 1; i < dims.size(); ++i)
    if (permutation[size_t(dims[i - 1])] > permutation[size_t(dims[i])])
      return false;
  return true;
}

/// `value` itself for the identity, else transpose(value, permutation).
Instruction *transposedOrSelf(Instruction *value,
                              std::vector<int64_t> permutation,
                              const std::string &name) {
  if (!value || isIdentityPermutation(permutation))
    return value;
  ir::Attributes attrs;
  attrs.dimensions = std::move(permutation);
  return build(*value->parent(), Opcode::Transpose, {value}, std::move(attrs),
               {}, name);
}

/// reduce(transpose(x, P), init), dims D -> transpose(reduce(x, init),
/// dims P[D]), Q) where Q orders x's kept dims as the transposed ones were;
/// no transpose when they keep x's order.
Instruction *sinkTransposeBelowReduce(Instruction &reduce) {
  Instruction *transpose = soleTransposeOperand(reduce);
  if (!transpose)
    return nullptr;
  const std::vector<int64_t> &permutation = transpose->attrs().dimensions;
  const std::vector<int64_t> &reduced = reduce.attrs().dimensions;
  if (!orderFree(reduce) && !keepsRelativeOrder(permutation, reduced))
    return nullptr; // a float sum would round in another order
  std::vector<int64_t> sourceReduced;
  for (int64_t dim : reduced)
    sourceReduced.push_back(permutation[size_t(dim)]);
  std::sort(sourceReduced.begin(), sourceReduced.end());

  Instruction *x = transpose->operand(0);
  std::vector<int64_t> kept; // x's dims the reduction keeps, in x's order
  for (int64_t dim = 0; dim < x->shape().rank(); ++dim)
    if (!std::binary_search(sourceReduced.begin(), sourceReduced.end(), dim))
      kept.push_back(dim);
  std::vector<int64_t> keptDims, order;
  for (int64_t dim : kept)
    keptDims.push_back(x->shape().dim(dim));
  for (int64_t dim = 0; dim < transpose->shape().rank(); ++dim)
    if (std::find(reduced.begin(), reduced.end(), dim) == reduced.end())
      order.push_back(std::find(kept.begin(), kept.end(),
                                permutation[size_t(dim)]) -
                      kept.begin());

  ir::Attributes attrs = reduce.attrs();
  attrs.dimensions = std::move(sourceReduced);
  Instruction *moved = build(
      *reduce.parent(), Opcode::Reduce, {x, reduce.operand(1)}, attrs,
      ir::Shape(reduce.shape().dtype(), std::move(keptDims)), reduce.name());
  return transposedOrSelf(moved, std::move(order), reduce.name());
}

/// reduce-window(transpose(x, P), init), window W ->
/// transpose(reduce-window(x, init), window W' with W'[P[i]] = W[i]), P).
Instruction *sinkTransposeBelowReduceWindow(Instruction &reduceWindow) {
  Instruction *transpose = soleTransposeOperand(reduceWindow);
  if (!transpose)
    return nullptr;
  const std::vector<int64_t> &permutation = transpose->attrs().dimensions;
  ir::Attributes attrs = reduceWindow.attrs();
  if (attrs.window.size() != permutation.size())
    return nullptr;
  std::vector<int64_t> windowed; // the dims a window spans more than 1 of
  for (size_t i = 0; i < attrs.window.size(); ++i)
    if (attrs.window[i].size != 1)
      windowed.push_back(int64_t(i));
  if (!orderFree(reduceWindow) && !keepsRelativeOrder(permutation, windowed))
    return nullptr; // a float sum would round in another order
  const ir::Shape &shape = reduceWindow.shape();
  std::vector<int64_t> dims(permutation.size());
  for (size_t i = 0; i < permutation.size(); ++i) {
    attrs.window[size_t(permutation[i])] = reduceWindow.attrs().window[i];
    dims[size_t(permutation[i])] = shape.dim(int64_t(i));
  }
  Instruction *moved =
      build(*reduceWindow.parent(), Opcode::ReduceWindow,
            {transpose->operand(0), reduceWindow.operand(1)}, attrs,
            ir::Shape(shape.dtype(), std::move(dims)), reduceWindow.name());
  return transposedOrSelf(moved, permutation, reduceWindow.name());
}

constexpr RuleRow kRules[] = {
    {Opcode::Reduce, sinkTransposeBelowReduce},
    {Opcode::ReduceWindow, sinkTransposeBelowReduceWindow},
};
} // namespace

std::span<const RuleRow> transposeReductionRules() { return kRules; }

} // namespace kiln::transforms
