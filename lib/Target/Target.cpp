//===- Target.cpp - Target selection and machine code emission -----------===//
//
// Only the X86, AArch64, ARM and RISC-V backends are initialized: those are
// the targets kiln generates code for, and initializing just them keeps
// start-up cheap. Per-triple CPU and feature defaults: TargetDefaults.cpp.
//
//===----------------------------------------------------------------------===//
#include "kiln/Target/Target.h"

#include "TargetDefaults.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Analysis/CGSCCPassManager.h"
#include "llvm/Analysis/LoopAnalysisManager.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/PassManager.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Target/TargetOptions.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/TargetParser/SubtargetFeature.h"
#include "llvm/TargetParser/Triple.h"

#include <algorithm>
#include <mutex>

extern "C" {
void LLVMInitializeX86TargetInfo();
void LLVMInitializeX86Target();
void LLVMInitializeX86TargetMC();
void LLVMInitializeX86AsmPrinter();
void LLVMInitializeX86AsmParser();
void LLVMInitializeAArch64TargetInfo();
void LLVMInitializeAArch64Target();
void LLVMInitializeAArch64TargetMC();
void LLVMInitializeAArch64AsmPrinter();
void LLVMInitializeAArch64AsmParser();
void LLVMInitializeARMTargetInfo();
void LLVMInitializeARMTarget();
void LLVMInitializeARMTargetMC();
void LLVMInitializeARMAsmPrinter();
void LLVMInitializeARMAsmParser();
void LLVMInitializeRISCVTargetInfo();
void LLVMInitializeRISCVTarget();
void LLVMInitializeRISCVTargetMC();
void LLVMInitializeRISCVAsmPrinter();
void LLVMInitializeRISCVAsmParser();
}

namespace kiln::target {

namespace {

/// The triples kiln is tested on; listed in errors about unknown targets.
constexpr const char *kKnownTriples[] = {"x86_64-linux-gnu",
                                         "aarch64-linux-gnu",
                                         "aarch64-linux-android",
                                         "arm64-apple-ios",
                                         "arm64-apple-macos",
                                         "x86_64-apple-macos",
                                         "aarch64-none-elf",
                                         "armv7a-linux-gnueabihf",
                                         "thumbv7em-none-eabihf",
                                         "thumbv7em-none-eabi",
                                         "thumbv8m.main-none-eabihf",
                                         "thumbv8.1m.main-none-eabihf",
                                         "armv7-none-linux-androideabi21",
                                         "riscv64-linux-gnu"};

std::string knownTriplesList() {
  std::string list;
  for (const char *triple : kKnownTriples)
    list += std::string(list.empty() ? "" : ", ") + triple;
  return list;
}

bool isSupportedArch(const llvm::Triple &triple) {
  return triple.getArch() == llvm::Triple::x86_64 ||
         triple.getArch() == llvm::Triple::aarch64 || isArm32(triple) ||
         isRiscV64(triple);
}

/// Operating systems whose objects must be position independent (they end
/// up in PIE executables and shared libraries); bare metal stays static.
bool hasOperatingSystem(const llvm::Triple &triple) {
  return triple.getOS() != llvm::Triple::UnknownOS;
}

/// The host, when `triple` names the same architecture, OS and environment
/// (the vendor field differs between distributions: pc, unknown, ...).
bool isHostTriple(const llvm::Triple &triple) {
  llvm::Triple host(llvm::sys::getProcessTriple());
  return triple.getArch() == host.getArch() && triple.getOS() == host.getOS() &&
         triple.getEnvironment() == host.getEnvironment();
}

/// The host's CPU features as a "+a,-b" string, sorted for determinism.
std::string hostFeatures() {
  std::vector<std::string> features;
  for (const auto &entry : llvm::sys::getHostCPUFeatures())
    features.push_back((entry.second ? "+" : "-") + entry.first().str());
  std::sort(features.begin(), features.end());
  return llvm::join(features, ",");
}

Expected<const llvm::Target *> lookup(const std::string &triple) {
  std::string message;
  const llvm::Target *found =
      llvm::TargetRegistry::lookupTarget(triple, message);
  if (!found)
    return makeError("unknown target '{}': {}; valid targets: {}", triple,
                     message, knownTriplesList());
  return found;
}

Error checkCpu(const llvm::MCSubtargetInfo &info, const std::string &cpu,
               const std::string &triple) {
  if (cpu == "generic" || info.isCPUStringValid(cpu))
    return Error::success();
  std::string names;
  for (const llvm::SubtargetSubTypeKV &kv : info.getAllProcessorDescriptions())
    names += std::string(names.empty() ? "" : ", ") + kv.Key;
  return makeError("unsupported --cpu '{}' for target '{}'; valid CPUs: {}",
                   cpu, triple, names);
}

Error checkFeatures(const llvm::MCSubtargetInfo &info,
                    const std::string &features, const std::string &triple) {
  if (features.empty())
    return Error::success();
  llvm::SmallVector<llvm::StringRef, 8> items;
  llvm::StringRef(features).split(items, ',', -1, /*KeepEmpty=*/false);
  for (llvm::StringRef item : items) {
    item = item.trim();
    if (!item.starts_with("+") && !item.starts_with("-"))
      return makeError("invalid --features entry '{}': expected +name or "
                       "-name, as in --features +neon,-sve",
                       item.str());
    llvm::StringRef name = item.drop_front();
    const auto &all = info.getAllProcessorFeatures();
    bool known = std::any_of(all.begin(), all.end(),
                             [&](const auto &kv) { return name == kv.Key; });
    if (!known)
      return makeError("unknown feature '{}' in --features for target '{}'",
                       name.str(), triple);
  }
  return Error::success();
}

} // namespace

void initializeTargets() {
  static std::once_flag once;
  std::call_once(once, [] {
    LLVMInitializeX86TargetInfo();
    LLVMInitializeX86Target();
    LLVMInitializeX86TargetMC();
    LLVMInitializeX86AsmPrinter();
    // The parsers assemble the code that ParallelCodeGen.cpp generates as
    // text on several threads.
    LLVMInitializeX86AsmParser();
    LLVMInitializeAArch64TargetInfo();
    LLVMInitializeAArch64Target();
    LLVMInitializeAArch64TargetMC();
    LLVMInitializeAArch64AsmPrinter();
    LLVMInitializeAArch64AsmParser();
    LLVMInitializeARMTargetInfo();
    LLVMInitializeARMTarget();
    LLVMInitializeARMTargetMC();
    LLVMInitializeARMAsmPrinter();
    LLVMInitializeARMAsmParser();
    LLVMInitializeRISCVTargetInfo();
    LLVMInitializeRISCVTarget();
    LLVMInitializeRISCVTargetMC();
    LLVMInitializeRISCVAsmPrinter();
    LLVMInitializeRISCVAsmParser();
  });
}

Expected<ResolvedTarget> resolveTarget(const TargetOptions &options) {
  initializeTargets();
  ResolvedTarget resolved;
  std::string requested =
      options.triple.empty() ? llvm::sys::getProcessTriple() : options.triple;
  llvm::Triple triple(llvm::Triple::normalize(requested));
  if (!isSupportedArch(triple))
    return makeError("unknown target '{}': kiln generates code for x86-64, "
                     "AArch64, 32-bit ARM and RISC-V 64 only; valid targets: "
                     "{}",
                     requested, knownTriplesList());
  resolved.triple = triple.str();
  resolved.isHost = isHostTriple(triple);

  if (options.cpu == "native" || (options.cpu.empty() && resolved.isHost)) {
    if (!resolved.isHost)
      return makeError("--cpu native needs the host target ({}), not '{}'",
                       llvm::sys::getProcessTriple(), resolved.triple);
    resolved.cpu = llvm::sys::getHostCPUName().str();
  } else if (options.cpu.empty() && defaultCpu(triple)) {
    resolved.cpu = *defaultCpu(triple);
  } else if (options.cpu.empty()) {
    resolved.cpu = "generic";
    resolved.warnings.push_back(fmt::format(
        "cross target '{}' without --cpu: generating code for the generic "
        "CPU; pass --cpu (for example --cpu {}) to use the target's features",
        resolved.triple,
        triple.getArch() == llvm::Triple::aarch64 ? "cortex-a72" : "skylake"));
  } else {
    resolved.cpu = options.cpu;
  }

  Expected<const llvm::Target *> found = lookup(resolved.triple);
  if (!found)
    return found.takeError();
  std::unique_ptr<llvm::MCSubtargetInfo> info(
      (*found)->createMCSubtargetInfo(resolved.triple, "", ""));
  if (Error error = checkCpu(*info, resolved.cpu, resolved.triple))
    return error;
  if (Error error = checkCpuProfile(triple, resolved.cpu))
    return error;
  if (Error error = checkFeatures(*info, options.features, resolved.triple))
    return error;
  // The CPU's own features first, so the user's --features win; the
  // manifest then states everything the code was generated for.
  std::vector<std::string> features = cpuFeatures(triple, resolved.cpu);
  if (!options.features.empty())
    features.push_back(options.features);
  resolved.features = llvm::join(features, ",");
  return resolved;
}

Expected<std::unique_ptr<llvm::TargetMachine>>
createTargetMachine(const ResolvedTarget &target) {
  initializeTargets();
  Expected<const llvm::Target *> found = lookup(target.triple);
  if (!found)
    return found.takeError();
  llvm::Triple triple(target.triple);
  // The host CPU's name alone can claim features a VM disables; the host's
  // detected features are authoritative, and the user's come last to win.
  std::string features = target.features;
  if (target.isHost && target.cpu == llvm::sys::getHostCPUName()) {
    std::string host = hostFeatures();
    features = features.empty() ? host : host + "," + features;
  }
  llvm::TargetOptions options;
  // Assembly (--emit asm) carries LLVM's comments: loop headers and
  // depths, spill and reload markers, which the kernel tests check.
  options.MCOptions.AsmVerbose = true;
  options.MCOptions.ABIName = abiName(triple, features);
  auto reloc =
      hasOperatingSystem(triple) ? llvm::Reloc::PIC_ : llvm::Reloc::Static;
  std::unique_ptr<llvm::TargetMachine> machine((*found)->createTargetMachine(
      target.triple, target.cpu, features, options, reloc, std::nullopt,
      llvm::CodeGenOptLevel::Aggressive));
  if (!machine)
    return makeError("cannot create a target machine for '{}' (cpu '{}')",
                     target.triple, target.cpu);
  return machine;
}

// O3 everywhere, by measurement: with one function per instruction, O2
// and O1 compiled the bench models within noise of O3 on this shared
// machine (CPU s, --threads 1, best of 2: posenet O3 2.02 / O2 1.31 / O1
// 1.86, movenet-lightning 1.75 / 1.69 / 1.47, faceres-deep 2.00 / 2.20 /
// 1.90, blazeface-front 1.63 / 1.57 / 1.52), and run time showed no gain
// for them either; the hand-vectorized kernels leave LLVM little to do at
// any level, so a per-function level would buy nothing measurable.
Error optimizeModule(llvm::Module &module, llvm::TargetMachine &machine) {
  module.setTargetTriple(machine.getTargetTriple().str());
  module.setDataLayout(machine.createDataLayout());

  llvm::LoopAnalysisManager loops;
  llvm::FunctionAnalysisManager functions;
  llvm::CGSCCAnalysisManager cgscc;
  llvm::ModuleAnalysisManager modules;
  llvm::PassBuilder builder(&machine);
  builder.registerModuleAnalyses(modules);
  builder.registerCGSCCAnalyses(cgscc);
  builder.registerFunctionAnalyses(functions);
  builder.registerLoopAnalyses(loops);
  builder.crossRegisterProxies(loops, functions, cgscc, modules);
  llvm::ModulePassManager pipeline =
      builder.buildPerModuleDefaultPipeline(llvm::OptimizationLevel::O3);
  pipeline.run(module, modules);
  return Error::success();
}

Expected<std::string> emitModule(llvm::Module &module,
                                 llvm::TargetMachine &machine,
                                 OutputKind kind) {
  module.setTargetTriple(machine.getTargetTriple().str());
  module.setDataLayout(machine.createDataLayout());
  llvm::SmallVector<char, 0> buffer;
  llvm::raw_svector_ostream stream(buffer);
  if (kind == OutputKind::LLVMIR) {
    module.print(stream, nullptr);
    return std::string(buffer.begin(), buffer.end());
  }
  llvm::legacy::PassManager passes;
  auto fileType = kind == OutputKind::Object
                      ? llvm::CodeGenFileType::ObjectFile
                      : llvm::CodeGenFileType::AssemblyFile;
  if (machine.addPassesToEmitFile(passes, stream, nullptr, fileType))
    return makeError("target '{}' cannot emit this file type",
                     machine.getTargetTriple().str());
  passes.run(module);
  return std::string(buffer.begin(), buffer.end());
}

} // namespace kiln::target
