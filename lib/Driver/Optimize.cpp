//===- Optimize.cpp - The optimizing step of compile and the JIT ----------===//
#include "kiln/Driver/Optimize.h"

#include "kiln/Transforms/Passes.h"

namespace kiln::driver {

Expected<std::unique_ptr<ir::Module>> optimizedCopy(const ir::Module &module,
                                                    bool optimize) {
  std::unique_ptr<ir::Module> copy = module.clone();
  if (!optimize)
    return copy;
  if (Error error = runDefaultPipeline(*copy))
    return makeError("internal error while optimizing: {}", error.message());
  return copy;
}

Expected<import::ImportedModel>
optimizedCopy(const import::ImportedModel &model, bool optimize) {
  Expected<std::unique_ptr<ir::Module>> module =
      optimizedCopy(*model.module, optimize);
  if (!module)
    return module.takeError();
  import::ImportedModel copy;
  copy.module = std::move(*module);
  copy.args = model.args;
  copy.resultNames = model.resultNames;
  copy.variableUpdates = model.variableUpdates;
  copy.summary = model.summary;
  return copy;
}

} // namespace kiln::driver
