//===- Evaluator.cpp - Reference interpreter: computations and dispatch ---===//
//
// Walks a computation in post order, keeping one value (an array literal or
// a tuple of values) per instruction. Structural opcodes (parameter, tuple,
// get-tuple-element, fusion) are handled here; everything that computes an
// array goes through evaluateInstruction to its family's file.
//
//===----------------------------------------------------------------------===//
#include "kiln/Eval/Evaluator.h"

#include "EvalInternal.h"

#include "kiln/IR/ShapeBytes.h"
#include "kiln/Support/Allocation.h"
#include "kiln/Support/CheckedArithmetic.h"
#include "kiln/Support/ResourceLimits.h"

#include <cstring>
#include <map>

namespace kiln::eval {

using namespace detail;
using ir::Computation;
using ir::Opcode;
using ir::OpcodeKind;

namespace {

/// An instruction's value: an array, or a tuple of values.
struct Value {
  bool isTuple = false;
  Literal array;
  std::vector<Value> elements;

  static Value ofArray(Literal literal) {
    Value value;
    value.array = std::move(literal);
    return value;
  }
  static Value ofTuple(std::vector<Value> elements) {
    Value value;
    value.isTuple = true;
    value.elements = std::move(elements);
    return value;
  }
  Shape shape() const {
    if (!isTuple)
      return array.shape();
    std::vector<Shape> shapes;
    for (const Value &element : elements)
      shapes.push_back(element.shape());
    return Shape::tuple(std::move(shapes));
  }
};

Expected<Value> evalValues(const Computation &computation,
                           const std::vector<Value> &args);

/// sort / top-k give several literals; one-operand sort gives an array.
Expected<Value> evalOrderingValue(const Instruction &inst,
                                  const Operands &operands) {
  Expected<std::vector<Literal>> results = evalOrdering(inst, operands);
  if (!results)
    return results.takeError();
  if (inst.opcode() == Opcode::Sort && results->size() == 1)
    return Value::ofArray(std::move(results->front()));
  std::vector<Value> elements;
  for (Literal &literal : *results)
    elements.push_back(Value::ofArray(std::move(literal)));
  return Value::ofTuple(std::move(elements));
}

/// reduce or reduce-window with to_apply: a tuple of the N results, or the
/// one array.
Expected<Value> evalAppliedReduceValue(const Instruction &inst,
                                       const Operands &operands) {
  Expected<std::vector<Literal>> results =
      inst.opcode() == Opcode::ReduceWindow
          ? evalAppliedReduceWindow(inst, operands)
          : evalAppliedReduce(inst, operands);
  if (!results)
    return results.takeError();
  if (!inst.shape().isTuple() && results->size() == 1)
    return Value::ofArray(std::move(results->front()));
  std::vector<Value> elements;
  for (Literal &literal : *results)
    elements.push_back(Value::ofArray(std::move(literal)));
  return Value::ofTuple(std::move(elements));
}

/// scatter, its combiner run by this evaluator; a tuple for N > 1.
Expected<Value> evalScatterValue(const Instruction &inst,
                                 const Operands &operands) {
  const Computation &combiner = *inst.calledComputations().at(0);
  auto combine =
      [&](std::vector<Literal> arguments) -> Expected<std::vector<Literal>> {
    std::vector<Value> args;
    for (Literal &argument : arguments)
      args.push_back(Value::ofArray(std::move(argument)));
    Expected<Value> result = evalValues(combiner, args);
    if (!result)
      return result.takeError();
    if (!result->isTuple)
      return std::vector<Literal>{std::move(result->array)};
    std::vector<Literal> values;
    for (Value &element : result->elements)
      values.push_back(std::move(element.array));
    return values;
  };
  Expected<std::vector<Literal>> results = evalScatter(inst, operands, combine);
  if (!results)
    return results.takeError();
  if (results->size() == 1)
    return Value::ofArray(std::move(results->front()));
  std::vector<Value> elements;
  for (Literal &literal : *results)
    elements.push_back(Value::ofArray(std::move(literal)));
  return Value::ofTuple(std::move(elements));
}

/// A loop whose condition stays true this long is taken for a hang: the
/// evaluator is the oracle of tests and of constant folding, and must
/// return.
constexpr int64_t kMaxLoopIterations = int64_t(1) << 24;

/// Runs condition, then body, until the condition is false.
Expected<Value> evalWhile(const Instruction &inst, Value state) {
  const Computation &condition = *inst.calledComputations().at(0);
  const Computation &body = *inst.calledComputations().at(1);
  for (int64_t iteration = 0;; ++iteration) {
    Expected<Value> keepGoing = evalValues(condition, {state});
    if (!keepGoing)
      return keepGoing.takeError();
    if (keepGoing->isTuple || keepGoing->array.shape() != Shape(ir::DType::Pred, {}))
      return instructionError(inst, "condition did not return pred[]");
    if (!keepGoing->array.bytes()[0])
      return state;
    if (iteration == kMaxLoopIterations)
      return instructionError(
          inst, fmt::format("more than {} iterations; the evaluator takes the "
                            "loop for one that never ends",
                            kMaxLoopIterations));
    Expected<Value> next = evalValues(body, {std::move(state)});
    if (!next)
      return next.takeError();
    state = std::move(*next);
  }
}

/// Runs only the chosen branch: a pred[] selector picks the first branch
/// when true; an s32[] index outside [0, N) picks the last, as in XLA.
Expected<Value> evalConditional(const Instruction &inst,
                                const std::vector<const Value *> &operands) {
  const Literal &selector = operands[0]->array;
  const std::vector<Computation *> &branches = inst.calledComputations();
  size_t chosen;
  if (selector.shape().dtype() == ir::DType::Pred) {
    chosen = selector.bytes()[0] ? 0 : 1;
  } else {
    int32_t index;
    std::memcpy(&index, selector.bytes().data(), sizeof index);
    chosen = index >= 0 && size_t(index) < branches.size()
                 ? size_t(index)
                 : branches.size() - 1;
  }
  return evalValues(*branches.at(chosen), {*operands[chosen + 1]});
}

Expected<Value> evalStructural(const Instruction &inst,
                               const std::vector<const Value *> &operands) {
  switch (inst.opcode()) {
  case Opcode::Tuple: {
    std::vector<Value> elements;
    for (const Value *operand : operands)
      elements.push_back(*operand);
    return Value::ofTuple(std::move(elements));
  }
  case Opcode::GetTupleElement: {
    int64_t index = inst.attrs().index;
    if (operands.size() != 1 || !operands[0]->isTuple || index < 0 ||
        index >= int64_t(operands[0]->elements.size()))
      return instructionError(inst, "index is not an element of the tuple");
    return operands[0]->elements[size_t(index)];
  }
  case Opcode::Fusion: {
    if (!inst.calledComputation())
      return instructionError(inst, "fusion has no called computation");
    std::vector<Value> args;
    for (const Value *operand : operands)
      args.push_back(*operand);
    return evalValues(*inst.calledComputation(), args);
  }
  case Opcode::Call: {
    std::vector<Value> args;
    for (const Value *operand : operands)
      args.push_back(*operand);
    return evalValues(*inst.calledComputation(), args);
  }
  case Opcode::While:
    return evalWhile(inst, *operands.at(0));
  case Opcode::Conditional:
    return evalConditional(inst, operands);
  default: break;
  }
  return instructionError(inst, "not a structural opcode");
}

Expected<Value> evalOne(const Instruction &inst,
                        const std::vector<const Value *> &operands,
                        const std::vector<Value> &args) {
  if (inst.opcode() == Opcode::Parameter) {
    int64_t number = inst.parameterNumber();
    if (number < 0 || number >= int64_t(args.size()))
      return instructionError(inst, "no argument for this parameter");
    return args[size_t(number)];
  }
  if (inst.opcode() == Opcode::Constant)
    return Value::ofArray(inst.literal());
  if (ir::opcodeKind(inst.opcode()) == OpcodeKind::Structural &&
      inst.opcode() != Opcode::Map)
    return evalStructural(inst, operands);
  Operands arrays;
  for (const Value *operand : operands) {
    if (operand->isTuple)
      return instructionError(inst, "operand is a tuple, not an array");
    arrays.push_back(&operand->array);
  }
  if (inst.opcode() == Opcode::Sort || inst.opcode() == Opcode::TopK)
    return evalOrderingValue(inst, arrays);
  if ((inst.opcode() == Opcode::Reduce ||
       inst.opcode() == Opcode::ReduceWindow) &&
      !inst.calledComputations().empty())
    return evalAppliedReduceValue(inst, arrays);
  if (inst.opcode() == Opcode::Map) {
    Expected<Literal> mapped = evalMap(inst, arrays);
    if (!mapped)
      return mapped.takeError();
    return Value::ofArray(std::move(*mapped));
  }
  if (inst.opcode() == Opcode::Scatter)
    return evalScatterValue(inst, arrays);
  if (inst.opcode() == Opcode::SelectAndScatter) {
    Expected<Literal> scattered = evalSelectAndScatter(inst, arrays);
    if (!scattered)
      return scattered.takeError();
    return Value::ofArray(std::move(*scattered));
  }
  Expected<Literal> result = evaluateInstruction(inst, arrays);
  if (!result)
    return result.takeError();
  return Value::ofArray(std::move(*result));
}

/// The evaluator keeps every value of a computation until it returns, so
/// the bytes it holds after `inst` are checked against --max-arena before
/// `inst` is computed; `held` then counts them.
Error reserveValueBytes(const Instruction &inst, int64_t &held) {
  std::optional<int64_t> bytes = ir::checkedValueBytes(inst.shape());
  std::optional<int64_t> total = bytes ? checkedAdd(held, *bytes) : bytes;
  if (Error e = checkArenaBytes(
          fmt::format("evaluating %{} ({}) with the values before it",
                      inst.name(), inst.shape().toString()),
          total))
    return e;
  held = *total;
  return Error::success();
}

/// evalOne, with a refused allocation (sizes within a raised --max-arena
/// may still be more than the machine has) as an error naming `inst`.
Expected<Value> evalOneOrOutOfMemory(const Instruction &inst,
                                     const std::vector<const Value *> &operands,
                                     const std::vector<Value> &args) {
  try {
    return evalOne(inst, operands, args);
  } catch (const std::bad_alloc &) {
    return allocationError(
        fmt::format("%{} ({})", inst.name(), inst.shape().toString()),
        ir::checkedValueBytes(inst.shape()).value_or(INT64_MAX));
  }
}

Expected<Value> evalValues(const Computation &computation,
                           const std::vector<Value> &args) {
  if (!computation.root())
    return makeError("computation %{} has no root", computation.name());
  std::map<const Instruction *, Value> values;
  int64_t held = 0;
  for (const Instruction *inst : computation.postOrder()) {
    if (Error e = reserveValueBytes(*inst, held))
      return e;
    std::vector<const Value *> operands;
    for (const Instruction *operand : inst->operands()) {
      auto found = values.find(operand);
      if (found == values.end())
        return instructionError(*inst, "operand %" + operand->name() +
                                           " has no value");
      operands.push_back(&found->second);
    }
    Expected<Value> value = evalOneOrOutOfMemory(*inst, operands, args);
    if (!value)
      return value.takeError();
    if (value->shape() != inst->shape())
      return instructionError(
          *inst, fmt::format("produced {} but the instruction declares {}",
                             value->shape().toString(),
                             inst->shape().toString()));
    values.emplace(inst, std::move(*value));
  }
  // Moved, not copied: the root may be as large as --max-arena allows.
  return std::move(values.at(computation.root()));
}

/// The entry's results: a tuple root's elements, or the array. Callers name
/// results by the root's operands, so a nested tuple has no single literal
/// and is an error rather than silently flattened.
Error flatten(Value value, std::vector<Literal> &results) {
  if (!value.isTuple) {
    results.push_back(std::move(value.array));
    return Error::success();
  }
  for (size_t i = 0; i < value.elements.size(); ++i) {
    if (value.elements[i].isTuple)
      return makeError("result {} is a tuple; results must be arrays "
                       "(extract its elements with get-tuple-element)",
                       i);
    results.push_back(std::move(value.elements[i].array));
  }
  return Error::success();
}

Error checkArguments(const Computation &computation,
                     const std::vector<Literal> &args) {
  std::vector<Instruction *> params = computation.parameters();
  if (params.size() != args.size())
    return makeError("%{} expects {} argument{} but {} {} given",
                     computation.name(), params.size(),
                     params.size() == 1 ? "" : "s", args.size(),
                     args.size() == 1 ? "was" : "were");
  for (size_t i = 0; i < args.size(); ++i)
    if (args[i].shape() != params[i]->shape())
      return makeError("argument {} has shape {} but parameter '{}' expects {}",
                       i + 1, args[i].shape().toString(), params[i]->name(),
                       params[i]->shape().toString());
  return Error::success();
}

/// The arguments as values: copies, which need memory like any value.
Expected<std::vector<Value>> argumentValues(const std::vector<Literal> &args) {
  std::vector<Value> values;
  for (size_t i = 0; i < args.size(); ++i) {
    try {
      values.push_back(Value::ofArray(args[i]));
    } catch (const std::bad_alloc &) {
      return allocationError(fmt::format("argument {}", i + 1),
                             args[i].shape().byteSize());
    }
  }
  return values;
}

} // namespace

Expected<std::vector<Literal>>
evaluateComputation(const Computation &computation,
                    const std::vector<Literal> &args) {
  if (Error e = checkArguments(computation, args))
    return e;
  Expected<std::vector<Value>> values = argumentValues(args);
  if (!values)
    return values.takeError();
  Expected<Value> result = evalValues(computation, *values);
  if (!result)
    return result.takeError();
  std::vector<Literal> results;
  if (Error e = flatten(std::move(*result), results))
    return e;
  return results;
}

Expected<std::vector<Literal>> evaluateModule(const ir::Module &module,
                                              const std::vector<Literal> &args) {
  if (!module.entry())
    return makeError("module {} has no entry computation", module.name());
  return evaluateComputation(*module.entry(), args);
}

Expected<Literal> evaluateInstruction(const Instruction &inst,
                                      const Operands &operands) {
  int arity = ir::opcodeArity(inst.opcode());
  if (arity >= 0 && operands.size() != size_t(arity))
    return instructionError(inst, fmt::format("expects {} operands, got {}",
                                              arity, operands.size()));
  for (const Literal *operand : operands)
    if (!operand || operand->shape().isTuple())
      return instructionError(inst, "every operand must be an array");
  if (inst.shape().isTuple())
    return instructionError(inst, "tuple-producing instructions are not "
                                  "evaluated one at a time");
  switch (ir::opcodeKind(inst.opcode())) {
  case OpcodeKind::Leaf:
    if (inst.opcode() == Opcode::Constant)
      return inst.literal();
    if (inst.opcode() == Opcode::Iota)
      return evalLayout(inst, operands);
    if (inst.opcode() == Opcode::Rng)
      return evalRng(inst, operands);
    break;
  case OpcodeKind::ElementwiseUnary:
  case OpcodeKind::ElementwiseBinary:
  case OpcodeKind::ElementwiseTernary: return evalElementwise(inst, operands);
  case OpcodeKind::Layout: return evalLayout(inst, operands);
  case OpcodeKind::Reduction: return evalReduction(inst, operands);
  case OpcodeKind::Contraction: return evalContraction(inst, operands);
  case OpcodeKind::Indexing: {
    Expected<std::vector<Literal>> results = evalOrdering(inst, operands);
    if (!results)
      return results.takeError();
    if (results->size() != 1)
      return instructionError(inst, "produces a tuple");
    return std::move(results->front());
  }
  case OpcodeKind::Structural: break;
  }
  return instructionError(inst, "the evaluator cannot run this opcode alone");
}

} // namespace kiln::eval
