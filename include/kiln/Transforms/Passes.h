//===- Passes.h - Factories of every registered pass ------------*- C++ -*-===//
#ifndef KILN_TRANSFORMS_PASSES_H
#define KILN_TRANSFORMS_PASSES_H

#include "kiln/Transforms/Pass.h"

namespace kiln {

#define KILN_PASS(Name, Factory) std::unique_ptr<Pass> Factory();
#include "kiln/Transforms/Passes.def"

/// What a user may switch off in the default pipeline.
struct PipelineOptions {
  /// output-fusion, fusion and multi-output-fusion (`--no-fusion` clears
  /// it).
  bool fusion = true;
};

/// Adds what code generation needs of any module, optimized or not, to
/// `manager`: inline-calls, flatten-call-graph (one call site per
/// computation run by while or conditional) and loop-state-copies. Also
/// registered as the pass `lower-calls`.
void buildCallLowering(PassManager &manager);

/// Runs the call lowering on `module` in place.
Error runCallLowering(ir::Module &module);

/// Adds kiln's default optimization pipeline to `manager`: verify; then
/// constant-folding, algebraic-simplifier, cse, dce,
/// while-loop-simplifier and loop-invariant-code-motion repeated until a
/// round changes nothing (at most 8 rounds); output-fusion; fusion;
/// multi-output-fusion; the call lowering; verify. Every pass preserves the module's results exactly (no float
/// reassociation). Also registered as the pass `default-pipeline`.
void buildDefaultPipeline(PassManager &manager,
                          const PipelineOptions &options = {});

/// Runs the default pipeline on `module` in place.
Error runDefaultPipeline(ir::Module &module,
                         const PipelineOptions &options = {});

} // namespace kiln

#endif // KILN_TRANSFORMS_PASSES_H
