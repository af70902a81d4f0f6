//===- TfLoopBounds.cpp - The trip bound of a loop as TensorFlow writes it ===//
#include "TensorFlow/TfLoopBounds.h"

#include "kiln/IR/Computation.h"

#include <algorithm>

namespace kiln::import::tf {

namespace {
using ir::Instruction;
using ir::Opcode;

/// The state element `value` reads directly, or nullopt.
std::optional<int64_t> stateElement(const Instruction *value) {
  const ir::Computation *computation = value->parent();
  if (!computation || value->opcode() != Opcode::GetTupleElement ||
      value->operand(0) != computation->parameter(0))
    return std::nullopt;
  return value->attrs().index;
}

/// The value of a scalar integer constant, or nullopt.
std::optional<int64_t> scalarConstant(const Instruction *value) {
  if (value->shape().isTuple() || value->shape().rank() != 0)
    return std::nullopt;
  std::optional<std::vector<int64_t>> known =
      GraphBuilder::constantInts(const_cast<Instruction *>(value));
  return known ? std::optional<int64_t>(known->front()) : std::nullopt;
}

/// What `body` makes of state element `index`, or nullptr.
const Instruction *nextValue(const ir::Computation &body, int64_t index) {
  const Instruction *root = body.root();
  if (!root || root->opcode() != Opcode::Tuple || index < 0 ||
      size_t(index) >= root->operandCount())
    return nullptr;
  return root->operand(size_t(index));
}

/// The compares that all must hold for `pred` to: itself, or the operands
/// of an `and` tree.
void conjuncts(const Instruction *pred, std::vector<const Instruction *> &out) {
  if (pred->opcode() == Opcode::And && pred->shape().rank() == 0) {
    conjuncts(pred->operand(0), out);
    conjuncts(pred->operand(1), out);
    return;
  }
  if (pred->opcode() == Opcode::Compare)
    out.push_back(pred);
}

/// The constant a limit operand of the condition stands for.
std::optional<int64_t> limitValue(const Instruction *limit,
                                  const ir::Computation &body,
                                  const std::vector<Value> &init,
                                  Value &unknownLimit) {
  if (std::optional<int64_t> known = scalarConstant(limit))
    return known;
  std::optional<int64_t> element = stateElement(limit);
  if (!element || size_t(*element) >= init.size())
    return std::nullopt;
  if (!keepsElement(body, *element))
    return std::nullopt; // the body changes it
  std::optional<int64_t> known = scalarConstant(init[size_t(*element)]);
  if (!known)
    unknownLimit = init[size_t(*element)];
  return known;
}
} // namespace

bool keepsElement(const ir::Computation &body, int64_t index) {
  const Instruction *next = nextValue(body, index);
  return next && stateElement(next) == index;
}

bool stepsByOne(const ir::Computation &body, int64_t index) {
  const Instruction *next = nextValue(body, index);
  if (!next || next->opcode() != Opcode::Add)
    return false;
  for (size_t side = 0; side < 2; ++side)
    if (stateElement(next->operand(side)) == index &&
        scalarConstant(next->operand(1 - side)) == 1)
      return true;
  return false;
}

std::optional<int64_t> loopTripBound(const ir::Computation &cond,
                                     const ir::Computation &body,
                                     const std::vector<Value> &init,
                                     Value &unknownLimit) {
  unknownLimit = nullptr;
  std::vector<const Instruction *> tests;
  if (cond.root())
    conjuncts(cond.root(), tests);
  std::optional<int64_t> bound;
  for (const Instruction *test : tests) {
    if (test->attrs().direction != ir::ComparisonDirection::LT)
      continue;
    std::optional<int64_t> counter = stateElement(test->operand(0));
    if (!counter || size_t(*counter) >= init.size() ||
        !stepsByOne(body, *counter))
      continue;
    std::optional<int64_t> start = scalarConstant(init[size_t(*counter)]);
    std::optional<int64_t> limit =
        limitValue(test->operand(1), body, init, unknownLimit);
    if (!start || !limit)
      continue;
    int64_t trips = std::max<int64_t>(0, *limit - *start);
    bound = bound ? std::min(*bound, trips) : trips;
  }
  return bound;
}

} // namespace kiln::import::tf
