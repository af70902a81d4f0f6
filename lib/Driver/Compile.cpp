//===- Compile.cpp - `kiln compile`: model -> PREFIX.o, .h, .json --------===//
#include "kiln/Driver/Compile.h"
#include "Graphviz.h"
#include "MemoryBudget.h"
#include "PartBudget.h"
#include "Report.h"
#include "SectionPlacement.h"

#include "kiln/Analysis/BufferAssignment.h"
#include "kiln/Analysis/TripCount.h"
#include "kiln/CodeGen/CodeGen.h"
#include "kiln/Driver/Driver.h"
#include "kiln/Driver/Optimize.h"
#include "kiln/IR/Printer.h"
#include "kiln/Support/FileUtils.h"
#include "kiln/Support/PhaseTimes.h"
#include "kiln/Target/Target.h"

#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Transforms/Utils/Cloning.h"

#include <filesystem>
#include <optional>

namespace kiln::driver {

namespace {

/// The --emit kinds beyond the always-written .o/.h/.json: name, suffixes
/// of the files written (the second may be empty).
struct EmitKind {
  std::string_view name, suffix, secondSuffix;
};
constexpr EmitKind kEmitKinds[] = {{"llvm", ".ll", ""},
                                   {"asm", ".s", ""},
                                   {"hlo", ".hlo", ""},
                                   {"report", ".report.txt", ".report.json"},
                                   {"dot", ".import.dot", ".opt.dot"}};

Error checkEmitKinds(const std::vector<std::string> &kinds) {
  for (const std::string &kind : kinds) {
    bool known = false;
    for (const EmitKind &row : kEmitKinds)
      known |= row.name == kind;
    if (!known)
      return makeError(
          "unknown --emit kind '{}'; valid kinds: llvm, asm, hlo, report, dot",
          kind);
  }
  return Error::success();
}

/// --namespace must be C++ identifiers joined by "::" (empty: global).
Error checkNamespace(const std::string &path) {
  std::string_view rest = path;
  while (!rest.empty()) {
    size_t sep = rest.find("::");
    std::string_view part = rest.substr(0, sep);
    if (part.empty() || aot::toCIdentifier(part) != part)
      return makeError("invalid --namespace '{}': expected C++ identifiers "
                       "separated by '::', as in --namespace acme::models",
                       path);
    rest = sep == std::string_view::npos ? "" : rest.substr(sep + 2);
    if (sep != std::string_view::npos && rest.empty())
      return makeError("invalid --namespace '{}': it ends with '::'", path);
  }
  return Error::success();
}

bool wants(const std::vector<std::string> &kinds, std::string_view kind) {
  for (const std::string &k : kinds)
    if (k == kind)
      return true;
  return false;
}

/// A directory in the way of one output would make the final renames fail
/// half-way; refusing up front keeps "all files or none".
Error checkNoDirectories(const std::vector<std::string> &paths) {
  std::error_code ignored;
  for (const std::string &path : paths)
    if (std::filesystem::is_directory(path, ignored))
      return makeError("cannot write '{}': it is a directory", path);
  return Error::success();
}

/// -o PREFIX, or the model's stem in the current directory.
std::string outputPrefix(const CompileOptions &options) {
  if (!options.outputPrefix.empty())
    return options.outputPrefix;
  return std::filesystem::path(options.model).stem().string();
}

// The phases `kiln compile --time-phases` reports (docs/cli.md).
constexpr const char *kPhaseImport = "import";
constexpr const char *kPhasePasses = "HLO passes";
constexpr const char *kPhaseIRGeneration = "LLVM IR generation";
constexpr const char *kPhaseOptimization = "LLVM optimization";
constexpr const char *kPhaseMachineCode = "machine code";
constexpr const char *kPhaseWriting = "writing";

aot::TensorInfo tensorInfo(std::string name, const ir::Shape &shape) {
  aot::TensorInfo tensor;
  tensor.name = std::move(name);
  tensor.dtype = shape.dtype();
  tensor.shape = shape.dims();
  tensor.bytes = shape.byteSize();
  return tensor;
}

std::vector<analysis::ArgWriteBack>
writeBacks(const import::ImportedModel &model);

/// Every while of `module` with its trip count and the arena bytes of its
/// condition's and body's values (the manifest's "loops").
std::vector<aot::LoopInfo>
describeLoops(const ir::Module &module,
              const analysis::BufferAssignment &buffers) {
  std::vector<aot::LoopInfo> loops;
  for (const ir::Computation *computation : module.computations())
    for (const ir::Instruction *instruction : computation->instructions()) {
      if (instruction->opcode() != ir::Opcode::While)
        continue;
      analysis::ValueRef block{
          instruction, analysis::BufferAssignment::kCalleeBlockIndex};
      loops.push_back(
          {instruction->name(), computation->name(),
           analysis::whileTripCount(*instruction).value_or(-1),
           buffers.hasSlice(block) ? buffers.slice(block).bytes : 0});
    }
  return loops;
}

/// The machine-code half: generate, optimize, emit. Adds the files to
/// `files`, fills the weights/symbols fields of `info` and times each step.
Error generateCode(const import::ImportedModel &model,
                   const CompileOptions &options,
                   const target::ResolvedTarget &resolved,
                   const std::string &prefix, aot::ModelInfo &info,
                   AtomicFileSet &files, PhaseTimes &phases) {
  const ir::Module &module = *model.module;
  std::optional<PhaseTimer> timer;
  timer.emplace(phases, kPhaseIRGeneration);
  Expected<analysis::BufferAssignment> buffers =
      analysis::BufferAssignment::build(module, writeBacks(model),
                                        options.winograd);
  if (!buffers)
    return buffers.takeError();
  if (Error error = checkArenaSize(*buffers))
    return error;
  auto machine = target::createTargetMachine(resolved);
  if (!machine)
    return machine.takeError();
  if (Error error = checkAddressSpace(*buffers, module, **machine))
    return error;
  llvm::LLVMContext context;
  codegen::CodeGenOptions codegenOptions;
  codegenOptions.entryName = info.name + "_run";
  codegenOptions.fastMath = options.fastMath;
  codegenOptions.profile = options.profile;
  codegenOptions.winograd = options.winograd;
  auto generated =
      codegen::emitModule(module, *buffers, codegenOptions, context, **machine);
  if (!generated)
    return generated.takeError();
  placeWeights(*generated->module, options.weightsSection);
  timer.emplace(phases, kPhaseOptimization);
  unsigned threads =
      options.threads ? options.threads : target::defaultThreadCount();
  auto optimized = target::optimizeModuleInParallel(
      std::move(generated->module), resolved, threads);
  if (!optimized)
    return optimized.takeError();
  llvm::Module &llvmModule = **optimized;
  timer.emplace(phases, kPhaseMachineCode);

  info.arenaBytes = buffers->arenaBytes();
  info.arenaAlignment = analysis::BufferAssignment::kArenaAlignment;
  info.peakLiveBytes = buffers->peakLiveBytes();
  info.weightsBytes = generated->weightsBytes;
  info.tuning = generated->targetDescription;
  for (const codegen::KernelRecord &record : generated->kernels)
    info.kernels.push_back({record.instruction, record.kernel, record.function,
                            record.m, record.n, record.k, record.mr, record.nr,
                            record.kc, record.mc, record.packedWeights,
                            record.epilogue, record.tasks});
  info.loops = describeLoops(module, *buffers);
  info.profile = options.profile;
  for (const codegen::ProfileKernel &kernel : generated->profileKernels)
    info.profileKernels.push_back({kernel.instruction, kernel.opcode,
                                   kernel.sources, kernel.flops,
                                   kernel.bytesRead, kernel.bytesWritten});
  if (wants(options.emit, "llvm")) {
    auto text =
        target::emitModule(llvmModule, **machine, target::OutputKind::LLVMIR);
    if (!text)
      return text.takeError();
    files.add(prefix + ".ll", std::move(*text));
  }
  // Code generation rewrites the IR it runs on, so the assembly is made from
  // a copy: the object is then the same with or without --emit asm.
  if (wants(options.emit, "asm")) {
    std::unique_ptr<llvm::Module> copy = llvm::CloneModule(llvmModule);
    auto text =
        target::emitModule(*copy, **machine, target::OutputKind::Assembly);
    if (!text)
      return text.takeError();
    files.add(prefix + ".s", std::move(*text));
  }
  auto object =
      target::emitObjectInParallel(llvmModule, **machine, resolved, threads,
                                   options.codegenPartitions);
  if (!object)
    return object.takeError();
  // The sizes are the object's own, as the linker and `nm` see them.
  Expected<std::vector<ObjectSymbol>> symbols = readObjectSymbols(*object);
  if (!symbols)
    return symbols.takeError();
  Expected<std::vector<std::string>> required = readUndefinedSymbols(*object);
  if (!required)
    return required.takeError();
  info.requiredSymbols = std::move(*required);
  ObjectSizes sizes = sumObjectSizes(*symbols);
  info.codeBytes = sizes.codeBytes;
  info.objectWeightBytes = sizes.weightBytes;
  Expected<ObjectFootprint> footprint = readObjectFootprint(*object);
  if (!footprint)
    return footprint.takeError();
  info.flashBytes = footprint->flashBytes();
  info.ramBytes = ramBytes(info, *footprint);
  if (Error error =
          checkPartBudget({options.maxFlashBytes, options.maxRamBytes}, info,
                          *footprint, *buffers))
    return error;
  if (wants(options.emit, "report")) {
    CompileReport report =
        buildCompileReport(info, module, *buffers, *symbols);
    files.add(prefix + ".report.txt", report.toText());
    files.add(prefix + ".report.json", report.toJson());
  }
  files.add(prefix + ".o", std::move(*object));
  return Error::success();
}

/// Root elements that are new values of writable variables: not results.
bool isWrittenBack(const std::vector<import::VariableUpdate> &updates,
                   size_t result) {
  for (const import::VariableUpdate &update : updates)
    if (update.result == result)
      return true;
  return false;
}

aot::ModelInfo describe(const ir::Module &module,
                        const std::vector<import::ArgMetadata> &args,
                        const std::vector<std::string> &names,
                        const std::vector<import::VariableUpdate> &updates,
                        const std::vector<import::BoundedResult> &bounded,
                        const std::map<size_t, std::vector<int64_t>> &layouts,
                        const std::string &name) {
  aot::ModelInfo info;
  info.name = aot::toCIdentifier(name);
  const ir::Computation &entry = *module.entry();
  std::vector<ir::Instruction *> parameters = entry.parameters();
  for (size_t i = 0; i < parameters.size(); ++i) {
    const ir::Instruction *parameter = entry.parameter(int64_t(i));
    const import::ArgMetadata &arg = args.at(i);
    aot::TensorInfo tensor = tensorInfo(arg.name, parameter->shape());
    tensor.kind = arg.variable ? aot::ArgKind::Variable : aot::ArgKind::Feed;
    tensor.readonly = arg.readonly;
    tensor.layout = arg.layout;
    info.args.push_back(std::move(tensor));
  }
  const ir::Shape &rootShape = entry.root()->shape();
  std::vector<ir::Shape> shapes = rootShape.isTuple()
                                      ? rootShape.tupleElements()
                                      : std::vector<ir::Shape>{rootShape};
  // Module result i is info.results[position[i]] unless written back.
  std::vector<size_t> position;
  for (size_t i = 0; i < shapes.size(); ++i) {
    position.push_back(info.results.size());
    if (isWrittenBack(updates, i))
      continue;
    info.results.push_back(tensorInfo(names.at(i), shapes[i]));
    if (auto layout = layouts.find(i); layout != layouts.end())
      info.results.back().layout = layout->second;
  }
  for (const import::BoundedResult &result : bounded)
    info.bounded.push_back({position.at(result.result), result.dim,
                            position.at(result.countResult)});
  return info;
}

} // namespace

aot::ModelInfo describeModel(const ir::Module &module,
                             const std::string &name) {
  std::vector<import::ArgMetadata> args;
  for (const ir::Instruction *parameter : module.entry()->parameters())
    args.push_back(import::ArgMetadata::feed(parameter->name()));
  return describe(module, args, resultNames(module), {}, {}, {}, name);
}

aot::ModelInfo describeModel(const import::ImportedModel &model,
                             const std::string &name) {
  return describe(*model.module, model.args, model.resultNames,
                  model.variableUpdates, model.boundedResults,
                  model.resultLayouts, name);
}

namespace {
std::vector<analysis::ArgWriteBack>
writeBacks(const import::ImportedModel &model) {
  std::vector<analysis::ArgWriteBack> out;
  for (const import::VariableUpdate &update : model.variableUpdates)
    out.push_back({int64_t(update.result), int64_t(update.arg)});
  return out;
}

/// The importer's promise, checked: every update writes a writable
/// variable from an existing result.
Error checkVariableUpdates(const import::ImportedModel &model) {
  for (const import::VariableUpdate &update : model.variableUpdates) {
    if (update.arg >= model.args.size() || !model.args[update.arg].variable ||
        model.args[update.arg].readonly)
      return makeError("internal error: result {} updates argument {}, which "
                       "is not a writable variable",
                       update.result, update.arg);
    if (update.result >= model.resultNames.size())
      return makeError("internal error: variable '{}' is updated by result "
                       "{}, which does not exist",
                       model.args[update.arg].name, update.result);
  }
  return Error::success();
}
/// --emit dot: PREFIX.import.dot and PREFIX.opt.dot, and their SVG when
/// `svg` (Graphviz is on PATH).
Error addDotFiles(const ir::Module &imported, const ir::Module &optimized,
                  const std::string &name, const std::string &prefix, bool svg,
                  AtomicFileSet &files) {
  const std::pair<const ir::Module *, const char *> stages[] = {
      {&imported, "import"}, {&optimized, "opt"}};
  for (const auto &[module, stage] : stages) {
    std::string title = fmt::format(
        "{}: {}", name,
        module == &imported ? "imported HLO" : "optimized HLO (as compiled)");
    std::string dot = moduleToDot(*module, title);
    std::string path = fmt::format("{}.{}.dot", prefix, stage);
    if (svg) {
      Expected<std::string> picture = renderSvg(dot, path);
      if (!picture)
        return picture.takeError();
      files.add(fmt::format("{}.{}.svg", prefix, stage), std::move(*picture));
    }
    files.add(path, std::move(dot));
  }
  return Error::success();
}
} // namespace

Expected<CompileResult> compileModel(const CompileOptions &options) {
  if (Error error = checkEmitKinds(options.emit))
    return error;
  if (Error error = checkNamespace(options.cppNamespace))
    return error;
  Expected<target::ResolvedTarget> resolved =
      target::resolveTarget({options.triple, options.cpu, options.features});
  if (!resolved)
    return resolved.takeError();
  PhaseTimes phases;
  std::optional<PhaseTimer> timer;
  timer.emplace(phases, kPhaseImport);
  Expected<import::ImportedModel> imported =
      importModel(options.model, options.import);
  if (!imported)
    return imported.takeError();
  if (Error error = checkDeclaredSizes(*imported))
    return error;
  // Optimized before buffer assignment; `kiln run --reference` keeps
  // evaluating the unoptimized import, so e2e tests compare the two.
  timer.emplace(phases, kPhasePasses);
  Expected<std::unique_ptr<ir::Module>> optimized =
      optimizedCopy(*imported->module, options.optimize, options.fusion);
  if (!optimized)
    return optimized.takeError();
  std::unique_ptr<ir::Module> beforePasses = std::move(imported->module);
  imported->module = std::move(*optimized);
  timer.reset();
  Expected<CompileResult> result =
      compileImported(*imported, options, beforePasses.get());
  if (!result)
    return result.takeError();
  phases.append(result->phases);
  result->phases = std::move(phases);
  return result;
}

Expected<CompileResult> compileImported(const import::ImportedModel &imported,
                                        const CompileOptions &options,
                                        const ir::Module *beforePasses) {
  if (Error error = checkEmitKinds(options.emit))
    return error;
  if (Error error = checkNamespace(options.cppNamespace))
    return error;
  Expected<target::ResolvedTarget> resolved =
      target::resolveTarget({options.triple, options.cpu, options.features});
  if (!resolved)
    return resolved.takeError();
  if (Error error = checkSectionName("--weights-section",
                                     options.weightsSection, resolved->triple))
    return error;
  if (Error error = checkSectionName("--arena-section", options.arenaSection,
                                     resolved->triple))
    return error;
  if (Error error = checkVariableUpdates(imported))
    return error;
  const std::unique_ptr<ir::Module> *module = &imported.module;

  std::string prefix = outputPrefix(options);
  std::string name = options.name.empty()
                         ? std::filesystem::path(prefix).filename().string()
                         : options.name;
  CompileResult result;
  for (const char *suffix : {".o", ".h", ".json"})
    result.files.push_back(prefix + suffix);
  for (const EmitKind &kind : kEmitKinds)
    if (wants(options.emit, kind.name)) {
      result.files.push_back(prefix + std::string(kind.suffix));
      if (!kind.secondSuffix.empty())
        result.files.push_back(prefix + std::string(kind.secondSuffix));
    }
  bool svg = wants(options.emit, "dot") && graphvizAvailable();
  if (svg)
    for (const char *suffix : {".import.svg", ".opt.svg"})
      result.files.push_back(prefix + suffix);
  else if (wants(options.emit, "dot"))
    result.notes.push_back("Graphviz's 'dot' is not on PATH: wrote the .dot "
                           "files without SVG (install graphviz for them)");
  if (Error error = checkNoDirectories(result.files))
    return error;
  result.warnings = resolved->warnings;
  result.info = describeModel(imported, name);
  result.info.cppNamespace = options.cppNamespace;
  result.info.triple = resolved->triple;
  result.info.cpu = resolved->cpu;
  result.info.features = resolved->features;
  result.info.weightsSection = options.weightsSection;
  result.info.arenaSection = options.arenaSection;

  AtomicFileSet files;
  if (Error error = generateCode(imported, options, *resolved, prefix,
                                 result.info, files, result.phases))
    return error;
  {
    PhaseTimer timer(result.phases, kPhaseWriting);
    files.add(prefix + ".h", aot::generateHeader(result.info));
    files.add(prefix + ".json", aot::generateManifest(result.info));
    if (wants(options.emit, "hlo"))
      files.add(prefix + ".hlo", ir::printModule(**module));
    if (wants(options.emit, "dot"))
      if (Error error = addDotFiles(beforePasses ? *beforePasses : **module,
                                    **module, result.info.name, prefix, svg,
                                    files))
        return error;
    if (Error error = files.commit())
      return error;
  }
  return result;
}

} // namespace kiln::driver
