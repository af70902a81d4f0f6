//===- ArenaHalves.cpp - Values placed on bytes their own threads wrote ---===//
//
// A split kernel's tasks are shared out in contiguous runs, so with two
// threads one writes the first half of the output and the other the second
// half, in every kernel (lib/CodeGen/Parallel.cpp). When the arena reuses
// bytes, a half may land on lines the other thread wrote last, and on a host
// whose two cores do not share a cache each such line is fetched from the
// other core before it can be written: at a quarter of the speed of a line
// the thread wrote itself (bench/micro/cross_core.c, docs/performance.md).
//
// Walking the values in schedule order, this file keeps which thread wrote
// each byte last and moves each value within the gaps the values live with
// it leave, to where its halves cross least: typically centred on an earlier
// value's midpoint. The arena keeps its size. The walk runs twice, the second
// time starting from the bytes the first left, as one run follows another.
//
//===----------------------------------------------------------------------===//
#include "kiln/Analysis/ArenaPlacement.h"

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <map>
#include <numeric>
#include <vector>

namespace kiln::analysis {

namespace {

/// Who wrote a byte last: neither thread yet, or the one writing first or
/// second halves.
enum class Writer : int8_t { Nobody, FirstHalf, SecondHalf };

/// The last writer of every arena byte, as segments [key, next key).
class Writers {
public:
  Writers() { segments_[0] = Writer::Nobody; }

  /// Bytes of a value at `offset` whose thread did not write them last.
  int64_t crossed(int64_t offset, int64_t bytes) const {
    int64_t middle = offset + bytes / 2;
    return otherThreads(offset, middle, Writer::FirstHalf) +
           otherThreads(middle, offset + bytes, Writer::SecondHalf);
  }

  /// The value at `offset` is written, in halves.
  void write(int64_t offset, int64_t bytes) {
    int64_t middle = offset + bytes / 2;
    assign(offset, middle, Writer::FirstHalf);
    assign(middle, offset + bytes, Writer::SecondHalf);
  }

  /// Offsets in (lo, hi) where the last writer changes.
  std::vector<int64_t> changesWithin(int64_t lo, int64_t hi) const {
    std::vector<int64_t> changes;
    for (auto it = segments_.upper_bound(lo);
         it != segments_.end() && it->first < hi; ++it)
      changes.push_back(it->first);
    return changes;
  }

private:
  Writer at(int64_t offset) const {
    return std::prev(segments_.upper_bound(offset))->second;
  }

  /// Bytes of [lo, hi) that the thread other than `writer` wrote last.
  int64_t otherThreads(int64_t lo, int64_t hi, Writer writer) const {
    int64_t bytes = 0;
    for (auto it = std::prev(segments_.upper_bound(lo));
         it != segments_.end() && it->first < hi; ++it) {
      auto next = std::next(it);
      int64_t end = next == segments_.end() ? hi : std::min(hi, next->first);
      if (it->second != Writer::Nobody && it->second != writer)
        bytes += end - std::max(lo, it->first);
    }
    return bytes;
  }

  void assign(int64_t lo, int64_t hi, Writer writer) {
    if (lo >= hi)
      return;
    Writer after = at(hi);
    segments_.erase(segments_.lower_bound(lo), segments_.upper_bound(hi));
    segments_[hi] = after;
    if (lo == 0 || at(lo - 1) != writer)
      segments_[lo] = writer;
    if (after == writer)
      segments_.erase(hi);
  }

  std::map<int64_t, Writer> segments_;
};

std::vector<size_t> inScheduleOrder(const std::vector<ArenaInterval> &values) {
  std::vector<size_t> order(values.size());
  std::iota(order.begin(), order.end(), size_t(0));
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return values[a].start < values[b].start;
  });
  return order;
}

/// The aligned offsets where value `moving` fits between the values live
/// with it, inside the arena, that put its start or middle or end on a
/// change of writer or against a gap's edge.
std::vector<int64_t> candidateOffsets(const std::vector<ArenaInterval> &values,
                                      const ArenaPlacement &placement,
                                      size_t moving, const Writers &writers,
                                      int64_t alignment) {
  const ArenaInterval &value = values[moving];
  std::vector<std::pair<int64_t, int64_t>> busy;
  for (size_t other = 0; other < values.size(); ++other)
    if (other != moving && values[other].bytes > 0 &&
        values[other].start <= value.end && value.start <= values[other].end)
      busy.push_back({placement.offsets[other],
                      placement.offsets[other] + values[other].bytes});
  busy.push_back({placement.arenaBytes, placement.arenaBytes});
  std::sort(busy.begin(), busy.end());
  std::vector<int64_t> candidates;
  int64_t gapStart = 0;
  for (auto [lo, hi] : busy) {
    if (lo - value.bytes >= gapStart) {
      int64_t last = (lo - value.bytes) / alignment * alignment;
      candidates.push_back(gapStart);
      candidates.push_back(last);
      for (int64_t change : writers.changesWithin(gapStart, lo))
        for (int64_t start :
             {change, change - value.bytes / 2, change - value.bytes})
          candidates.push_back(
              std::clamp(start / alignment * alignment, gapStart, last));
    }
    gapStart = std::max(gapStart, alignTo(hi, alignment));
  }
  return candidates;
}

/// Moves value `moving` to the candidate offset that crosses fewest bytes,
/// staying where it is on ties.
void moveToLeastCrossed(const std::vector<ArenaInterval> &values,
                        ArenaPlacement &placement, size_t moving,
                        const Writers &writers, int64_t alignment) {
  int64_t bytes = values[moving].bytes;
  int64_t &offset = placement.offsets[moving];
  int64_t best = writers.crossed(offset, bytes);
  for (int64_t candidate :
       candidateOffsets(values, placement, moving, writers, alignment)) {
    int64_t crossed = writers.crossed(candidate, bytes);
    if (crossed < best) {
      best = crossed;
      offset = candidate;
    }
  }
}

} // namespace

int64_t crossedHalfBytes(const std::vector<ArenaInterval> &intervals,
                         const std::vector<int64_t> &offsets) {
  Writers writers;
  std::vector<size_t> order = inScheduleOrder(intervals);
  for (size_t i : order) // the run before
    writers.write(offsets[i], intervals[i].bytes);
  int64_t crossed = 0;
  for (size_t i : order) {
    crossed += writers.crossed(offsets[i], intervals[i].bytes);
    writers.write(offsets[i], intervals[i].bytes);
  }
  return crossed;
}

void alignThreadHalves(const std::vector<ArenaInterval> &intervals,
                       ArenaPlacement &placement, int64_t alignment) {
  ArenaPlacement moved = placement;
  Writers writers;
  std::vector<size_t> order = inScheduleOrder(intervals);
  for (int run = 0; run < 2; ++run)
    for (size_t i : order) {
      if (intervals[i].bytes == 0)
        continue;
      moveToLeastCrossed(intervals, moved, i, writers, alignment);
      writers.write(moved.offsets[i], intervals[i].bytes);
    }
  // A heuristic: keep the given placement if moving did not help.
  if (crossedHalfBytes(intervals, moved.offsets) <
      crossedHalfBytes(intervals, placement.offsets))
    placement = std::move(moved);
}

} // namespace kiln::analysis
