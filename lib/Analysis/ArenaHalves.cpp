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
// value's midpoint. Values later in the schedule that hold the best place
// move aside to theirs (they are walked again in their turn). The arena
// keeps its size. The walk runs twice, the second time starting from the
// bytes the first left, as one run follows another. Values under 4 KiB are
// taken to be written whole by the calling thread.
//
//===----------------------------------------------------------------------===//
#include "kiln/Analysis/ArenaPlacement.h"

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <map>
#include <numeric>
#include <utility>
#include <vector>

namespace kiln::analysis {

namespace {

/// Values smaller than this are taken to be written whole by the calling
/// thread: a kernel is split only when each task has ~100k operations to do
/// (lib/CodeGen/Parallel.cpp), which few kernels with outputs this small
/// have.
constexpr int64_t kSmallestSplitValue = 4096;

/// Where the first thread's part of a value at `offset` ends.
int64_t firstThreadEnd(int64_t offset, int64_t bytes) {
  return offset + (bytes < kSmallestSplitValue ? bytes : bytes / 2);
}

/// Who wrote a byte last: neither thread yet, or the one writing first or
/// second halves.
enum class Writer : int8_t { Nobody, FirstHalf, SecondHalf };

/// The last writer of every arena byte, as segments [key, next key).
class Writers {
public:
  Writers() { segments_[0] = Writer::Nobody; }

  /// Bytes of a value at `offset` whose thread did not write them last.
  int64_t crossed(int64_t offset, int64_t bytes) const {
    int64_t middle = firstThreadEnd(offset, bytes);
    return otherThreads(offset, middle, Writer::FirstHalf) +
           otherThreads(middle, offset + bytes, Writer::SecondHalf);
  }

  /// The value at `offset` is written, in halves unless it is small.
  void write(int64_t offset, int64_t bytes) {
    int64_t middle = firstThreadEnd(offset, bytes);
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

/// Moves values, one at a time in schedule order, to where their halves
/// cross least, in the arena of a valid placement it keeps valid.
class HalvesMover {
public:
  HalvesMover(const std::vector<ArenaInterval> &values,
              ArenaPlacement &placement, const Writers &writers,
              int64_t alignment)
      : values_(values), placement_(placement), writers_(writers),
        alignment_(alignment), settled_(values.size(), false) {}

  /// Moves value `moving` to the candidate offset that crosses fewest bytes,
  /// staying where it is on ties. When the best place is taken only by
  /// values later in the schedule (not yet moved in this walk), those move
  /// aside to their own best places, if each has one; otherwise `moving`
  /// takes the best place free now. Then `moving` is settled.
  void move(size_t moving) {
    std::vector<int64_t> &offsets = placement_.offsets;
    auto [freeOffset, freeCrossed] =
        leastCrossed(moving, offsets[moving], false);
    auto [settledOffset, settledCrossed] =
        leastCrossed(moving, offsets[moving], true);
    if (settledCrossed < freeCrossed) {
      std::vector<int64_t> before = offsets;
      offsets[moving] = settledOffset;
      if (!moveAsideFrom(moving)) {
        offsets = std::move(before);
        offsets[moving] = freeOffset;
      }
    } else {
      offsets[moving] = freeOffset;
    }
    settled_[moving] = true;
  }

private:
  /// Whether `other` (not `value` itself) takes bytes while `value` is live.
  bool liveTogether(size_t value, size_t other) const {
    return other != value && values_[other].bytes > 0 &&
           analysis::liveTogether(values_[value], values_[other]);
  }

  /// The aligned offsets where value `moving` fits between the values live
  /// with it (only the settled ones if `settledOnly`), inside the arena,
  /// that put its start or middle or end on a change of writer or against
  /// a gap's edge.
  std::vector<int64_t> candidateOffsets(size_t moving, bool settledOnly) const {
    int64_t bytes = values_[moving].bytes;
    std::vector<std::pair<int64_t, int64_t>> busy;
    for (size_t other = 0; other < values_.size(); ++other)
      if (liveTogether(moving, other) && (!settledOnly || settled_[other]))
        busy.push_back({placement_.offsets[other],
                        placement_.offsets[other] + values_[other].bytes});
    std::vector<int64_t> candidates;
    for (ArenaGap gap :
         freeGaps(std::move(busy), placement_.arenaBytes, alignment_)) {
      if (gap.end - bytes < gap.start)
        continue;
      int64_t last = (gap.end - bytes) / alignment_ * alignment_;
      candidates.push_back(gap.start);
      candidates.push_back(last);
      for (int64_t change : writers_.changesWithin(gap.start, gap.end))
        for (int64_t start : {change, change - bytes / 2, change - bytes})
          candidates.push_back(
              std::clamp(start / alignment_ * alignment_, gap.start, last));
    }
    return candidates;
  }

  /// Of `current` (if it fits) and the candidate offsets, the first that
  /// crosses fewest bytes, and those bytes (INT64_MAX: nowhere fits).
  std::pair<int64_t, int64_t> leastCrossed(size_t moving, int64_t current,
                                           bool settledOnly) const {
    int64_t bytes = values_[moving].bytes;
    std::pair<int64_t, int64_t> best = {current, INT64_MAX};
    if (fitsAt(moving, current))
      best.second = writers_.crossed(current, bytes);
    for (int64_t candidate : candidateOffsets(moving, settledOnly))
      if (int64_t crossed = writers_.crossed(candidate, bytes);
          crossed < best.second)
        best = {candidate, crossed};
    return best;
  }

  bool fitsAt(size_t moving, int64_t offset) const {
    int64_t end = offset + values_[moving].bytes;
    for (size_t other = 0; other < values_.size(); ++other)
      if (liveTogether(moving, other) && placement_.offsets[other] < end &&
          offset < placement_.offsets[other] + values_[other].bytes)
        return false;
    return true;
  }

  /// Moves the values `moving` now shares bytes with (all unsettled) to
  /// their best free places; false if one has none.
  bool moveAsideFrom(size_t moving) {
    for (size_t other = 0; other < values_.size(); ++other) {
      if (!liveTogether(moving, other) ||
          fitsAt(other, placement_.offsets[other]))
        continue;
      auto [offset, crossed] =
          leastCrossed(other, placement_.offsets[other], false);
      if (crossed == INT64_MAX)
        return false;
      placement_.offsets[other] = offset;
    }
    return true;
  }

  const std::vector<ArenaInterval> &values_;
  ArenaPlacement &placement_;
  const Writers &writers_;
  int64_t alignment_;
  std::vector<bool> settled_;
};

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

CrossedHalves alignThreadHalves(const std::vector<ArenaInterval> &intervals,
                                ArenaPlacement &placement, int64_t alignment) {
  ArenaPlacement moved = placement;
  Writers writers;
  std::vector<size_t> order = inScheduleOrder(intervals);
  for (int run = 0; run < 2; ++run) {
    HalvesMover mover(intervals, moved, writers, alignment);
    for (size_t i : order) {
      if (intervals[i].bytes == 0)
        continue;
      mover.move(i);
      writers.write(moved.offsets[i], intervals[i].bytes);
    }
  }
  // A heuristic: keep the given placement if moving did not help.
  CrossedHalves crossed;
  crossed.bestFit = crossedHalfBytes(intervals, placement.offsets);
  crossed.placed = crossedHalfBytes(intervals, moved.offsets);
  if (crossed.placed < crossed.bestFit)
    placement = std::move(moved);
  else
    crossed.placed = crossed.bestFit;
  return crossed;
}

} // namespace kiln::analysis
