//===- BufferAssignmentCallees.cpp - The arenas of loops and branches ------===//
//
// Each computation a while or conditional runs gets a Builder of its own
// (its own schedule and placement), and their arenas one block of the
// caller's arena, live only while the caller runs: conditions and bodies
// run one after the other and only one branch runs, so they share it. The
// block is placed with the caller's values; its builders' slices then move
// up by its offset (shiftBy). Last, top-down, each callee's parameter takes
// the slices of what it receives: the while's own slices (the loop state)
// or the conditional's operand.
//
//===----------------------------------------------------------------------===//
#include "BufferAssignmentBuilder.h"

namespace kiln::analysis::buffers {

using ir::Opcode;

/// Assigns each callee of a while or conditional on its own (recursively),
/// and reserves the largest of their arenas as one block live only while
/// `caller` runs.
Error Builder::classifyCallees(const Instruction *caller) {
  CalleeBlock &block = calleeBlocks_.emplace_back();
  block.caller = caller;
  const std::vector<ir::Computation *> &callees = caller->calledComputations();
  for (const ir::Computation *callee : callees) {
    if (schedules_.count(callee))
      return makeError("buffer assignment: computation '{}' is run by more "
                       "than one instruction; clone it first (the "
                       "flatten-call-graph pass)",
                       callee->name());
    auto builder = std::make_unique<Builder>(
        *callee, Role::Callee, slices_, block.noResults, block.noWriteBacks,
        ranges_, inPlace_, schedules_, winograd_);
    if (caller->opcode() == Opcode::While && callee == callees.back())
      builder->setStateUpdates(stateUpdates(*callee)); // the body
    Totals totals;
    if (Error e = builder->run(schedules_[callee], {}, totals))
      return e;
    block.bytes = std::max(block.bytes, totals.arenaBytes);
    block.builders.push_back(std::move(builder));
  }
  if (block.bytes > 0) {
    ValueRef value{caller, kCalleeBlockIndex};
    addArenaValue(value, block.bytes, caller);
    fixedRange_.insert(value);
  }
  return Error::success();
}

void Builder::shiftBy(int64_t offset) {
  for (ValueRef value : placed_) {
    BufferSlice &slice = slices_.at(value);
    if (slice.kind == BufferKind::Arena)
      slice.offset += offset;
  }
}

/// `callee`'s parameter 0 receives `received` (an array, or a tuple whose
/// elements each have a slice): the parameter's values take those slices.
Error Builder::aliasParameter(const ir::Computation &callee,
                              ValueRef received) {
  const Instruction *parameter = callee.parameter(0);
  if (!parameter)
    return Error::success();
  const ir::Shape &shape = parameter->shape();
  if (!shape.isTuple()) {
    slices_[{parameter, -1}] = slices_.at(resolveValue(received));
    return Error::success();
  }
  for (size_t i = 0; i < shape.tupleElements().size(); ++i) {
    if (shape.tupleElements()[i].isTuple())
      return makeError("buffer assignment: parameter '{}' of '{}' has a "
                       "nested tuple element",
                       parameter->name(), callee.name());
    ValueRef element = received.tupleIndex < 0
                           ? ValueRef{received.instruction, int64_t(i)}
                           : received;
    slices_[{parameter, int64_t(i)}] = slices_.at(resolveValue(element));
  }
  return Error::success();
}

Error Builder::aliasCalleeParameters() {
  for (CalleeBlock &block : calleeBlocks_) {
    const Instruction *caller = block.caller;
    const std::vector<ir::Computation *> &callees = caller->calledComputations();
    for (size_t k = 0; k < callees.size(); ++k) {
      // A while's condition and body both see the loop state (the while's
      // own slices); branch k sees operand k + 1.
      ValueRef received = caller->opcode() == Opcode::While
                              ? ValueRef{caller, -1}
                              : ValueRef{caller->operand(k + 1), -1};
      if (Error e = aliasParameter(*callees[k], received))
        return e;
    }
    for (auto &builder : block.builders) {
      builder->aliasStateUpdates();
      if (Error e = builder->aliasCalleeParameters())
        return e;
    }
  }
  return Error::success();
}

const StateUpdate *
Builder::stateUpdateOf(const Instruction *instruction) const {
  for (const StateUpdate &update : stateUpdates_)
    if (update.update == instruction)
      return &update;
  return nullptr;
}

/// The in-place update whose state slice reshape `instruction` reads in
/// place: its operand is that update or such a view, and no root element
/// is it. The slice holds the update's value until the next iteration
/// writes it, after every read of this one.
const StateUpdate *
Builder::viewedStateUpdate(const Instruction *instruction) const {
  if (instruction->opcode() != Opcode::Reshape ||
      rootInstructions_.count(instruction))
    return nullptr;
  const Instruction *operand = instruction->operand(0);
  if (const StateUpdate *update = stateUpdateOf(operand))
    return update;
  return viewedStateUpdate(operand);
}

/// An in-place update takes the slice its body's parameter element has
/// (the while's state element), so the while's copy-back skips it; a
/// reshape viewing it takes the same slice and moves nothing.
void Builder::aliasStateUpdates() {
  for (const StateUpdate &update : stateUpdates_)
    slices_[{update.update, -1}] =
        slices_.at({entry_.parameter(0), update.index});
  for (const auto &[view, index] : stateViews_)
    slices_[{view, -1}] = slices_.at({entry_.parameter(0), index});
}

/// A callee's root values are copied out (into the loop state or the
/// conditional's result) after its last instruction, so they stay live.
void Builder::keepRootLive(int64_t end) {
  std::vector<ValueRef> root;
  containedValues(entry_.root(), root);
  for (ValueRef value : root) {
    auto range = ranges_.find(value);
    if (range != ranges_.end() && !fixedRange_.count(value))
      range->second.second = end;
  }
}

} // namespace kiln::analysis::buffers
