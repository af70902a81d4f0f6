//===- Compile.h - `kiln compile` and the JIT path of `kiln run` -*- C++
//-*-===//
//
// The AOT pipeline as one library call: load and verify a model, assign
// buffers, generate LLVM IR, optimize for the target and write PREFIX.o,
// PREFIX.h and PREFIX.json (plus --emit extras) all-or-nothing.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_DRIVER_COMPILE_H
#define KILN_DRIVER_COMPILE_H

#include "kiln/AOT/ModelInfo.h"
#include "kiln/Analysis/BufferAssignment.h"
#include "kiln/IR/Literal.h"
#include "kiln/Import/Import.h"
#include "kiln/IR/Module.h"
#include "kiln/Support/Error.h"
#include "kiln/Support/PhaseTimes.h"

#include <memory>
#include <string>
#include <vector>

namespace kiln::codegen {
struct CodeGenOptions;
} // namespace kiln::codegen
namespace kiln::target {
class Jit;
} // namespace kiln::target

namespace kiln::driver {

struct CompileOptions {
  std::string model;                 ///< Model file (any importable format).
  import::ImportOptions import;      ///< --config, --shape.
  std::string triple, cpu, features; ///< --target, --cpu, --features.
  std::string name;                  ///< --name; empty: the output file's stem.
  std::string cppNamespace;          ///< --namespace a::b for the C++ class.
  std::string outputPrefix;          ///< -o PREFIX; empty: model stem in cwd.
  std::vector<std::string> emit; ///< Extra outputs: llvm, asm, hlo, report, dot.
  bool fastMath = false;
  /// Run the default optimization pipeline before buffer assignment
  /// (--no-opt turns it off).
  bool optimize = true;
  /// Its fusion passes (--no-fusion turns them off).
  bool fusion = true;
  /// Threads for the LLVM work (--threads); 0: the default
  /// (target::defaultThreadCount). The object does not depend on it.
  unsigned threads = 0;
  /// Partitions of machine-code generation (hidden --codegen-partitions,
  /// for tests); 0: by the module's size.
  unsigned codegenPartitions = 0;
  /// Per-kernel profiling counters in the object (--profile; docs/abi.md).
  bool profile = false;
  /// Winograd for the 3x3 convolutions the cost rule picks (--no-winograd
  /// turns it off; codegen::CodeGenOptions::winograd).
  bool winograd = true;
  /// --weights-section: the section of every weight constant in the object
  /// (empty: the object format's read-only data, .rodata on ELF).
  std::string weightsSection;
  /// --arena-section: the section the header's NAME_ARENA_ATTRIBUTES puts
  /// the caller's arena in (empty: the compiler's choice).
  std::string arenaSection;
  /// --max-flash and --max-ram: the part's memory (lib/Driver/PartBudget.h);
  /// 0 is no limit.
  int64_t maxFlashBytes = 0;
  int64_t maxRamBytes = 0;
};

struct CompileResult {
  aot::ModelInfo info;               ///< What the header and manifest say.
  std::vector<std::string> files;    ///< Every file written, in order.
  std::vector<std::string> warnings; ///< For the user (e.g. cross w/o --cpu).
  std::vector<std::string> notes;    ///< Informational (e.g. no Graphviz).
  PhaseTimes phases; ///< Where the time went (--time-phases).
};

/// `kiln compile`. On error no output file is created or changed.
Expected<CompileResult> compileModel(const CompileOptions &options);
/// `kiln compile` of an already imported model (options.model and
/// options.import are not used). Variable updates become argument
/// write-backs: those results are not in the header and manifest.
/// `beforePasses` is the module before the HLO passes, drawn by --emit dot
/// as the imported graph (null: `model`'s module is drawn for both).
Expected<CompileResult>
compileImported(const import::ImportedModel &model,
                const CompileOptions &options,
                const ir::Module *beforePasses = nullptr);

/// The header/manifest description of `module`: args are the entry
/// parameters in number order, results the root (or the root tuple's
/// elements); sizes from the shapes. Target, arena and weights fields are
/// left for the caller.
aot::ModelInfo describeModel(const ir::Module &module, const std::string &name);
/// The same with the imported model's arg/result names and variable kinds;
/// results that update variables in place are left out.
aot::ModelInfo describeModel(const import::ImportedModel &model,
                             const std::string &name);

/// Runs `module` on the host through the code generator and the JIT
/// (`kiln run` without --reference): one literal per entry parameter in, one
/// per result out. `winograd` false: no Winograd convolutions.
Expected<std::vector<ir::Literal>>
runWithJit(const ir::Module &module, const std::vector<ir::Literal> &args,
           bool winograd = true);
/// The same with argument write-backs (writable variables): the written
/// args are updated in place and the results leave those root elements out.
Expected<std::vector<ir::Literal>>
runWithJit(const ir::Module &module, std::vector<ir::Literal> &args,
           const std::vector<analysis::ArgWriteBack> &writeBacks,
           bool winograd = true);

/// `module` generated with `options` for the host, optimized and loaded
/// into the JIT (what runWithJit and `kiln profile` run).
Expected<std::unique_ptr<target::Jit>>
compileForHostJit(const ir::Module &module,
                  const analysis::BufferAssignment &buffers,
                  const codegen::CodeGenOptions &options);

} // namespace kiln::driver

#endif // KILN_DRIVER_COMPILE_H
