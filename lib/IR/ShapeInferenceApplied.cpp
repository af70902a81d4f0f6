//===- ShapeInferenceApplied.cpp - Shape rules of per-element callees -----===//
//
// reduce with to_apply, map and sort's comparator apply a computation of
// scalars to elements (XLA's variadic reduce: N inputs, N init values, a
// computation of 2N scalar parameters returning N scalars; map: one scalar
// per operand, one scalar back; sort: the lhs and rhs of each of N operands,
// a pred back). The emitter inlines the callee's scalar
// instructions into the caller's loop, so the callee must hold only
// parameters, scalar constants and elementwise operations, with a tuple
// allowed as root; everything is checked here so the evaluator and the
// emitter can take it as given.
//
//===----------------------------------------------------------------------===//
#include "ShapeInferenceRules.h"

#include <algorithm>
#include <fmt/format.h>

namespace kiln::ir::detail {

namespace {

/// "f32[], s32[]": the shapes of a callee's signature, for messages.
std::string formatShapes(const std::vector<Shape> &shapes) {
  std::string text;
  for (const Shape &shape : shapes)
    text += (text.empty() ? "" : ", ") + shape.toString();
  return text;
}

/// Fails unless one computation, with a root, is called.
Expected<const Computation *> requireOneCallee(const InferenceInput &in) {
  if (in.called.size() != 1 || !in.called[0])
    return makeError("{} applies {} computations but needs one (to_apply)",
                     opcodeName(in.opcode), in.called.size());
  if (!in.called[0]->root())
    return makeError("to_apply computation '{}' has no root",
                     in.called[0]->name());
  return in.called[0];
}

/// The instructions an emitter can inline per element: scalar parameters,
/// constants and elementwise operations, a tuple of scalars only as root.
/// `role` names the callee in messages (to_apply, select, scatter).
Error requireScalarComputation(const Computation &callee,
                               std::string_view role = "to_apply") {
  for (const Instruction *inst : callee.instructions()) {
    const Shape &shape = inst->shape();
    Opcode opcode = inst->opcode();
    bool rootTuple = inst == callee.root() && opcode == Opcode::Tuple;
    bool allowed = rootTuple || opcode == Opcode::Parameter ||
                   opcode == Opcode::Constant || isElementwise(opcode);
    if (!allowed)
      return makeError("{} computation '{}' may hold only parameters, "
                       "constants and elementwise operations on scalars "
                       "(a tuple as root), but '{}' is {}",
                       role, callee.name(), inst->name(), opcodeName(opcode));
    if (!rootTuple && (shape.isTuple() || shape.rank() != 0))
      return makeError("{} computation '{}' works on scalars, but '{}' is {}",
                       role, callee.name(), inst->name(), shape.toString());
  }
  return Error::success();
}

/// Fails unless `callee` takes exactly `params` (by number) and returns
/// `result`.
Error requireSignature(const Computation &callee,
                       const std::vector<Shape> &params, const Shape &result,
                       std::string_view why,
                       std::string_view role = "to_apply") {
  size_t count = callee.parameters().size();
  if (count != params.size())
    return makeError("{} computation '{}' has {} parameter{} but {} needs {} "
                     "({})",
                     role, callee.name(), count, count == 1 ? "" : "s", why,
                     params.size(), formatShapes(params));
  for (size_t i = 0; i < params.size(); ++i) {
    const Instruction *param = callee.parameter(int64_t(i));
    if (!param)
      return makeError("{} computation '{}' has no parameter {}", role,
                       callee.name(), i);
    if (param->shape() != params[i])
      return makeError("parameter {} of {} computation '{}' is {} but {} "
                       "needs {} ({})",
                       i, role, callee.name(), param->shape().toString(), why,
                       params[i].toString(), formatShapes(params));
  }
  if (callee.root()->shape() != result)
    return makeError("{} computation '{}' returns {} but {} needs {}", role,
                     callee.name(), callee.root()->shape().toString(), why,
                     result.toString());
  return Error::success();
}

/// The kept dimensions of `dims` (those not in `removed`, validated).
std::vector<int64_t> keptDims(const std::vector<int64_t> &dims,
                              const std::vector<int64_t> &removed) {
  std::vector<int64_t> kept;
  for (size_t i = 0; i < dims.size(); ++i)
    if (std::find(removed.begin(), removed.end(), int64_t(i)) == removed.end())
      kept.push_back(dims[i]);
  return kept;
}

/// The N accumulators (scalars of the input dtypes) of a variadic reduce
/// or reduce-window: N inputs of equal dimensions, N scalar init values of
/// their dtypes, and a to_apply of 2N scalars (accumulators, then
/// elements) returning the N accumulators.
Expected<std::vector<Shape>> checkVariadicCombiner(const InferenceInput &in) {
  std::string_view op = opcodeName(in.opcode);
  size_t count = in.operands.size();
  if (count % 2 != 0)
    return makeError("{} with to_apply takes N inputs then N init values "
                     "but has {} operands (an odd count)",
                     op, count);
  size_t n = count / 2;
  for (size_t i = 0; i < count; ++i)
    if (Error e = requireArray(in, i))
      return e;
  const Shape &first = in.operands[0];
  std::vector<Shape> accumulators;
  for (size_t i = 0; i < n; ++i) {
    const Shape &input = in.operands[i];
    if (input.dims() != first.dims())
      return makeError("input {} has dimensions {} but input 0 has {} (the "
                       "inputs of a {} must have equal dimensions)",
                       i, formatDims(input.dims()), formatDims(first.dims()),
                       op);
    if (Error e = requireScalar(in, n + i, "init value"))
      return e;
    if (in.operands[n + i].dtype() != input.dtype())
      return makeError("init value {} (operand {}) is {} but input {} is {}",
                       i, n + i, in.operands[n + i].toString(), i,
                       input.toString());
    accumulators.push_back(Shape::scalar(input.dtype()));
  }
  Expected<const Computation *> callee = requireOneCallee(in);
  if (!callee)
    return callee.takeError();
  if (Error e = requireScalarComputation(**callee))
    return e;
  std::vector<Shape> params = accumulators;
  params.insert(params.end(), accumulators.begin(), accumulators.end());
  Shape combined = n == 1 ? accumulators[0] : Shape::tuple(accumulators);
  std::string why =
      fmt::format("a {} of {} input{}", op, n, n == 1 ? "" : "s");
  if (Error e = requireSignature(**callee, params, combined, why))
    return e;
  return accumulators;
}

/// One array of `dims` per accumulator dtype: a tuple, or the one array.
Shape variadicResult(const std::vector<Shape> &accumulators,
                     const std::vector<int64_t> &dims) {
  std::vector<Shape> results;
  for (const Shape &accumulator : accumulators)
    results.push_back(Shape(accumulator.dtype(), dims));
  return results.size() == 1 ? results[0] : Shape::tuple(std::move(results));
}

} // namespace

Expected<Shape> inferAppliedReduce(const InferenceInput &in) {
  Expected<std::vector<Shape>> accumulators = checkVariadicCombiner(in);
  if (!accumulators)
    return accumulators.takeError();
  const Shape &first = in.operands[0];
  if (Error e = requireUniqueDims(in.attrs.dimensions, first.rank(),
                                  "reduce dimension"))
    return e;
  return variadicResult(*accumulators,
                        keptDims(first.dims(), in.attrs.dimensions));
}

Expected<Shape> inferAppliedReduceWindow(const InferenceInput &in) {
  Expected<std::vector<Shape>> accumulators = checkVariadicCombiner(in);
  if (!accumulators)
    return accumulators.takeError();
  Expected<std::vector<int64_t>> dims =
      windowedDims(in.operands[0], in.attrs.window);
  if (!dims)
    return dims.takeError();
  return variadicResult(*accumulators, *dims);
}

Expected<Shape> inferMap(const InferenceInput &in) {
  const Shape &first = in.operands[0];
  std::vector<Shape> params;
  for (size_t i = 0; i < in.operands.size(); ++i) {
    if (Error e = requireArray(in, i))
      return e;
    if (in.operands[i].dims() != first.dims())
      return makeError("operand {} has dimensions {} but operand 0 has {} "
                       "(the operands of a map must have equal dimensions)",
                       i, formatDims(in.operands[i].dims()),
                       formatDims(first.dims()));
    params.push_back(Shape::scalar(in.operands[i].dtype()));
  }
  // XLA's dimensions list every dimension in order: map is elementwise.
  const std::vector<int64_t> &dims = in.attrs.dimensions;
  for (size_t i = 0; i < dims.size() || i < size_t(first.rank()); ++i)
    if (dims.size() != size_t(first.rank()) || dims[i] != int64_t(i))
      return makeError("map dimensions {} must list every dimension of the "
                       "operands in order (rank {})",
                       formatDims(dims), first.rank());
  Expected<const Computation *> callee = requireOneCallee(in);
  if (!callee)
    return callee.takeError();
  if (Error e = requireScalarComputation(**callee))
    return e;
  const Shape &root = (*callee)->root()->shape();
  if (root.isTuple())
    return makeError("to_apply computation '{}' returns {} but map needs one "
                     "scalar",
                     (*callee)->name(), root.toString());
  std::string why = fmt::format("a map of {} operand{}", params.size(),
                                params.size() == 1 ? "" : "s");
  if (Error e = requireSignature(**callee, params, root, why))
    return e;
  return Shape(root.dtype(), first.dims());
}

Error checkSortComparator(const InferenceInput &in) {
  if (in.attrs.descending)
    return makeError("sort with a to_apply comparator takes no "
                     "descending=true (the comparator gives the order)");
  Expected<const Computation *> callee = requireOneCallee(in);
  if (!callee)
    return callee.takeError();
  if (Error e = requireScalarComputation(**callee))
    return e;
  std::vector<Shape> params;
  for (const Shape &operand : in.operands) { // lhs, then rhs, per operand
    params.push_back(Shape::scalar(operand.dtype()));
    params.push_back(Shape::scalar(operand.dtype()));
  }
  std::string why = fmt::format("a comparator of a sort of {} operand{}",
                                in.operands.size(),
                                in.operands.size() == 1 ? "" : "s");
  return requireSignature(**callee, params, Shape::scalar(DType::Pred), why);
}

namespace {

/// select-and-scatter's window has no dilation (XLA's takes none).
Error requireUndilatedWindow(const std::vector<WindowDim> &window) {
  for (size_t i = 0; i < window.size(); ++i)
    if (window[i].baseDilation != 1 || window[i].windowDilation != 1)
      return makeError("window dimension {} has dilation (lhs_dilate {}, "
                       "rhs_dilate {}) but select-and-scatter's window takes "
                       "none",
                       i, window[i].baseDilation, window[i].windowDilation);
  return Error::success();
}

/// One of select-and-scatter's callees: scalars only, (T, T) -> `result`.
Error requireWindowCallee(const Computation *callee, std::string_view role,
                          DType type, const Shape &result) {
  if (!callee || !callee->root())
    return makeError("select-and-scatter has no {} computation", role);
  if (Error e = requireScalarComputation(*callee, role))
    return e;
  Shape scalar = Shape::scalar(type);
  return requireSignature(*callee, {scalar, scalar}, result,
                          fmt::format("{} of select-and-scatter", role), role);
}

} // namespace

Expected<Shape> inferSelectAndScatter(const InferenceInput &in) {
  for (size_t i = 0; i < in.operands.size(); ++i)
    if (Error e = requireArray(in, i))
      return e;
  const Shape &operand = in.operands[0], &source = in.operands[1];
  if (Error e = requireScalar(in, 2, "init value"))
    return e;
  if (in.operands[2].dtype() != operand.dtype())
    return makeError("init value is {} but the operand is {} (expected a "
                     "scalar of its dtype)",
                     in.operands[2].toString(), operand.toString());
  if (source.dtype() != operand.dtype())
    return makeError("source is {} but the operand is {} (the source "
                     "scatters values of the operand's dtype)",
                     source.toString(), operand.toString());
  if (Error e = requireUndilatedWindow(in.attrs.window))
    return e;
  Expected<std::vector<int64_t>> dims = windowedDims(operand, in.attrs.window);
  if (!dims)
    return dims.takeError();
  if (source.dims() != *dims)
    return makeError("source has dimensions {} but the window over the "
                     "operand gives {}",
                     formatDims(source.dims()), formatDims(*dims));
  if (in.called.size() != 2)
    return makeError("select-and-scatter calls {} computations but needs "
                     "two (select, scatter)",
                     in.called.size());
  if (Error e = requireWindowCallee(in.called[0], "select", operand.dtype(),
                                    Shape::scalar(DType::Pred)))
    return e;
  if (Error e = requireWindowCallee(in.called[1], "scatter", operand.dtype(),
                                    Shape::scalar(operand.dtype())))
    return e;
  return operand;
}

} // namespace kiln::ir::detail
