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
#include <utility>
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

/// Whether two values are live at a common schedule position, so they may
/// not share bytes.
inline bool liveTogether(const ArenaInterval &a, const ArenaInterval &b) {
  return a.start <= b.end && b.start <= a.end;
}

/// Free bytes [start, end) between busy ones.
struct ArenaGap {
  int64_t start = 0, end = 0;
};

/// The gaps between the `busy` byte ranges [lo, hi) (in any order, possibly
/// overlapping), lowest first: each starts where the ranges below it end,
/// rounded up to `alignment`, and ends where the next range starts; the last
/// ends at `limit`. Places the ranges leave no room at are left out.
std::vector<ArenaGap> freeGaps(std::vector<std::pair<int64_t, int64_t>> busy,
                               int64_t limit, int64_t alignment);

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

/// Bytes a pool of two threads writes where the other thread wrote last, in
/// one run of the schedule that follows another, if every value's first half
/// is written by one thread and its second half by the other (how split
/// kernels share their output rows; ArenaHalves.cpp).
int64_t crossedHalfBytes(const std::vector<ArenaInterval> &intervals,
                         const std::vector<int64_t> &offsets);

/// crossedHalfBytes before and after alignThreadHalves.
struct CrossedHalves {
  int64_t bestFit = 0, placed = 0;
};

/// Moves values within `placement`'s arena, keeping it valid and its size,
/// so that fewer bytes cross between two threads' halves (crossedHalfBytes):
/// on a host whose cores do not share a cache, a thread that writes a line
/// the other core wrote last waits for it to come across.
CrossedHalves alignThreadHalves(const std::vector<ArenaInterval> &intervals,
                                ArenaPlacement &placement, int64_t alignment);

} // namespace kiln::analysis

#endif // KILN_ANALYSIS_ARENAPLACEMENT_H
