//===- BufferAssignmentBuilder.h - Assigning one computation -----*- C++ -*-===//
//
// Internal to lib/Analysis: the Builder that assigns the buffers of one
// computation (the entry, or recursively a computation a while or
// conditional runs), split over BufferAssignment.cpp (classification,
// live ranges, placement), BufferAssignmentRoot.cpp (results, write-backs
// and their staging) and BufferAssignmentCallees.cpp (callee blocks,
// parameters aliasing the loop state and branch operands), and the loop
// state updates a while body makes in place (LoopStateUpdates.cpp).
//
//===----------------------------------------------------------------------===//
#ifndef KILN_LIB_ANALYSIS_BUFFERASSIGNMENTBUILDER_H
#define KILN_LIB_ANALYSIS_BUFFERASSIGNMENTBUILDER_H

#include "kiln/Analysis/BufferAssignment.h"
#include "kiln/Analysis/Schedule.h"

#include <functional>
#include <map>
#include <memory>
#include <set>
#include <vector>

namespace kiln::analysis::buffers {

using ir::Instruction;

/// Whether `instruction` defines one array value with bytes of its own (not
/// a parameter, constant, tuple or tuple element): the values buffer
/// assignment gives a buffer of their own (ConsumerHosts.cpp).
bool ownsArrayValue(const Instruction &instruction);

/// A while body's update of loop state element `index` written in place (a
/// dynamic-update-slice of it, or an elementwise op or loop fusion reading
/// it at its own index), and the other reads of the old value, which must
/// run before it.
struct StateUpdate {
  const Instruction *update = nullptr;
  int64_t index = 0;
  std::vector<const Instruction *> readsFirst;
};

/// Every root element of while body `body` that its update can write in
/// place (LoopStateUpdates.cpp).
std::vector<StateUpdate> stateUpdates(const ir::Computation &body);

/// Where a concatenate's operand lies in the concatenate's bytes: from
/// `offset`, rows of `rowBytes` every `rowStride` bytes (rowBytes 0: one
/// contiguous run, as for a concatenate along its outermost dimension).
struct ConcatenateRegion {
  const Instruction *concatenate = nullptr;
  int64_t offset = 0, rowBytes = 0, rowStride = 0;
};

/// Values computed straight into their only consumer's slice.
struct ConsumerHosts {
  /// Each guest -> the value whose slice it takes.
  std::map<ValueRef, ValueRef> hostOf;
  /// Each host -> the instruction that writes it first (its chain's head).
  std::map<ValueRef, const Instruction *> firstWriter;
  /// Guests whose chain passes through a concatenate: their part of it.
  std::map<ValueRef, ConcatenateRegion> regionOf;
  /// A concatenate's other chain heads run after its first writer, which
  /// makes the host live (MemoryModel::runsAfter).
  std::map<const Instruction *, std::vector<const Instruction *>> runsAfter;
  /// The concatenate operands that are not guests, and why.
  std::vector<ConcatenateCopy> copies;
};

/// The values of `computation` (array instructions and while state
/// elements) whose only reader is a reshape, or a while's initial state
/// tuple, and the array instructions whose only reader is a concatenate
/// (unless `concatenates` is false); `excluded` instructions (already in
/// place elsewhere) are neither guests nor hosts, and `excludedValue` values
/// are no guests (ConsumerHosts.cpp).
ConsumerHosts
consumerHosts(const ir::Computation &computation,
              const std::function<bool(const Instruction *)> &excluded,
              const std::function<bool(ValueRef)> &excludedValue,
              bool concatenates);

/// The schedules of computations run by while and conditional.
using CalleeSchedules =
    std::map<const ir::Computation *, std::vector<const Instruction *>>;

class Builder;

/// The computations one while or conditional runs, each assigned by a
/// Builder of its own into one arena block: `block` (when any callee needs
/// arena bytes), live only at the caller's position. Conditions and bodies
/// run one after the other, and only one branch runs, so they share it.
struct CalleeBlock {
  const Instruction *caller = nullptr;
  std::vector<std::unique_ptr<Builder>> builders;
  int64_t bytes = 0;
  // A callee has no results or write-backs of its own.
  std::vector<ValueRef> noResults;
  std::vector<WriteBack> noWriteBacks;
};

/// Builds everything for one computation (the entry, or a callee run by
/// while or conditional, recursively); kept out of the public class to keep
/// it small.
class Builder {
public:
  enum class Role { Entry, Callee };

  Builder(const ir::Computation &entry, Role role,
          std::map<ValueRef, BufferSlice> &slices,
          std::vector<ValueRef> &results, std::vector<WriteBack> &writeBacks,
          std::map<ValueRef, std::pair<int64_t, int64_t>> &ranges,
          std::map<ValueRef, ValueRef> &inPlace, CalleeSchedules &schedules,
          bool winograd)
      : entry_(entry), role_(role), slices_(slices), results_(results),
        writeBacks_(writeBacks), ranges_(ranges), inPlace_(inPlace),
        schedules_(schedules), winograd_(winograd) {}

  /// Fills `schedule` and the totals.
  Error run(std::vector<const Instruction *> &schedule,
            const std::vector<ArgWriteBack> &specs, Totals &totals);

  /// Moves every arena slice this builder and its callees placed up by
  /// `offset` (a callee's block is placed by its caller, after the callee).
  void shiftBy(int64_t offset);
  /// Gives the parameters of every callee below this computation the
  /// slices of the values they receive (loop state, branch operands).
  /// Runs top-down, after every shift, so outer aliases exist first.
  Error aliasCalleeParameters();
  /// Makes this builder (a while body's) write `updates` in place.
  void setStateUpdates(std::vector<StateUpdate> updates) {
    stateUpdates_ = std::move(updates);
  }
  /// The concatenate operands this builder and its callees' computed in
  /// place, and those still copied.
  void collectConcatenates(std::map<ValueRef, const Instruction *> &guests,
                           std::vector<ConcatenateCopy> &copies) const;

private:
  Error classify(const Instruction *instruction);
  void addArenaValue(ValueRef value, int64_t bytes, const Instruction *owner);
  void addSortScratch(const Instruction *sort, const Instruction *owner);
  void addPackingScratch(const Instruction *dot, const Instruction &rhs,
                         const Instruction *owner);
  Error checkArenaFitsInt64() const;
  MemoryModel memoryModel() const;
  void setLiveRanges(const std::vector<const Instruction *> &schedule);
  void computeLastUses(const std::vector<const Instruction *> &schedule);
  Error splitRoot(const std::vector<ArgWriteBack> &specs);
  void assignResults();
  void keepWriteBacksLive(int64_t end);
  bool needsStaging(const WriteBack &writeBack) const;
  int64_t placeStaging(int64_t arenaBytes);
  Error classifyFusion(const Instruction *fusion);
  int64_t placeArena(Totals &totals);
  std::pair<int64_t, int64_t> peakLiveBytes(int64_t end) const;
  void aliasFusionRoots();
  Error classifyCallees(const Instruction *caller);
  void keepRootLive(int64_t end);
  Error aliasParameter(const ir::Computation &callee, ValueRef received);
  const StateUpdate *stateUpdateOf(const Instruction *instruction) const;
  const StateUpdate *viewedStateUpdate(const Instruction *instruction) const;
  void aliasStateUpdates();
  const Instruction *viewedArgument(const Instruction *instruction) const;
  const Instruction *argumentStateElement(ValueRef value) const;
  void ownHostsFromGuests(
      const std::map<ValueRef, const Instruction *> &firstWriter);
  void aliasConsumerHosts();

  const ir::Computation &entry_;
  Role role_;
  std::map<ValueRef, BufferSlice> &slices_;
  std::vector<ValueRef> &results_;
  std::vector<WriteBack> &writeBacks_;
  std::map<ValueRef, std::pair<int64_t, int64_t>> &ranges_;
  std::vector<ValueRef> arenaOrder_; // candidates in discovery order
  std::set<ValueRef> fixedRange_;    // fused values: live only in the fusion
  /// The entry instruction that makes each candidate live: itself, or the
  /// fusion or dot it belongs to.
  std::map<ValueRef, const Instruction *> owner_;
  std::vector<const Instruction *> fusions_;
  std::map<ValueRef, ValueRef> &inPlace_; // contraction -> its fusion
  CalleeSchedules &schedules_;
  std::vector<CalleeBlock> calleeBlocks_;
  /// Every value whose slice this builder (or a callee's) wrote, so
  /// shiftBy can move them.
  std::vector<ValueRef> placed_;
  bool winograd_; // Winograd scratch for the convolutions that get it
  std::vector<StateUpdate> stateUpdates_; // a while body's, in place
  /// Reshapes reading an in-place update's state slice, with its index.
  std::vector<std::pair<const Instruction *, int64_t>> stateViews_;
  /// Values computed in their consumer's slice -> that slice's value.
  std::map<ValueRef, ValueRef> hosts_;
  /// Guests in a concatenate's bytes: their part of the host's slice.
  std::map<ValueRef, ConcatenateRegion> regions_;
  std::map<const Instruction *, std::vector<const Instruction *>>
      hostOrder_; // ConsumerHosts::runsAfter
  std::vector<ConcatenateCopy> concatenateCopies_;
  /// The instructions whose values the root returns.
  std::set<const Instruction *> rootInstructions_;
};

constexpr int64_t kCalleeBlockIndex = BufferAssignment::kCalleeBlockIndex;

} // namespace kiln::analysis::buffers

#endif // KILN_LIB_ANALYSIS_BUFFERASSIGNMENTBUILDER_H
