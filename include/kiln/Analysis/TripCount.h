//===- TripCount.h - How many times a while runs its body -------*- C++ -*-===//
//
// Recognizes the counted loop every frontend writes: an integer state
// element starting at a constant, stepped by a constant in the body, and
// compared with a constant in the condition. Cost analysis multiplies the
// body's cost by the count and `kiln inspect` reports it; code generation
// does not depend on it (every loop runs its condition).
//
//===----------------------------------------------------------------------===//
#ifndef KILN_ANALYSIS_TRIPCOUNT_H
#define KILN_ANALYSIS_TRIPCOUNT_H

#include "kiln/IR/Instruction.h"

#include <optional>

namespace kiln::analysis {

/// The number of times `loop` (a while) runs its body when every run runs
/// it that often, or nullopt when the pattern is not recognized (a computed
/// bound, a step of 0, a count past INT64_MAX).
std::optional<int64_t> whileTripCount(const ir::Instruction &loop);

} // namespace kiln::analysis

#endif // KILN_ANALYSIS_TRIPCOUNT_H
