//===- Optimize.cpp - The optimizing step of compile and the JIT ----------===//
#include "kiln/Driver/Optimize.h"

#include "kiln/Transforms/Passes.h"

namespace kiln::driver {

Expected<std::unique_ptr<ir::Module>> optimizedCopy(const ir::Module &module,
                                                    bool optimize, bool fusion) {
  std::unique_ptr<ir::Module> copy = module.clone();
  if (!optimize) {
    // Code generation needs calls inlined and one site per loop body.
    if (Error error = runCallLowering(*copy))
      return makeError("internal error while lowering calls: {}",
                       error.message());
    return copy;
  }
  PipelineOptions options;
  options.fusion = fusion;
  if (Error error = runDefaultPipeline(*copy, options))
    return makeError("internal error while optimizing: {}", error.message());
  return copy;
}

Expected<import::ImportedModel>
optimizedCopy(const import::ImportedModel &model, bool optimize,
              bool fusion) {
  Expected<std::unique_ptr<ir::Module>> module =
      optimizedCopy(*model.module, optimize, fusion);
  if (!module)
    return module.takeError();
  import::ImportedModel copy;
  copy.module = std::move(*module);
  copy.args = model.args;
  copy.resultNames = model.resultNames;
  copy.variableUpdates = model.variableUpdates;
  copy.boundedResults = model.boundedResults;
  copy.summary = model.summary;
  return copy;
}

} // namespace kiln::driver
