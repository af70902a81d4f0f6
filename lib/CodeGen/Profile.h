//===- Profile.h - Per-kernel counters around the entry's calls -*- C++ -*-===//
//
// Internal to lib/CodeGen; only `kiln compile --profile` (and `kiln
// profile`) reach it. After the entry function is complete, every kernel
// call in it is wrapped with two clock reads, and the elapsed ticks and call
// counts go into a counters array that NAME_profile() exposes with a static
// table of the kernels (docs/abi.md, "Profiling"). Without --profile none of
// this runs, so the object is what it would be if this file did not exist.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_LIB_CODEGEN_PROFILE_H
#define KILN_LIB_CODEGEN_PROFILE_H

#include "kiln/Analysis/BufferAssignment.h"
#include "kiln/CodeGen/CodeGen.h"

#include <llvm/ADT/ArrayRef.h>
#include <llvm/IR/Function.h>
#include <llvm/IR/Instructions.h>

#include <string>

namespace kiln::codegen {

/// A call of the entry to one kernel function, and what the kernel is.
struct ProfiledCall {
  llvm::CallInst *call = nullptr;
  ProfileKernel kernel;
};

/// The kernel computing `instruction`: its name and opcode, the
/// instructions it computes (a fusion's fused instructions, parameters and
/// constants left out) and its CostAnalysis FLOPs and bytes.
ProfileKernel describeKernel(const ir::Instruction &instruction);

/// The job of a depthwise and a pointwise convolution (Kernels/TaskPair.h):
/// named after the pointwise, whose output it is, opcode "paired", with
/// both instructions' sources and costs.
ProfileKernel describePair(const ir::Instruction &depthwise,
                           const ir::Instruction &pointwise);

/// The kernel that copies results into their buffers and writes variables
/// back: no FLOPs, every copied byte read once and written once.
ProfileKernel describeResultCopies(const analysis::BufferAssignment &buffers);

/// "NAME_profile" for entry "NAME_run" (entry + "_profile" otherwise).
std::string profileSymbol(const std::string &entryName);

/// Wraps each call of `calls` (all in `entry`, in call order) with clock
/// reads that update its counter, times the whole entry (entry to every
/// return) into the run counter, and adds the external NAME_profile and
/// NAME_profile_set_clock with the tables and state behind them.
void instrumentEntry(llvm::Function &entry, const std::string &entryName,
                     llvm::ArrayRef<ProfiledCall> calls);

} // namespace kiln::codegen

#endif // KILN_LIB_CODEGEN_PROFILE_H
