//===- ModelInfo.h - What the generated header and manifest describe -*- C++
//-*-===//
#ifndef KILN_AOT_MODELINFO_H
#define KILN_AOT_MODELINFO_H

#include "kiln/IR/DType.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace kiln::aot {

enum class ArgKind { Feed, Variable };

/// Result `result` is padded at its bound along `dim`; result `countResult`
/// (an s32[]) holds how many entries along `dim` are valid (docs/abi.md,
/// "Bounded results").
struct BoundInfo {
  size_t result = 0;
  int64_t dim = 0;
  size_t countResult = 0;
};

struct TensorInfo {
  std::string name; // feed/fetch/variable name from the model or config
  ArgKind kind = ArgKind::Feed; // args only
  bool readonly = true; // variables: false when Run() updates it in place
  ir::DType dtype = ir::DType::F32;
  std::vector<int64_t> shape;
  int64_t bytes = 0;
  /// --input-layout / --output-layout: the buffer's dim i is the model's
  /// dim layout[i]; empty: the model's own order.
  std::vector<int64_t> layout;
};

/// One contraction kernel code generation chose (the manifest's "kernels").
struct KernelInfo {
  std::string instruction; // the HLO instruction (dot, convolution, fusion)
  std::string kernel;      // kernel family
  std::string function;    // the internal function (shared by equal shapes)
  int64_t m = 0, n = 0, k = 0;
  int64_t mr = 0, nr = 0, kc = 0, mc = 0;
  bool packedWeights = false;
  std::string epilogue; // fused elementwise ops applied in registers
  int64_t tasks = 1;    // tasks NAME_run_parallel hands to the pool
};

/// One kernel of a profiled object (kiln compile --profile), in the order
/// of NAME_profile()'s counters.
struct ProfileKernelInfo {
  std::string instruction, opcode, sources;
  int64_t flops = 0, bytesRead = 0, bytesWritten = 0;
};

/// One while of the compiled module (the manifest's "loops").
struct LoopInfo {
  std::string instruction; // the while
  std::string computation; // where it runs: the entry or a body
  int64_t tripCount = -1;  // -1: unknown (analysis::whileTripCount)
  int64_t blockBytes = 0;  // arena bytes its condition and body use
};

struct ModelInfo {
  std::string name;         // C identifier: NAME_run, NAME_ARENA_SIZE, ...
  std::string cppNamespace; // "a::b" or empty
  std::string className;    // the C++ class; defaults to a CamelCase of name
  std::string triple, cpu, features;
  int64_t arenaBytes = 0;
  int64_t arenaAlignment = 64;
  /// The schedule's lower bound on arenaBytes: the most arena bytes live at
  /// once (BufferAssignment::peakLiveBytes).
  int64_t peakLiveBytes = 0;
  int64_t weightsBytes = 0;
  /// Measured on the emitted object's symbols (the manifest's "sizes"):
  /// every function, and the constants (const.* and packed.* symbols).
  int64_t codeBytes = 0;
  int64_t objectWeightBytes = 0;
  /// What a microcontroller keeps in flash (code, read-only data, initial
  /// values) and in RAM (arena, inputs, results, writable data), measured
  /// on the object's sections (lib/Driver/PartBudget.h).
  int64_t flashBytes = 0;
  int64_t ramBytes = 0;
  /// --weights-section and --arena-section; empty when not given.
  std::string weightsSection;
  std::string arenaSection;
  std::vector<TensorInfo> args;    // feeds, then variables
  std::vector<TensorInfo> results; // fetches (variables update args in place)
  std::vector<BoundInfo> bounded;  // results of run-time size, with counts
  std::vector<std::string> requiredSymbols;
  std::string tuning; // what the kernels were tuned for (TargetInfo)
  std::vector<KernelInfo> kernels;
  std::vector<LoopInfo> loops;
  /// Compiled with --profile: the header declares NAME_profile().
  bool profile = false;
  std::vector<ProfileKernelInfo> profileKernels;
};

/// `text` made a valid C identifier: every character outside [A-Za-z0-9_]
/// becomes '_', and a leading digit (or an empty text) gets a "m" prefix.
std::string toCIdentifier(std::string_view text);

/// The entry of `info.bounded` for result `result` if it is bounded, or
/// for the result it counts if it is a count (`asCount`); else nullptr.
const BoundInfo *findBound(const ModelInfo &info, size_t result, bool asCount);

/// The default C++ class name for a model: UpperCamelCase of its name.
std::string defaultClassName(std::string_view name);

/// PREFIX.h: C section and C++ class (docs/abi.md).
std::string generateHeader(const ModelInfo &info);
/// PREFIX.json: the manifest (docs/abi.md).
std::string generateManifest(const ModelInfo &info);

} // namespace kiln::aot

#endif // KILN_AOT_MODELINFO_H
