//===- CodeGen.h - HLO to LLVM IR -------------------------------*- C++ -*-===//
//
// Lowers a verified module plus its buffer assignment into one LLVM module
// with two external functions, the C ABI entry points
//   int NAME_run(const void* const* args, void* const* results, void* arena)
//   int NAME_run_parallel(..., void* arena, const kiln_parallel* pool)
// returning 0 on success (NAME_run is NAME_run_parallel without a pool),
// which calls one internal function per scheduled instruction in schedule
// order. Everything else is internal, except with `profile`:
//   const kiln_profile *NAME_profile(void)
//   void NAME_profile_set_clock(kiln_profile_clock clock, void *ctx)
// (NAME_run being the entry name). What the object calls outside itself
// (libcalls LLVM chose, such as __aeabi_* on 32-bit ARM) is read from the
// emitted object's undefined symbols (Driver: the manifest's
// "required_symbols").
//
//===----------------------------------------------------------------------===//
#ifndef KILN_CODEGEN_CODEGEN_H
#define KILN_CODEGEN_CODEGEN_H

#include "kiln/Analysis/BufferAssignment.h"
#include "kiln/IR/Module.h"
#include "kiln/Support/Error.h"

#include <memory>
#include <string>
#include <vector>

namespace llvm {
class LLVMContext;
class Module;
class TargetMachine;
} // namespace llvm

namespace kiln::codegen {

struct CodeGenOptions {
  std::string entryName = "kiln_run"; // the C symbol of the entry point
  bool fastMath = false;
  /// Per-kernel profiling counters around every call of the entry (kiln
  /// compile --profile; docs/abi.md). Off, nothing of it is emitted.
  bool profile = false;
  /// Winograd F(4x4, 3x3) for the 3x3 convolutions the cost rule picks
  /// (kiln/Analysis/Winograd.h); off (--no-winograd), every convolution
  /// runs on the direct kernel.
  bool winograd = true;
};

/// One kernel of a profiled module: an internal function the entry calls,
/// in call order (the order of the counters NAME_profile() exposes).
struct ProfileKernel {
  std::string instruction; // the HLO instruction, or "(results)"
  std::string opcode;      // its opcode ("fusion", "dot", ...), or "copy"
  std::string sources;     // its source-model nodes, comma-separated
  int64_t flops = 0, bytesRead = 0, bytesWritten = 0; // CostAnalysis
};

/// One contraction kernel as code generation chose it (reported in the
/// manifest): which instruction, which kernel, and its register tile.
struct KernelRecord {
  std::string instruction; // the dot, convolution or fusion it computes
  std::string kernel;      // "gemm", "gemm-skinny", "conv-gemm", "depthwise"
  std::string function;    // the LLVM function (shared by equal shapes)
  int64_t m = 0, n = 0, k = 0;
  int64_t mr = 0, nr = 0, kc = 0, mc = 0;
  bool packedWeights = false; // the right operand was packed at compile time
  int64_t tasks = 1;          // independent tasks a pool may run in parallel
  std::string epilogue;       // the fused ops applied in registers
};

struct CodeGenResult {
  std::unique_ptr<llvm::Module> module;
  int64_t weightsBytes = 0;                 // bytes of constant data
  std::vector<KernelRecord> kernels;        // contraction kernels chosen
  std::string targetDescription;            // TargetInfo::describe()
  /// The kernels, in counter order (with options.profile only).
  std::vector<ProfileKernel> profileKernels;
};

/// Emits LLVM IR for `module`, using the target's data layout and vector
/// width. An opcode/dtype pair the backend cannot lower is an error naming
/// the instruction.
Expected<CodeGenResult> emitModule(const ir::Module &module,
                                   const analysis::BufferAssignment &buffers,
                                   const CodeGenOptions &options,
                                   llvm::LLVMContext &context,
                                   llvm::TargetMachine &machine);

} // namespace kiln::codegen

#endif // KILN_CODEGEN_CODEGEN_H
