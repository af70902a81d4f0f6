//===- Jit.cpp - Running generated code on the host through ORC LLJIT ----===//
#include "kiln/Target/Jit.h"

#include "kiln/Target/Target.h"

#include "llvm/ExecutionEngine/Orc/LLJIT.h"
#include "llvm/ExecutionEngine/Orc/ThreadSafeModule.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/Error.h"

namespace kiln::target {

namespace {

Error fromLLVM(llvm::Error error, std::string_view what) {
  return makeError("{}: {}", what, llvm::toString(std::move(error)));
}

} // namespace

Jit::~Jit() = default;

Expected<std::unique_ptr<Jit>>
Jit::create(std::unique_ptr<llvm::Module> module,
            std::unique_ptr<llvm::LLVMContext> context) {
  initializeTargets();
  // LLJIT links the process's own symbols by default, so the few library
  // functions generated code may call (memcpy, say) resolve in-process.
  auto built = llvm::orc::LLJITBuilder().create();
  if (!built)
    return fromLLVM(built.takeError(), "cannot start the JIT");
  std::unique_ptr<Jit> jit(new Jit());
  jit->jit_ = std::move(*built);
  module->setDataLayout(jit->jit_->getDataLayout());
  module->setTargetTriple(jit->jit_->getTargetTriple().str());
  llvm::orc::ThreadSafeModule safe(std::move(module), std::move(context));
  if (llvm::Error error = jit->jit_->addIRModule(std::move(safe)))
    return fromLLVM(std::move(error), "cannot add the module to the JIT");
  return jit;
}

Expected<EntryFunction> Jit::lookup(std::string_view symbol) {
  auto address = jit_->lookup(llvm::StringRef(symbol.data(), symbol.size()));
  if (!address)
    return fromLLVM(address.takeError(),
                    fmt::format("cannot find entry symbol '{}'", symbol));
  return address->toPtr<EntryFunction>();
}

Expected<void *> Jit::lookupAddress(std::string_view symbol) {
  auto address = jit_->lookup(llvm::StringRef(symbol.data(), symbol.size()));
  if (!address)
    return fromLLVM(address.takeError(),
                    fmt::format("cannot find symbol '{}'", symbol));
  return address->toPtr<void *>();
}

} // namespace kiln::target
