//===- ConsumerHosts.cpp - Values computed in their consumer's buffer -----===//
//
// Two consumers only ever copy their operand: a reshape (storage is
// row-major whatever the dimensions, so its bytes are its operand's) and a
// while's initial state (copied into the loop state's slices before the
// first trip). When such a consumer is a value's only reader, the value can
// be computed straight into the consumer's slice and the copy disappears:
// the reshape emits nothing, the while finds its state already in place.
// A chain (a GEMM's result, reshaped, passed into a loop, its final state
// reshaped into a result) ends in one host.
//
// Only values with arena bytes of their own qualify as guests (array
// instructions and a while's state elements): parameters and constants
// belong to the caller or to read-only data; tuples and get-tuple-element
// own nothing; a computation's root is read by its caller. Buffer
// assignment gives a hosted value no bytes, makes its host live from the
// guest's definition, and aliases the guest's slice to the host's once
// placed (the Builder members at the end of this file, called from
// BufferAssignment.cpp); a reshape of an entry parameter instead reads the
// argument in place (viewedArgument), and so does a top-level while's state
// element that starts as an entry parameter and that no trip changes
// (argumentStateElement).
//
//===----------------------------------------------------------------------===//
#include "BufferAssignmentBuilder.h"

#include <algorithm>
#include <optional>
#include <set>

namespace kiln::analysis::buffers {

using ir::Opcode;

namespace {

/// Whether `instruction` defines one array value with bytes of its own.
bool ownsArrayValue(const Instruction &instruction) {
  switch (instruction.opcode()) {
  case Opcode::Parameter:
  case Opcode::Constant:
  case Opcode::Tuple:
  case Opcode::GetTupleElement:
    return false;
  default:
    return !instruction.shape().isTuple();
  }
}

/// How many times `user` reads `value`.
size_t readsOf(const Instruction &user, const Instruction *value) {
  return size_t(std::count(user.operands().begin(), user.operands().end(),
                           value));
}

/// The one instruction that reads `value`, once: through its only
/// get-tuple-element for a while's state element (every reader of the while
/// must be one), directly for an array instruction. Roots have a reader
/// outside the computation: none.
const Instruction *onlyReader(const ir::Computation &computation,
                              ValueRef value) {
  const Instruction *defined = value.instruction;
  if (defined == computation.root())
    return nullptr;
  if (value.tupleIndex >= 0) {
    const Instruction *element = nullptr;
    for (const Instruction *user : defined->users()) {
      if (user->opcode() != Opcode::GetTupleElement)
        return nullptr; // the whole state is read (a tuple, another loop)
      if (user->attrs().index != value.tupleIndex)
        continue;
      if (element)
        return nullptr;
      element = user;
    }
    if (!element)
      return nullptr;
    defined = element;
  }
  if (defined == computation.root() || defined->users().size() != 1)
    return nullptr;
  const Instruction *reader = defined->users().front();
  return readsOf(*reader, defined) == 1 ? reader : nullptr;
}

/// The consumer slice `value` can be computed into, when its only reader is
/// a reshape or (for an array instruction) a while's initial-state tuple.
std::optional<ValueRef>
directHost(const ir::Computation &computation, ValueRef value,
           const std::function<bool(const Instruction *)> &excluded) {
  const Instruction *reader = onlyReader(computation, value);
  if (!reader || excluded(reader))
    return std::nullopt;
  if (reader->opcode() == Opcode::Reshape && ownsArrayValue(*reader))
    return ValueRef{reader, -1};
  if (value.tupleIndex >= 0 || reader->opcode() != Opcode::Tuple ||
      reader == computation.root() || reader->users().size() != 1)
    return std::nullopt;
  const Instruction *loop = reader->users().front();
  if (loop->opcode() != Opcode::While || loop->operand(0) != reader)
    return std::nullopt;
  const auto &elements = reader->operands();
  auto position =
      std::find(elements.begin(), elements.end(), value.instruction);
  return ValueRef{loop, int64_t(position - elements.begin())};
}

/// The values that could be guests: array instructions with bytes of their
/// own, and the state elements of every while.
std::vector<ValueRef> candidateGuests(const ir::Computation &computation) {
  std::vector<ValueRef> values;
  for (const Instruction *instruction : computation.instructions()) {
    if (ownsArrayValue(*instruction))
      values.push_back({instruction, -1});
    if (instruction->opcode() != Opcode::While)
      continue;
    for (size_t i = 0; i < instruction->shape().tupleElements().size(); ++i)
      if (!instruction->shape().tupleElements()[i].isTuple())
        values.push_back({instruction, int64_t(i)});
  }
  return values;
}

} // namespace

ConsumerHosts
consumerHosts(const ir::Computation &computation,
              const std::function<bool(const Instruction *)> &excluded,
              const std::function<bool(ValueRef)> &excludedValue) {
  std::map<ValueRef, ValueRef> direct;
  std::set<ValueRef> fed; // guests another guest is computed into
  for (ValueRef value : candidateGuests(computation)) {
    if (excluded(value.instruction) || excludedValue(value))
      continue;
    if (std::optional<ValueRef> host =
            directHost(computation, value, excluded)) {
      direct[value] = *host;
      fed.insert(*host);
    }
  }
  // Follow chains to their last host: a guest that is itself a host passes
  // its own host on. The chain's head, fed by no guest, writes it first.
  ConsumerHosts result;
  for (const auto &[guest, first] : direct) {
    ValueRef host = first;
    for (auto next = direct.find(host); next != direct.end();
         next = direct.find(host))
      host = next->second;
    result.hostOf[guest] = host;
    if (!fed.count(guest))
      result.firstWriter[host] = guest.instruction;
  }
  return result;
}

// --- The Builder's side: views, owners and aliases -----------------------

/// The entry parameter a reshape reads in place: its operand is that
/// parameter or such a view, and no root element is it (results and
/// write-backs of a parameter's bytes are copied, as for the parameter).
const Instruction *
Builder::viewedArgument(const Instruction *instruction) const {
  if (role_ != Role::Entry || instruction->opcode() != Opcode::Reshape ||
      rootInstructions_.count(instruction))
    return nullptr;
  const Instruction *operand = instruction->operand(0);
  if (operand->opcode() == Opcode::Parameter)
    return operand;
  return viewedArgument(operand);
}

/// The entry parameter a while's state element `value` reads in place:
/// the while runs in the entry, its initial element is that parameter and
/// its body passes the element through unchanged (root element i is
/// parameter element i), so no trip writes it. The copy into the loop state
/// (a scan's whole input, every run) then disappears; like a parameter's
/// bytes, the element is copied when it is a result or written back.
const Instruction *Builder::argumentStateElement(ValueRef value) const {
  const Instruction *loop = value.instruction;
  if (role_ != Role::Entry || value.tupleIndex < 0 ||
      loop->opcode() != Opcode::While ||
      loop->operand(0)->opcode() != Opcode::Tuple)
    return nullptr;
  const Instruction *initial =
      loop->operand(0)->operand(size_t(value.tupleIndex));
  if (initial->opcode() != Opcode::Parameter || initial->shape().isTuple())
    return nullptr;
  const ir::Computation &body = *loop->calledComputations()[1];
  const Instruction *root = body.root();
  if (!root || root->opcode() != Opcode::Tuple || !body.parameter(0))
    return nullptr;
  const Instruction *passed = root->operand(size_t(value.tupleIndex));
  if (passed->opcode() != Opcode::GetTupleElement ||
      passed->operand(0) != body.parameter(0) ||
      passed->attrs().index != value.tupleIndex)
    return nullptr;
  return initial;
}

/// A host is live from its chain's first write.
void Builder::ownHostsFromGuests(
    const std::map<ValueRef, const Instruction *> &firstWriter) {
  for (const auto &[host, writer] : firstWriter)
    owner_[host] = writer;
}

/// A hosted value takes its host's slice, wherever that was placed.
void Builder::aliasConsumerHosts() {
  for (const auto &[guest, host] : hosts_) {
    slices_[guest] = slices_.at(host);
    placed_.push_back(guest); // a copy: shiftBy moves it too
  }
}

} // namespace kiln::analysis::buffers
