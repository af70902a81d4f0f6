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
#include <vector>

namespace kiln::codegen {

/// A kernel's split of its units (row tiles, output rows) into `tasks`
/// tasks: task t computes units [t * units / tasks, (t + 1) * units / tasks),
/// so tasks differ by at most one unit, and the first k of n equal shares of
/// the tasks cover the first k of n equal shares of the units. A pool that
/// hands each thread one contiguous share of the tasks then gives it the same
/// rows in consecutive kernels (runtime_threads.h).
struct TaskSplit {
  int64_t tasks = 1;
  int64_t unitsPerTask = 0; ///< the most units a task gets
  bool split() const { return tasks > 1; }
};

/// The split of `units` units into `tasks` tasks (at most `units`).
TaskSplit splitInto(int64_t units, int64_t tasks);

/// How to split `units` independent units costing `flopsPerUnit` each:
/// tasks of at least kMinTaskFlops and `minUnitsPerTask` units (so per-task
/// overhead and re-reading shared operands stay small), at most
/// kMaxTasks, and a count that 2, 4 and 8 threads share evenly where there
/// are that many (roundTaskCount). One task (no split) for small kernels.
TaskSplit splitUnits(int64_t units, int64_t flopsPerUnit,
                     int64_t minUnitsPerTask = 1);

/// `wanted` tasks rounded down to a multiple of 8, 4 or 2 (the largest that
/// leaves at least one such multiple): a pool of 2, 4 or 8 threads then gives
/// every thread the same number of units, not one task more than another.
int64_t roundTaskCount(int64_t wanted);

/// The units of tasks [firstTask, lastTask) inside a kernel: [begin, end).
UnitRange taskUnits(EmitterContext &ctx, const TaskSplit &split, int64_t units,
                    llvm::Value *firstTask, llvm::Value *lastTask);

/// One kernel function and the pointers it takes before its task range.
struct KernelCall {
  llvm::Function *kernel = nullptr;
  std::vector<llvm::Value *> pointers;
};

/// Runs the kernels of `calls`, which split alike into the tasks of `split`,
/// as one job: task i runs kernel(pointers..., i, i + 1) of each call in
/// order, so a later kernel may read what an earlier one wrote in the same
/// task, never what another task wrote. Through
/// pool->parallel_for(pool->ctx, tasks, task function, frame) when there is
/// a pool; without one, task by task (one kernel: once over [0, tasks)).
void emitKernelCalls(EmitterContext &ctx, llvm::ArrayRef<KernelCall> calls,
                     const TaskSplit &split);

/// Calls kernel `kernel(pointers..., firstTask, lastTask)` over every task
/// of `split`: once over [0, tasks) without a pool, else one
/// pool->parallel_for(pool->ctx, tasks, task function, frame) where the
/// task function runs task i as kernel(pointers..., i, i + 1).
void emitKernelCall(EmitterContext &ctx, llvm::Function &kernel,
                    llvm::ArrayRef<llvm::Value *> pointers,
                    const TaskSplit &split);

/// The split of an output loop of `units` units of `instruction`, a
/// kernel moving memory as much as computing: a unit costs its share of the
/// instruction's flops plus bytes read and written (a byte moved costs
/// about what a flop does on these CPUs), plus kScalarStepCost for each of
/// the `scalarSteps` steps the kernel takes one element at a time (index
/// arithmetic, clamps and selects that vector loops share among lanes).
/// No split where the function being emitted has no pool (inside a task).
TaskSplit splitOutputLoop(EmitterContext &ctx,
                          const ir::Instruction &instruction, int64_t units,
                          int64_t scalarSteps);

/// Emits `body`, given the units of the tasks to compute, into a new
/// internal function kernel(args, results, arena, firstTask, lastTask) and
/// calls it over every task of `split` (emitKernelCall). `body` must do
/// all its work there: values of the function being emitted (buffer
/// pointers, loaded operands) are not visible in the kernel, and the
/// context gives it the kernel's own.
Error emitTasks(EmitterContext &ctx, const TaskSplit &split, int64_t units,
                llvm::function_ref<Error(const UnitRange &)> body);

/// `body(nullptr)` (the whole loop) where splitOutputLoop does not split
/// `units`, else `body(&units of the task)` through emitTasks.
Error emitSplitOrWhole(EmitterContext &ctx, const ir::Instruction &instruction,
                       int64_t units, int64_t scalarSteps,
                       llvm::function_ref<Error(const UnitRange *units)> body);

/// Creates the external `int serialName(args, results, arena)` that calls
/// `body` (the 4-argument parallel entry) with a null pool.
void emitSerialEntry(llvm::Function &body, const std::string &serialName);

/// The name of the parallel entry for serial entry `entryName`.
std::string parallelEntryName(const std::string &entryName);

} // namespace kiln::codegen

#endif // KILN_LIB_CODEGEN_PARALLEL_H
