//===- GraphBuilder.cpp - Shape-inferring, folding HLO builder ------------===//
#include "kiln/Import/GraphBuilder.h"

#include "kiln/Analysis/CostAnalysis.h"
#include "kiln/Eval/Evaluator.h"
#include "kiln/Import/LiteralUtil.h"
#include "kiln/IR/Verifier.h"
#include "kiln/Support/ResourceLimits.h"

#include <algorithm>
#include <cmath>
#include <set>

namespace kiln::import {

using ir::Opcode;

namespace {
// Broadcasts and iotas of constants are cheap at run time and can be huge
// once materialized, so they are folded only when small.
constexpr int64_t kMaxMaterializedElements = 4096;
// Any other fold may make its result at most this many times the bytes of
// its constant operands (plus the small-constant allowance), as the HLO
// constant-folding pass allows: a pad or a dot of small weights can ask for
// gigabytes, which run time computes without storing them in the object.
constexpr int64_t kMaxFoldGrowth = 4;

bool worthFolding(const ir::Instruction &instruction) {
  const ir::Shape &shape = instruction.shape();
  if (shape.isTuple() || !analysis::affordableToFold(instruction))
    return false;
  if (instruction.opcode() == Opcode::Broadcast ||
      instruction.opcode() == Opcode::Iota)
    return shape.numElements() <= kMaxMaterializedElements;
  int64_t operandBytes = 0;
  for (const ir::Instruction *operand : instruction.operands())
    if (!operand->shape().isTuple())
      operandBytes += operand->shape().byteSize();
  int64_t allowance =
      kMaxMaterializedElements * int64_t(ir::byteSize(shape.dtype()));
  return shape.byteSize() <= kMaxFoldGrowth * operandBytes + allowance &&
         shape.byteSize() <= resourceLimits().maxConstantBytes;
}

double reducerIdentity(ir::ReducerKind reducer, ir::DType dtype) {
  switch (reducer) {
  case ir::ReducerKind::Add:
  case ir::ReducerKind::Or:
    return 0;
  case ir::ReducerKind::Mul:
  case ir::ReducerKind::And:
    return 1;
  case ir::ReducerKind::Max:
    return ir::isFloat(dtype) ? -INFINITY
                              : ir::isSignedInt(dtype)
                                    ? -std::ldexp(1.0, int(ir::byteSize(dtype)) * 8 - 1)
                                    : 0;
  case ir::ReducerKind::Min:
    return ir::isFloat(dtype) ? INFINITY
                              : std::ldexp(1.0, int(ir::byteSize(dtype)) * 8 -
                                                    (ir::isSignedInt(dtype) ? 1 : 0)) -
                                    1;
  }
  return 0;
}
} // namespace

std::optional<int64_t> normalizeAxis(int64_t axis, int64_t rank) {
  if (axis < -rank || axis >= rank)
    return std::nullopt;
  return axis < 0 ? axis + rank : axis;
}

Value GraphBuilder::fail(std::string message) {
  if (!failed_) {
    failed_ = true;
    message_ = std::move(message);
  }
  return nullptr;
}

Error GraphBuilder::takeError() {
  if (!failed_)
    return Error::success();
  failed_ = false;
  return Error::failure(std::move(message_));
}

bool GraphBuilder::hostTableFits(std::string_view what,
                                 std::optional<int64_t> elements,
                                 int64_t elementBytes) {
  if (failed_)
    return false;
  if (Error error = checkConstantElements(what, elements, elementBytes)) {
    fail(error.message());
    return false;
  }
  return true;
}

std::optional<ir::Shape>
GraphBuilder::resultShape(Opcode opcode, const std::vector<Value> &operands,
                          const ir::Attributes &attrs, const ir::Shape &declared,
                          const std::vector<ir::Computation *> &callees) {
  if (failed_)
    return std::nullopt;
  std::vector<ir::Shape> shapes;
  for (Value operand : operands) {
    if (!operand) {
      fail("internal error: null operand");
      return std::nullopt;
    }
    shapes.push_back(operand->shape());
  }
  std::vector<const ir::Computation *> called(callees.begin(), callees.end());
  Expected<ir::Shape> shape =
      ir::inferShape(opcode, shapes, attrs, declared, called);
  if (!shape) {
    fail(fmt::format("{}: {}", ir::opcodeName(opcode), shape.errorMessage()));
    return std::nullopt;
  }
  return std::move(*shape);
}

Value GraphBuilder::add(Opcode opcode, std::vector<Value> operands,
                        ir::Attributes attrs, ir::Shape declared) {
  std::optional<ir::Shape> shape =
      resultShape(opcode, operands, attrs, declared, {});
  if (!shape)
    return nullptr;
  Value instruction = computation_.add(opcode, std::move(*shape),
                                       std::move(operands), std::move(attrs));
  return stamp(fold(instruction));
}

Value GraphBuilder::addCalling(Opcode opcode, std::vector<Value> operands,
                               std::vector<ir::Computation *> callees,
                               ir::Attributes attrs) {
  std::optional<ir::Shape> shape =
      resultShape(opcode, operands, attrs, ir::Shape(), callees);
  if (!shape)
    return nullptr;
  Value instruction = computation_.add(opcode, std::move(*shape),
                                       std::move(operands), std::move(attrs));
  instruction->setCalledComputations(std::move(callees));
  return stamp(instruction); // never folded: the evaluator needs the module
}

Value GraphBuilder::tuple(std::vector<Value> elements) {
  return add(Opcode::Tuple, std::move(elements));
}

Value GraphBuilder::getTupleElement(Value x, int64_t index) {
  // Reading back what a tuple was just built from needs no instruction.
  if (x && x->opcode() == Opcode::Tuple && index >= 0 &&
      size_t(index) < x->operandCount())
    return x->operand(size_t(index));
  ir::Attributes attrs;
  attrs.index = index;
  return add(Opcode::GetTupleElement, {x}, std::move(attrs));
}

std::vector<Value> GraphBuilder::tupleElements(Value x) {
  std::vector<Value> elements;
  if (!x || !x->shape().isTuple())
    return elements;
  for (size_t i = 0; i < x->shape().tupleElements().size(); ++i)
    elements.push_back(getTupleElement(x, int64_t(i)));
  return elements;
}

Value GraphBuilder::stamp(Value instruction) {
  instruction->setSourceNode(sourceNode_);
  return instruction;
}

Value GraphBuilder::fold(Value instruction) {
  if (!folding_ || instruction->operandCount() == 0)
    return instruction;
  // Operands first: a non-constant operand makes the size question moot.
  for (Value operand : instruction->operands())
    if (operand->opcode() != Opcode::Constant)
      return instruction;
  if (!worthFolding(*instruction))
    return instruction;
  std::vector<const ir::Literal *> literals;
  for (Value operand : instruction->operands()) {
    if (operand->opcode() != Opcode::Constant)
      return instruction;
    literals.push_back(&operand->literal());
  }
  Expected<ir::Literal> value = eval::evaluateInstruction(*instruction, literals);
  if (!value) // Leave it to run time; the evaluator may not fold everything.
    return instruction;
  Value folded = computation_.addConstant(std::move(*value));
  computation_.removeInstruction(instruction);
  return folded;
}

Value GraphBuilder::parameter(int64_t number, ir::Shape shape,
                              std::string name) {
  if (failed_)
    return nullptr;
  return stamp(
      computation_.addParameter(number, std::move(shape), std::move(name)));
}

Value GraphBuilder::constant(ir::Literal literal) {
  if (failed_)
    return nullptr;
  return stamp(computation_.addConstant(std::move(literal)));
}

Value GraphBuilder::scalar(ir::DType dtype, double value) {
  return constant(literalFromDoubles(ir::Shape::scalar(dtype), {value}));
}

Value GraphBuilder::ints(ir::DType dtype, const std::vector<int64_t> &values) {
  return constant(
      literalFromInts(ir::Shape(dtype, {int64_t(values.size())}), values));
}

Value GraphBuilder::convert(Value x, ir::DType dtype) {
  if (!x)
    return fail("internal error: null operand");
  if (x->shape().dtype() == dtype)
    return x;
  return add(Opcode::Convert, {x}, {}, x->shape().withDType(dtype));
}

Value GraphBuilder::reshape(Value x, std::vector<int64_t> dims) {
  if (!x)
    return fail("internal error: null operand");
  if (x->shape().dims() == dims)
    return x;
  return add(Opcode::Reshape, {x}, {}, ir::Shape(x->shape().dtype(), dims));
}

Value GraphBuilder::transpose(Value x, std::vector<int64_t> permutation) {
  bool identity = true;
  for (size_t i = 0; i < permutation.size(); ++i)
    identity = identity && permutation[i] == int64_t(i);
  if (x && identity && int64_t(permutation.size()) == x->shape().rank())
    return x;
  ir::Attributes attrs;
  attrs.dimensions = std::move(permutation);
  return add(Opcode::Transpose, {x}, std::move(attrs));
}

Value GraphBuilder::broadcastInDim(Value x, std::vector<int64_t> dims,
                                   std::vector<int64_t> mapping) {
  if (!x)
    return fail("internal error: null operand");
  ir::Attributes attrs;
  attrs.dimensions = std::move(mapping);
  return add(Opcode::Broadcast, {x}, std::move(attrs),
             ir::Shape(x->shape().dtype(), std::move(dims)));
}

Expected<std::vector<int64_t>>
GraphBuilder::broadcastDims(const std::vector<int64_t> &a,
                            const std::vector<int64_t> &b) {
  size_t rank = std::max(a.size(), b.size());
  std::vector<int64_t> result(rank);
  for (size_t i = 0; i < rank; ++i) {
    int64_t da = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    int64_t db = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
    if (da != db && da != 1 && db != 1)
      return makeError("shapes [{}] and [{}] cannot be broadcast together "
                       "(dimension {} from the right: {} vs {})",
                       fmt::join(a, ","), fmt::join(b, ","), rank - i, da, db);
    result[i] = da == 1 ? db : da;
  }
  return result;
}

Value GraphBuilder::broadcastTo(Value x, const std::vector<int64_t> &dims) {
  if (!x)
    return fail("internal error: null operand");
  const std::vector<int64_t> &from = x->shape().dims();
  if (from == dims)
    return x;
  if (from.size() > dims.size())
    return fail(fmt::format("cannot broadcast shape [{}] to [{}]",
                            fmt::join(from, ","), fmt::join(dims, ",")));
  // Drop size-1 source dims that expand, then map the rest trailing-aligned.
  size_t offset = dims.size() - from.size();
  std::vector<int64_t> kept, mapping;
  for (size_t i = 0; i < from.size(); ++i) {
    if (from[i] == dims[offset + i]) {
      kept.push_back(from[i]);
      mapping.push_back(int64_t(offset + i));
    } else if (from[i] != 1) {
      return fail(fmt::format("cannot broadcast shape [{}] to [{}]",
                              fmt::join(from, ","), fmt::join(dims, ",")));
    }
  }
  return broadcastInDim(reshape(x, kept), dims, mapping);
}

Value GraphBuilder::slice(Value x, std::vector<ir::SliceDim> dims) {
  ir::Attributes attrs;
  attrs.slice = std::move(dims);
  return add(Opcode::Slice, {x}, std::move(attrs));
}

Value GraphBuilder::sliceDim(Value x, int64_t dim, int64_t start,
                             int64_t limit, int64_t stride) {
  if (!x)
    return fail("internal error: null operand");
  if (dim < 0 || dim >= x->shape().rank())
    return fail(fmt::format("cannot slice dimension {} of {}", dim,
                            x->shape().toString()));
  std::vector<ir::SliceDim> dims;
  for (int64_t size : x->shape().dims())
    dims.push_back({0, size, 1});
  dims[size_t(dim)] = {start, limit, stride};
  return slice(x, std::move(dims));
}

Value GraphBuilder::concatenate(std::vector<Value> parts, int64_t dim) {
  if (parts.size() == 1)
    return parts[0];
  ir::Attributes attrs;
  attrs.dimensions = {dim};
  return add(Opcode::Concatenate, std::move(parts), std::move(attrs));
}

Value GraphBuilder::pad(Value x, Value padValue, std::vector<ir::PadDim> dims) {
  ir::Attributes attrs;
  attrs.padding = std::move(dims);
  return add(Opcode::Pad, {x, padValue}, std::move(attrs));
}

Value GraphBuilder::reverse(Value x, std::vector<int64_t> dims) {
  ir::Attributes attrs;
  attrs.dimensions = std::move(dims);
  return add(Opcode::Reverse, {x}, std::move(attrs));
}

Value GraphBuilder::binary(Opcode opcode, Value a, Value b) {
  if (!a || !b)
    return fail("internal error: null operand");
  Expected<std::vector<int64_t>> dims =
      broadcastDims(a->shape().dims(), b->shape().dims());
  if (!dims)
    return fail(dims.errorMessage());
  return add(opcode, {broadcastTo(a, *dims), broadcastTo(b, *dims)});
}

Value GraphBuilder::compare(ir::ComparisonDirection direction, Value a,
                            Value b) {
  if (!a || !b)
    return fail("internal error: null operand");
  Expected<std::vector<int64_t>> dims =
      broadcastDims(a->shape().dims(), b->shape().dims());
  if (!dims)
    return fail(dims.errorMessage());
  ir::Attributes attrs;
  attrs.direction = direction;
  return add(Opcode::Compare, {broadcastTo(a, *dims), broadcastTo(b, *dims)},
             std::move(attrs));
}

Value GraphBuilder::select(Value pred, Value onTrue, Value onFalse) {
  if (!pred || !onTrue || !onFalse)
    return fail("internal error: null operand");
  Expected<std::vector<int64_t>> dims =
      broadcastDims(onTrue->shape().dims(), onFalse->shape().dims());
  if (!dims)
    return fail(dims.errorMessage());
  Expected<std::vector<int64_t>> all = broadcastDims(pred->shape().dims(), *dims);
  if (!all)
    return fail(all.errorMessage());
  return add(Opcode::Select, {broadcastTo(pred, *all), broadcastTo(onTrue, *all),
                              broadcastTo(onFalse, *all)});
}

Value GraphBuilder::unary(Opcode opcode, Value x) { return add(opcode, {x}); }

Value GraphBuilder::like(Value x, double value) {
  if (!x)
    return fail("internal error: null operand");
  return scalar(x->shape().dtype(), value);
}

Value GraphBuilder::reduce(Value x, std::vector<int64_t> dims,
                           ir::ReducerKind reducer, bool keepDims) {
  if (!x)
    return fail("internal error: null operand");
  std::set<int64_t> unique(dims.begin(), dims.end());
  ir::Attributes attrs;
  attrs.dimensions.assign(unique.begin(), unique.end());
  attrs.reducer = reducer;
  Value init = scalar(x->shape().dtype(),
                      reducerIdentity(reducer, x->shape().dtype()));
  Value reduced = add(Opcode::Reduce, {x, init}, std::move(attrs));
  if (!keepDims || !reduced)
    return reduced;
  std::vector<int64_t> kept = x->shape().dims();
  for (int64_t d : unique)
    kept.at(size_t(d)) = 1;
  return reshape(reduced, kept);
}

const ir::Literal *GraphBuilder::constantValue(Value x) {
  return x && x->opcode() == Opcode::Constant ? &x->literal() : nullptr;
}

std::optional<std::vector<int64_t>> GraphBuilder::constantInts(Value x) {
  const ir::Literal *literal = constantValue(x);
  if (!literal)
    return std::nullopt;
  return literalToInts(*literal);
}

std::optional<std::vector<double>> GraphBuilder::constantDoubles(Value x) {
  const ir::Literal *literal = constantValue(x);
  if (!literal)
    return std::nullopt;
  return literalToDoubles(*literal);
}

} // namespace kiln::import
