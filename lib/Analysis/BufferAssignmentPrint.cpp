//===- BufferAssignmentPrint.cpp - The assignment as text ------------------===//
//
// The `print-buffer-assignment` pass (`kiln opt`, the lit tests) prints
// this: every value with its buffer kind, offset, bytes and live range, in
// an order that does not depend on addresses.
//
//===----------------------------------------------------------------------===//
#include "kiln/Analysis/BufferAssignment.h"

#include <algorithm>
#include <fmt/format.h>
#include <functional>
#include <map>
#include <tuple>

namespace kiln::analysis {

using ir::Opcode;

static std::string valueName(ValueRef value) {
  if (value.tupleIndex == BufferAssignment::kCalleeBlockIndex)
    return "%" + value.instruction->name() + " (callee block)";
  if (value.tupleIndex == BufferAssignment::kScratchIndex)
    return "%" + value.instruction->name() +
           (value.instruction->opcode() == Opcode::Convolution ? " (winograd scratch)"
            : value.instruction->opcode() == Opcode::Sort      ? " (sort scratch)"
                                                               : " (packing scratch)");
  if (value.tupleIndex < 0)
    return "%" + value.instruction->name();
  return fmt::format("%{}{{{}}}", value.instruction->name(), value.tupleIndex);
}

/// Entry values in schedule order, then fused values by their fusion's
/// schedule position and their order in its computation (never by address,
/// so the text is deterministic); tuple elements by index.
std::vector<ValueRef> BufferAssignment::printOrder() const {
  using Key = std::tuple<int64_t, int64_t, int64_t, int64_t>;
  std::vector<std::pair<Key, ValueRef>> order;
  std::map<const ir::Instruction *, int64_t> position;
  std::map<const ir::Instruction *, std::pair<int64_t, int64_t>> fused;
  // Values of callees print after the entry's, grouped by the entry
  // instruction that runs them, in their own order (schedule or stored).
  std::function<void(const ir::Instruction *, int64_t, int64_t &)> nest =
      [&](const ir::Instruction *caller, int64_t at, int64_t &next) {
        for (const ir::Computation *callee : caller->calledComputations()) {
          std::vector<const ir::Instruction *> inner;
          if (auto it = calleeSchedules_.find(callee);
              it != calleeSchedules_.end())
            inner = it->second;
          else
            for (const ir::Instruction *value : callee->instructions())
              inner.push_back(value);
          for (const ir::Instruction *value : inner) {
            fused.try_emplace(value, at, next++);
            nest(value, at, next);
          }
        }
      };
  for (size_t i = 0; i < schedule_.size(); ++i) {
    position[schedule_[i]] = int64_t(i);
    int64_t next = 0;
    nest(schedule_[i], int64_t(i), next);
  }
  int64_t fusedKey = int64_t(schedule_.size());
  for (const auto &[value, slice] : slices_) {
    Key key{fusedKey, 0, 0, value.tupleIndex};
    if (auto it = position.find(value.instruction); it != position.end())
      key = {it->second, 0, 0, value.tupleIndex};
    else if (auto f = fused.find(value.instruction); f != fused.end())
      key = {fusedKey, f->second.first, f->second.second, value.tupleIndex};
    order.push_back({key, value});
  }
  std::stable_sort(
      order.begin(), order.end(),
      [](const auto &a, const auto &b) { return a.first < b.first; });
  std::vector<ValueRef> values;
  for (const auto &entry : order)
    values.push_back(entry.second);
  return values;
}

std::vector<ValueRef> BufferAssignment::arenaValues() const {
  std::vector<ValueRef> values;
  for (ValueRef value : printOrder())
    if (slices_.at(value).kind == BufferKind::Arena && !inPlace_.count(value))
      values.push_back(value);
  std::stable_sort(values.begin(), values.end(), [&](ValueRef a, ValueRef b) {
    return liveRange(a).first < liveRange(b).first;
  });
  return values;
}

std::string BufferAssignment::toString() const {
  std::string out = fmt::format("arena: {} bytes, alignment {}\n",
                                arenaBytes(), kArenaAlignment);
  out += fmt::format("peak live: {} bytes at position {} ({} schedule)\n",
                     peakLiveBytes(), peakPosition(),
                     scheduleStrategyName(scheduleStrategy()));
  for (ValueRef value : printOrder()) {
    const BufferSlice &s = slices_.at(value);     auto inPlace = inPlace_.find(value);
    if (inPlace != inPlace_.end()) {
      std::string part;
      if (auto concat = concatenateGuests_.find(value);
          concat != concatenateGuests_.end())
        part = s.strided()
                   ? fmt::format(" (of %{}: rows of {} bytes every {})",
                                 concat->second->name(), s.rowBytes,
                                 s.rowStride)
                   : fmt::format(" (of %{}: contiguous)",
                                 concat->second->name());
      out += fmt::format("{}: in place in {}{}\n", valueName(value),
                         valueName(inPlace->second), part);
      continue;
    }
    auto range = liveRange(value);
    std::string live = range.first < 0 ? std::string()
                                       : fmt::format(" live [{}, {}]",
                                                     range.first, range.second);
    switch (s.kind) {
    case BufferKind::Arg:
      out += fmt::format("{}: arg {} ({} bytes)\n", valueName(value), s.index,
                         s.bytes);
      break;
    case BufferKind::Result:
      out += fmt::format("{}: result {} ({} bytes){}\n", valueName(value),
                         s.index, s.bytes, live);
      break;
    case BufferKind::Constant:
      out += fmt::format("{}: constant ({} bytes)\n", valueName(value), s.bytes);
      break;
    case BufferKind::Arena:
      out += fmt::format("{}: arena [{}, {}){}\n", valueName(value), s.offset,
                         s.offset + s.bytes, live);
      break;
    }
  }
  for (size_t i = 0; i < results_.size(); ++i)
    if (resultNeedsCopy(int64_t(i)))
      out += fmt::format("result {}: copy of {}\n", i, valueName(results_[i]));
  for (const ConcatenateCopy &copy : concatenateCopies_)
    out += fmt::format("%{} copies %{}: {}\n", copy.concatenate->name(),
                       copy.operand->name(), copy.reason);
  for (ValueRef state : overwrittenOrder_)
    out += fmt::format("{}: initial value overwritten by the trips, not "
                       "copied in\n",
                       valueName(state));
  for (const ir::Instruction *dead : deadOrder_)
    out += fmt::format("%{}: not computed (only overwritten loop state reads "
                       "it)\n",
                       dead->name());
  for (const WriteBack &writeBack : writeBacks_) {
    int64_t arg = writeBack.target.instruction->parameterNumber();
    if (writeBack.unchanged) {
      out += fmt::format("arg {}: unchanged\n", arg);
      continue;
    }
    std::string staging;
    if (writeBack.staging)
      staging = fmt::format(" staged at arena [{}, {})",
                            writeBack.staging->offset,
                            writeBack.staging->offset + writeBack.staging->bytes);
    out += fmt::format("arg {}: write-back of {}{}\n", arg,
                       valueName(writeBack.value), staging);
  }
  return out;
}

} // namespace kiln::analysis
