//===- ConsumerHosts.cpp - Values computed in their consumer's buffer -----===//
//
// Two consumers only ever copy their operand: a reshape (storage is
// row-major whatever the dimensions, so its bytes are its operand's) and a
// while's initial state (copied into the loop state's slices before the
// first trip). When such a consumer is a value's only reader, the value can
// be computed straight into the consumer's slice and the copy disappears:
// the reshape emits nothing, the while finds its state already in place.
// A chain (a GEMM's result, reshaped, passed into a loop) ends in one host.
//
// Only values with arena bytes of their own qualify as guests: parameters
// and constants belong to the caller or to read-only data; tuples and
// get-tuple-element own nothing; a computation's root is read by its
// caller. Buffer assignment (BufferAssignment.cpp) gives a hosted value no
// bytes, makes its host live from the guest's definition, and aliases the
// guest's slice to the host's once placed.
//
//===----------------------------------------------------------------------===//
#include "BufferAssignmentBuilder.h"

#include <algorithm>
#include <optional>

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

/// The consumer slice `value` can be computed into, when its only reader is
/// a reshape or a while's initial-state tuple.
std::optional<ValueRef>
directHost(const ir::Computation &computation, const Instruction *value,
           const std::function<bool(const Instruction *)> &excluded) {
  if (value == computation.root() || !ownsArrayValue(*value) ||
      value->users().size() != 1)
    return std::nullopt;
  const Instruction *user = value->users().front();
  if (readsOf(*user, value) != 1 || excluded(user))
    return std::nullopt;
  if (user->opcode() == Opcode::Reshape && ownsArrayValue(*user))
    return ValueRef{user, -1};
  if (user->opcode() != Opcode::Tuple || user == computation.root() ||
      user->users().size() != 1)
    return std::nullopt;
  const Instruction *loop = user->users().front();
  if (loop->opcode() != Opcode::While || loop->operand(0) != user)
    return std::nullopt;
  const auto &elements = user->operands();
  auto position = std::find(elements.begin(), elements.end(), value);
  return ValueRef{loop, int64_t(position - elements.begin())};
}

} // namespace

std::map<ValueRef, ValueRef>
consumerHosts(const ir::Computation &computation,
              const std::function<bool(const Instruction *)> &excluded) {
  std::map<ValueRef, ValueRef> direct;
  for (const Instruction *instruction : computation.instructions()) {
    if (excluded(instruction))
      continue;
    if (std::optional<ValueRef> host =
            directHost(computation, instruction, excluded))
      direct[{instruction, -1}] = *host;
  }
  // Follow chains to their last host: a reshape that is itself a guest
  // passes its host on.
  std::map<ValueRef, ValueRef> hosts;
  for (const auto &[guest, first] : direct) {
    ValueRef host = first;
    for (auto next = direct.find(host); next != direct.end();
         next = direct.find(host))
      host = next->second;
    hosts[guest] = host;
  }
  return hosts;
}

} // namespace kiln::analysis::buffers
