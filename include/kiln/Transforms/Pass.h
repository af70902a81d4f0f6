//===- Pass.h - Module passes and the pass manager --------------*- C++ -*-===//
//
// A pass transforms (or only checks) a module and reports whether it changed
// anything. Passes hold no global state; options are constructor arguments.
// Every pass is registered once in Passes.def under its kebab-case name so
// `kiln opt --passes=a,b` and the default pipeline can build it by name.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_TRANSFORMS_PASS_H
#define KILN_TRANSFORMS_PASS_H

#include "kiln/IR/Module.h"
#include "kiln/Support/Error.h"

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace kiln {

class Pass {
public:
  virtual ~Pass() = default;
  /// The kebab-case name used by --passes and --print-after.
  virtual std::string_view name() const = 0;
  /// Runs on `module`; returns whether the module changed.
  virtual Expected<bool> run(ir::Module &module) = 0;
};

/// Creates a registered pass by name, or fails listing the valid names.
Expected<std::unique_ptr<Pass>> createPass(std::string_view name);
/// Every registered pass name, in registration order.
std::vector<std::string_view> registeredPassNames();

class PassManager {
public:
  /// Called after a pass runs with the pass name, the module, and whether
  /// it changed; the tools use it for --print-after.
  using AfterPassHook =
      std::function<void(std::string_view, const ir::Module &, bool)>;

  void addPass(std::unique_ptr<Pass> pass) { passes_.push_back(std::move(pass)); }
  /// Verifies the module after every pass (on by default).
  void setVerifyEach(bool verify) { verifyEach_ = verify; }
  void setAfterPassHook(AfterPassHook hook) { hook_ = std::move(hook); }

  /// Runs the passes in order; stops at the first failure, whose message
  /// names the pass.
  Error run(ir::Module &module);

private:
  std::vector<std::unique_ptr<Pass>> passes_;
  bool verifyEach_ = true;
  AfterPassHook hook_;
};

} // namespace kiln

#endif // KILN_TRANSFORMS_PASS_H
