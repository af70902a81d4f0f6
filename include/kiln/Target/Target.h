//===- Target.h - Target selection and machine code emission ----*- C++ -*-===//
//
// Turns --target/--cpu/--features into an llvm::TargetMachine through LLVM's
// TargetRegistry (X86 and AArch64 backends) and emits object files, assembly
// or LLVM IR from an llvm::Module. Never decides anything from #ifdefs on the
// host: the host is just the default triple.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_TARGET_TARGET_H
#define KILN_TARGET_TARGET_H

#include "kiln/Support/Error.h"

#include <memory>
#include <string>
#include <vector>

namespace llvm {
class Module;
class TargetMachine;
} // namespace llvm

namespace kiln::target {

/// What the user asked for; empty strings mean "default".
struct TargetOptions {
  std::string triple;   // --target; empty = host
  std::string cpu;      // --cpu; empty = host CPU (host) or "generic" (cross)
  std::string features; // --features "+a,-b"
};

/// The target after defaults are applied: what goes into the manifest.
struct ResolvedTarget {
  std::string triple;
  std::string cpu;
  std::string features;
  bool isHost = false;
  std::vector<std::string> warnings; // e.g. a cross target without --cpu
};

/// Registers the X86 and AArch64 backends once.
void initializeTargets();

/// Applies defaults and validates triple and CPU; an unknown triple or CPU
/// is an error listing the valid choices.
Expected<ResolvedTarget> resolveTarget(const TargetOptions &options);

Expected<std::unique_ptr<llvm::TargetMachine>>
createTargetMachine(const ResolvedTarget &target);

enum class OutputKind { Object, Assembly, LLVMIR };

/// Runs LLVM's optimization pipeline (O3 for the target) on `module` and
/// then emits it; deterministic for the same module and target.
Error optimizeModule(llvm::Module &module, llvm::TargetMachine &machine);
/// The most threads --threads defaults to: LLVM work beyond that gains
/// little and takes memory.
constexpr unsigned kMaxThreads = 8;
/// The hardware threads, between 1 and kMaxThreads.
unsigned defaultThreadCount();

/// optimizeModule on up to `threads` threads (ParallelOptimize.cpp): a
/// large module is split into up to 8 partitions (how many depends on its
/// size only), each optimized in a context of its own, and linked back; the
/// result does not depend on `threads`. Symbols keep their linkage.
Expected<std::unique_ptr<llvm::Module>>
optimizeModuleInParallel(std::unique_ptr<llvm::Module> module,
                         const ResolvedTarget &target, unsigned threads);

Expected<std::string> emitModule(llvm::Module &module,
                                 llvm::TargetMachine &machine, OutputKind kind);

/// emitModule(Object) with machine code generated on up to `threads`
/// threads (ParallelCodeGen.cpp): a large module's functions are compiled
/// to assembly in partitions (how many depends on its size only), and one
/// object is assembled from them and the module's data. The object does not
/// depend on `threads`. Consumes `module`: its function bodies are removed.
/// `partitions` overrides the size rule (tests put small modules through
/// the partitioned path with it); 0 keeps it.
Expected<std::string> emitObjectInParallel(llvm::Module &module,
                                           llvm::TargetMachine &machine,
                                           const ResolvedTarget &target,
                                           unsigned threads,
                                           unsigned partitions = 0);

} // namespace kiln::target

#endif // KILN_TARGET_TARGET_H
