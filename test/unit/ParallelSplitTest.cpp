//===- ParallelSplitTest.cpp - How kernels split into tasks ---------------===//
#include "../../lib/CodeGen/Parallel.h"

#include <catch2/catch.hpp>

using kiln::codegen::roundTaskCount;
using kiln::codegen::splitUnits;
using kiln::codegen::TaskSplit;

namespace {
/// The first unit of task `t` (taskUnits computes the same in IR).
int64_t firstUnit(const TaskSplit &split, int64_t units, int64_t t) {
  return t * units / split.tasks;
}

/// Every unit in exactly one task, every task within one unit of the others
/// and of at least `minUnits` units, none above unitsPerTask.
void checkBalanced(const TaskSplit &split, int64_t units, int64_t minUnits) {
  CHECK(firstUnit(split, units, 0) == 0);
  CHECK(firstUnit(split, units, split.tasks) == units);
  int64_t smallest = units, largest = 0;
  for (int64_t t = 0; t < split.tasks; ++t) {
    int64_t size = firstUnit(split, units, t + 1) - firstUnit(split, units, t);
    smallest = std::min(smallest, size);
    largest = std::max(largest, size);
  }
  CHECK(largest - smallest <= 1);
  CHECK(largest == split.unitsPerTask);
  if (split.split())
    CHECK(smallest >= minUnits);
}
} // namespace

TEST_CASE("small kernels stay one task", "[codegen][threads]") {
  CHECK(splitUnits(0, 1'000'000).tasks == 1);
  CHECK(splitUnits(1, 1'000'000'000).tasks == 1);
  CHECK(splitUnits(100, 1'000).tasks == 1); // 100k flops in all
  CHECK(splitUnits(100, 1'999).tasks == 1); // still under two tasks' worth
  CHECK(splitUnits(10, 1'000'000, 8).tasks == 1); // fewer units than allowed
}

TEST_CASE("large kernels split into bounded tasks of whole units",
          "[codegen][threads]") {
  TaskSplit two = splitUnits(100, 2'000);
  CHECK(two.tasks == 2);
  CHECK(two.unitsPerTask == 50);
  for (int64_t units : {2, 3, 7, 29, 114, 1000, 16384})
    for (int64_t flops : {100'000, 1'000'000, 50'000'000})
      for (int64_t minUnits : {1, 2, 4}) {
        TaskSplit split = splitUnits(units, flops, minUnits);
        CAPTURE(units, flops, minUnits, split.tasks, split.unitsPerTask);
        CHECK(split.tasks >= 1);
        CHECK(split.tasks <= 32);
        checkBalanced(split, units, minUnits);
      }
  CHECK(splitUnits(16384, 50'000'000).tasks == 32);
}

TEST_CASE("task counts share evenly among 2, 4 and 8 threads",
          "[codegen][threads]") {
  CHECK(roundTaskCount(0) == 1);
  CHECK(roundTaskCount(1) == 1);
  CHECK(roundTaskCount(3) == 2);
  CHECK(roundTaskCount(7) == 4);
  CHECK(roundTaskCount(9) == 8);
  CHECK(roundTaskCount(30) == 24);
  CHECK(roundTaskCount(32) == 32);
  // A pool's contiguous shares of the tasks (n * c / parts) cover the same
  // share of the units in every kernel, whatever the unit count: 64 rows of
  // a depthwise convolution and 292 row tiles of 14 pixels (4096 pixels)
  // of the pointwise one after it split at pixel 2048 and 2044.
  for (int64_t units : {19, 64, 292, 1170, 4096})
    for (int64_t parts : {2, 4, 8}) {
      TaskSplit split = splitUnits(units, 1'000'000);
      if (split.tasks % parts)
        continue;
      for (int64_t c = 0; c <= parts; ++c) {
        CAPTURE(units, parts, c, split.tasks);
        CHECK(firstUnit(split, units, split.tasks * c / parts) ==
              units * c / parts);
      }
    }
}
