//===- LoopStateUpdates.cpp - Loop state written in place ------------------===//
//
// A while body whose root element i is a dynamic-update-slice of its
// parameter's element i (a scan writing row t of its [T, ...] output)
// writes straight into the loop state's slice i, so only the window is
// written and the while copies nothing back. That
// overwrites the old value, so every other read of it must run first: the
// body's schedule is told so (MemoryModel::runsAfter). When a read cannot
// run first (it depends on the update, or reads through a tuple, e.g. the
// root passing the old value on as another element), the update keeps
// its own arena value and the copy. A fusion whose root is the update is
// not recognized (fusion never makes one today): it is copied as before.
//
//===----------------------------------------------------------------------===//
#include "BufferAssignmentBuilder.h"

#include <algorithm>
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

/// Root element `index` of while body `body` as an in-place update, or
/// nothing when it is not one or an old-value read cannot run before it.
std::optional<StateUpdate> stateUpdate(const ir::Computation &body,
                                       int64_t index) {
  const Instruction *root = body.root();
  const Instruction *parameter = body.parameter(0);
  if (!parameter || root->opcode() != Opcode::Tuple)
    return std::nullopt;
  const Instruction *update = root->operand(size_t(index));
  if (update->opcode() != Opcode::DynamicUpdateSlice)
    return std::nullopt;
  const Instruction *old = update->operand(0);
  if (old->opcode() != Opcode::GetTupleElement ||
      old->operand(0) != parameter || old->attrs().index != index)
    return std::nullopt;
  for (size_t k = 1; k < update->operandCount(); ++k)
    if (update->operand(k) == old)
      return std::nullopt; // also reads the old value as update or index
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

} // namespace

std::vector<StateUpdate> stateUpdates(const ir::Computation &body) {
  std::vector<StateUpdate> updates;
  const Instruction *root = body.root();
  if (!root || root->opcode() != Opcode::Tuple)
    return updates;
  for (size_t i = 0; i < root->operandCount(); ++i)
    if (std::optional<StateUpdate> update = stateUpdate(body, int64_t(i)))
      updates.push_back(*update);
  return updates;
}

} // namespace kiln::analysis::buffers
