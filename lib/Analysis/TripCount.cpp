//===- TripCount.cpp - How many times a while runs its body ---------------===//
#include "kiln/Analysis/TripCount.h"
#include "kiln/IR/Compare.h"

#include "kiln/IR/Computation.h"

#include <cstring>

namespace kiln::analysis {

using ir::ComparisonDirection;
using ir::Instruction;
using ir::Opcode;

/// Up to 63 bits of magnitude: u64 is left out.
std::optional<int64_t> integerConstant(const Instruction &value) {
  if (value.opcode() != Opcode::Constant || value.shape().isTuple() ||
      value.shape().rank() != 0)
    return std::nullopt;
  const std::vector<uint8_t> &bytes = value.literal().bytes();
  switch (value.shape().dtype()) {
  case ir::DType::S32: {
    int32_t v;
    std::memcpy(&v, bytes.data(), sizeof v);
    return v;
  }
  case ir::DType::S64: {
    int64_t v;
    std::memcpy(&v, bytes.data(), sizeof v);
    return v;
  }
  case ir::DType::U32: {
    uint32_t v;
    std::memcpy(&v, bytes.data(), sizeof v);
    return int64_t(v);
  }
  default:
    return std::nullopt;
  }
}

namespace {

/// Whether `value` reads state element `index` of `computation`'s parameter
/// (-1: the parameter is the state array itself).
bool readsStateElement(const Instruction &value, int64_t index) {
  const ir::Computation *computation = value.parent();
  const Instruction *parameter = computation ? computation->parameter(0) : nullptr;
  if (!parameter)
    return false;
  if (index < 0)
    return &value == parameter;
  return value.opcode() == Opcode::GetTupleElement &&
         value.operand(0) == parameter && value.attrs().index == index;
}

/// The body's constant step of element `index`: add(x, c), add(c, x) or
/// subtract(x, c) of the element x.
std::optional<int64_t> bodyStep(const ir::Computation &body, int64_t index) {
  const Instruction *root = body.root();
  const Instruction *next = root;
  if (index >= 0) {
    if (root->opcode() != Opcode::Tuple || size_t(index) >= root->operandCount())
      return std::nullopt;
    next = root->operand(size_t(index));
  }
  if (next->opcode() != Opcode::Add && next->opcode() != Opcode::Subtract)
    return std::nullopt;
  for (size_t side = 0; side < 2; ++side) {
    if (next->opcode() == Opcode::Subtract && side == 1)
      break;
    if (!readsStateElement(*next->operand(side), index))
      continue;
    std::optional<int64_t> step = integerConstant(*next->operand(1 - side));
    if (!step || *step == INT64_MIN)
      return std::nullopt;
    return next->opcode() == Opcode::Subtract ? -*step : *step;
  }
  return std::nullopt;
}

/// The direction with the operands swapped: c < x is x > c.
ComparisonDirection mirrored(ComparisonDirection direction) {
  switch (direction) {
  case ComparisonDirection::LT: return ComparisonDirection::GT;
  case ComparisonDirection::LE: return ComparisonDirection::GE;
  case ComparisonDirection::GT: return ComparisonDirection::LT;
  case ComparisonDirection::GE: return ComparisonDirection::LE;
  default: return direction;
  }
}

/// Iterations of `i = start; while (i DIR limit) i += step;`, or nullopt
/// when it never ends or the count does not fit.
std::optional<int64_t> countIterations(int64_t start, ComparisonDirection direction,
                                       int64_t limit, int64_t step) {
  if (!ir::compareHolds(direction, start, limit))
    return 0;
  // __int128 keeps the distance exact for any pair of int64 values.
  __int128 distance = __int128(limit) - start;
  switch (direction) {
  case ComparisonDirection::LE:
  case ComparisonDirection::GE:
    distance += direction == ComparisonDirection::LE ? 1 : -1;
    [[fallthrough]];
  case ComparisonDirection::LT:
  case ComparisonDirection::GT: {
    if (step == 0 || (distance > 0) != (step > 0))
      return std::nullopt; // moves away from the limit
    __int128 trips = (distance + step - (step > 0 ? 1 : -1)) / step;
    return trips > INT64_MAX ? std::nullopt : std::optional<int64_t>(int64_t(trips));
  }
  case ComparisonDirection::NE: {
    if (step == 0 || distance % step != 0 || (distance > 0) != (step > 0))
      return std::nullopt;
    __int128 trips = distance / step;
    return trips > INT64_MAX ? std::nullopt : std::optional<int64_t>(int64_t(trips));
  }
  case ComparisonDirection::EQ:
    return step == 0 ? std::nullopt : std::optional<int64_t>(1);
  }
  return std::nullopt;
}

} // namespace

std::optional<CountedLoop> countedLoop(const Instruction &loop) {
  if (loop.opcode() != Opcode::While || loop.calledComputations().size() != 2)
    return std::nullopt;
  const ir::Computation &condition = *loop.calledComputations()[0];
  const ir::Computation &body = *loop.calledComputations()[1];
  const Instruction *compare = condition.root();
  if (compare->opcode() != Opcode::Compare)
    return std::nullopt;
  const Instruction *init = loop.operand(0);
  int64_t states = init->shape().isTuple()
                       ? int64_t(init->shape().tupleElements().size())
                       : 0;
  // Each side of the comparison may be the counter; the other is the limit.
  for (size_t side = 0; side < 2; ++side) {
    std::optional<int64_t> limit = integerConstant(*compare->operand(1 - side));
    if (!limit)
      continue;
    ComparisonDirection direction = side == 0
                                        ? compare->attrs().direction
                                        : mirrored(compare->attrs().direction);
    for (int64_t index = states ? 0 : -1; index < states; ++index) {
      if (!readsStateElement(*compare->operand(side), index))
        continue;
      const Instruction *start =
          index < 0 ? init
                    : (init->opcode() == Opcode::Tuple
                           ? init->operand(size_t(index))
                           : nullptr);
      if (!start)
        continue;
      std::optional<int64_t> first = integerConstant(*start);
      std::optional<int64_t> step = bodyStep(body, index);
      if (!first || !step)
        continue;
      CountedLoop counted{index, first.value(), step.value(), 0};
      std::optional<int64_t> trips =
          countIterations(counted.start, direction, *limit, counted.step);
      if (!trips)
        return std::nullopt;
      counted.trips = *trips;
      return counted;
    }
  }
  return std::nullopt;
}

std::optional<int64_t> whileTripCount(const Instruction &loop) {
  std::optional<CountedLoop> counted = countedLoop(loop);
  return counted ? std::optional<int64_t>(counted->trips) : std::nullopt;
}

} // namespace kiln::analysis
