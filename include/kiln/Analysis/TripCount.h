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

/// A while's counter: state element `counter` (-1: the state is the
/// counter itself) starts at `start` and the body adds `step` to it; the
/// body runs `trips` times, reading the counter as start + step * k on
/// trip k.
struct CountedLoop {
  int64_t counter = -1;
  int64_t start = 0;
  int64_t step = 0;
  int64_t trips = 0;
};

/// `loop`'s counter and trip count when every run runs the body that often,
/// or nullopt when the pattern is not recognized (a computed bound, a step
/// of 0, a count past INT64_MAX).
std::optional<CountedLoop> countedLoop(const ir::Instruction &loop);

/// The number of times `loop` (a while) runs its body: countedLoop's trips.
std::optional<int64_t> whileTripCount(const ir::Instruction &loop);

/// The value of a scalar s32, s64 or u32 constant, or nullopt.
std::optional<int64_t> integerConstant(const ir::Instruction &value);

} // namespace kiln::analysis

#endif // KILN_ANALYSIS_TRIPCOUNT_H
