//===- ParallelOptimize.cpp - LLVM optimization on several threads --------===//
//
// The module is split into a fixed number of partitions (llvm::SplitModule,
// functions dealt out by size), each partition is optimized in an
// LLVMContext of its own on a pool of threads, and the optimized partitions
// are linked back (llvm::Linker) in partition order. The partitions depend
// only on the module, never on the thread count, and each is optimized by
// the same deterministic pipeline, so the result is the same with 1 thread
// or 64.
//
// Splitting makes internal symbols external and hidden so that partitions
// can refer to each other; after linking every symbol that existed before
// gets its own linkage back, so the object exports the entry point only.
//
// Only the optimizer runs in parallel: the object must be one file and kiln
// has no linker, so machine code is generated once from the linked module.
//
//===----------------------------------------------------------------------===//
#include "kiln/Target/Target.h"

#include "llvm/Bitcode/BitcodeReader.h"
#include "llvm/Bitcode/BitcodeWriter.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Linker/Linker.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Transforms/Utils/SplitModule.h"

#include <algorithm>
#include <atomic>
#include <map>
#include <thread>

namespace kiln::target {

namespace {

/// How many partitions a module is optimized in. Fixed (the output must
/// not depend on the thread count) and larger than the usual thread count
/// so that the sizes, dealt out round-robin, balance.
constexpr unsigned kPartitions = 8;

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

std::string toBitcode(const llvm::Module &module) {
  std::string bytes;
  llvm::raw_string_ostream stream(bytes);
  llvm::WriteBitcodeToFile(module, stream);
  stream.flush();
  return bytes;
}

Expected<std::unique_ptr<llvm::Module>>
fromBitcode(const std::string &bytes, llvm::LLVMContext &context) {
  llvm::MemoryBufferRef buffer(bytes, "partition");
  auto module = llvm::parseBitcodeFile(buffer, context);
  if (!module)
    return makeError("internal error: cannot read back an LLVM partition: {}",
                     llvm::toString(module.takeError()));
  return std::move(*module);
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

/// Runs work(i) for i in [0, count) on up to `threads` threads.
void parallelFor(unsigned count, unsigned threads,
                 const std::function<void(unsigned)> &work) {
  std::atomic<unsigned> next{0};
  auto worker = [&] {
    for (unsigned i = next++; i < count; i = next++)
      work(i);
  };
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < std::min(threads, count); ++t)
    pool.emplace_back(worker);
  worker();
  for (std::thread &thread : pool)
    thread.join();
}

} // namespace

unsigned defaultThreadCount() {
  return std::clamp(std::thread::hardware_concurrency(), 1u, kMaxThreads);
}

Expected<std::unique_ptr<llvm::Module>>
optimizeModuleInParallel(std::unique_ptr<llvm::Module> module,
                         const ResolvedTarget &target, unsigned threads) {
  std::map<std::string, Visibility> saved = recordVisibility(*module);
  std::vector<std::string> partitions;
  llvm::SplitModule(
      *module, kPartitions,
      [&](std::unique_ptr<llvm::Module> part) {
        partitions.push_back(toBitcode(*part));
      },
      /*PreserveLocals=*/false, /*RoundRobin=*/true);

  std::vector<std::unique_ptr<Expected<std::string>>> optimized(
      partitions.size());
  parallelFor(unsigned(partitions.size()), std::max(threads, 1u),
              [&](unsigned i) {
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
  restoreVisibility(*linked, saved);
  return linked;
}

} // namespace kiln::target
