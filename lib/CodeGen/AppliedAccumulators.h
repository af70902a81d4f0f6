//===- AppliedAccumulators.h - Accumulators of a variadic reduction -*- C++ -*-===//
//
// Internal to lib/CodeGen: the N accumulators of a reduce or reduce-window
// with a to_apply computation (inputs 0..N-1, init values N..2N-1). Both
// emitters fold the computation over elements with it, in the evaluator's
// order; they differ only in which elements a result position takes.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_LIB_CODEGEN_APPLIEDACCUMULATORS_H
#define KILN_LIB_CODEGEN_APPLIEDACCUMULATORS_H

#include "EmitterContext.h"

namespace kiln::codegen {

class AppliedAccumulators {
public:
  /// Entry-block slots (so they become registers), one per input.
  AppliedAccumulators(EmitterContext &ctx, const ir::Instruction &reduction);

  /// Sets the accumulators to the init values and returns those values
  /// (a reduce-window's padding taps read them).
  Expected<std::vector<llvm::Value *>> start();
  /// accumulators = to_apply(accumulators..., elements...), inline.
  Error fold(llvm::ArrayRef<llvm::Value *> elements);
  /// Stores the accumulators at `outIndex` of the N results.
  void finish(llvm::ArrayRef<llvm::Value *> outIndex);
  /// The dimensions of every result.
  const std::vector<int64_t> &outDims() const { return outs_.front().dims; }
  size_t count() const { return slots_.size(); }

private:
  std::vector<llvm::Value *> load();

  EmitterContext &ctx_;
  const ir::Instruction &reduction_;
  std::vector<BufferRef> outs_;
  std::vector<llvm::AllocaInst *> slots_;
};

} // namespace kiln::codegen

#endif // KILN_LIB_CODEGEN_APPLIEDACCUMULATORS_H
