//===- Jit.h - Running generated code on the host ---------------*- C++ -*-===//
//
// `kiln run` executes the same generated code the AOT path writes to an
// object file, through LLVM's ORC LLJIT on the host.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_TARGET_JIT_H
#define KILN_TARGET_JIT_H

#include "kiln/Support/Error.h"

#include <memory>
#include <string_view>

namespace llvm {
class LLVMContext;
class Module;
namespace orc {
class LLJIT;
}
} // namespace llvm

namespace kiln::target {

/// The C ABI of every generated entry point.
using EntryFunction = int (*)(const void *const *args, void *const *results,
                              void *arena);

class Jit {
public:
  /// Takes an optimized module built for the host target.
  static Expected<std::unique_ptr<Jit>>
  create(std::unique_ptr<llvm::Module> module,
         std::unique_ptr<llvm::LLVMContext> context);
  ~Jit();

  Expected<EntryFunction> lookup(std::string_view symbol);
  /// The address of any defined symbol (NAME_profile, say).
  Expected<void *> lookupAddress(std::string_view symbol);

private:
  Jit() = default;
  std::unique_ptr<llvm::orc::LLJIT> jit_;
};

} // namespace kiln::target

#endif // KILN_TARGET_JIT_H
