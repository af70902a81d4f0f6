//===- ComputeHelpers.h - Shared pieces of the compute-op emitters -*- C++
//-*-===//
//
// Internal to lib/CodeGen: small IR-building helpers the reduction,
// contraction and indexing emitters share (entry-block accumulators, index
// arithmetic, and the total orders sort/top-k/arg-max use).
//
//===----------------------------------------------------------------------===//
#ifndef KILN_LIB_CODEGEN_COMPUTEHELPERS_H
#define KILN_LIB_CODEGEN_COMPUTEHELPERS_H

#include <llvm/IR/Module.h>

#include "EmitterContext.h"

namespace kiln::codegen {

/// A stack slot in the function's entry block, so mem2reg turns it into a
/// register however deep in a loop nest it is used.
llvm::AllocaInst *entryAlloca(EmitterContext &ctx, llvm::Type *type,
                              const llvm::Twine &name = "acc");

/// The fold that emitAccumulation applies for one inner index: returns the
/// new accumulator given the output index, the inner index and the old one.
using AccumulateStep = llvm::function_ref<Expected<llvm::Value *>(
    llvm::ArrayRef<llvm::Value *> outIndex,
    llvm::ArrayRef<llvm::Value *> innerIndex, llvm::Value *accumulator)>;

/// For every element of `instruction`'s result: start an accumulator at
/// `initial`, fold `step` over the index space `innerDims` (loops named
/// `innerName`), and store the accumulator into the result. Reduce,
/// reduce-window, dot and convolution are all this shape; the accumulator
/// lives in an entry-block slot so it becomes a register. With `units`,
/// only the result elements of those units (EmitterContext::rowUnits).
Error emitAccumulation(EmitterContext &ctx, const ir::Instruction &instruction,
                       llvm::Value *initial, llvm::ArrayRef<int64_t> innerDims,
                       const char *innerName, AccumulateStep step,
                       const UnitRange *units = nullptr);

/// A scalar integer compute value of `dtype` as i64 (sign- or zero-extended).
llvm::Value *indexToI64(EmitterContext &ctx, ir::DType dtype,
                        llvm::Value *value);
/// min(max(value, lo), hi) on i64 (signed).
llvm::Value *clampI64(EmitterContext &ctx, llvm::Value *value, int64_t lo,
                      int64_t hi);

/// Whether `a` must be placed before `b` in a stable sort of `dtype`:
/// ascending puts NaN last, descending puts NaN first (descending is the
/// mirror of ascending for every value, as numpy/XLA's total order). -0 and
/// +0 compare equal, so they keep their input order.
llvm::Value *sortsBefore(EmitterContext &ctx, ir::DType dtype, llvm::Value *a,
                         llvm::Value *b, bool descending);

/// `a > b` (or `a < b` when `greater` is false) for compute values of `dtype`:
/// ordered for floats (false with NaN), signed or unsigned for integers.
llvm::Value *strictlyOrdered(EmitterContext &ctx, ir::DType dtype,
                             llvm::Value *a, llvm::Value *b, bool greater);
/// true iff `value` is a float NaN (constant false for integers).
llvm::Value *isNaN(EmitterContext &ctx, ir::DType dtype, llvm::Value *value);

/// Raw element bits of `buffer` at `linear` (storage type): moving
/// elements this way never rounds or canonicalizes (NaN payloads, -0).
llvm::Value *loadRaw(EmitterContext &ctx, const BufferRef &buffer,
                     llvm::Value *linear);
void storeRaw(EmitterContext &ctx, const BufferRef &buffer,
              llvm::Value *linear, llvm::Value *raw);
/// Copies operand `operand` of `inst` (materialized or fused) into `out`.
Error copyOperand(EmitterContext &ctx, const ir::Instruction &inst,
                  size_t operand, const BufferRef &out);
/// Emits `j = start; while (j > lowest && before(j - 1)) { move(j - 1, j);
/// --j; }` (an insertion step) and returns the final j. `before` only runs
/// when j > lowest, so it may load element j - 1.
Expected<llvm::Value *>
emitShiftLoop(EmitterContext &ctx, llvm::Value *start, llvm::Value *lowest,
              llvm::function_ref<Expected<llvm::Value *>(llvm::Value *)> before,
              llvm::function_ref<void(llvm::Value *, llvm::Value *)> move);

/// Row-major index vector -> full operand index: `free` values fill the
/// positions not in `fixedDims`, `fixed` values fill `fixedDims` in order.
std::vector<llvm::Value *> mergeIndices(llvm::ArrayRef<llvm::Value *> free,
                                        llvm::ArrayRef<llvm::Value *> fixed,
                                        llvm::ArrayRef<int64_t> fixedDims,
                                        int64_t rank);

/// Runs body(j, lanes) over [0, n): full target vectors of `dtype`, then a
/// scalar tail (lanes = 1).
Error emitVectorRow(EmitterContext &ctx, ir::DType dtype, int64_t n,
                    llvm::function_ref<Error(llvm::Value *, unsigned)> body);

/// The operand position one window tap reads, or "padding" (valid=false).
struct WindowTap {
  std::vector<llvm::Value *> index; ///< clamped into bounds, safe to load
  llvm::Value *valid = nullptr;
};

/// Maps an output index and a window index of `instruction` (its window
/// attribute over operand 0: reduce-window, select-and-scatter) to the
/// operand element in the padded, base-dilated input: pos = out*stride +
/// w*windowDilation - padLow, valid when inside the dilated input and not on
/// a dilation hole. The operand must not be empty.
WindowTap windowTap(EmitterContext &ctx, const ir::Instruction &instruction,
                    llvm::ArrayRef<llvm::Value *> outIndex,
                    llvm::ArrayRef<llvm::Value *> winIndex);

/// Linear index, giving i64 0 for rank 0.
llvm::Value *linearOrZero(EmitterContext &ctx,
                          llvm::ArrayRef<llvm::Value *> indices,
                          llvm::ArrayRef<int64_t> dims);

} // namespace kiln::codegen

#endif // KILN_LIB_CODEGEN_COMPUTEHELPERS_H
