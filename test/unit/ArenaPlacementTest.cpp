//===- ArenaPlacementTest.cpp - Offsets for live ranges -------------------===//
#include "kiln/Analysis/ArenaPlacement.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <map>
#include <random>

using namespace kiln::analysis;

namespace {

constexpr int64_t kUnit = 64;

/// The most (aligned) bytes live at one position: no placement is smaller.
int64_t peak(const std::vector<ArenaInterval> &intervals) {
  std::map<int64_t, int64_t> delta;
  for (const ArenaInterval &interval : intervals) {
    int64_t bytes = (interval.bytes + kUnit - 1) / kUnit * kUnit;
    delta[interval.start] += bytes;
    delta[interval.end + 1] -= bytes;
  }
  int64_t live = 0, best = 0;
  for (const auto &[position, change] : delta)
    best = std::max(best, live += change);
  return best;
}

/// Aligned offsets, inside the arena, and no two values live at the same
/// time share a byte.
void checkValid(const std::vector<ArenaInterval> &intervals,
                const ArenaPlacement &placement) {
  REQUIRE(placement.offsets.size() == intervals.size());
  CHECK(placement.arenaBytes % kUnit == 0);
  for (size_t i = 0; i < intervals.size(); ++i) {
    const ArenaInterval &a = intervals[i];
    int64_t offset = placement.offsets[i];
    CHECK(offset % kUnit == 0);
    CHECK(offset + a.bytes <= placement.arenaBytes);
    for (size_t j = i + 1; j < intervals.size(); ++j) {
      const ArenaInterval &b = intervals[j];
      bool together = a.start <= b.end && b.start <= a.end;
      bool apart = offset + a.bytes <= placement.offsets[j] ||
                   placement.offsets[j] + b.bytes <= offset;
      if (together && !apart)
        FAIL_CHECK("intervals " << i << " and " << j << " share bytes");
    }
  }
}

/// Up to 40 values live at random over 30 positions, of `minBytes` +
/// `step` x 0..999 bytes each.
std::vector<ArenaInterval> randomIntervals(std::mt19937 &random,
                                           int64_t minBytes, int64_t step) {
  std::vector<ArenaInterval> intervals;
  int count = 1 + int(random() % 40);
  for (int i = 0; i < count; ++i) {
    int64_t start = int64_t(random() % 30);
    int64_t length = int64_t(random() % 8);
    int64_t bytes = minBytes + int64_t(random() % 1000) * step;
    intervals.push_back({bytes, start, start + length});
  }
  return intervals;
}

} // namespace

// The activations around blazeface-front's first concatenation, in units of
// 64 bytes: A [3,8] 6, B [5,8] 6, C [8,15] 6, D [10,16] 6, E [14,15] 1,
// F [15,16] 7, G [16,22] 7. At 15, C+D+E+F = 20 units; at 16, D+F+G = 20.
// Largest first puts F at 0 and G right above it (7), A at 0, B at 6, C
// (over A, B, F) at 12 and D (over F, G, C) at 18: 24 units. Packing the
// peak position first, the longer-lived D right above F, leaves C's place
// (13..19) free for G after C ends: F 0, D 7, C 13, E 19, G 13 = 20 units.
TEST_CASE("placement reaches the peak where largest-first fragments",
          "[placement]") {
  std::vector<ArenaInterval> intervals = {
      {6 * kUnit, 3, 8},   {6 * kUnit, 5, 8},   {6 * kUnit, 8, 15},
      {6 * kUnit, 10, 16}, {1 * kUnit, 14, 15}, {7 * kUnit, 15, 16},
      {7 * kUnit, 16, 22}};
  REQUIRE(peak(intervals) == 20 * kUnit);
  ArenaPlacement placement = placeIntervals(intervals, kUnit);
  checkValid(intervals, placement);
  CHECK(placement.arenaBytes == 20 * kUnit);
  CHECK(placement.offsets[5] == 0);         // F
  CHECK(placement.offsets[3] == 7 * kUnit); // D
}

TEST_CASE("a chain with one bigger value packs to its peak", "[placement]") {
  // A chain: a value and its reader overlap at one position only.
  std::vector<ArenaInterval> intervals = {
      {40, 1, 2}, {40, 2, 3}, {40, 3, 4}, {100, 4, 5}};
  ArenaPlacement placement = placeIntervals(intervals, kUnit);
  checkValid(intervals, placement);
  // Largest first: the 100 bytes at 0, then 40s in order: [1,2] at 0
  // (no overlap with [4,5]), [2,3] at 64 (the first is at 0), [3,4] over
  // the 100 bytes (0..128 aligned) and [2,3] (64..104): 128.
  CHECK(placement.offsets == std::vector<int64_t>{0, 64, 128, 0});
  CHECK(placement.arenaBytes == 192);
  CHECK(peak(intervals) == 192);
}

TEST_CASE("random live ranges get valid placements, never below the peak",
          "[placement]") {
  std::mt19937 random(12); // fixed: the test is the same every run
  for (int round = 0; round < 200; ++round) {
    std::vector<ArenaInterval> intervals = randomIntervals(random, 1, 1);
    ArenaPlacement placement = placeIntervals(intervals, kUnit);
    checkValid(intervals, placement);
    CHECK(placement.arenaBytes >= peak(intervals));
    // Deterministic: the same input gives the same offsets.
    CHECK(placeIntervals(intervals, kUnit).offsets == placement.offsets);
  }
}

// A value of 16 KiB at 0 whose bytes a 4 KiB value reuses. Threads write
// halves: A's first thread [0, 8), its second [8, 16) KiB. B at 0 would put
// its second half, [2, 4), on bytes A's first thread wrote, and the next
// run's A its first half back on B's: 2 + 2 KiB cross. Centred on A's
// middle, at 6 KiB, B's halves land on their own threads' bytes.
TEST_CASE("a value reusing bytes moves onto its threads' halves",
          "[placement]") {
  constexpr int64_t kKiB = 1024;
  std::vector<ArenaInterval> intervals = {{16 * kKiB, 0, 1}, {4 * kKiB, 2, 3}};
  ArenaPlacement placement{{0, 0}, 16 * kKiB};
  CHECK(crossedHalfBytes(intervals, placement.offsets) == 4 * kKiB);
  CrossedHalves crossed = alignThreadHalves(intervals, placement, kUnit);
  checkValid(intervals, placement);
  CHECK(placement.arenaBytes == 16 * kKiB);
  CHECK(placement.offsets == std::vector<int64_t>{0, 6 * kKiB});
  CHECK(crossed.bestFit == 4 * kKiB);
  CHECK(crossed.placed == 0);
  CHECK(crossedHalfBytes(intervals, placement.offsets) == 0);
}

// Values under 4 KiB are taken to be written whole by the calling thread:
// a 1 KiB value over A's second half is written where the other thread
// wrote, and the next run's A writes it back (1 + 1 KiB); over A's first
// half nothing crosses.
TEST_CASE("a small value is written by one thread", "[placement]") {
  constexpr int64_t kKiB = 1024;
  std::vector<ArenaInterval> intervals = {{16 * kKiB, 0, 1}, {1 * kKiB, 2, 3}};
  CHECK(crossedHalfBytes(intervals, {0, 12 * kKiB}) == 2 * kKiB);
  CHECK(crossedHalfBytes(intervals, {0, 2 * kKiB}) == 0);
}

TEST_CASE("moving values onto their threads' halves keeps placements valid",
          "[placement]") {
  std::mt19937 random(7); // fixed: the test is the same every run
  int64_t crossedBefore = 0, crossedAfter = 0;
  for (int round = 0; round < 200; ++round) {
    std::vector<ArenaInterval> intervals = randomIntervals(random, 0, kUnit);
    ArenaPlacement placement = placeIntervals(intervals, kUnit);
    ArenaPlacement moved = placement;
    CrossedHalves crossed = alignThreadHalves(intervals, moved, kUnit);
    checkValid(intervals, moved);
    CHECK(moved.arenaBytes == placement.arenaBytes);
    int64_t before = crossedHalfBytes(intervals, placement.offsets);
    int64_t after = crossedHalfBytes(intervals, moved.offsets);
    CHECK(crossed.bestFit == before);
    CHECK(crossed.placed == after);
    CHECK(after <= before);
    crossedBefore += before;
    crossedAfter += after;
  }
  // Over all rounds, moving more than halves the crossed bytes; a no-op
  // would leave them equal.
  INFO("crossed before " << crossedBefore << ", after " << crossedAfter);
  CHECK(crossedAfter < crossedBefore / 2);
}
