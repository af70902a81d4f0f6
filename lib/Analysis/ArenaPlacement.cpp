//===- ArenaPlacement.cpp - Best-fit placement in a few orders ------------===//
#include "kiln/Analysis/ArenaPlacement.h"

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <utility>

namespace kiln::analysis {

std::vector<ArenaGap> freeGaps(std::vector<std::pair<int64_t, int64_t>> busy,
                               int64_t limit, int64_t alignment) {
  std::sort(busy.begin(), busy.end());
  std::vector<ArenaGap> gaps;
  int64_t cursor = 0;
  for (auto [lo, hi] : busy) {
    if (lo >= cursor)
      gaps.push_back({cursor, lo});
    cursor = std::max(cursor, alignTo(hi, alignment));
  }
  if (limit >= cursor)
    gaps.push_back({cursor, limit});
  return gaps;
}

namespace {

/// Best fit in the given order: each interval goes to the smallest aligned
/// gap between the placed intervals it overlaps, or above them all.
ArenaPlacement placeInOrder(const std::vector<ArenaInterval> &intervals,
                            const std::vector<size_t> &order,
                            int64_t alignment) {
  ArenaPlacement placement;
  placement.offsets.assign(intervals.size(), 0);
  std::vector<size_t> placed;
  for (size_t i : order) {
    const ArenaInterval &interval = intervals[i];
    std::vector<std::pair<int64_t, int64_t>> busy;
    for (size_t other : placed)
      if (liveTogether(intervals[other], interval))
        busy.push_back({placement.offsets[other],
                        placement.offsets[other] + intervals[other].bytes});
    // The smallest gap between them that holds the interval, else the open
    // one above them all (always the last).
    std::vector<ArenaGap> gaps =
        freeGaps(std::move(busy), INT64_MAX, alignment);
    int64_t bestOffset = gaps.back().start, bestGap = INT64_MAX;
    for (size_t g = 0; g + 1 < gaps.size(); ++g) {
      int64_t size = gaps[g].end - gaps[g].start;
      if (size >= interval.bytes && size < bestGap) {
        bestGap = size;
        bestOffset = gaps[g].start;
      }
    }
    placement.offsets[i] = bestOffset;
    placed.push_back(i);
    placement.arenaBytes = std::max(
        placement.arenaBytes, alignTo(bestOffset + interval.bytes, alignment));
  }
  return placement;
}

/// How equal-sized intervals are ordered.
enum class Ties { Given, LaterEndFirst };

/// Interval indices, largest first, then by `ties`, then in given order.
std::vector<size_t> largestFirst(const std::vector<ArenaInterval> &intervals,
                                 Ties ties) {
  std::vector<size_t> order(intervals.size());
  std::iota(order.begin(), order.end(), size_t(0));
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    const ArenaInterval &x = intervals[a], &y = intervals[b];
    if (x.bytes != y.bytes)
      return x.bytes > y.bytes;
    return ties == Ties::LaterEndFirst && x.end > y.end;
  });
  return order;
}

/// Positions by decreasing live bytes (earlier first on ties); at each, the
/// intervals live there not yet taken, largest first. Among equals, those
/// that stay live longer go first (lower): the ones ending earlier then
/// leave a gap above them for what starts after.
std::vector<size_t> byBreadth(const std::vector<ArenaInterval> &intervals,
                              int64_t alignment) {
  int64_t end = 0;
  for (const ArenaInterval &interval : intervals)
    end = std::max(end, interval.end);
  std::vector<int64_t> breadth(size_t(end) + 2, 0);
  for (const ArenaInterval &interval : intervals) {
    int64_t bytes = alignTo(interval.bytes, alignment);
    breadth[size_t(interval.start)] += bytes;
    breadth[size_t(interval.end) + 1] -= bytes;
  }
  std::partial_sum(breadth.begin(), breadth.end(), breadth.begin());
  std::vector<int64_t> positions(size_t(end) + 1);
  std::iota(positions.begin(), positions.end(), int64_t(0));
  std::stable_sort(positions.begin(), positions.end(),
                   [&](int64_t a, int64_t b) {
                     return breadth[size_t(a)] > breadth[size_t(b)];
                   });
  std::vector<size_t> bySize = largestFirst(intervals, Ties::LaterEndFirst);
  std::vector<size_t> order;
  std::vector<bool> taken(intervals.size(), false);
  for (int64_t position : positions)
    for (size_t i : bySize)
      if (!taken[i] && intervals[i].start <= position &&
          position <= intervals[i].end) {
        taken[i] = true;
        order.push_back(i);
      }
  return order;
}

} // namespace

ArenaPlacement placeIntervals(const std::vector<ArenaInterval> &intervals,
                              int64_t alignment) {
  ArenaPlacement best =
      placeInOrder(intervals, largestFirst(intervals, Ties::Given), alignment);
  ArenaPlacement breadth =
      placeInOrder(intervals, byBreadth(intervals, alignment), alignment);
  if (breadth.arenaBytes < best.arenaBytes)
    best = std::move(breadth);
  return best;
}

} // namespace kiln::analysis
