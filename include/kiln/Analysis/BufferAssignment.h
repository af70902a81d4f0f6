//===- BufferAssignment.h - Where every value lives -------------*- C++ -*-===//
//
// Assigns every array value of the entry computation a place: an argument
// buffer (parameters), a result buffer (values returned by the root), the
// read-only data (constants), or a 64-byte aligned offset in one scratch
// arena. Arena values whose live ranges (in schedule order) do not overlap
// share bytes. The result prints as text so memory behaviour is testable.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_ANALYSIS_BUFFERASSIGNMENT_H
#define KILN_ANALYSIS_BUFFERASSIGNMENT_H

#include "kiln/Analysis/Liveness.h"
#include "kiln/IR/Module.h"
#include "kiln/Support/Error.h"

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace kiln::analysis {

enum class BufferKind { Arg, Result, Constant, Arena };

struct BufferSlice {
  BufferKind kind = BufferKind::Arena;
  int64_t index = 0;  // argument or result number (Arg, Result)
  int64_t offset = 0; // byte offset in the arena (Arena)
  int64_t bytes = 0;
};

/// Whether code generation computes `opcode` element by element inside a
/// fusion (elementwise ops, iota, constant, parameter and the index-only
/// data movement ops). Other fused instructions (reduce, dot, sort, ...)
/// are materialized: buffer assignment gives them arena bytes of their own,
/// live only while their fusion runs.
bool isElementalInFusion(ir::Opcode opcode);


class BufferAssignment {
public:
  static constexpr int64_t kArenaAlignment = 64;

  /// Assigns buffers for the entry computation of `module` in the order of
  /// its instructions (the schedule).
  static Expected<BufferAssignment> build(const ir::Module &module);

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
  const BufferSlice &slice(const ir::Instruction *instruction) const {
    return slice(ValueRef{instruction, -1});
  }
  /// The value that result `i` must hold; when its slice is not Result `i`
  /// (a parameter or constant returned directly, or a value returned
  /// twice), code generation copies it into the result buffer.
  ValueRef resultValue(int64_t i) const { return results_[size_t(i)]; }
  int64_t resultCount() const { return int64_t(results_.size()); }

  int64_t arenaBytes() const { return arenaBytes_; }
  const std::vector<const ir::Instruction *> &schedule() const {
    return schedule_;
  }

  /// The live range [first, last] of an arena value, in schedule positions.
  std::pair<int64_t, int64_t> liveRange(ValueRef value) const;
  /// Whether result `i` needs a copy into the result buffer.
  bool resultNeedsCopy(int64_t i) const;

  /// One line per value: "%name: arena [offset, offset+bytes) live [a, b]".
  std::string toString() const;

private:
  std::map<ValueRef, BufferSlice> slices_;
  std::vector<ValueRef> results_;
  std::vector<const ir::Instruction *> schedule_;
  std::map<ValueRef, std::pair<int64_t, int64_t>> liveRanges_;
  int64_t arenaBytes_ = 0;
};

} // namespace kiln::analysis

#endif // KILN_ANALYSIS_BUFFERASSIGNMENT_H
