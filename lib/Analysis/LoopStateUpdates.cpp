//===- LoopStateUpdates.cpp - Loop state written in place ------------------===//
//
// A while body's root element i that updates its parameter's element i
// writes straight into the loop state's slice i, and the while copies
// nothing back. Two kinds of update qualify:
//  - a dynamic-update-slice of element i (a scan writing row t of its
//    [T, ...] output): only the window is written;
//  - an elementwise op, or a loop fusion, that reads element i only at the
//    index it writes (a carry `c = f(c, x)`, a counter `i + 1`): every
//    path from element i to the result goes through elementwise ops of the
//    result's dimensions, so output element j is computed from input
//    element j alone, read before it is written.
// Either overwrites the old value, so every other read of it must run
// first: the body's schedule is told so (MemoryModel::runsAfter). When a
// read cannot run first (it depends on the update, or reads through a
// tuple, e.g. the root passing the old value on as another element), the
// update keeps its own arena value and the copy, and so does an update
// whose readers-first would order the body in a cycle (two updates each
// reading the other's old value). A fusion whose root is a
// dynamic-update-slice is not recognized (fusion never makes one today).
//
//===----------------------------------------------------------------------===//
#include "BufferAssignmentBuilder.h"

#include <algorithm>
#include <map>
#include <optional>

namespace kiln::analysis::buffers {

using ir::Opcode;

namespace {

/// Whether `value` reads `on`, transitively through operands.
bool dependsOn(const Instruction *value, const Instruction *on) {
  std::vector<const Instruction *> work{value};
  std::set<const Instruction *> seen{value};
  while (!work.empty()) {
    const Instruction *next = work.back();
    work.pop_back();
    if (next == on)
      return true;
    for (const Instruction *operand : next->operands())
      if (seen.insert(operand).second)
        work.push_back(operand);
  }
  return false;
}

/// Whether every path from `from` to `result` (whose operands reach it)
/// goes through elementwise ops with `result`'s dimensions only, so each
/// element of `result` reads `from` at its own index.
bool readsAtOwnIndex(const Instruction *from, const Instruction *result) {
  std::vector<const Instruction *> work{from};
  std::set<const Instruction *> seen{from};
  while (!work.empty()) {
    const Instruction *next = work.back();
    work.pop_back();
    for (const Instruction *user : next->users()) {
      if (!ir::isElementwise(user->opcode()) ||
          user->shape().isTuple() ||
          user->shape().dims() != result->shape().dims())
        return false;
      if (user != result && seen.insert(user).second)
        work.push_back(user);
    }
  }
  return true;
}

/// Whether `update` computes each element from `old` at its own index
/// only: an elementwise op, or a loop fusion whose parameters bound to
/// `old` reach its root through elementwise ops only.
bool isElementwiseUpdate(const Instruction *update, const Instruction *old) {
  if (update->shape().isTuple() ||
      update->shape().dims() != old->shape().dims())
    return false;
  if (ir::isElementwise(update->opcode()))
    return true;
  if (update->opcode() != Opcode::Fusion ||
      update->attrs().fusionKind != ir::FusionKind::Loop)
    return false;
  const ir::Computation &fused = *update->calledComputation();
  for (size_t k = 0; k < update->operandCount(); ++k)
    if (update->operand(k) == old &&
        !readsAtOwnIndex(fused.parameter(int64_t(k)), fused.root()))
      return false;
  return true;
}

/// Whether `update` writes root element `old` may take in place: a
/// dynamic-update-slice of it (not also reading it as update or index),
/// or an elementwise update of it.
bool updatesInPlace(const Instruction *update, const Instruction *old) {
  if (update->opcode() != Opcode::DynamicUpdateSlice)
    return isElementwiseUpdate(update, old);
  if (update->operand(0) != old)
    return false;
  for (size_t k = 1; k < update->operandCount(); ++k)
    if (update->operand(k) == old)
      return false; // also reads the old value as update or index
  return true;
}

/// Parameter element `index` of `body` (its get-tuple-element) that
/// `update` reads, or null.
const Instruction *oldElement(const Instruction *update,
                              const Instruction *parameter, int64_t index) {
  for (const Instruction *operand : update->operands())
    if (operand->opcode() == Opcode::GetTupleElement &&
        operand->operand(0) == parameter && operand->attrs().index == index)
      return operand;
  return nullptr;
}

/// Root element `index` of while body `body` as an in-place update, or
/// nothing when it is not one or an old-value read cannot run before it.
std::optional<StateUpdate> stateUpdate(const ir::Computation &body,
                                       int64_t index) {
  const Instruction *root = body.root();
  const Instruction *parameter = body.parameter(0);
  if (!parameter || root->opcode() != Opcode::Tuple)
    return std::nullopt;
  const Instruction *update = root->operand(size_t(index));
  const Instruction *old = oldElement(update, parameter, index);
  if (!old || !updatesInPlace(update, old))
    return std::nullopt;
  StateUpdate result{update, index, {}};
  for (const Instruction *element : parameter->users()) {
    // Any other use of the whole state (a tuple-shaped read) is opaque.
    if (element->opcode() != Opcode::GetTupleElement)
      return std::nullopt;
    if (element->attrs().index != index)
      continue;
    for (const Instruction *reader : element->users()) {
      if (reader == update)
        continue;
      // A tuple reads when its users (or the while's copy-back) run: it
      // cannot be ordered; a reader of the update runs after it.
      if (reader->opcode() == Opcode::Tuple || dependsOn(reader, update))
        return std::nullopt;
      if (std::find(result.readsFirst.begin(), result.readsFirst.end(),
                    reader) == result.readsFirst.end())
        result.readsFirst.push_back(reader);
    }
  }
  return result;
}

/// Whether `body` has an order in which every update's old-value readers
/// run before it: two updates may each read the other's old value
/// (a2 = a + b, b2 = a * b), and then at most one of them can be in place.
bool orderable(const ir::Computation &body,
               const std::vector<StateUpdate> &updates) {
  std::map<const Instruction *, std::vector<const Instruction *>> next;
  std::map<const Instruction *, size_t> waiting;
  for (const Instruction *instruction : body.instructions()) {
    waiting[instruction] += 0;
    for (const Instruction *operand : instruction->operands()) {
      next[operand].push_back(instruction);
      ++waiting[instruction];
    }
  }
  for (const StateUpdate &update : updates)
    for (const Instruction *reader : update.readsFirst) {
      next[reader].push_back(update.update);
      ++waiting[update.update];
    }
  std::vector<const Instruction *> ready;
  for (const auto &[instruction, count] : waiting)
    if (count == 0)
      ready.push_back(instruction);
  size_t ordered = 0;
  while (!ready.empty()) {
    const Instruction *instruction = ready.back();
    ready.pop_back();
    ++ordered;
    for (const Instruction *user : next[instruction])
      if (--waiting[user] == 0)
        ready.push_back(user);
  }
  return ordered == waiting.size();
}

} // namespace

std::vector<StateUpdate> stateUpdates(const ir::Computation &body) {
  std::vector<StateUpdate> updates;
  const Instruction *root = body.root();
  if (!root || root->opcode() != Opcode::Tuple)
    return updates;
  for (size_t i = 0; i < root->operandCount(); ++i)
    if (std::optional<StateUpdate> update = stateUpdate(body, int64_t(i))) {
      // One that would order the body in a cycle keeps its copy instead.
      updates.push_back(*update);
      if (!orderable(body, updates))
        updates.pop_back();
    }
  return updates;
}

} // namespace kiln::analysis::buffers
