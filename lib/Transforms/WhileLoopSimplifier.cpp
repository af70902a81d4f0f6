//===- WhileLoopSimplifier.cpp - The `while-loop-simplifier` pass ---------===//
//
// Four rewrites of a while, each keeping its results exactly:
//
//  - a loop whose trip count (analysis::whileTripCount) is 0 becomes its
//    init: the condition is false on the first test;
//  - a loop run once becomes one copy of its body reading the init: the
//    condition has no effects, so skipping its two tests changes nothing;
//  - a state element the body returns unchanged and whose init is a
//    small constant (at most kMaxSunkConstantBytes) is that constant in
//    every iteration: the condition, the body and the loop's users read a
//    constant instead (the element itself then becomes unused and is
//    dropped by the next rewrite). Besides freeing
//    state, this shows the condition a constant bound, so a loop whose
//    bound was passed in the state gets a trip count;
//  - state elements whose value nobody needs (not read by the condition,
//    not feeding a needed element in the body, not read by the loop's
//    users) are dropped from the tuple, with the body code computing them.
//
// The last two change the state layout, so they apply only to loops that
// own their condition and body (WhileLoopUtils.h). Loops inside bodies and
// branches are simplified too, inner loops first.
//
//===----------------------------------------------------------------------===//
#include "TransformUtils.h"
#include "WhileLoopUtils.h"

#include "kiln/Analysis/TripCount.h"
#include "kiln/IR/ShapeBytes.h"
#include "kiln/Transforms/Passes.h"

#include <map>
#include <optional>
#include <set>

namespace kiln {

using ir::Instruction;
using ir::Opcode;
using namespace transforms;

namespace {

/// Whether replacing the root `loop` by `replacement` would leave a body or
/// branch returning a parameter or constant as it is, which the loop
/// lowering does not expect of a callee's root (the entry may).
bool unsafeRootReplacement(const Instruction &loop,
                           const Instruction &replacement) {
  const ir::Computation &parent = *loop.parent();
  bool isEntry = parent.parent() && parent.parent()->entry() == &parent;
  return parent.root() == &loop && !isEntry &&
         (replacement.opcode() == Opcode::Parameter ||
          replacement.opcode() == Opcode::Constant);
}

/// Trip count 0: the loop is its init. Trip count 1: one copy of the body.
bool removeShortLoop(Instruction *loop) {
  std::optional<int64_t> trips = analysis::whileTripCount(*loop);
  if (!trips || *trips > 1)
    return false;
  ir::Computation &parent = *loop->parent();
  Instruction *init = loop->operand(0);
  const ir::Computation &body = loopBody(*loop);
  // Decided before copying, so a refused rewrite leaves nothing behind.
  const Instruction &returned =
      *trips == 0 || body.root()->opcode() == Opcode::Parameter ? *init
                                                                 : *body.root();
  if (unsafeRootReplacement(*loop, returned))
    return false;
  Instruction *result =
      *trips == 0 ? init : copyComputationInto(parent, body, {init});
  replaceLoop(loop, result);
  // Not removing dead code here: other loops of `parent` are still to be
  // visited in this round; the dce pass drops what this left unused.
  parent.sortTopologically();
  return true;
}

/// Makes every use of `value` except the root's element `keep` (-1: none
/// kept) read a copy of `constant` in `value`'s computation instead.
bool replaceByConstant(Instruction *value, const Instruction &constant,
                       int64_t keep) {
  ir::Computation &computation = *value->parent();
  Instruction *root = computation.root();
  Instruction *copy = nullptr;
  bool changed = false;
  for (Instruction *user : std::vector<Instruction *>(value->users())) {
    for (size_t i = 0; i < user->operandCount(); ++i) {
      if (user->operand(i) != value || (user == root && int64_t(i) == keep))
        continue;
      if (!copy)
        copy = computation.addCopyOf(constant, {});
      user->setOperand(i, copy);
      changed = true;
    }
  }
  return changed;
}

/// Reads of state element `index` in `computation` (get-tuple-element of
/// its parameter).
std::vector<Instruction *> stateReads(const ir::Computation &computation,
                                      int64_t index) {
  std::vector<Instruction *> reads;
  for (Instruction *user : computation.parameter(0)->users())
    if (user->opcode() == Opcode::GetTupleElement &&
        user->attrs().index == index)
      reads.push_back(user);
  return reads;
}

/// The largest constant sunk into a loop: scalars and small tables, which
/// is what bounds and foldable operands are. A large constant (weights
/// handed through the state) would be copied into the condition and the
/// body for no gain, as reading it from the state costs nothing per trip.
constexpr int64_t kMaxSunkConstantBytes = 4096;

/// Pass-through elements with a small constant init become that constant.
bool sinkConstantState(Instruction *loop) {
  Instruction *init = loop->operand(0);
  if (init->opcode() != Opcode::Tuple)
    return false;
  ir::Computation &body = loopBody(*loop);
  ir::Computation &condition = loopCondition(*loop);
  bool changed = false;
  for (size_t i = 0; i < init->operandCount(); ++i) {
    const Instruction *constant = init->operand(i);
    if (constant->opcode() != Opcode::Constant ||
        !isPassThrough(body, int64_t(i)) ||
        ir::checkedValueBytes(constant->shape()).value_or(INT64_MAX) >
            kMaxSunkConstantBytes)
      continue;
    for (Instruction *read : stateReads(body, int64_t(i)))
      changed |= replaceByConstant(read, *constant, int64_t(i));
    for (Instruction *read : stateReads(condition, int64_t(i)))
      changed |= replaceByConstant(read, *constant, -1);
    // The loop's users: the parent already holds the constant.
    for (Instruction *user : std::vector<Instruction *>(loop->users()))
      if (user->opcode() == Opcode::GetTupleElement &&
          user->attrs().index == int64_t(i) && user != loop->parent()->root()) {
        user->replaceAllUsesWith(init->operand(i));
        changed = true;
      }
  }
  if (changed) {
    body.sortTopologically();
    condition.sortTopologically();
    condition.removeDeadInstructions();
    loop->parent()->sortTopologically();
  }
  return changed;
}

/// Adds the state elements `value` depends on to `reads`; false when it
/// reads the state whole (the parameter other than through
/// get-tuple-element).
bool collectStateReads(const Instruction *value, std::set<const Instruction *> &seen,
                       std::set<int64_t> &reads) {
  if (!seen.insert(value).second)
    return true;
  if (value->opcode() == Opcode::Parameter)
    return false;
  if (readsState(*value)) {
    reads.insert(value->attrs().index);
    return true;
  }
  for (const Instruction *operand : value->operands())
    if (!collectStateReads(operand, seen, reads))
      return false;
  return true;
}

/// The state elements whose values are needed, or nullopt when all are.
std::optional<std::set<int64_t>> neededElements(const Instruction &loop) {
  const ir::Computation &parent = *loop.parent();
  if (parent.root() == &loop)
    return std::nullopt;
  std::set<int64_t> needed;
  for (const Instruction *user : loop.users()) {
    if (user->opcode() != Opcode::GetTupleElement)
      return std::nullopt;
    needed.insert(user->attrs().index);
  }
  std::set<const Instruction *> seen;
  if (!collectStateReads(loopCondition(loop).root(), seen, needed))
    return std::nullopt;
  // An element is needed when a needed element's next value reads it.
  const Instruction *root = loopBody(loop).root();
  std::set<const Instruction *> bodySeen;
  for (size_t before = 0; before != needed.size();) {
    before = needed.size();
    for (int64_t index : std::set<int64_t>(needed))
      if (!collectStateReads(root->operand(size_t(index)), bodySeen, needed))
        return std::nullopt;
  }
  return needed;
}

/// Renumbers the get-tuple-elements of `tuple` through `renumber`.
void renumberElementReads(const Instruction &tuple,
                          const std::map<int64_t, int64_t> &renumber) {
  for (Instruction *user : tuple.users())
    user->attrs().index = renumber.at(user->attrs().index);
}

/// Drops the state elements nothing needs.
bool dropUnusedState(Instruction *loop) {
  std::optional<std::set<int64_t>> needed = neededElements(*loop);
  size_t count = loop->shape().tupleElements().size();
  // An empty tuple state would be a new case for code generation.
  if (!needed || needed->size() == count || needed->empty())
    return false;
  std::vector<int64_t> kept(needed->begin(), needed->end());
  std::map<int64_t, int64_t> renumber;
  std::vector<ir::Shape> shapes;
  for (int64_t index : kept) {
    renumber[index] = int64_t(shapes.size());
    shapes.push_back(loop->shape().tupleElements()[size_t(index)]);
  }
  ir::Computation &parent = *loop->parent();
  ir::Computation &body = loopBody(*loop);
  ir::Computation &condition = loopCondition(*loop);
  loop->setOperand(0, tupleOfElements(parent, loop->operand(0), kept));
  std::vector<Instruction *> elements;
  for (int64_t index : kept)
    elements.push_back(body.root()->operand(size_t(index)));
  body.setRoot(build(body, Opcode::Tuple, std::move(elements), {}, {},
                     body.root()->name()));
  // What computed the dropped elements goes before the shapes change.
  body.removeDeadInstructions();
  condition.removeDeadInstructions();
  setStateShape(*loop, ir::Shape::tuple(std::move(shapes)));
  renumberElementReads(*loop, renumber);
  renumberElementReads(*body.parameter(0), renumber);
  renumberElementReads(*condition.parameter(0), renumber);
  parent.sortTopologically();
  body.sortTopologically();
  return true;
}

bool simplifyLoop(ir::Module &module, Instruction *loop) {
  if (removeShortLoop(loop))
    return true;
  if (!ownsTupleLoop(module, *loop))
    return false;
  bool changed = sinkConstantState(loop);
  changed |= dropUnusedState(loop);
  return changed;
}

/// Rounds over every loop; a round rarely finds more than the first, but
/// an inner loop removed or inlined can expose its outer loop.
constexpr int kMaxRounds = 8;

class WhileLoopSimplifierPass final : public Pass {
public:
  std::string_view name() const override { return "while-loop-simplifier"; }
  Expected<bool> run(ir::Module &module) override {
    bool everChanged = false;
    for (int round = 0; round < kMaxRounds; ++round) {
      bool changed = false;
      for (Instruction *loop : wholeComputationLoops(module))
        changed |= simplifyLoop(module, loop);
      if (!changed)
        break;
      // Bodies inlined or loops removed leave computations nobody runs.
      removeUncalledComputations(module);
      everChanged = true;
    }
    return everChanged;
  }
};

} // namespace

std::unique_ptr<Pass> createWhileLoopSimplifierPass() {
  return std::make_unique<WhileLoopSimplifierPass>();
}

} // namespace kiln
