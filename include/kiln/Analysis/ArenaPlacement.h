//===- ArenaPlacement.h - Offsets for values with live ranges ---*- C++ -*-===//
//
// Dynamic storage allocation: give each value an aligned offset so values
// live at the same time never share bytes, with the arena as small as
// possible. No placement can beat the most bytes live at one position (the
// peak); greedy best-fit placement reaches it or comes close, depending on
// the order values are placed in, so a few orders are tried.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_ANALYSIS_ARENAPLACEMENT_H
#define KILN_ANALYSIS_ARENAPLACEMENT_H

#include <cstdint>
#include <vector>

namespace kiln::analysis {

/// `value` rounded up to a multiple of `alignment`.
inline int64_t alignTo(int64_t value, int64_t alignment) {
  return (value + alignment - 1) / alignment * alignment;
}

/// A value to place: its bytes and live range [start, end] (inclusive
/// schedule positions). Earlier intervals win ties between equals.
struct ArenaInterval {
  int64_t bytes = 0, start = 0, end = 0;
};

/// Every interval's offset (a multiple of the alignment) and the arena size
/// (a multiple of the alignment).
struct ArenaPlacement {
  std::vector<int64_t> offsets;
  int64_t arenaBytes = 0;
};

/// Greedy best fit (each value at the smallest aligned gap that holds it
/// among the placed values it overlaps) in two orders, keeping the smaller
/// arena (the first on ties): largest value first; and XLA's/TFLite's
/// "greedy by breadth": positions by decreasing live bytes, each position's
/// unplaced values largest first, so the values that make the peak are
/// packed together before anything can fragment them. Deterministic.
ArenaPlacement placeIntervals(const std::vector<ArenaInterval> &intervals,
                              int64_t alignment);

} // namespace kiln::analysis

#endif // KILN_ANALYSIS_ARENAPLACEMENT_H
