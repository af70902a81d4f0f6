//===- Partitions.h - Splitting LLVM work over threads ----------*- C++ -*-===//
//
// What the parallel optimizer (ParallelOptimize.cpp) and the parallel
// machine-code generator (ParallelCodeGen.cpp) share: how many partitions a
// module is worked on in, a small thread pool, and the bitcode round trip
// that moves a partition into an LLVMContext of its own (an LLVMContext is
// not thread-safe, so each thread needs its own).
//
//===----------------------------------------------------------------------===//
#ifndef KILN_LIB_TARGET_PARTITIONS_H
#define KILN_LIB_TARGET_PARTITIONS_H

#include "kiln/Support/Error.h"

#include <functional>
#include <memory>
#include <string>

namespace llvm {
class LLVMContext;
class Module;
} // namespace llvm

namespace kiln::target {

/// How many partitions `module` is worked on in: one per 4000 LLVM
/// instructions, at most 8. A function of the module only, never of the
/// thread count, so that the output does not depend on the thread count;
/// small modules stay whole, as splitting costs more than it gains there.
unsigned partitionCount(const llvm::Module &module);

/// Runs work(i) for i in [0, count) on up to `threads` threads.
void parallelFor(unsigned count, unsigned threads,
                 const std::function<void(unsigned)> &work);

std::string toBitcode(const llvm::Module &module);

Expected<std::unique_ptr<llvm::Module>>
fromBitcode(const std::string &bytes, llvm::LLVMContext &context);

} // namespace kiln::target

#endif // KILN_LIB_TARGET_PARTITIONS_H
