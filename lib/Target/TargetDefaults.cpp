//===- TargetDefaults.cpp - Per-architecture CPU and feature defaults -----===//
//
// The facts come from LLVM's ARM TargetParser (each CPU's default FPU and
// extensions, the same tables clang's driver reads); the choices that are
// kiln's own are the default CPUs of the issue-26 targets and the baselines
// of the "generic" CPU on armv7 Linux (VFPv3-D16, Debian's armhf) and on
// Android (NEON, required by armeabi-v7a since NDK r21).
//
//===----------------------------------------------------------------------===//
#include "TargetDefaults.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/TargetParser/ARMTargetParser.h"
#include "llvm/TargetParser/Triple.h"

#include <algorithm>

namespace kiln::target {

namespace {

bool isGeneric(const std::string &cpu) {
  return cpu.empty() || cpu == "generic";
}

llvm::ARM::ArchKind tripleArch(const llvm::Triple &triple) {
  return llvm::ARM::parseArch(triple.getArchName());
}

bool isMProfile(llvm::ARM::ArchKind arch) {
  return arch != llvm::ARM::ArchKind::INVALID &&
         llvm::ARM::parseArchProfile(llvm::ARM::getArchName(arch)) ==
             llvm::ARM::ProfileKind::M;
}

/// The FPU of the generic CPU: the arch's own default (none on ARMv7-M),
/// except for the two Linux ABIs whose baseline the arch alone does not say.
llvm::ARM::FPUKind genericFpu(const llvm::Triple &triple,
                              llvm::ARM::ArchKind arch) {
  if (triple.isAndroid())
    return llvm::ARM::parseFPU("neon");
  if (arch == llvm::ARM::ArchKind::ARMV7A &&
      triple.getEnvironment() == llvm::Triple::GNUEABIHF)
    return llvm::ARM::parseFPU("vfpv3-d16");
  return llvm::ARM::getDefaultFPU("generic", arch);
}

/// Each feature once, where it last occurs: the FPU and extension lists
/// repeat some (-aes, -sha2, -fullfp16), and the last entry is what counts.
std::vector<std::string> lastOfEach(const std::vector<llvm::StringRef> &all) {
  std::vector<std::string> result;
  for (size_t i = 0; i < all.size(); ++i) {
    llvm::StringRef name = all[i].drop_front();
    bool later = std::any_of(all.begin() + i + 1, all.end(),
                             [&](llvm::StringRef f) {
                               return f.drop_front() == name;
                             });
    if (!later)
      result.push_back(all[i].str());
  }
  return result;
}

std::vector<std::string> armFeatures(const llvm::Triple &triple,
                                     const std::string &cpu) {
  llvm::ARM::ArchKind arch =
      isGeneric(cpu) ? tripleArch(triple) : llvm::ARM::parseCPUArch(cpu);
  llvm::ARM::FPUKind fpu = isGeneric(cpu) ? genericFpu(triple, arch)
                                          : llvm::ARM::getDefaultFPU(cpu, arch);
  std::vector<llvm::StringRef> features;
  llvm::ARM::getFPUFeatures(fpu, features);
  llvm::ARM::getExtensionFeatures(
      llvm::ARM::getDefaultExtensions(isGeneric(cpu) ? "generic" : cpu, arch),
      features);
  std::vector<std::string> result = lastOfEach(features);
  // Helium (MVE) stays off until its code is checked against the scalar
  // code; --features +mve.fp (after these) turns it on.
  if (std::find(result.begin(), result.end(), "+mve") != result.end() ||
      std::find(result.begin(), result.end(), "+mve.fp") != result.end()) {
    result.push_back("-mve.fp");
    result.push_back("-mve");
  }
  return result;
}

} // namespace

bool isArm32(const llvm::Triple &triple) {
  return triple.getArch() == llvm::Triple::arm ||
         triple.getArch() == llvm::Triple::thumb;
}

bool isRiscV64(const llvm::Triple &triple) {
  return triple.getArch() == llvm::Triple::riscv64;
}

std::optional<std::string> defaultCpu(const llvm::Triple &triple) {
  if (isRiscV64(triple))
    return "generic-rv64";
  if (!isArm32(triple))
    return std::nullopt;
  switch (tripleArch(triple)) {
  case llvm::ARM::ArchKind::ARMV7EM:
    return "cortex-m4";
  case llvm::ARM::ArchKind::ARMV8MMainline:
    return "cortex-m33";
  case llvm::ARM::ArchKind::ARMV8_1MMainline:
    return "cortex-m55";
  case llvm::ARM::ArchKind::ARMV7A:
    return triple.isAndroid() ? "generic" : "cortex-a7";
  case llvm::ARM::ArchKind::ARMV6:
  case llvm::ARM::ArchKind::ARMV6K:
  case llvm::ARM::ArchKind::ARMV6KZ:
    return "arm1176jzf-s";
  default:
    // Any other ARM triple (thumbv6m, thumbv7m, arm-linux-gnueabihf, ...):
    // the CPU clang's driver picks for it.
    return llvm::ARM::getARMCPUForArch(triple).str();
  }
}

std::vector<std::string> cpuFeatures(const llvm::Triple &triple,
                                     const std::string &cpu) {
  if (isArm32(triple))
    return armFeatures(triple, cpu);
  // The Linux RISC-V ABI (lp64d) is RV64GC's; +v stays the user's choice.
  if (isRiscV64(triple) && (isGeneric(cpu) || cpu == "generic-rv64"))
    return {"+m", "+a", "+f", "+d", "+c", "+zicsr", "+zifencei"};
  return {};
}

Error checkCpuProfile(const llvm::Triple &triple, const std::string &cpu) {
  if (!isArm32(triple) || isGeneric(cpu))
    return Error::success();
  bool cpuIsM = isMProfile(llvm::ARM::parseCPUArch(cpu));
  bool tripleIsM = isMProfile(tripleArch(triple));
  if (cpuIsM == tripleIsM)
    return Error::success();
  if (cpuIsM)
    return makeError("--cpu {} is a Cortex-M (M-profile) CPU, but target '{}' "
                     "is not: use a Cortex-M triple such as "
                     "thumbv7em-none-eabihf",
                     cpu, triple.str());
  return makeError("target '{}' is a Cortex-M (M-profile) triple, but --cpu "
                   "{} is not an M-profile CPU (cortex-m4, cortex-m7, "
                   "cortex-m33, cortex-m55, ...)",
                   triple.str(), cpu);
}

std::string abiName(const llvm::Triple &triple, const std::string &features) {
  if (!isRiscV64(triple))
    return "";
  // The last +d or -d wins; without D, floats travel in integer registers.
  llvm::SmallVector<llvm::StringRef, 16> items;
  llvm::StringRef(features).split(items, ',', -1, /*KeepEmpty=*/false);
  bool hasDouble = false;
  for (llvm::StringRef item : items) {
    item = item.trim();
    if (item == "+d" || item == "-d")
      hasDouble = item == "+d";
  }
  return hasDouble ? "lp64d" : "lp64";
}

} // namespace kiln::target
