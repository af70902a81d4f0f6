//===- CheckNested.cpp - Loop body and branch values for kiln check -------===//
//
// A loop body runs many times and a branch maybe not at all, so their
// values are not results of the model and `kiln check` could not compare
// them. To compare them, kiln check widens the copies it compiles and
// evaluates:
//
// - each while gets extra state: a pred[] "first iteration" flag and one
//   slot per body value, which the body fills on its first iteration only
//   (select(first, value, slot));
// - each conditional's result gets one element per value of every branch;
//   the branch taken fills its own, every branch fills the others' with
//   zeros.
//
// After the while or conditional, get-tuple-elements read the new elements
// as ordinary entry values, which buildCheckModules then probes like any
// other.
//
// Why a loop's first iteration: it starts from the loop's init, and
// whenever the init agrees, both sides start it from the same state, so a
// divergence inside a body shows at the instruction where it starts. A
// later iteration would start from state that already diverged. (A loop
// that agrees on its first iteration and diverges later shows at the
// while's results.) A loop that runs no iteration, like a branch not taken,
// leaves zeros on both sides. Nested loops and branches expose their values
// to the enclosing computation first, so they reach the entry through
// every level.
//
//===----------------------------------------------------------------------===//
#include "CheckModule.h"

#include "kiln/IR/Computation.h"
#include "kiln/Import/LiteralUtil.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

namespace kiln::driver {

namespace {

using ir::Instruction;

/// A scalar constant of `dtype` broadcast to `shape`.
Instruction *filled(ir::Computation &computation, const ir::Shape &shape,
                    double value) {
  Instruction *scalar = computation.addConstant(import::literalFromDoubles(
      ir::Shape(shape.dtype(), {}), {value}));
  if (shape.dims().empty())
    return scalar;
  return computation.add(ir::Opcode::Broadcast, shape, {scalar});
}

Instruction *element(ir::Computation &computation, Instruction *tuple,
                     int64_t index) {
  ir::Attributes attrs;
  attrs.index = index;
  return computation.add(ir::Opcode::GetTupleElement,
                         tuple->shape().tupleElements()[size_t(index)],
                         {tuple}, attrs);
}

/// The old state's elements as values of `computation`: the operands of a
/// tuple instruction, get-tuple-elements of another tuple value, or the
/// array itself.
std::vector<Instruction *> stateElements(ir::Computation &computation,
                                         Instruction *state) {
  if (!state->shape().isTuple())
    return {state};
  if (state->opcode() == ir::Opcode::Tuple)
    return state->operands();
  std::vector<Instruction *> elements;
  for (size_t i = 0; i < state->shape().tupleElements().size(); ++i)
    elements.push_back(element(computation, state, int64_t(i)));
  return elements;
}

/// Widens `value` (a parameter or a while, of old state shape `old`) to
/// `wide` in place; users that read more than one old element by index get
/// a view of the old shape built from the wide value.
void widen(ir::Computation &computation, Instruction *value,
           const ir::Shape &old, const ir::Shape &wide) {
  std::vector<Instruction *> users = value->users();
  value->setShape(wide);
  Instruction *view = nullptr;
  if (!old.isTuple()) {
    // The array keeps its name on the view, so it is still compared as
    // the value it was.
    view = element(computation, value, 0);
    std::string name = value->name();
    value->setName(computation.parent()->uniqueName(name + ".state"));
    view->setName(name);
  } else {
    bool onlyIndexed = true;
    for (Instruction *user : users)
      onlyIndexed &= user->opcode() == ir::Opcode::GetTupleElement;
    if (onlyIndexed && computation.root() != value)
      return; // indices of the old elements are unchanged
    std::vector<Instruction *> elements;
    for (size_t i = 0; i < old.tupleElements().size(); ++i)
      elements.push_back(element(computation, value, int64_t(i)));
    view = computation.add(ir::Opcode::Tuple, old, elements);
  }
  for (Instruction *user : users)
    if (user->opcode() != ir::Opcode::GetTupleElement || !old.isTuple())
      user->replaceOperand(value, view);
  if (computation.root() == value)
    computation.setRoot(view);
}

struct Exposure {
  std::vector<Instruction *> bodyValues; // compared, in body order
  ir::Shape wideState;
  size_t oldCount = 0; // elements of the old state
};

/// Makes `body` fill one new slot per value of `compared` on its first
/// iteration only.
Exposure widenBody(ir::Computation &body, const ir::Shape &oldState,
                   std::vector<Instruction *> compared) {
  Exposure exposure;
  exposure.bodyValues = std::move(compared);
  if (exposure.bodyValues.empty())
    return exposure;
  std::vector<ir::Shape> shapes =
      oldState.isTuple() ? oldState.tupleElements()
                         : std::vector<ir::Shape>{oldState};
  exposure.oldCount = shapes.size();
  shapes.push_back(ir::Shape(ir::DType::Pred, {}));
  for (Instruction *value : exposure.bodyValues)
    shapes.push_back(value->shape());
  exposure.wideState = ir::Shape::tuple(shapes);

  Instruction *parameter = body.parameter(0);
  widen(body, parameter, oldState, exposure.wideState);
  std::vector<Instruction *> next = stateElements(body, body.root());
  Instruction *first = element(body, parameter, int64_t(exposure.oldCount));
  next.push_back(filled(body, first->shape(), 0)); // later iterations
  for (size_t k = 0; k < exposure.bodyValues.size(); ++k) {
    Instruction *value = exposure.bodyValues[k];
    Instruction *slot =
        element(body, parameter, int64_t(exposure.oldCount + 1 + k));
    Instruction *pick = first;
    if (!value->shape().dims().empty())
      pick = body.add(ir::Opcode::Broadcast,
                      ir::Shape(ir::DType::Pred, value->shape().dims()),
                      {first});
    next.push_back(body.add(ir::Opcode::Select, value->shape(),
                            {pick, value, slot}));
  }
  body.setRoot(body.add(ir::Opcode::Tuple, exposure.wideState, next));
  body.sortTopologically();
  return exposure;
}

void exposeIn(ir::Computation &computation,
              std::vector<ExposedValue> &exposed);

/// `computation`'s instructions in post order, each of `reads` (read by
/// nothing yet) right after the loop it reads, so a nested loop's values
/// come before the values computed from its result.
std::vector<Instruction *> inOrder(const ir::Computation &computation,
                                   const std::set<std::string> &reads) {
  std::vector<Instruction *> order;
  for (Instruction *instruction : computation.postOrder()) {
    order.push_back(instruction);
    for (Instruction *user : instruction->users())
      if (reads.count(user->name()))
        order.push_back(user);
  }
  return order;
}

/// The values of `callee` to compare: its own array values and (nested
/// loops and branches exposed first, into `inner`) those read out of the
/// loops and conditionals inside it; not the instructions exposing adds.
std::vector<Instruction *>
comparedValues(ir::Computation &callee,
               std::vector<ExposedValue> &inner) {
  std::set<std::string> own;
  for (Instruction *instruction : callee.instructions())
    if (isProbed(*instruction))
      own.insert(instruction->name());
  exposeIn(callee, inner);
  std::set<std::string> innerReads;
  for (const ExposedValue &value : inner)
    innerReads.insert(value.value);
  std::vector<Instruction *> compared;
  for (Instruction *instruction : inOrder(callee, innerReads))
    if (isProbed(*instruction) && (own.count(instruction->name()) ||
                                     innerReads.count(instruction->name())))
      compared.push_back(instruction);
  return compared;
}

/// Reads `values` (a callee's, widened into `caller`'s result from element
/// `first` on) after `caller`, and records each as an exposed value named
/// CALLER.VALUE (`callerName`: the name before widening).
void readExposed(ir::Computation &computation, Instruction *caller,
                 const std::string &callerName,
                 const std::vector<Instruction *> &values, size_t first,
                 const std::string &where,
                 const std::vector<ExposedValue> &inner,
                 std::vector<ExposedValue> &exposed) {
  std::map<const Instruction *, std::string> readOf;
  for (size_t k = 0; k < values.size(); ++k) {
    const Instruction *value = values[k];
    Instruction *read = element(computation, caller, int64_t(first + k));
    auto nested = std::find_if(inner.begin(), inner.end(),
                               [&](const ExposedValue &e) {
                                 return e.value == value->name();
                               });
    ExposedValue entry{read->name(), value->name(), where,
                           std::string(ir::opcodeName(value->opcode())), {}};
    if (nested != inner.end()) { // a value of a loop or branch inside
      entry.bodyValue = nested->bodyValue;
      entry.where = where + " > " + nested->where;
      entry.op = nested->op;
    }
    read->setName(computation.parent()->uniqueName(
        fmt::format("{}.{}", callerName, entry.bodyValue)));
    entry.value = read->name();
    readOf[value] = entry.value;
    for (const Instruction *operand : value->operands())
      if (readOf.count(operand))
        entry.operands.push_back(readOf.at(operand));
    exposed.push_back(std::move(entry));
  }
}

/// Widens one while of `computation` and reads its body's first-iteration
/// values after it.
void exposeLoop(ir::Computation &computation, Instruction *loop,
                std::vector<ExposedValue> &exposed) {
  ir::Computation &condition = *loop->calledComputations()[0];
  ir::Computation &body = *loop->calledComputations()[1];
  std::vector<ExposedValue> inner;
  std::vector<Instruction *> compared = comparedValues(body, inner);
  ir::Shape oldState = loop->shape();
  std::string name = loop->name(); // before widen may rename it
  std::string where = fmt::format("while {} (iteration 1)", name);
  Exposure exposure = widenBody(body, oldState, std::move(compared));
  if (exposure.bodyValues.empty())
    return;
  widen(condition, condition.parameter(0), oldState, exposure.wideState);
  condition.sortTopologically();

  std::vector<Instruction *> init =
      stateElements(computation, loop->operand(0));
  init.push_back(filled(computation, ir::Shape(ir::DType::Pred, {}), 1));
  for (Instruction *value : exposure.bodyValues)
    init.push_back(filled(computation, value->shape(), 0));
  loop->setOperand(
      0, computation.add(ir::Opcode::Tuple, exposure.wideState, init));
  widen(computation, loop, oldState, exposure.wideState);
  readExposed(computation, loop, name, exposure.bodyValues,
              exposure.oldCount + 1, where, inner, exposed);
  computation.sortTopologically();
}

/// "true branch", "false branch" or "branch K" of a conditional.
std::string branchName(const Instruction &conditional, size_t k) {
  if (conditional.operand(0)->shape().dtype() == ir::DType::Pred)
    return k == 0 ? "true branch" : "false branch";
  return fmt::format("branch {}", k);
}

/// Widens one conditional of `computation`: its result gains one element
/// per value of every branch, each branch filling its own and zeros for
/// the others', so the branch not taken reads zeros on both sides.
void exposeConditional(ir::Computation &computation, Instruction *conditional,
                       std::vector<ExposedValue> &exposed) {
  const std::vector<ir::Computation *> &branches =
      conditional->calledComputations();
  std::vector<std::vector<Instruction *>> values(branches.size());
  std::vector<std::vector<ExposedValue>> inner(branches.size());
  for (size_t k = 0; k < branches.size(); ++k)
    values[k] = comparedValues(*branches[k], inner[k]);
  ir::Shape old = conditional->shape();
  std::vector<ir::Shape> shapes =
      old.isTuple() ? old.tupleElements() : std::vector<ir::Shape>{old};
  size_t oldCount = shapes.size();
  for (const auto &branchValues : values)
    for (Instruction *value : branchValues)
      shapes.push_back(value->shape());
  if (shapes.size() == oldCount)
    return;
  ir::Shape wide = ir::Shape::tuple(shapes);
  std::string name = conditional->name(); // before widen may rename it
  for (size_t k = 0; k < branches.size(); ++k) {
    ir::Computation &branch = *branches[k];
    std::vector<Instruction *> root = stateElements(branch, branch.root());
    for (size_t j = 0; j < branches.size(); ++j)
      for (Instruction *value : values[j])
        root.push_back(j == k ? value : filled(branch, value->shape(), 0));
    branch.setRoot(branch.add(ir::Opcode::Tuple, wide, root));
    branch.sortTopologically();
  }
  widen(computation, conditional, old, wide);
  size_t first = oldCount;
  for (size_t k = 0; k < branches.size(); ++k) {
    readExposed(computation, conditional, name, values[k], first,
                fmt::format("conditional {}, {}", name,
                            branchName(*conditional, k)),
                inner[k], exposed);
    first += values[k].size();
  }
  computation.sortTopologically();
}

void exposeIn(ir::Computation &computation,
              std::vector<ExposedValue> &exposed) {
  // A snapshot: exposing a loop adds instructions.
  for (Instruction *instruction : computation.instructions()) {
    if (instruction->opcode() == ir::Opcode::While)
      exposeLoop(computation, instruction, exposed);
    else if (instruction->opcode() == ir::Opcode::Conditional)
      exposeConditional(computation, instruction, exposed);
  }
}

} // namespace

std::vector<ExposedValue> exposeNestedValues(ir::Module &module) {
  std::vector<ExposedValue> exposed;
  exposeIn(*module.entry(), exposed);
  return exposed;
}

} // namespace kiln::driver
