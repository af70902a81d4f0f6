//===- TaskPair.h - Depthwise then pointwise as one job ---------*- C++ -*-===//
//
// MobileNet-style blocks are a depthwise convolution followed by a
// pointwise (1x1) convolution of its output, pixel by pixel. Split
// alike, task t of the pair computes the depthwise output rows
// [t * r, (t + 1) * r) and then the pointwise output of exactly those
// pixels: the pointwise reads nothing another task writes, so the two
// kernels run as one pool job instead of two (one hand-off between threads
// instead of two) and a task's depthwise rows are still in its core's cache
// when its pointwise reads them. Without a pool the pair runs task by task
// as well. Each output element is computed by the same instructions as in
// the kernels run one after the other, so results do not change.
//
// The schedule emits the pair in one piece (CodeGen.cpp): the depthwise
// kernel defers its call, the pointwise kernel emits the job's call. A
// kernel that declines (its generic code runs instead) leaves the other's
// call as it would be alone.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_LIB_CODEGEN_KERNELS_TASKPAIR_H
#define KILN_LIB_CODEGEN_KERNELS_TASKPAIR_H

#include "../Parallel.h"
#include "Gemm.h"

#include <optional>

namespace kiln::codegen::kernels {

struct TaskPair {
  /// Top-level instructions: convolutions or output fusions around one.
  const ir::Instruction *depthwise = nullptr, *pointwise = nullptr;
  int64_t rows = 0;  ///< the depthwise's output rows (batch and spatial)
  int64_t width = 0; ///< pixels per row
  TaskSplit split;   ///< the same number of rows in every task

  int64_t pixelsPerTask() const { return rows / split.tasks * width; }

  /// While the pair is emitted: the depthwise call, waiting for the
  /// pointwise's, and the empty block where it runs alone if that never
  /// comes (deferDepthwiseCall).
  std::optional<KernelCall> depthwiseCall;
  llvm::BasicBlock *callSite = nullptr, *afterCall = nullptr;
};

/// The pair `first` then `second` of a schedule make, or nullopt: `first` a
/// depthwise convolution (multiplier 1), `second` a pointwise convolution
/// (one group, dense NHWC) of `first`'s output, both f32/f64 with constant
/// weights and contiguous outputs, a split into at least two tasks of
/// equal rows, and `second`'s output apart from every operand of `first`
/// (a task writes its pixels while others still read their rows' halo).
std::optional<TaskPair> findTaskPair(EmitterContext &ctx,
                                     const ir::Instruction &first,
                                     const ir::Instruction &second);

/// The pair being emitted whose depthwise is `computed` (the top-level
/// instruction a kernel computes), or null.
TaskPair *depthwiseOfPair(EmitterContext &ctx, const ir::Instruction &computed);
/// Likewise for the pointwise, once the depthwise call waits for it.
TaskPair *pointwiseOfPair(EmitterContext &ctx, const ir::Instruction &computed);

/// Holds back the depthwise kernel's call: it runs in the pair's job.
void deferDepthwiseCall(EmitterContext &ctx, TaskPair &pair, KernelCall call);

/// The pair's job: task i runs the depthwise's task i, then `pointwise`'s.
void emitPairCall(EmitterContext &ctx, TaskPair &pair, KernelCall pointwise);

/// Ends the pair's emission: a depthwise call still waiting runs alone.
void finishTaskPair(EmitterContext &ctx, TaskPair &pair);

/// The rows of task `task` of the pair for a GEMM with `mr`-row tiles: the
/// task's pixels, as full tiles from its first pixel and a short tile of
/// the rest.
GemmRows pairedGemmRows(EmitterContext &ctx, const TaskPair &pair, int64_t mr,
                        llvm::Value *task);

} // namespace kiln::codegen::kernels

#endif // KILN_LIB_CODEGEN_KERNELS_TASKPAIR_H
