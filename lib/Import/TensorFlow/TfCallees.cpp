//===- TfCallees.cpp - Library functions lowered as callee computations ---===//
#include "TensorFlow/TfCallees.h"

#include "Common/CalleeBuilder.h"

#include "kiln/IR/Module.h"

#include <fmt/format.h>

namespace kiln::import::tf {

using ir::DType;

std::optional<std::vector<Value>> inputsFrom(TfNodeContext &ctx, size_t first) {
  std::vector<Value> values;
  for (size_t i = first; i < ctx.inputCount(); ++i) {
    Value value = ctx.input(i);
    if (!value)
      return std::nullopt;
    values.push_back(value);
  }
  return values;
}

std::vector<ir::Shape> shapesOf(const std::vector<Value> &values) {
  std::vector<ir::Shape> shapes;
  for (Value value : values)
    shapes.push_back(value->shape());
  return shapes;
}

std::string describeShapes(const std::vector<ir::Shape> &shapes) {
  std::vector<std::string> texts;
  for (const ir::Shape &shape : shapes)
    texts.push_back(shape.toString());
  return fmt::format("({})", fmt::join(texts, ", "));
}

Value truthValue(GraphBuilder &b, Value x) {
  const ir::Shape &shape = x->shape();
  if (shape.rank() != 0)
    return b.scalar(DType::Pred, shape.numElements() > 0 ? 1 : 0);
  if (shape.dtype() == DType::Pred)
    return x;
  return b.compare(ir::ComparisonDirection::NE, x,
                   b.scalar(shape.dtype(), 0));
}

void setOutputs(TfNodeContext &ctx, const std::vector<Value> &values) {
  for (size_t i = 0; i < values.size(); ++i)
    ctx.setOutput(i, values[i]);
}

void discardCallee(TfNodeContext &ctx, ir::Computation *callee) {
  ctx.forgetLists(*callee);
  callee->parent()->removeComputation(callee);
}

UnshapedLists unshapedListsOf(TfNodeContext &ctx,
                              const std::vector<Value> &values) {
  UnshapedLists bounds;
  for (Value value : values)
    bounds.push_back(ctx.unshapedListBound(value));
  return bounds;
}

std::vector<size_t> countedListsOf(TfNodeContext &ctx,
                                   const std::vector<Value> &values) {
  std::vector<size_t> counted;
  for (size_t i = 0; i < values.size(); ++i)
    if (ctx.listLength(values[i]))
      counted.push_back(i);
  return counted;
}

ir::Computation *buildCallee(TfNodeContext &ctx, const std::string &function,
                             const std::vector<ir::Shape> &parameters,
                             const std::string &role, const RootOf &rootOf,
                             const CalleeLists &lists) {
  GraphBuilder &b = ctx.builder();
  ir::Computation *callee = newComputation(b, ctx.name() + "." + role);
  GraphBuilder c(*callee);
  c.setSourceNode(ctx.name());
  Value parameter = c.parameter(0, ir::Shape::tuple(parameters),
                                callee->name() + ".args");
  std::vector<Value> arguments = c.tupleElements(parameter);
  size_t own = arguments.size() - lists.counted.size();
  for (size_t k = 0; k < lists.counted.size(); ++k)
    ctx.setListLength(arguments[lists.counted[k]], arguments[own + k]);
  arguments.resize(own);
  for (size_t i = 0; i < lists.unshaped.size() && i < arguments.size(); ++i)
    if (lists.unshaped[i])
      ctx.markUnshapedList(arguments[i], *lists.unshaped[i]);
  std::optional<std::vector<Value>> outputs =
      ctx.callFunction(function, arguments, c);
  Value root = outputs ? rootOf(c, *outputs) : nullptr;
  if (!outputs || !finish(b, c, *callee, root)) {
    // Nothing calls it; a half-built computation must not reach the
    // verifier or a dump.
    discardCallee(ctx, callee);
    return nullptr;
  }
  return callee;
}

} // namespace kiln::import::tf
