//===- KernelSupport.h - Building blocks of the kernels --------*- C++ -*-===//
//
// Internal to lib/CodeGen/Kernels. A kernel is an internal LLVM function of
// its own (shared by every layer with the same shapes and epilogue) whose
// arguments are the pointers it reads and writes; shapes are baked in. These
// helpers create such functions, run loops that carry accumulators in SSA
// registers, and load/store vectors whose tail lanes may be out of bounds.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_LIB_CODEGEN_KERNELS_KERNELSUPPORT_H
#define KILN_LIB_CODEGEN_KERNELS_KERNELSUPPORT_H

#include "../EmitterContext.h"

#include <optional>
#include <utility>

#include <llvm/ADT/STLFunctionalExtras.h>

#include <string>
#include <string_view>
#include <vector>

namespace kiln::codegen {
/// The in-order AArch64 cores kiln tunes for, Cortex-A53 and A55
/// (TargetInfo.cpp, which sizes their GEMM tiles by it).
bool isInOrderAArch64(std::string_view cpu);
} // namespace kiln::codegen

namespace kiln::codegen::kernels {

/// The function for `key`, creating it with `pointerArgs` opaque pointer
/// arguments when it does not exist yet: then `body` is called with the
/// builder positioned in the new function's entry block (the caller's
/// insertion point is restored afterwards) and must leave the builder at a
/// point where `ret void` can be emitted. The first `writtenArgs` arguments
/// are written (noalias: the output, and scratch); the others are read-only.
/// With `taskRange`, two i64 arguments follow the pointers: the tasks
/// [first, last) of the kernel's split this call computes (Parallel.h).
Expected<llvm::Function *>
kernelFunction(EmitterContext &ctx, const std::string &key, size_t pointerArgs,
               llvm::function_ref<Error(llvm::Function &)> body,
               size_t writtenArgs = 1, bool taskRange = false);

/// Emits `body` where `condition` holds.
Error emitIf(EmitterContext &ctx, llvm::Value *condition,
             llvm::function_ref<Error()> body, const llvm::Twine &name);

/// The one dot or convolution of output fusion `fusion`, whose chain becomes
/// the kernel's epilogue; null when `fusion` is not an output fusion or
/// holds none or several.
const ir::Instruction *soleContraction(const ir::Instruction &fusion);

/// Whether the kernels compute `contraction` (a dot or convolution): f32 or
/// f64 result and operands of the same type.
bool hasKernelDtype(const ir::Instruction &contraction);

/// Records the kernel computing `computed` (the contraction, or its output
/// fusion) as `function`, for the manifest; `record` holds the rest.
void recordKernel(EmitterContext &ctx, KernelRecord record,
                  const ir::Instruction &computed,
                  const llvm::Function &function);

/// A counted loop [begin, end) by `step` whose body maps the carried values
/// (initially `initial`) to their next values; returns the values after the
/// loop. The trip count must be static and positive (end > begin) unless
/// `end` is a run-time value, in which case the loop runs at least once:
/// callers only emit it for non-empty ranges.
using CarriedBody = llvm::function_ref<Expected<std::vector<llvm::Value *>>(
    llvm::Value *index, const std::vector<llvm::Value *> &carried)>;
Expected<std::vector<llvm::Value *>>
emitCarriedLoop(EmitterContext &ctx, llvm::Value *begin, llvm::Value *end,
                int64_t step, std::vector<llvm::Value *> initial,
                CarriedBody body, const llvm::Twine &name);

/// A loop with nothing carried over a run-time or static range.
Error emitRangeLoop(EmitterContext &ctx, llvm::Value *begin, llvm::Value *end,
                    int64_t step, llvm::function_ref<Error(llvm::Value *)> body,
                    const llvm::Twine &name);

/// The row stride (elements) of `writer`'s output when it is computed in
/// its part of a concatenate's buffer (BufferSlice::rowStride), with the
/// row length; nullopt when the output is contiguous. Kernels that store
/// through addresses of their own take such an output only where they
/// can (the convolution GEMM for a channel concat) and otherwise leave it
/// to the generic emitters, whose element addresses follow the rows.
std::optional<std::pair<int64_t, int64_t>>
stridedOutput(EmitterContext &ctx, const ir::Instruction &writer);

/// `ptr + offset` elements of `dtype`.
llvm::Value *offsetPointer(EmitterContext &ctx, ir::DType dtype,
                           llvm::Value *ptr, llvm::Value *offset);

/// Loads `lanes` consecutive elements at `ptr`, of which only the first
/// `valid` may be read (the rest become 0): a plain vector load when all
/// are valid, else a masked load with a constant mask.
llvm::Value *loadLanes(EmitterContext &ctx, ir::DType dtype, llvm::Value *ptr,
                       int64_t lanes, int64_t valid, uint64_t align);
/// Stores the first `valid` lanes of `value` at `ptr`.
void storeLanes(EmitterContext &ctx, ir::DType dtype, llvm::Value *ptr,
                llvm::Value *value, int64_t valid, uint64_t align);

/// acc + a * b: one llvm.fma where the target has FMA, else fmul + fadd.
llvm::Value *multiplyAdd(EmitterContext &ctx, llvm::Value *acc, llvm::Value *a,
                         llvm::Value *b);

/// A read-only global of `count` zeros of `dtype` (the row that padding
/// taps read instead of the input), one per module and size.
llvm::Value *zeroRow(EmitterContext &ctx, ir::DType dtype, int64_t count);

} // namespace kiln::codegen::kernels

#endif // KILN_LIB_CODEGEN_KERNELS_KERNELSUPPORT_H
