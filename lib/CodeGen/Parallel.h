//===- Parallel.h - Kernels split into tasks for a pool ---------*- C++ -*-===//
//
// Internal to lib/CodeGen. The model body is NAME_run_parallel(args,
// results, arena, const kiln_parallel *pool) (docs/abi.md); NAME_run calls
// it with a null pool. A large kernel is split at compile time into a fixed
// number of tasks over independent output rows; each task computes its
// rows with exactly the instructions the whole kernel would, so results
// are bit-identical whatever the pool (or none) runs them on. At the call
// site the tasks go through pool->parallel_for when the caller gave a pool,
// else the kernel runs once over all of them.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_LIB_CODEGEN_PARALLEL_H
#define KILN_LIB_CODEGEN_PARALLEL_H

#include "EmitterContext.h"

#include <llvm/ADT/ArrayRef.h>

#include <string>

namespace kiln::codegen {

/// A kernel's split: `tasks` tasks of `unitsPerTask` consecutive units (row
/// tiles, output rows) each; the last task may get fewer.
struct TaskSplit {
  int64_t tasks = 1;
  int64_t unitsPerTask = 0;
  bool split() const { return tasks > 1; }
};

/// How to split `units` independent units costing `flopsPerUnit` each:
/// tasks of at least kMinTaskFlops and `minUnitsPerTask` units (so per-task
/// overhead and re-reading shared operands stay small), at most
/// kMaxTasks. One task (no split) for small kernels.
TaskSplit splitUnits(int64_t units, int64_t flopsPerUnit,
                     int64_t minUnitsPerTask = 1);

/// The units of tasks [firstTask, lastTask) inside a kernel: [begin, end),
/// end clamped to `units`.
struct UnitRange {
  llvm::Value *begin = nullptr, *end = nullptr;
};
UnitRange taskUnits(EmitterContext &ctx, const TaskSplit &split, int64_t units,
                    llvm::Value *firstTask, llvm::Value *lastTask);

/// Calls kernel `kernel(pointers..., firstTask, lastTask)` over every task
/// of `split`: once over [0, tasks) without a pool, else one
/// pool->parallel_for(pool->ctx, tasks, task function, frame) where the
/// task function runs task i as kernel(pointers..., i, i + 1).
void emitKernelCall(EmitterContext &ctx, llvm::Function &kernel,
                    llvm::ArrayRef<llvm::Value *> pointers,
                    const TaskSplit &split);

/// Creates the external `int serialName(args, results, arena)` that calls
/// `body` (the 4-argument parallel entry) with a null pool.
void emitSerialEntry(llvm::Function &body, const std::string &serialName);

/// The name of the parallel entry for serial entry `entryName`.
std::string parallelEntryName(const std::string &entryName);

} // namespace kiln::codegen

#endif // KILN_LIB_CODEGEN_PARALLEL_H
