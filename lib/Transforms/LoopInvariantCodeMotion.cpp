//===- LoopInvariantCodeMotion.cpp - The `loop-invariant-code-motion` pass ===//
//
// A body instruction whose operands are all loop-invariant computes the
// same value in every iteration. Invariant are: constants, the body's reads
// of pass-through state elements (get-tuple-element(parameter), index=i
// where the root's element i is that read), and instructions computed from
// invariants only. Those worth it are computed once before the loop instead
// and enter the body as new pass-through state elements (hoist, then widen
// the state, as XLA's pass does): a pass-through element costs its bytes of
// state and no copy per iteration, since the body's parameter and the loop
// state share their slices (BufferAssignment.cpp).
//
// Which invariants are worth a state element:
//  - never the Free cost class (constants, broadcasts, reshapes, bitcasts,
//    transposes, slices, tuples, ...): data movement that fusion folds into
//    its consumers, so hoisting it would only add state;
//  - always the Heavy class (reductions, dots, convolutions, sort, top-k,
//    dynamic-update-slice): they do more work per result element than a
//    read of it costs;
//  - Cheap and Expensive ops (elementwise, gather, dynamic-slice: a window
//    is never larger than its operand) when their result is not larger
//    than their largest operand: the extra state is then no larger than
//    data the loop already keeps alive, while a result larger than its
//    operands (an op on a broadcast scalar's expansion is not, but one with
//    only scalar operands producing an array would be) is cheaper to
//    recompute than to hold.
// Instructions that call computations run whole (while, conditional, call)
// and fusions stay put: moving them would change the call graph that later
// passes and buffer assignment rely on. Reducers of reduce and friends move
// with their instruction.
//
// Hoisted code runs even when the loop runs zero times. That is safe in
// kiln because no op traps or has effects: integer division by zero,
// out-of-range indices and overflow all have defined results (docs/hlo.md),
// and rng is a deterministic function of its seed. A zero-trip loop then
// only wastes the hoisted work (the while-loop simplifier removes loops
// known to run zero times first).
//
//===----------------------------------------------------------------------===//
#include "TransformUtils.h"
#include "WhileLoopUtils.h"

#include "kiln/IR/ShapeBytes.h"
#include "kiln/Transforms/Passes.h"

#include <set>
#include <unordered_map>

namespace kiln {

using ir::Instruction;
using ir::Opcode;
using namespace transforms;

namespace {

/// Whether the pass may move `instruction` out of its loop at all.
bool isMovable(const Instruction &instruction) {
  if (instruction.opcode() == Opcode::Parameter ||
      instruction.opcode() == Opcode::Fusion)
    return false;
  return !ir::callsSequentially(instruction.opcode());
}

int64_t valueBytes(const Instruction &value) {
  return ir::checkedValueBytes(value.shape()).value_or(INT64_MAX);
}

/// The rule in the file comment.
bool isWorthHoisting(const Instruction &instruction) {
  if (instruction.shape().isTuple())
    return false;
  switch (ir::costClass(instruction.opcode())) {
  case ir::CostClass::Free:
    return false;
  case ir::CostClass::Heavy:
    return true;
  case ir::CostClass::Cheap:
  case ir::CostClass::Expensive:
    break;
  }
  int64_t largestOperand = 0;
  for (const Instruction *operand : instruction.operands())
    largestOperand = std::max(largestOperand, valueBytes(*operand));
  return valueBytes(instruction) <= largestOperand;
}

/// The body's loop-invariant instructions.
std::set<Instruction *> invariants(const ir::Computation &body) {
  std::set<Instruction *> invariant;
  for (Instruction *instruction : body.instructions()) {
    if (readsState(*instruction)) {
      if (isPassThrough(body, instruction->attrs().index))
        invariant.insert(instruction);
      continue;
    }
    if (!isMovable(*instruction))
      continue;
    bool allInvariant = true;
    for (Instruction *operand : instruction->operands())
      allInvariant &= invariant.count(operand) > 0;
    if (allInvariant)
      invariant.insert(instruction);
  }
  return invariant;
}

/// What to hoist: the invariants worth it, and the invariants they read
/// (copied before the loop too; the body keeps its own copy while other
/// body instructions still use it).
std::set<Instruction *> hoistedClosure(const std::set<Instruction *> &worth) {
  std::set<Instruction *> closure;
  std::vector<Instruction *> work(worth.begin(), worth.end());
  while (!work.empty()) {
    Instruction *value = work.back();
    work.pop_back();
    if (!closure.insert(value).second)
      continue;
    if (!readsState(*value))
      for (Instruction *operand : value->operands())
        work.push_back(operand);
  }
  return closure;
}

/// Copies `closure` (in body order) before `loop`; a pass-through read
/// becomes the init's element. Returns the copy of each instruction.
std::unordered_map<Instruction *, Instruction *>
copyBeforeLoop(Instruction &loop, const std::set<Instruction *> &closure) {
  ir::Computation &parent = *loop.parent();
  ir::Computation &body = loopBody(loop);
  std::unordered_map<Instruction *, Instruction *> copies;
  for (Instruction *instruction : body.instructions()) {
    if (!closure.count(instruction))
      continue;
    if (readsState(*instruction)) {
      copies[instruction] =
          elementOf(parent, loop.operand(0), instruction->attrs().index,
                    instruction->name());
      continue;
    }
    std::vector<Instruction *> operands;
    for (Instruction *operand : instruction->operands())
      operands.push_back(copies.at(operand));
    copies[instruction] = parent.addCopyOf(*instruction, std::move(operands));
  }
  return copies;
}

/// The hoisted values the body still reads: those with a user that stays.
std::vector<Instruction *> frontier(const ir::Computation &body,
                                    const std::set<Instruction *> &worth) {
  std::vector<Instruction *> values;
  for (Instruction *instruction : body.instructions()) {
    if (!worth.count(instruction))
      continue;
    for (Instruction *user : instruction->users())
      if (!worth.count(user)) {
        values.push_back(instruction);
        break;
      }
  }
  return values;
}

/// Makes the loop's users keep seeing the old state shape when something
/// reads the state whole (a get-tuple-element's index stays valid).
void keepOldStateForUsers(Instruction &loop, size_t oldCount) {
  ir::Computation &parent = *loop.parent();
  std::vector<Instruction *> wholeUsers;
  for (Instruction *user : loop.users())
    if (user->opcode() != Opcode::GetTupleElement)
      wholeUsers.push_back(user);
  bool isRoot = parent.root() == &loop;
  if (wholeUsers.empty() && !isRoot)
    return;
  std::vector<int64_t> indices;
  for (size_t i = 0; i < oldCount; ++i)
    indices.push_back(int64_t(i));
  Instruction *old = tupleOfElements(parent, &loop, indices);
  for (Instruction *user : wholeUsers)
    user->replaceOperand(&loop, old);
  if (isRoot)
    parent.setRoot(old);
}

/// Appends `values` (copied before the loop as `copies`) to the state and
/// makes the body read them from there.
void appendState(Instruction &loop, const std::vector<Instruction *> &values,
                 std::unordered_map<Instruction *, Instruction *> &copies) {
  ir::Computation &parent = *loop.parent();
  ir::Computation &body = loopBody(loop);
  Instruction *init = loop.operand(0);
  size_t oldCount = loop.shape().tupleElements().size();
  std::vector<ir::Shape> shapes = loop.shape().tupleElements();
  std::vector<int64_t> indices;
  for (size_t i = 0; i < oldCount; ++i)
    indices.push_back(int64_t(i));
  Instruction *oldInit = tupleOfElements(parent, init, indices);
  std::vector<Instruction *> initElements = oldInit->operands();
  for (Instruction *value : values)
    shapes.push_back(value->shape());
  setStateShape(loop, ir::Shape::tuple(shapes));
  std::vector<Instruction *> reads;
  for (Instruction *value : values) {
    ir::Attributes attrs;
    attrs.index = int64_t(oldCount + reads.size());
    Instruction *read = build(body, Opcode::GetTupleElement,
                              {body.parameter(0)}, attrs, {}, value->name());
    value->replaceAllUsesWith(read);
    reads.push_back(read);
    initElements.push_back(copies.at(value));
  }
  // Read after the replacements: a hoisted value may be a root element.
  std::vector<Instruction *> rootElements = body.root()->operands();
  rootElements.insert(rootElements.end(), reads.begin(), reads.end());
  loop.setOperand(0, build(parent, Opcode::Tuple, std::move(initElements), {},
                           {}, init->name() + ".hoisted"));
  parent.removeInstruction(oldInit); // only its elements were wanted
  body.setRoot(build(body, Opcode::Tuple, std::move(rootElements), {}, {},
                     body.root()->name()));
  keepOldStateForUsers(loop, oldCount);
}

bool hoistInvariants(ir::Module &module, Instruction &loop) {
  if (!ownsTupleLoop(module, loop))
    return false;
  ir::Computation &body = loopBody(loop);
  std::set<Instruction *> worth;
  for (Instruction *instruction : invariants(body))
    if (!readsState(*instruction) && isWorthHoisting(*instruction))
      worth.insert(instruction);
  std::vector<Instruction *> values = frontier(body, worth);
  if (values.empty())
    return false;
  std::unordered_map<Instruction *, Instruction *> copies =
      copyBeforeLoop(loop, hoistedClosure(worth));
  appendState(loop, values, copies);
  body.sortTopologically();
  body.removeDeadInstructions();
  loop.parent()->sortTopologically();
  return true;
}

class LoopInvariantCodeMotionPass final : public Pass {
public:
  std::string_view name() const override {
    return "loop-invariant-code-motion";
  }
  Expected<bool> run(ir::Module &module) override {
    // Inner loops first: what leaves an inner loop may then leave the
    // outer one in the same run.
    bool changed = false;
    for (Instruction *loop : wholeComputationLoops(module))
      changed |= hoistInvariants(module, *loop);
    return changed;
  }
};

} // namespace

std::unique_ptr<Pass> createLoopInvariantCodeMotionPass() {
  return std::make_unique<LoopInvariantCodeMotionPass>();
}

} // namespace kiln
