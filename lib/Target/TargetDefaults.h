//===- TargetDefaults.h - Per-architecture CPU and feature defaults -*- C++
//-*-===//
//
// What `--target` alone implies on the 32-bit ARM and RISC-V targets: the
// default CPU of each triple, the subtarget features that CPU has (LLVM 19's
// ARM TargetMachine does not derive NEON or the VFP version from -mcpu; the
// driver normally does), and the ABI name RISC-V's Linux ELF needs.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_LIB_TARGET_TARGETDEFAULTS_H
#define KILN_LIB_TARGET_TARGETDEFAULTS_H

#include "kiln/Support/Error.h"

#include <optional>
#include <string>
#include <vector>

namespace llvm {
class Triple;
} // namespace llvm

namespace kiln::target {

/// 32-bit ARM (ARM or Thumb state) and 64-bit RISC-V: the architectures
/// whose CPU defaults and features kiln derives itself.
bool isArm32(const llvm::Triple &triple);
bool isRiscV64(const llvm::Triple &triple);

/// The CPU a triple implies when --cpu is not given (cortex-m4 for
/// thumbv7em, cortex-a7 for armv7a Linux, ...); nullopt where kiln keeps
/// LLVM's "generic" with a warning (x86-64, AArch64).
std::optional<std::string> defaultCpu(const llvm::Triple &triple);

/// The subtarget features `cpu` has on `triple`, as "+a"/"-b" entries that
/// come before the user's --features: the FPU (VFP version, d32, fp16,
/// NEON) and architecture extensions on ARM, RV64GC on RISC-V, and MVE
/// switched off on Cortex-M55 until the user asks for it (+mve / +mve.fp).
std::vector<std::string> cpuFeatures(const llvm::Triple &triple,
                                     const std::string &cpu);

/// An M-profile CPU generates Thumb code for a Cortex-M triple only, and a
/// Cortex-M triple needs an M-profile CPU: anything else is an error.
Error checkCpuProfile(const llvm::Triple &triple, const std::string &cpu);

/// The ABI name for the MC layer ("lp64d" on RISC-V 64 with the D
/// extension); empty where the triple decides.
std::string abiName(const llvm::Triple &triple, const std::string &features);

} // namespace kiln::target

#endif // KILN_LIB_TARGET_TARGETDEFAULTS_H
