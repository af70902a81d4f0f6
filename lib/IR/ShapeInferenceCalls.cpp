//===- ShapeInferenceCalls.cpp - Shape rules of opcodes with callees ------===//
//
// fusion, while, conditional and call take their result shape from a called
// computation's root, after checking that the callee's parameters accept
// the operands. Their callees are given in Instruction::calledComputations
// order; the counts are checked here, so a corrupt instruction gets a
// message rather than an out-of-range read.
//
//===----------------------------------------------------------------------===//
#include "ShapeInferenceRules.h"

#include <fmt/format.h>

namespace kiln::ir::detail {

namespace {

/// Fails unless exactly `count` computations are called, each with a root.
Error requireCallees(const InferenceInput &in, size_t count,
                     std::string_view roles) {
  if (in.called.size() != count)
    return makeError("{} calls {} computation{} but needs {} ({})",
                     opcodeName(in.opcode), in.called.size(),
                     in.called.size() == 1 ? "" : "s", count, roles);
  for (const Computation *callee : in.called) {
    if (!callee)
      return makeError("{} has a missing called computation",
                       opcodeName(in.opcode));
    if (!callee->root())
      return makeError("called computation '{}' has no root", callee->name());
  }
  return Error::success();
}

/// Fails unless `callee`'s parameters take `shapes`, one each, in order.
/// `what` names the caller's values in messages ("operand", "init").
Error requireParameters(const Computation &callee,
                        const std::vector<Shape> &shapes,
                        std::string_view what, size_t firstOperand) {
  size_t count = callee.parameters().size();
  if (count != shapes.size())
    return makeError("called computation '{}' has {} parameter{} but is "
                     "given {} value{}",
                     callee.name(), count, count == 1 ? "" : "s",
                     shapes.size(), shapes.size() == 1 ? "" : "s");
  for (size_t i = 0; i < shapes.size(); ++i) {
    const Instruction *param = callee.parameter(int64_t(i));
    if (!param)
      return makeError("called computation '{}' has no parameter {}",
                       callee.name(), i);
    if (param->shape() != shapes[i])
      return makeError("{} {} has shape {} but parameter {} of '{}' has "
                       "shape {}",
                       what, firstOperand + i, shapes[i].toString(), i,
                       callee.name(), param->shape().toString());
  }
  return Error::success();
}

/// Loop state and branch results are arrays or flat tuples of arrays:
/// buffer assignment gives each element one slice.
Error requireFlatState(const Shape &shape, std::string_view what) {
  if (!shape.isTuple())
    return Error::success();
  for (size_t i = 0; i < shape.tupleElements().size(); ++i)
    if (shape.tupleElements()[i].isTuple())
      return makeError("{} {} has a nested tuple (element {}); kiln supports "
                       "an array or a tuple of arrays",
                       what, shape.toString(), i);
  return Error::success();
}

} // namespace

Expected<Shape> inferFusion(const InferenceInput &in) {
  if (in.called.empty())
    return makeError("fusion has no called computation");
  if (Error e = requireCallees(in, 1, "the fused computation"))
    return e;
  const Computation &callee = *in.called[0];
  if (Error e = requireParameters(callee, in.operands, "operand", 0))
    return e;
  return callee.root()->shape();
}

Expected<Shape> inferWhile(const InferenceInput &in) {
  if (Error e = requireCallees(in, 2, "condition and body"))
    return e;
  const Shape &state = in.operands[0];
  if (Error e = requireFlatState(state, "loop state"))
    return e;
  const Computation &condition = *in.called[0];
  const Computation &body = *in.called[1];
  if (Error e = requireParameters(condition, {state}, "init", 0))
    return e;
  if (Error e = requireParameters(body, {state}, "init", 0))
    return e;
  const Shape &predicate = condition.root()->shape();
  if (predicate != Shape(DType::Pred, {}))
    return makeError("condition '{}' returns {} but must return pred[]",
                     condition.name(), predicate.toString());
  if (body.root()->shape() != state)
    return makeError("body '{}' returns {} but the loop state is {}",
                     body.name(), body.root()->shape().toString(),
                     state.toString());
  return state;
}

Expected<Shape> inferConditional(const InferenceInput &in) {
  const Shape &selector = in.operands[0];
  bool byPredicate = selector == Shape(DType::Pred, {});
  if (!byPredicate && selector != Shape(DType::S32, {}))
    return makeError("branch selector has shape {} but must be pred[] (two "
                     "branches) or s32[] (a branch index)",
                     selector.toString());
  size_t branches = in.operands.size() - 1;
  if (byPredicate && branches != 2)
    return makeError("a pred[] selector chooses between 2 branches but {} "
                     "branch operand{} given",
                     branches, branches == 1 ? " is" : "s are");
  if (branches == 0)
    return makeError("conditional has no branches");
  if (Error e = requireCallees(in, branches,
                               "one computation per branch operand"))
    return e;
  const Shape &result = in.called[0]->root()->shape();
  for (size_t i = 0; i < branches; ++i) {
    const Computation &branch = *in.called[i];
    if (Error e = requireParameters(branch, {in.operands[i + 1]}, "operand",
                                    i + 1))
      return e;
    if (branch.root()->shape() != result)
      return makeError("branch '{}' returns {} but branch '{}' returns {}",
                       branch.name(), branch.root()->shape().toString(),
                       in.called[0]->name(), result.toString());
  }
  if (Error e = requireFlatState(result, "conditional result"))
    return e;
  return result;
}

Expected<Shape> inferCall(const InferenceInput &in) {
  if (Error e = requireCallees(in, 1, "the callee"))
    return e;
  const Computation &callee = *in.called[0];
  if (Error e = requireParameters(callee, in.operands, "operand", 0))
    return e;
  return callee.root()->shape();
}

} // namespace kiln::ir::detail
