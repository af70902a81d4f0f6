//===- ParallelOptimize.cpp - LLVM optimization on several threads --------===//
//
// The module is split into partitions (llvm::SplitModule, functions dealt
// out by size; how many depends on the module's size only), each partition is
// optimized in an LLVMContext of its own on a pool of threads, and the
// optimized partitions are linked back (llvm::Linker) in partition order. The
// partitions depend only on the module, never on the thread count, and each is
// optimized by the same deterministic pipeline, so the result is the same with
// 1 thread or 64.
//
// Splitting makes internal symbols external and hidden so that partitions
// can refer to each other; after linking every symbol that existed before
// gets its own linkage back, so the object exports the entry point only.
//
// Machine code is generated from the linked module, in partitions of its
// own (ParallelCodeGen.cpp).
//
//===----------------------------------------------------------------------===//
#include "kiln/Target/Target.h"

#include "Partitions.h"

#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Linker/Linker.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Transforms/Utils/SplitModule.h"

#include <algorithm>
#include <map>
#include <thread>

namespace kiln::target {

namespace {

/// What splitting changes about a symbol, to put back after linking.
struct Visibility {
  llvm::GlobalValue::LinkageTypes linkage;
  llvm::GlobalValue::VisibilityTypes visibility;
  bool dsoLocal;
};

std::map<std::string, Visibility> recordVisibility(llvm::Module &module) {
  std::map<std::string, Visibility> out;
  for (llvm::GlobalValue &value : module.global_values())
    if (!value.isDeclaration() && value.hasName())
      out[value.getName().str()] = {value.getLinkage(), value.getVisibility(),
                                    value.isDSOLocal()};
  return out;
}

void restoreVisibility(llvm::Module &module,
                       const std::map<std::string, Visibility> &saved) {
  for (llvm::GlobalValue &value : module.global_values()) {
    auto found = saved.find(value.getName().str());
    if (found == saved.end() || value.isDeclaration())
      continue;
    value.setLinkage(found->second.linkage);
    value.setVisibility(found->second.visibility);
    value.setDSOLocal(found->second.dsoLocal);
  }
}

/// Constant data larger than this is kept out of the partitions.
constexpr uint64_t kDetachBytes = 4096;

/// Whether `value` is or refers to a global (a pointer table): such an
/// initializer belongs to the module it was made in and cannot be copied
/// into another.
bool refersToGlobals(const llvm::Constant *value) {
  if (llvm::isa<llvm::GlobalValue>(value))
    return true;
  for (const llvm::Use &operand : value->operands())
    if (refersToGlobals(llvm::cast<llvm::Constant>(operand.get())))
      return true;
  return false;
}

/// Weights: the initializers of large constant globals, held back while
/// the partitions travel as bitcode (writing, reading and linking
/// megabytes of weights cost a quarter of the optimization time, measured
/// on faceres-deep) and put back once they are linked. The optimizer sees
/// external constants of the same type and alignment instead; it has no
/// use for their contents (a kernel reads weights at run-time offsets).
/// Only plain data is held back: an initializer that points to globals (the
/// profile's kernel table) points into the module being split, which is
/// gone by the time the linked module would get it back, so such tables
/// travel with their partition like code.
struct DetachedData {
  llvm::Constant *initializer;
  llvm::MaybeAlign align;
};

std::map<std::string, DetachedData> detachLargeConstants(llvm::Module &module) {
  std::map<std::string, DetachedData> out;
  const llvm::DataLayout &layout = module.getDataLayout();
  for (llvm::GlobalVariable &global : module.globals()) {
    if (!global.isConstant() || !global.hasInitializer() || !global.hasName() ||
        layout.getTypeAllocSize(global.getValueType()) <= kDetachBytes ||
        refersToGlobals(global.getInitializer()))
      continue;
    out[global.getName().str()] = {global.getInitializer(), global.getAlign()};
    global.setInitializer(nullptr);
    global.setLinkage(llvm::GlobalValue::ExternalLinkage);
  }
  return out;
}

void reattachConstants(llvm::Module &module,
                       const std::map<std::string, DetachedData> &detached) {
  for (const auto &[name, data] : detached) {
    // The optimizer drops declarations nothing uses any more: those
    // weights are dead and stay out of the object.
    llvm::GlobalVariable *global = module.getGlobalVariable(name, true);
    if (!global)
      continue;
    assert(global->isDeclaration() && "a weight was defined twice");
    global->setInitializer(data.initializer);
    global->setAlignment(data.align);
  }
}

/// Gives `part` a copy of every small constant it uses but another
/// partition defines, as `available_externally`: the optimizer can then
/// fold loads from it as it would in the whole module (index tables of a
/// gather, say), and drops the copy before the partition is linked back.
/// Tables of pointers (the profile's kernel table) are not copied.
void shareSmallConstants(llvm::Module &part, llvm::Module &whole) {
  for (llvm::GlobalVariable &global : part.globals()) {
    if (!global.isDeclaration())
      continue;
    llvm::GlobalVariable *original =
        whole.getGlobalVariable(global.getName(), true);
    if (!original || !original->isConstant() || !original->hasInitializer() ||
        refersToGlobals(original->getInitializer()))
      continue;
    global.setInitializer(original->getInitializer());
    global.setLinkage(llvm::GlobalValue::AvailableExternallyLinkage);
  }
}

/// Local globals that no code refers to any more after optimization (their
/// loads were folded in every partition) are dropped, as the optimizer
/// would have in the whole module.
void dropUnusedLocalGlobals(llvm::Module &module) {
  for (llvm::GlobalVariable &global :
       llvm::make_early_inc_range(module.globals()))
    if (global.hasLocalLinkage() && global.use_empty())
      global.eraseFromParent();
}

/// Optimizes one partition (bitcode in, bitcode out) in a context and with
/// a target machine of its own, so partitions share nothing.
Expected<std::string> optimizePartition(const std::string &bitcode,
                                        const ResolvedTarget &target) {
  llvm::LLVMContext context;
  Expected<std::unique_ptr<llvm::Module>> module =
      fromBitcode(bitcode, context);
  if (!module)
    return module.takeError();
  auto machine = createTargetMachine(target);
  if (!machine)
    return machine.takeError();
  if (Error error = optimizeModule(**module, **machine))
    return error;
  return toBitcode(**module);
}

Expected<std::unique_ptr<llvm::Module>>
optimizeWhole(std::unique_ptr<llvm::Module> module,
              const ResolvedTarget &target) {
  auto machine = createTargetMachine(target);
  if (!machine)
    return machine.takeError();
  if (Error error = optimizeModule(*module, **machine))
    return error;
  return module;
}

/// Splits `module` into `count` partitions, optimizes them on `threads`
/// threads and links them back in partition order.
Expected<std::unique_ptr<llvm::Module>>
optimizePartitions(std::unique_ptr<llvm::Module> module,
                   const ResolvedTarget &target, unsigned count,
                   unsigned threads) {
  std::vector<std::string> partitions;
  llvm::SplitModule(
      *module, count,
      [&](std::unique_ptr<llvm::Module> part) {
        shareSmallConstants(*part, *module);
        partitions.push_back(toBitcode(*part));
      },
      /*PreserveLocals=*/false, /*RoundRobin=*/true);

  std::vector<std::unique_ptr<Expected<std::string>>> optimized(
      partitions.size());
  parallelFor(unsigned(partitions.size()), threads, [&](unsigned i) {
    optimized[i] = std::make_unique<Expected<std::string>>(
        optimizePartition(partitions[i], target));
  });

  llvm::LLVMContext &context = module->getContext();
  auto linked = std::make_unique<llvm::Module>(module->getName(), context);
  linked->setTargetTriple(module->getTargetTriple());
  linked->setDataLayout(module->getDataLayout());
  module.reset();
  llvm::Linker linker(*linked);
  for (std::unique_ptr<Expected<std::string>> &bitcode : optimized) {
    if (!*bitcode)
      return bitcode->takeError();
    Expected<std::unique_ptr<llvm::Module>> part =
        fromBitcode(**bitcode, context);
    if (!part)
      return part.takeError();
    if (linker.linkInModule(std::move(*part)))
      return makeError("internal error: cannot link the optimized LLVM "
                       "partitions back together");
  }
  return linked;
}

} // namespace

unsigned defaultThreadCount() {
  return std::clamp(std::thread::hardware_concurrency(), 1u, kMaxThreads);
}

Expected<std::unique_ptr<llvm::Module>>
optimizeModuleInParallel(std::unique_ptr<llvm::Module> module,
                         const ResolvedTarget &target, unsigned threads) {
  unsigned count = partitionCount(*module);
  std::map<std::string, Visibility> saved = recordVisibility(*module);
  std::map<std::string, DetachedData> weights = detachLargeConstants(*module);
  Expected<std::unique_ptr<llvm::Module>> optimized =
      count == 1 ? optimizeWhole(std::move(module), target)
                 : optimizePartitions(std::move(module), target, count,
                                      std::max(threads, 1u));
  if (!optimized)
    return optimized.takeError();
  reattachConstants(**optimized, weights);
  restoreVisibility(**optimized, saved);
  dropUnusedLocalGlobals(**optimized);
  return optimized;
}

} // namespace kiln::target
