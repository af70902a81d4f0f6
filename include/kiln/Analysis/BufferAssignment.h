//===- BufferAssignment.h - Where every value lives -------------*- C++ -*-===//
//
// Assigns every array value of the entry computation a place: an argument
// buffer (parameters), a result buffer (values returned by the root), the
// read-only data (constants), or a 64-byte aligned offset in one scratch
// arena. Arena values whose live ranges (in schedule order) do not overlap
// share bytes. The result prints as text so memory behaviour is testable.
//
// Writable variables: a root element may be declared the new value of an
// argument (ArgWriteBack). It is then not a result: it is computed into the
// arena (live to the end) and copied into the argument's buffer after every
// other instruction and result copy, so nothing reads a half-updated
// variable. A new value that is itself another written argument is first
// staged in the arena, so swaps are safe.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_ANALYSIS_BUFFERASSIGNMENT_H
#define KILN_ANALYSIS_BUFFERASSIGNMENT_H

#include "kiln/Analysis/ArenaPlacement.h"
#include "kiln/Analysis/Liveness.h"
#include "kiln/Analysis/Schedule.h"
#include "kiln/IR/Module.h"
#include "kiln/Support/Error.h"

#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace kiln::analysis {

enum class BufferKind { Arg, Result, Constant, Arena };

struct BufferSlice {
  BufferKind kind = BufferKind::Arena;
  int64_t index = 0;  // argument or result number (Arg, Result)
  int64_t offset = 0; // byte offset in the arena (Arena) or in the result
  int64_t bytes = 0;
  /// A value computed in its slice of a concatenate's buffer: its elements
  /// come in rows of `rowBytes` every `rowStride` bytes (a channel concat
  /// in NHWC: C of the concat's channels per pixel). 0: contiguous.
  int64_t rowBytes = 0;
  int64_t rowStride = 0;
  bool strided() const { return rowBytes != 0; }
};

/// An operand a concatenate copies into its buffer, and why it is not
/// computed there in place (`--emit report`).
struct ConcatenateCopy {
  const ir::Instruction *concatenate = nullptr;
  const ir::Instruction *operand = nullptr;
  std::string reason;
};

/// The dot or convolution of a kOutput fusion that is computed straight
/// into the fusion's output buffer, or nullptr. That is the case when it is
/// the fusion's only materialized instruction, has the output's dimensions
/// and byte size, and only elementwise ops (of the same dimensions) use it,
/// transitively, up to an elemental root: then every output element reads
/// the contraction at its own position only, so the chain can run in place.
const ir::Instruction *outputFusionContraction(const ir::Instruction &fusion);

/// Arena bytes a dot needs to pack its right operand at run time: an f32 or
/// f64 dot whose rhs `rhs` (the value itself; for a fused dot, the fusion's
/// operand) is computed at run time and whose columns are not contiguous
/// (e.g. x * y^T), so the GEMM kernel first packs it into panels of at most
/// kPackingPanelColumns zero-padded columns. For a convolution that runs as
/// Winograd (Winograd.h; `rhs` its weights), the kernel's transformed-tile
/// scratch. 0 for every other instruction.
int64_t packingScratchBytes(const ir::Instruction &dot,
                            const ir::Instruction &rhs);
constexpr int64_t kPackingPanelColumns = 128;

/// A sort's rows of at most kSortInsertionRun elements are insertion-sorted
/// in place; longer rows are sorted in runs of that length, which merge
/// passes then join through the sort's arena scratch (lib/CodeGen
/// SortEmitter.cpp).
constexpr int64_t kSortInsertionRun = 16;
/// Byte offset, in a sort's scratch, of operand `operand`'s two rows (the
/// merge passes' source and destination); operand N (the operand count)
/// gives the scratch's size. 0 throughout when the sort needs no scratch
/// (rows of at most kSortInsertionRun elements).
int64_t sortScratchOffset(const ir::Instruction &sort, size_t operand);


/// Root element `result` (its index among the root's array values) is the
/// new value of parameter `arg`, written into the argument's buffer in place.
struct ArgWriteBack {
  int64_t result = 0;
  int64_t arg = 0;
};

/// One write-back as code generation performs it.
struct WriteBack {
  ValueRef value;  ///< the new value (the root element)
  ValueRef target; ///< the parameter whose buffer receives it
  /// An arena slice the value is copied to before any argument is written
  /// (the value is another written argument), or nullopt.
  std::optional<BufferSlice> staging;
  /// The value is the target itself: nothing to copy.
  bool unchanged = false;
};

/// The sizes buffer assignment arrives at.
struct Totals {
  int64_t arenaBytes = 0;
  /// The schedule's lower bound on the arena: the most arena bytes (each
  /// value rounded up to the arena alignment) live at one position.
  int64_t peakLiveBytes = 0;
  /// The first schedule position where peakLiveBytes are live
  /// (schedule().size() for write-back staging after the last instruction).
  int64_t peakPosition = 0;
  /// The scheduler's candidate that won.
  ScheduleStrategy strategy = ScheduleStrategy::Stored;
  /// Arena bytes a pool's two threads write per run where the other thread
  /// wrote last, as best fit placed the values and after ArenaHalves.cpp
  /// moved them (this computation's values; its callees' are their own).
  CrossedHalves crossedHalves;
};

class BufferAssignment {
public:
  static constexpr int64_t kArenaAlignment = 64;

  /// Assigns buffers for the entry computation of `module` in the order the
  /// scheduler chooses to keep few bytes live (Schedule.h). The root
  /// elements named by `writeBacks` become argument write-backs instead of
  /// results; results are numbered over the remaining root elements, in
  /// order. Errors: an index out of range, an argument written twice, a
  /// shape mismatch. `winograd` false: no convolution gets Winograd scratch
  /// (code generation with CodeGenOptions::winograd off).
  static Expected<BufferAssignment>
  build(const ir::Module &module,
        const std::vector<ArgWriteBack> &writeBacks = {},
        bool winograd = true);

  /// The slice holding `value`. Every array value of the entry computation
  /// has one (get-tuple-element and tuple have none of their own).
  /// Inside fusions, parameters resolve to the fusion operand, materialized
  /// roots to the fusion's own slice, and materialized inner values have
  /// arena slices. get-tuple-element resolves to the element it names.
  const BufferSlice &slice(ValueRef value) const;
  /// Whether `value` has a slice (false for tuples and for fused values
  /// computed element by element).
  bool hasSlice(ValueRef value) const;
  /// Follows get-tuple-element and tuple to the array value underneath.
  static ValueRef resolve(ValueRef value);
  /// The run-time scratch of dot or convolution `instruction` (top-level
  /// or fused; packingScratchBytes) or of a sort (sortScratchOffset), live
  /// only while it runs, or nullptr.
  const BufferSlice *packingScratch(const ir::Instruction *instruction) const;
  /// ValueRef::tupleIndex of packing scratch values.
  static constexpr int64_t kScratchIndex = -2;
  /// ValueRef::tupleIndex of the arena block holding the values of the
  /// computations a while or conditional runs (its callees' arenas).
  static constexpr int64_t kCalleeBlockIndex = -3;
  const BufferSlice &slice(const ir::Instruction *instruction) const {
    return slice(ValueRef{instruction, -1});
  }
  /// The value that result `i` must hold; when its slice is not Result `i`
  /// (a parameter or constant returned directly, or a value returned
  /// twice), code generation copies it into the result buffer.
  ValueRef resultValue(int64_t i) const { return results_[size_t(i)]; }
  int64_t resultCount() const { return int64_t(results_.size()); }

  int64_t arenaBytes() const { return totals_.arenaBytes; }
  /// The arena's lower bound for this schedule (Totals::peakLiveBytes).
  int64_t peakLiveBytes() const { return totals_.peakLiveBytes; }
  const CrossedHalves &crossedHalves() const { return totals_.crossedHalves; }
  int64_t peakPosition() const { return totals_.peakPosition; }
  ScheduleStrategy scheduleStrategy() const { return totals_.strategy; }
  /// Arena values (not staging), by live range start, then as printed.
  std::vector<ValueRef> arenaValues() const;
  const std::vector<const ir::Instruction *> &schedule() const {
    return schedule_;
  }
  /// The order in which a computation run by while or conditional runs its
  /// instructions (its values live in the caller's arena block).
  const std::vector<const ir::Instruction *> &
  schedule(const ir::Computation &callee) const {
    return calleeSchedules_.at(&callee);
  }

  /// The live range [first, last] of an arena value, in schedule positions.
  std::pair<int64_t, int64_t> liveRange(ValueRef value) const;
  /// Whether result `i` needs a copy into the result buffer.
  bool resultNeedsCopy(int64_t i) const;

  /// Argument write-backs, in the order given to build().
  const std::vector<WriteBack> &writeBacks() const { return writeBacks_; }

  /// Whether operand `value` of concatenate `concatenate` was computed in
  /// its slice of the concatenate's buffer (the concatenate copies only
  /// the other operands).
  bool inPlaceInConcatenate(ValueRef value,
                            const ir::Instruction *concatenate) const;
  /// The operands concatenates still copy, with the reason, in schedule
  /// order of the concatenates (callees' after the entry's).
  const std::vector<ConcatenateCopy> &concatenateCopies() const {
    return concatenateCopies_;
  }
  /// Concatenate operands computed in place -> their concatenate.
  const std::map<ValueRef, const ir::Instruction *> &
  concatenateGuests() const {
    return concatenateGuests_;
  }

  /// Whether `a` and `b` both have slices and they start at the same place
  /// (an in-place loop state update and the state element it updates).
  bool sameSlice(ValueRef a, ValueRef b) const;
  /// Whether `a` and `b` both have slices and some byte is in both (the
  /// same argument, result or arena bytes; constants are read-only and
  /// never overlap).
  bool bytesOverlap(ValueRef a, ValueRef b) const;

  /// Whether `instruction` (of the entry or of a computation a while or
  /// conditional runs) need not be computed: its value only feeds initial
  /// loop state that every trip overwrites before anything reads it
  /// (OverwrittenLoopState.h). Code generation emits nothing for it.
  bool isDeadInitialValue(const ir::Instruction *instruction) const {
    return deadInitialValues_.count(instruction) != 0;
  }
  /// Whether no trip of while `loop` reads the initial value of state
  /// element `element`: the while need not copy it in.
  bool isOverwrittenInitialState(const ir::Instruction *loop,
                                 int64_t element) const {
    return overwrittenStates_.count({loop, element}) != 0;
  }

  /// "arena: ..." and "peak live: ..." lines, then one line per value:
  /// "%name: arena [offset, offset+bytes) live [a, b]";
  /// an output-fusion contraction: "%name: in place in %fusion"; a loop
  /// state update: "%name: in place in %body_parameter{i}"; then the
  /// overwritten initial state ("%loop{i}: initial value overwritten ...")
  /// and the values not computed for it ("%name: not computed ...").
  std::string toString() const;

private:
  /// Every value with a slice, in the order toString prints them.
  std::vector<ValueRef> printOrder() const;
  /// Fills overwrittenOrder_ and deadOrder_ (and their sets) for
  /// `computation`, run in `schedule`, and recursively for the computations
  /// it runs.
  void findOverwrittenState(const ir::Computation &computation,
                            const std::vector<const ir::Instruction *> &schedule);

  std::map<ValueRef, BufferSlice> slices_;
  std::vector<ValueRef> results_;
  std::vector<WriteBack> writeBacks_;
  std::vector<const ir::Instruction *> schedule_;
  std::map<const ir::Computation *, std::vector<const ir::Instruction *>>
      calleeSchedules_;
  std::map<ValueRef, std::pair<int64_t, int64_t>> liveRanges_;
  /// Output-fusion contractions -> the fusion whose output they share;
  /// in-place loop state updates -> the body parameter element.
  std::map<ValueRef, ValueRef> inPlace_;
  /// Concatenate operands computed in place -> the concatenate.
  std::map<ValueRef, const ir::Instruction *> concatenateGuests_;
  std::vector<ConcatenateCopy> concatenateCopies_;
  /// Initial loop state no trip reads, and the values only it reads; in
  /// schedule order (callees' after their caller) for printing.
  std::set<ValueRef> overwrittenStates_;
  std::vector<ValueRef> overwrittenOrder_;
  std::set<const ir::Instruction *> deadInitialValues_;
  std::vector<const ir::Instruction *> deadOrder_;
  Totals totals_;
};

} // namespace kiln::analysis

#endif // KILN_ANALYSIS_BUFFERASSIGNMENT_H
