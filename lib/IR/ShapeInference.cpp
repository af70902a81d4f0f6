//===- ShapeInference.cpp - Result shapes of HLO opcodes ------------------===//
//
// Dispatch, shared helpers, and the rules for leaves, elementwise and
// structural opcodes. Layout and compute opcodes live in the sibling
// ShapeInference*.cpp files. Rules never trust attributes: every index is
// range-checked and every size computation is overflow-checked.
//
//===----------------------------------------------------------------------===//
#include "ShapeInferenceRules.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <set>

namespace kiln::ir::detail {

std::optional<int64_t> checkedAdd(int64_t a, int64_t b) {
  int64_t result;
  if (__builtin_add_overflow(a, b, &result))
    return std::nullopt;
  return result;
}

std::optional<int64_t> checkedMul(int64_t a, int64_t b) {
  int64_t result;
  if (__builtin_mul_overflow(a, b, &result))
    return std::nullopt;
  return result;
}

std::string formatDims(const std::vector<int64_t> &dims) {
  return fmt::format("[{}]", fmt::join(dims, ","));
}

Expected<Shape> makeArray(DType dtype, std::vector<int64_t> dims) {
  Shape shape(dtype, std::move(dims));
  if (Error e = verifyShape(shape, "result shape"))
    return e;
  return shape;
}

Error requireArray(const InferenceInput &in, size_t i) {
  const Shape &shape = in.operands[i];
  if (shape.isTuple())
    return makeError("operand {} must be an array but has tuple shape {}", i,
                     shape.toString());
  return Error::success();
}

Error requireScalar(const InferenceInput &in, size_t i, std::string_view role) {
  const Shape &shape = in.operands[i];
  if (shape.isTuple() || shape.rank() != 0)
    return makeError("{} (operand {}) must be a scalar but has shape {}", role,
                     i, shape.toString());
  return Error::success();
}

Error requireDimInRange(int64_t dim, int64_t rank, std::string_view what) {
  if (dim < 0 || dim >= rank)
    return makeError("{} {} is out of range for rank {}", what, dim, rank);
  return Error::success();
}

Error requireUniqueDims(const std::vector<int64_t> &dims, int64_t rank,
                        std::string_view what) {
  std::set<int64_t> seen;
  for (int64_t dim : dims) {
    if (Error e = requireDimInRange(dim, rank, what))
      return e;
    if (!seen.insert(dim).second)
      return makeError("{} {} is repeated in {}", what, dim, formatDims(dims));
  }
  return Error::success();
}

Expected<int64_t> requireSingleDim(const std::vector<int64_t> &dims,
                                   int64_t rank, std::string_view what) {
  if (dims.size() != 1)
    return makeError("expected exactly one {} but found {}", what,
                     formatDims(dims));
  if (Error e = requireDimInRange(dims[0], rank, what))
    return e;
  return dims[0];
}

Error requireSameDType(const InferenceInput &in, size_t a, size_t b) {
  DType x = in.operands[a].dtype(), y = in.operands[b].dtype();
  if (x != y)
    return makeError("operand {} has dtype {} but operand {} has dtype {}", b,
                     dtypeName(y), a, dtypeName(x));
  return Error::success();
}

Expected<int64_t> windowOutputSize(int64_t inputSize, const WindowDim &window,
                                   size_t i) {
  if (window.size < 1 || window.stride < 1 || window.baseDilation < 1 ||
      window.windowDilation < 1)
    return makeError("window dimension {} has size {}, stride {}, base "
                     "dilation {}, window dilation {}; each must be >= 1",
                     i, window.size, window.stride, window.baseDilation,
                     window.windowDilation);
  // Sizes are bounded by int64_t; do the arithmetic in 128 bits and reject
  // anything that does not fit back.
  using Wide = __int128;
  Wide dilatedBase =
      inputSize == 0 ? 0 : Wide(inputSize - 1) * window.baseDilation + 1;
  Wide padded = dilatedBase + window.padLow + window.padHigh;
  Wide dilatedWindow = Wide(window.size - 1) * window.windowDilation + 1;
  if (padded > INT64_MAX || dilatedWindow > INT64_MAX)
    return makeError("window dimension {} overflows int64", i);
  // XLA's StridedBound: a window that does not fit yields an empty output.
  if (dilatedWindow > padded)
    return int64_t(0);
  return int64_t((padded - dilatedWindow) / window.stride + 1);
}

namespace {

/// select(pred, on_true, on_false): XLA requires pred of the same dims.
Expected<Shape> inferSelect(const InferenceInput &in) {
  const Shape &pred = in.operands[0], &onTrue = in.operands[1];
  if (pred.dtype() != DType::Pred)
    return makeError("predicate (operand 0) must have dtype pred but has {}",
                     dtypeName(pred.dtype()));
  if (pred.dims() != onTrue.dims())
    return makeError("predicate dimensions {} do not match on_true "
                     "dimensions {}",
                     formatDims(pred.dims()), formatDims(onTrue.dims()));
  if (in.operands[2] != onTrue)
    return makeError("on_true shape {} does not match on_false shape {}",
                     onTrue.toString(), in.operands[2].toString());
  return onTrue;
}

/// clamp(min, x, max): bounds are scalars or have x's dimensions.
Expected<Shape> inferClamp(const InferenceInput &in) {
  const Shape &x = in.operands[1];
  for (size_t i : {size_t(0), size_t(2)}) {
    std::string_view role = i == 0 ? "min" : "max";
    const Shape &bound = in.operands[i];
    if (bound.dtype() != x.dtype())
      return makeError("{} (operand {}) has dtype {} but x has dtype {}", role,
                       i, dtypeName(bound.dtype()), dtypeName(x.dtype()));
    if (bound.rank() != 0 && bound.dims() != x.dims())
      return makeError("{} (operand {}) must be a scalar or have x's "
                       "dimensions {} but has {}",
                       role, i, formatDims(x.dims()), formatDims(bound.dims()));
  }
  return x;
}

} // namespace

Error checkDeclaredArray(const InferenceInput &in) {
  if (in.declared.isTuple())
    return makeError("declared shape {} must be an array",
                     in.declared.toString());
  return Error::success();
}

Error requireAcceptedDType(const InferenceInput &in, size_t i) {
  DType type = in.operands[i].dtype();
  DTypeClasses accepted = acceptedDTypes(in.opcode);
  if (!isInClasses(type, accepted))
    return makeError("expected {} operands but found {}",
                     dtypeClassesName(accepted), dtypeName(type));
  return Error::success();
}

/// Every elementwise opcode, from its Opcodes.def row: the operands' dtype
/// classes (Accepts) and the result dtype (Result).
Expected<Shape> inferElementwise(const InferenceInput &in) {
  for (size_t i = 0; i < in.operands.size(); ++i)
    if (Error e = requireArray(in, i))
      return e;
  // select's value type is its on_true operand; clamp's is x.
  size_t valueOperand =
      in.opcode == Opcode::Select || in.opcode == Opcode::Clamp ? 1 : 0;
  if (Error e = requireAcceptedDType(in, valueOperand))
    return e;
  if (in.opcode == Opcode::Select)
    return inferSelect(in);
  if (in.opcode == Opcode::Clamp)
    return inferClamp(in);
  ResultDType result = resultDType(in.opcode);
  if (result == ResultDType::Declared) { // convert
    if (Error e = checkDeclaredArray(in))
      return e;
    return in.operands[0].withDType(in.declared.dtype());
  }
  const Shape &first = in.operands[0];
  for (size_t i = 1; i < in.operands.size(); ++i) {
    if (Error e = requireSameDType(in, 0, i))
      return e;
    if (in.operands[i].dims() != first.dims())
      return makeError("operand {} has dimensions {} but operand 0 has {} "
                       "(elementwise operands must match; HLO has no "
                       "implicit broadcasting)",
                       i, formatDims(in.operands[i].dims()),
                       formatDims(first.dims()));
  }
  return result == ResultDType::Pred ? first.withDType(DType::Pred) : first;
}

/// compare: elementwise, and its type= (when written) fits the operands:
/// FLOAT or TOTALORDER on floats, SIGNED on signed and UNSIGNED on
/// unsigned integers or pred, as XLA requires.
Expected<Shape> inferCompare(const InferenceInput &in) {
  Expected<Shape> shape = inferElementwise(in);
  if (!shape)
    return shape;
  DType dtype = in.operands[0].dtype();
  ComparisonType type = in.attrs.comparisonType;
  if (!comparisonTypeFits(type, dtype))
    return makeError("compare type {} does not fit operands of type {} "
                     "(expected {})",
                     comparisonTypeName(type), dtypeName(dtype),
                     isFloat(dtype) ? "FLOAT or TOTALORDER"
                                    : comparisonTypeName(
                                          defaultComparisonType(dtype)));
  return shape;
}

} // namespace kiln::ir::detail

namespace kiln::ir {

using namespace detail;

Error verifyShape(const Shape &shape, std::string_view what) {
  if (uint8_t(shape.dtype()) > uint8_t(DType::Tuple))
    return makeError("{} has an invalid dtype (value {})", what,
                     unsigned(shape.dtype()));
  if (shape.isTuple()) {
    if (!shape.dims().empty())
      return makeError("{} is a tuple with dimensions {}", what,
                       formatDims(shape.dims()));
    for (size_t i = 0; i < shape.tupleElements().size(); ++i)
      if (Error e = verifyShape(shape.tupleElements()[i],
                                fmt::format("{} element {}", what, i)))
        return e;
    return Error::success();
  }
  int64_t count = int64_t(byteSize(shape.dtype()));
  for (int64_t dim : shape.dims()) {
    if (dim < 0)
      return makeError("{} {} has negative dimension {}", what,
                       shape.toString(), dim);
    std::optional<int64_t> next = checkedMul(count, dim);
    if (!next)
      return makeError("{} {} has a byte size that overflows int64", what,
                       shape.toString());
    count = *next;
  }
  return Error::success();
}

namespace {

Expected<Shape> inferParameter(const InferenceInput &in) {
  if (in.attrs.index < 0)
    return makeError("parameter number {} must be >= 0", in.attrs.index);
  return in.declared;
}

/// The literal itself is checked by the Instruction overload.
Expected<Shape> inferConstant(const InferenceInput &in) {
  if (Error e = checkDeclaredArray(in))
    return e;
  return in.declared;
}

Expected<Shape> inferIota(const InferenceInput &in) {
  if (Error e = checkDeclaredArray(in))
    return e;
  if (in.declared.dtype() == DType::Pred)
    return makeError("iota must have a numeric dtype but has pred");
  Expected<int64_t> dim = requireSingleDim(
      in.attrs.dimensions, in.declared.rank(), "iota dimension");
  if (!dim)
    return dim.takeError();
  return in.declared;
}

Expected<Shape> inferTuple(const InferenceInput &in) {
  return Shape::tuple(in.operands);
}

Expected<Shape> inferGetTupleElement(const InferenceInput &in) {
  const Shape &tuple = in.operands[0];
  if (!tuple.isTuple())
    return makeError("operand must be a tuple but has shape {}",
                     tuple.toString());
  int64_t size = int64_t(tuple.tupleElements().size());
  if (in.attrs.index < 0 || in.attrs.index >= size)
    return makeError("tuple index {} is out of range for a tuple of {} "
                     "elements",
                     in.attrs.index, size);
  return tuple.tupleElements()[size_t(in.attrs.index)];
}

/// Operand count bounds; max < 0 means unbounded.
std::pair<int, int> operandCountBounds(Opcode opcode) {
  int arity = opcodeArity(opcode);
  if (arity >= 0)
    return {arity, arity};
  switch (opcode) {
  case Opcode::DynamicSlice: // operand + one index per dimension (rank 0: none)
    return {1, -1};
  case Opcode::DynamicUpdateSlice: // operand, update, indices
    return {2, -1};
  case Opcode::Concatenate:
  case Opcode::Sort:
  case Opcode::Conditional: // the branch selector, then branch operands
    return {1, -1};
  case Opcode::Reduce: // N inputs, then N init values
  case Opcode::ReduceWindow:
    return {2, -1};
  case Opcode::Map:
    return {1, -1};
  case Opcode::Scatter: // operands, indices, updates: inferScatter counts
    return {3, -1};
  default: // tuple, fusion, call
    return {0, -1};
  }
}

Error checkOperandCount(const InferenceInput &in) {
  auto [min, max] = operandCountBounds(in.opcode);
  int count = int(in.operands.size());
  if (min == max && count != min)
    return makeError("expected {} operand{} but found {}", min,
                     min == 1 ? "" : "s", count);
  if (count < min)
    return makeError("expected at least {} operand{} but found {}", min,
                     min == 1 ? "" : "s", count);
  return Error::success();
}

using Rule = Expected<Shape> (*)(const InferenceInput &);

/// The rule for each opcode: elementwise opcodes share one rule driven by
/// their Opcodes.def row; the others are listed (default: none, which
/// inferShape reports; the unit tests check every opcode has a rule).
Rule ruleFor(Opcode opcode) {
  if (!isKnownOpcode(opcode))
    return nullptr;
  if (opcode == Opcode::ReducePrecision) // elementwise, plus its widths
    return inferReducePrecision;
  if (opcode == Opcode::Compare) // elementwise, plus its comparison type
    return inferCompare;
  if (isElementwise(opcode))
    return inferElementwise;
  switch (opcode) {
  case Opcode::Parameter:
    return inferParameter;
  case Opcode::Constant:
    return inferConstant;
  case Opcode::Iota:
    return inferIota;
  case Opcode::Rng:
    return inferRng;
  case Opcode::BitcastConvert:
    return inferBitcastConvert;
  case Opcode::Broadcast:
    return inferBroadcast;
  case Opcode::Reshape:
    return inferReshape;
  case Opcode::Transpose:
    return inferTranspose;
  case Opcode::Slice:
    return inferSlice;
  case Opcode::DynamicSlice:
    return inferDynamicSlice;
  case Opcode::DynamicUpdateSlice:
    return inferDynamicUpdateSlice;
  case Opcode::Concatenate:
    return inferConcatenate;
  case Opcode::Pad:
    return inferPad;
  case Opcode::Reverse:
    return inferReverse;
  case Opcode::Gather:
    return inferGather;
  case Opcode::Reduce:
    return inferReduce;
  case Opcode::ReduceWindow:
    return inferReduceWindow;
  case Opcode::ArgMax:
  case Opcode::ArgMin:
    return inferArgMinMax;
  case Opcode::Dot:
    return inferDot;
  case Opcode::Convolution:
    return inferConvolution;
  case Opcode::Sort:
    return inferSort;
  case Opcode::TopK:
    return inferTopK;
  case Opcode::Scatter:
    return inferScatter;
  case Opcode::SelectAndScatter:
    return inferSelectAndScatter;
  case Opcode::Tuple:
    return inferTuple;
  case Opcode::GetTupleElement:
    return inferGetTupleElement;
  case Opcode::Fusion:
    return inferFusion;
  case Opcode::Map:
    return inferMap;
  case Opcode::While:
    return inferWhile;
  case Opcode::Conditional:
    return inferConditional;
  case Opcode::Call:
    return inferCall;
  default:
    return nullptr;
  }
}

std::string instructionContext(const Instruction &instruction) {
  std::string where;
  if (const Computation *parent = instruction.parent())
    where = fmt::format("in computation '{}': ", parent->name());
  std::string source;
  if (!instruction.sourceNode().empty())
    source = fmt::format("; source op '{}'", instruction.sourceNode());
  return where + fmt::format("instruction '{}' ({}{}): ", instruction.name(),
                             opcodeNameOrUnknown(instruction.opcode()), source);
}

} // namespace

Expected<Shape> inferShape(Opcode opcode, const std::vector<Shape> &operands,
                           const Attributes &attrs, const Shape &declared,
                           const Computation *called) {
  std::vector<const Computation *> callees;
  if (called)
    callees.push_back(called);
  return inferShape(opcode, operands, attrs, declared, callees);
}

Expected<Shape> inferShape(Opcode opcode, const std::vector<Shape> &operands,
                           const Attributes &attrs, const Shape &declared,
                           const std::vector<const Computation *> &called) {
  Rule rule = ruleFor(opcode);
  if (!rule)
    return makeError("unknown opcode (value {})", int(opcode));
  InferenceInput in{opcode, operands, attrs, declared, called};
  if (Error e = checkOperandCount(in))
    return e;
  for (size_t i = 0; i < operands.size(); ++i)
    if (Error e = verifyShape(operands[i], fmt::format("operand {}", i)))
      return e;
  if (Error e = verifyShape(declared, "declared shape"))
    return e;
  Expected<Shape> result = rule(in);
  if (!result)
    return result;
  // Rules build shapes from attributes; reject overflowing results.
  if (Error e = verifyShape(*result, "result shape"))
    return e;
  return result;
}

Expected<Shape> inferShape(const Instruction &instruction) {
  std::vector<Shape> operands;
  operands.reserve(instruction.operandCount());
  for (const Instruction *operand : instruction.operands())
    operands.push_back(operand->shape());
  std::vector<const Computation *> callees(
      instruction.calledComputations().begin(),
      instruction.calledComputations().end());
  Expected<Shape> result =
      inferShape(instruction.opcode(), operands, instruction.attrs(),
                 instruction.shape(), callees);
  if (result && instruction.opcode() == Opcode::Constant) {
    const Literal &literal = instruction.literal();
    if (literal.shape() != instruction.shape())
      result =
          makeError("literal shape {} does not match declared shape {}",
                    literal.shape().toString(), instruction.shape().toString());
    else if (int64_t(literal.bytes().size()) != literal.shape().byteSize())
      result = makeError("literal holds {} bytes but shape {} needs {}",
                         literal.bytes().size(), literal.shape().toString(),
                         literal.shape().byteSize());
  }
  if (!result)
    return Error::failure(instructionContext(instruction) +
                          result.errorMessage());
  return result;
}

} // namespace kiln::ir
