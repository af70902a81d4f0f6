//===- Schedule.h - Memory-aware order of the entry computation -*- C++ -*-===//
//
// The IR has no side effects, so any topological order of the entry
// computation computes the same results; orders differ in how many arena
// bytes are live at once. The scheduler picks, among a few candidate orders
// (the stored one, a greedy list schedule and a depth-first one), the one
// whose peak of live arena bytes is lowest.
//
// The scheduler does not decide what lives in the arena: buffer assignment
// describes that as a MemoryModel (which values each instruction defines in
// the arena, what it needs only while it runs, what stays live to the end).
// Values the caller owns, constants and aliases (tuple, get-tuple-element)
// cost nothing and are simply absent from the model.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_ANALYSIS_SCHEDULE_H
#define KILN_ANALYSIS_SCHEDULE_H

#include "kiln/Analysis/Liveness.h"
#include "kiln/IR/Computation.h"

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace kiln::analysis {

/// The arena cost of the entry computation's instructions. Sizes are as the
/// arena rounds them (whole alignment units).
struct MemoryModel {
  /// Arena values an instruction defines, live from it to their last use.
  std::map<const ir::Instruction *, std::map<ValueRef, int64_t>> defined;
  /// Arena bytes an instruction needs only while it runs (materialized fused
  /// values, packing scratch).
  std::map<const ir::Instruction *, int64_t> transient;
  /// Arena values read after the last instruction (writable-variable
  /// write-backs): never freed.
  std::set<ValueRef> liveOut;
  /// Arena bytes needed only after the last instruction (write-back
  /// staging), counted at the position one past the end.
  int64_t endBytes = 0;
  /// Order beyond data dependences: each key runs after every instruction
  /// listed (a loop state element updated in place runs after every other
  /// read of the element's old value). Every strategy honours it; buffer
  /// assignment only asks for orders that exist (no cycles).
  std::map<const ir::Instruction *, std::vector<const ir::Instruction *>>
      runsAfter;
  /// Values computed in another value's bytes (a reshape's operand, a
  /// while's initial state element): a read of the key reads the mapped
  /// value, which is in `defined`.
  std::map<ValueRef, ValueRef> readsAs;
};

/// How a candidate order was made (for messages and tests).
enum class ScheduleStrategy { Stored, List, DepthFirst };
std::string_view scheduleStrategyName(ScheduleStrategy strategy);

struct Schedule {
  std::vector<const ir::Instruction *> order;
  int64_t peakLiveBytes = 0;
  ScheduleStrategy strategy = ScheduleStrategy::Stored;
};

/// The peak over positions 0..order.size() of the arena bytes live there:
/// a value is live from its definition to its last use (inclusive; through
/// tuple and get-tuple-element aliases) or to the end when live-out, plus
/// the transient bytes of the instruction at that position and, one past
/// the end, `endBytes`. `order` must hold every instruction of the
/// computation the model describes.
int64_t peakLiveBytes(const std::vector<const ir::Instruction *> &order,
                      const MemoryModel &model);

/// The stored order of `entry` (when it honours `model.runsAfter`), the
/// greedy list schedule and the depth-first schedule, each with its peak;
/// the result is the one with the lowest peak
/// (ties keep that order of preference, so the stored order stays unless
/// another is strictly better). Deterministic: ties inside each strategy
/// break on stored position, never on addresses.
Schedule scheduleForMemory(const ir::Computation &entry,
                           const MemoryModel &model);

/// The greedy list schedule alone: repeatedly runs, among the instructions
/// whose operands have run, the one that frees the most arena bytes minus
/// the bytes it defines (earliest stored position on ties).
std::vector<const ir::Instruction *> listSchedule(const ir::Computation &entry,
                                                  const MemoryModel &model);

/// The depth-first schedule alone: a post-order from the root (then from
/// anything the root does not reach) that visits the operand needing the
/// most arena bytes below it first, so big subgraphs finish before the
/// values of their siblings are made.
std::vector<const ir::Instruction *>
depthFirstSchedule(const ir::Computation &entry, const MemoryModel &model);

} // namespace kiln::analysis

#endif // KILN_ANALYSIS_SCHEDULE_H
