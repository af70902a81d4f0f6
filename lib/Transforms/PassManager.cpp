//===- PassManager.cpp - Running passes in order --------------------------===//
#include "kiln/Transforms/Pass.h"

#include "kiln/IR/Verifier.h"

namespace kiln {

Error PassManager::run(ir::Module &module) {
  for (const std::unique_ptr<Pass> &pass : passes_) {
    Expected<bool> changed = pass->run(module);
    if (!changed)
      return makeError("pass '{}' failed: {}", pass->name(),
                       changed.errorMessage());
    // Verifying after every pass pins a broken module on the pass that broke
    // it instead of on whichever later stage trips over it.
    if (verifyEach_ && *changed)
      if (Error error = ir::verifyModule(module))
        return makeError("module is invalid after pass '{}': {}", pass->name(),
                         error.message());
    if (hook_)
      hook_(pass->name(), module, *changed);
  }
  return Error::success();
}

} // namespace kiln
