//===- VerifyPass.cpp - The `verify` pass: check the module, change nothing ===//
//
// The first pass of every pipeline, so a module built by an importer or
// written by hand is rejected with a message naming the instruction before
// any transformation sees it.
//
//===----------------------------------------------------------------------===//
#include "kiln/IR/Verifier.h"
#include "kiln/Transforms/Passes.h"

namespace kiln {

namespace {
class VerifyPass final : public Pass {
public:
  std::string_view name() const override { return "verify"; }
  Expected<bool> run(ir::Module &module) override {
    if (Error error = ir::verifyModule(module))
      return error;
    return false;
  }
};
} // namespace

std::unique_ptr<Pass> createVerifyPass() {
  return std::make_unique<VerifyPass>();
}

} // namespace kiln
