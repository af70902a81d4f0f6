//===- Liveness.h - Array values and their uses in a schedule ---*- C++ -*-===//
//
// The values buffer assignment places are array values: instructions, or
// elements of tuple-shaped instructions. tuple and get-tuple-element only
// alias such values, so uses through them count as uses of what they name.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_ANALYSIS_LIVENESS_H
#define KILN_ANALYSIS_LIVENESS_H

#include "kiln/IR/Instruction.h"

#include <cstdint>
#include <map>
#include <utility>
#include <vector>

namespace kiln::analysis {

/// An array value: an instruction, or one element of a tuple-shaped one.
struct ValueRef {
  const ir::Instruction *instruction = nullptr;
  int64_t tupleIndex = -1; // -1 for array-shaped instructions
  bool operator<(const ValueRef &other) const {
    return std::pair(instruction, tupleIndex) <
           std::pair(other.instruction, other.tupleIndex);
  }
};

/// Follows get-tuple-element and tuple to the array value underneath.
ValueRef resolveValue(ValueRef value);

/// The array values `instruction` makes available to its users, aliases
/// resolved and tuples flattened, appended to `out`.
void containedValues(const ir::Instruction *instruction,
                     std::vector<ValueRef> &out);

/// For every array value used in `schedule`, the last position (index into
/// `schedule`) of an instruction using it; tuple and get-tuple-element do
/// not count as uses.
std::map<ValueRef, int64_t>
computeLastUses(const std::vector<const ir::Instruction *> &schedule);

} // namespace kiln::analysis

#endif // KILN_ANALYSIS_LIVENESS_H
