//===- ReducerMatch.cpp - Recognise a binary reducer computation ----------===//
#include "kiln/IR/ReducerMatch.h"

#include "kiln/IR/Computation.h"

#include <fmt/format.h>

namespace kiln::ir {

namespace {

std::optional<ReducerKind> reducerOf(Opcode opcode) {
  switch (opcode) {
  case Opcode::Add: return ReducerKind::Add;
  case Opcode::Multiply: return ReducerKind::Mul;
  case Opcode::Maximum: return ReducerKind::Max;
  case Opcode::Minimum: return ReducerKind::Min;
  case Opcode::And: return ReducerKind::And;
  case Opcode::Or: return ReducerKind::Or;
  default: return std::nullopt;
  }
}

ReducerMatch mismatch(std::string why) { return {std::nullopt, std::move(why)}; }

} // namespace

ReducerMatch matchBinaryReducer(const Computation &computation) {
  std::vector<Instruction *> parameters = computation.parameters();
  const Instruction *root = computation.root();
  if (parameters.size() != 2)
    return mismatch(fmt::format("it has {} parameter{}, not 2",
                                parameters.size(),
                                parameters.size() == 1 ? "" : "s"));
  if (parameters[0]->parameterNumber() != 0 ||
      parameters[1]->parameterNumber() != 1)
    return mismatch(fmt::format("its parameters are numbered {} and {}, not "
                                "0 and 1",
                                parameters[0]->parameterNumber(),
                                parameters[1]->parameterNumber()));
  const Shape &type = parameters[0]->shape();
  if (type.isTuple() || type.rank() != 0 || parameters[1]->shape() != type)
    return mismatch(fmt::format("its parameters are {} and {}, not two scalars "
                                "of one type",
                                type.toString(),
                                parameters[1]->shape().toString()));
  if (!root || computation.instructionCount() != 3)
    return mismatch(fmt::format("it has {} instructions, not the two "
                                "parameters and one binary operation",
                                computation.instructionCount()));
  std::optional<ReducerKind> kind = reducerOf(root->opcode());
  if (!kind)
    return mismatch(fmt::format("its root is '{}', not add, multiply, "
                                "maximum, minimum, and or or",
                                opcodeName(root->opcode())));
  bool usesBoth = root->operandCount() == 2 &&
                  root->operand(0) != root->operand(1) &&
                  (root->operand(0) == parameters[0] ||
                   root->operand(0) == parameters[1]) &&
                  (root->operand(1) == parameters[0] ||
                   root->operand(1) == parameters[1]);
  if (!usesBoth)
    return mismatch(fmt::format("its root '{}' does not combine the two "
                                "parameters",
                                opcodeName(root->opcode())));
  if (root->shape() != type)
    return mismatch(fmt::format("its root is {}, not {}",
                                root->shape().toString(), type.toString()));
  return {kind, ""};
}

} // namespace kiln::ir
