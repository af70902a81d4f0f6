//===- ComparatorMatch.cpp - Recognise a plain key-order comparator -------===//
#include "kiln/IR/ComparatorMatch.h"

#include "kiln/IR/Computation.h"

namespace kiln::ir {

namespace {

/// Whether `comparator` has the 2N scalar parameters, numbered in order, of
/// a sort of `operands`: lhs and rhs of operand k are of its dtype.
bool hasSortSignature(const Computation &comparator,
                      const std::vector<Shape> &operands) {
  if (comparator.parameters().size() != 2 * operands.size())
    return false;
  for (size_t i = 0; i < 2 * operands.size(); ++i) {
    const Instruction *param = comparator.parameter(int64_t(i));
    const Shape &operand = operands[i / 2];
    if (!param || operand.isTuple() ||
        param->shape() != Shape::scalar(operand.dtype()))
      return false;
  }
  return true;
}

} // namespace

std::optional<KeyOrder> matchKeyOrderComparator(
    const Computation &comparator, const std::vector<Shape> &operands) {
  const Instruction *root = comparator.root();
  if (operands.empty() || !root || root->opcode() != Opcode::Compare ||
      !hasSortSignature(comparator, operands) ||
      comparator.instructionCount() != comparator.parameters().size() + 1)
    return std::nullopt;
  ComparisonDirection direction = root->attrs().direction;
  if (direction != ComparisonDirection::LT &&
      direction != ComparisonDirection::GT)
    return std::nullopt;
  const Instruction *lhs = comparator.parameter(0);
  const Instruction *rhs = comparator.parameter(1);
  bool greater = direction == ComparisonDirection::GT;
  ComparisonType type = root->attrs().comparisonType;
  if (!comparisonTypeFits(type, operands[0].dtype()))
    return std::nullopt; // kept, so that the verifier reports it
  bool totalOrder = type == ComparisonType::TotalOrder;
  if (root->operand(0) == lhs && root->operand(1) == rhs)
    return KeyOrder{greater, totalOrder}; // lhs > rhs first: descending
  if (root->operand(0) == rhs && root->operand(1) == lhs)
    return KeyOrder{!greater, totalOrder}; // rhs < lhs means lhs > rhs
  return std::nullopt;
}

} // namespace kiln::ir
