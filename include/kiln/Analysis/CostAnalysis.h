//===- CostAnalysis.h - FLOPs and memory traffic of HLO ---------*- C++ -*-===//
//
// What one run of an instruction, a fusion or a module costs: arithmetic
// operations and bytes moved to and from memory. Counts are static (every
// shape is), ignore caches and layouts, and are meant for comparing
// alternatives (fusion decisions) and for reports (`kiln inspect`).
//
//===----------------------------------------------------------------------===//
#ifndef KILN_ANALYSIS_COSTANALYSIS_H
#define KILN_ANALYSIS_COSTANALYSIS_H

#include "kiln/IR/Module.h"
#include "kiln/Support/CheckedArithmetic.h"

#include <cstdint>

namespace kiln::analysis {

struct Cost {
  int64_t flops = 0, bytesRead = 0, bytesWritten = 0;

  /// Saturates at INT64_MAX: absurd declared shapes must not overflow.
  Cost &operator+=(const Cost &other) {
    flops = saturatingAdd(flops, other.flops);
    bytesRead = saturatingAdd(bytesRead, other.bytesRead);
    bytesWritten = saturatingAdd(bytesWritten, other.bytesWritten);
    return *this;
  }
};

/// FLOPs: dot and convolution count 2 per multiply-accumulate (2 x result
/// elements x contracted size; a convolution contracts kernel spatial size x
/// kernel input features); elementwise ops (convert and compare included,
/// copy excepted) one per result element; reduce and arg-max/arg-min one per
/// reduced input element; reduce-window one per window tap (result elements
/// x window size); data movement, sort and top-k nothing. A fusion or call
/// counts the instructions of its callee; a while its body times the trip
/// count (whileTripCount; one iteration when unknown) plus its condition
/// once more; a conditional its costliest branch.
///
/// Bytes: parameters, constants, tuples and get-tuple-element move nothing
/// (their values already live somewhere, or are aliases). Every other
/// instruction writes its result (all arrays of a tuple result) and reads
/// each distinct operand once, whole, except that slice, dynamic-slice and
/// gather read only as many bytes of operand 0 as they write. A fusion reads
/// each distinct operand once and writes its outputs: what happens inside
/// stays in registers or its own scratch.
Cost instructionCost(const ir::Instruction &instruction);

/// Whether computing `instruction` at compile time (constant folding, in the
/// importers and in the HLO pass) costs at most
/// ResourceLimits::kMaxFoldFlops.
bool affordableToFold(const ir::Instruction &instruction);

/// The sum over the entry computation's instructions.
Cost moduleCost(const ir::Module &module);

} // namespace kiln::analysis

#endif // KILN_ANALYSIS_COSTANALYSIS_H
