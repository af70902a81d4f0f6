//===- ParallelSplitTest.cpp - How kernels split into tasks ---------------===//
#include "../../lib/CodeGen/Parallel.h"

#include <catch2/catch.hpp>

using kiln::codegen::splitUnits;
using kiln::codegen::TaskSplit;

namespace {
/// Every unit in exactly one task, no task empty.
bool coversExactly(const TaskSplit &split, int64_t units) {
  return split.tasks * split.unitsPerTask >= units &&
         (split.tasks - 1) * split.unitsPerTask < units;
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
        CHECK(coversExactly(split, units));
        if (split.split())
          CHECK(split.unitsPerTask >= minUnits);
      }
  CHECK(splitUnits(16384, 50'000'000).tasks == 32);
}
