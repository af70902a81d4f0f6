//===- AppliedComputation.h - A scalar computation inlined ------*- C++ -*-===//
//
// Internal to lib/CodeGen: the one mechanism that emits a to_apply
// computation (reduce's combiner, map's function, scatter's combiner; a
// sort comparator will use the same) inline, per element, inside the
// caller's loops.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_LIB_CODEGEN_APPLIEDCOMPUTATION_H
#define KILN_LIB_CODEGEN_APPLIEDCOMPUTATION_H

#include "EmitterContext.h"

#include "kiln/IR/Computation.h"

namespace kiln::codegen {

/// Emits `callee`'s instructions at the builder's position with parameter
/// k bound to the compute value `args[k]`; returns the root's compute
/// values (one per element of a tuple root, else one). The verifier has
/// limited `callee` to scalar parameters, constants and elementwise ops.
Expected<std::vector<llvm::Value *>>
emitAppliedComputation(EmitterContext &ctx, const ir::Computation &callee,
                       llvm::ArrayRef<llvm::Value *> args);

} // namespace kiln::codegen

#endif // KILN_LIB_CODEGEN_APPLIEDCOMPUTATION_H
