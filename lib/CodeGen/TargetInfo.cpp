//===- TargetInfo.cpp - What code generation knows about the target -------===//
//
// Vector facts come from the subtarget's features (not from TTI, whose
// answers follow tuning preferences such as prefer-vector-width). Cache
// sizes come from a small table of CPUs kiln is tuned for; LLVM only knows
// them for a few x86 models, and the tile choice needs them everywhere.
//
//===----------------------------------------------------------------------===//
#include "kiln/CodeGen/TargetInfo.h"

#include <llvm/MC/MCSubtargetInfo.h>
#include <llvm/Target/TargetMachine.h>
#include <llvm/TargetParser/Triple.h>

#include <fmt/format.h>

#include <algorithm>
#include <string_view>

namespace kiln::codegen {

/// The in-order AArch64 cores kiln tunes for (Raspberry Pi 3 / Zero 2's
/// A53, the A55): they issue in program order, so a GEMM tile must leave
/// registers for loads to run ahead of the FMAs that use them.
bool isInOrderAArch64(std::string_view cpu) {
  return cpu == "cortex-a53" || cpu == "cortex-a55";
}

namespace {

struct CacheRow {
  std::string_view cpu;
  int64_t l1KiB, l2KiB; // per core
};

// Per-core L1 data and L2 sizes of the CPUs kiln is most often built for.
// Shared L2s (Cortex-A53/A72 clusters) count a two-core share.
constexpr CacheRow kCaches[] = {
    {"znver2", 32, 512},          {"znver3", 32, 512},
    {"znver4", 32, 1024},         {"znver5", 48, 1024},
    {"haswell", 32, 256},         {"broadwell", 32, 256},
    {"skylake", 32, 256},         {"skylake-avx512", 32, 1024},
    {"cascadelake", 32, 1024},    {"icelake-server", 48, 1280},
    {"sapphirerapids", 48, 2048}, {"alderlake", 48, 1280},
    {"cortex-a53", 32, 256},      {"cortex-a55", 32, 256},
    {"cortex-a72", 32, 512},      {"cortex-a76", 64, 512},
    {"cortex-a78", 64, 512},      {"neoverse-n1", 64, 1024},
    {"neoverse-n2", 64, 1024},    {"neoverse-v1", 64, 1024},
    {"apple-m1", 128, 4096},
};

void setCaches(TargetInfo &info) {
  for (const CacheRow &row : kCaches)
    if (row.cpu == info.cpu) {
      info.l1Bytes = row.l1KiB * 1024;
      info.l2Bytes = row.l2KiB * 1024;
      return;
    }
}

/// Targets without vector registers (Cortex-M, ARM VFP-only, RISC-V
/// without V) still get 128-bit IR vectors, which LLVM splits into four
/// scalar operations: a 4-wide unrolled register block. Their 32 scalar
/// FP registers then hold 8 such "vectors" for the tile choice.
void setScalarFpu(TargetInfo &info) {
  info.vectorBits = 128;
  info.vectorRegisters = 8;
}

/// 32-bit ARM: NEON's 16 quad registers; without NEON (Cortex-M, the
/// VFPv3-D16 baseline) scalar code, see setScalarFpu. Fused
/// multiply-add (VFMA) comes with VFPv4 and ARMv8's FP; on a VFPv3 core
/// llvm.fma would be a libm call. Rounding to integral values is one
/// instruction from ARMv8's FP on (VRINT).
template <typename Has> void setArm32(TargetInfo &info, Has has) {
  if (has("+neon")) {
    info.vectorBits = 128;
    info.vectorRegisters = 16;
  } else {
    setScalarFpu(info);
  }
  info.fma = has("+vfp4d16sp");
  info.fmaDouble = has("+vfp4d16") && has("+fp64");
  info.doubleFpu = has("+fp64");
  info.nativeRounding = has("+fp-armv8d16sp");
}

/// RISC-V 64: the V extension's vectors are at least 128 bits (Zvl128b,
/// implied by V), and kiln's fixed-width vectors must be correct for any
/// VLEN >= 128, so 128 it is; 32 vector registers. F and D have FMADD.
/// Rounding to integral values needs Zfa (FROUND).
template <typename Has> void setRiscV(TargetInfo &info, Has has) {
  if (has("+v")) {
    info.vectorBits = 128;
    info.vectorRegisters = 32;
  } else {
    setScalarFpu(info);
  }
  info.fma = has("+f");
  info.fmaDouble = has("+d");
  info.doubleFpu = has("+d");
  info.nativeRounding = has("+zfa");
}

/// The cores with an inline-assembly GEMM micro-kernel (f32 only):
/// InOrderMicroKernel.cpp's schedule is tuned to the Cortex-A53. Little
/// endian only: its 128-bit `ldr q` of A puts element i in lane i there.
/// Not under +strict-align: A's rows are read at any 4-byte offset.
bool hasInOrderMicroKernel(const TargetInfo &info, int64_t elementBytes) {
  return info.isAArch64 && info.cpu == "cortex-a53" && elementBytes == 4 &&
         !info.strictAlign && llvm::Triple(info.triple).isLittleEndian();
}

/// Targets whose 128-bit IR vectors are four scalar registers (see
/// setScalarFpu): the only ones with 8 "vector" registers.
bool hasScalarFpu(const TargetInfo &info) {
  return !info.isX86 && !info.isAArch64 && info.vectorRegisters == 8;
}

/// Rows of the register tile on a scalar FPU (Cortex-M4F/M7/M33, VFP-only
/// ARM, RISC-V without V), one 4-column vector wide: there a broadcast A
/// value is one scalar register, not a vector, so the 32 registers hold
/// MR x 4 accumulators, the 4 B values of a step and MR A values.
/// 5 x 4 makes 20 multiply-adds per 9 loads (2 x 8: 16 per 10).
int64_t scalarFpuRows(const TargetInfo &info, int64_t lanes) {
  int64_t scalars = int64_t(info.vectorRegisters) * lanes;
  return std::clamp<int64_t>((scalars - lanes) / (lanes + 1), 1, 14);
}

/// 32-bit ARM with NEON: 16 quad registers for the whole tile.
bool isArm32Neon(const TargetInfo &info) {
  llvm::Triple triple(info.triple);
  return (triple.isARM() || triple.isThumb()) && info.vectorRegisters == 16;
}

int64_t roundDown(int64_t value, int64_t multiple) {
  return std::max(multiple, value / multiple * multiple);
}

} // namespace

TargetInfo TargetInfo::fromMachine(const llvm::TargetMachine &machine) {
  TargetInfo info;
  const llvm::Triple &triple = machine.getTargetTriple();
  const llvm::MCSubtargetInfo *features = machine.getMCSubtargetInfo();
  auto has = [&](const char *feature) {
    return features && features->checkFeatures(feature);
  };
  info.triple = triple.str();
  info.cpu = machine.getTargetCPU().str();
  info.isX86 = triple.isX86();
  info.isAArch64 = triple.isAArch64();
  // Asked only where the feature exists: elsewhere LLVM warns on stderr.
  info.strictAlign = info.isAArch64 && has("+strict-align");
  if (info.isAArch64) {
    info.vectorBits = 128;
    info.vectorRegisters = 32;
    info.fma = true;
    info.fmaDouble = true;
    info.doubleFpu = true;
    info.nativeRounding = true;
  } else if (info.isX86) {
    // 512-bit vectors are used whenever AVX-512F exists: even where a CPU
    // executes them as two 256-bit halves (Zen 4), the 32 registers hold a
    // larger register tile, and contractions are FMA-bound, not
    // frequency-bound.
    if (has("+avx512f")) {
      info.vectorBits = 512;
      info.vectorRegisters = 32;
    } else if (has("+avx")) {
      info.vectorBits = 256;
    }
    info.fma = has("+fma");
    info.fmaDouble = info.fma;
    info.doubleFpu = true;
    info.nativeRounding = has("+sse4.1");
  } else if (triple.isARM() || triple.isThumb()) {
    setArm32(info, has);
  } else if (triple.isRISCV64()) {
    setRiscV(info, has);
  }
  setCaches(info);
  return info;
}

GemmTile TargetInfo::gemmTile(int64_t elementBytes, int64_t m, int64_t n,
                              int64_t k) const {
  GemmTile tile;
  tile.lanes = std::max<int64_t>(1, lanes(elementBytes));
  // Vectors per row of the tile: two on x86 (AVX-512 14x32, AVX2 6x16, the
  // classic tiles), four on NEON, whose 128-bit vectors are narrow.
  int64_t vectors = isAArch64 ? 4 : hasScalarFpu(*this) ? 1 : 2;
  // Narrow outputs use fewer vectors (and more rows): packed weights are
  // zero-padded to NR columns, so NR never exceeds N rounded up to lanes.
  int64_t columnVectors =
      std::max<int64_t>(1, (n + tile.lanes - 1) / tile.lanes);
  vectors = std::min(vectors, columnVectors);
  // Keep one register for the A broadcast and one spare; without FMA every
  // step needs a product temporary as well.
  int64_t budget = int64_t(vectorRegisters) - vectors - 2 - (fma ? 0 : 2);
  if (isArm32Neon(*this)) {
    // With one register for A (6 x 8: 12 accumulators, 2 B, 1 A, 1 spare)
    // LLVM loads the next rows' A broadcasts while FMAs still read the
    // last one and spills: three accumulators per K step and 12 moves on
    // the A12, A15, A17, A53, A57 and A72 in AArch32, and on the in-order
    // A7 too when B is not packed. Two for A and a spare: 5 x 8
    // (docs/performance.md).
    budget = std::min(budget, int64_t(vectorRegisters) - vectors - 3);
  }
  tile.mr = hasScalarFpu(*this) ? scalarFpuRows(*this, tile.lanes)
                                : std::clamp<int64_t>(budget / vectors, 1, 14);
  if (isAArch64 && isInOrderAArch64(cpu)) {
    // An in-order core cannot load a register while an FMA still reads
    // it: give every row its own A register, loaded a vector (lanes K
    // steps) at a time, so the loads run ahead of the FMAs.
    tile.mr = std::clamp<int64_t>(
        (int64_t(vectorRegisters) - vectors - 1) / (vectors + 1), 1, 14);
    tile.kUnroll = tile.lanes;
  }
  tile.nr = tile.lanes * vectors;
  if (hasInOrderMicroKernel(*this, elementBytes) && vectors == 4) {
    // LLVM's scheduler cannot keep an A53 fed (docs/performance.md): a
    // fixed, software-pipelined schedule in inline assembly does, on a
    // 4 x 16 tile with a second set of B and A registers.
    tile.mr = 4;
    tile.asmKSteps = 8;
    tile.interleavedPanels = true;
  }
  if (m <= 4) {
    // Memory-bound: every weight is used m times. Up to eight vectors per
    // row keep enough independent FMA chains, within the same register
    // budget as the full tile.
    int64_t wide =
        std::clamp<int64_t>(tile.mr * vectors / std::max<int64_t>(m, 1), 1, 8);
    wide = std::min(wide, columnVectors);
    tile.mr = std::max<int64_t>(m, 1);
    tile.nr = tile.lanes * wide;
    if (tile.mr != 4 || tile.nr != 4 * tile.lanes) {
      tile.asmKSteps = 0; // the micro-kernel's tile is 4 x 16 only
      tile.interleavedPanels = false;
    }
  }
  // K is not split (KC = K): the epilogue then runs once, on registers,
  // and a K x NR panel of B streams from L1/L2 with a 14-row tile reusing
  // each loaded vector 14 times. MC: half of L2 holds MC x K of A.
  tile.kc = std::max<int64_t>(1, k);
  tile.mc = roundDown(l2Bytes / 2 / (tile.kc * elementBytes), tile.mr);
  return tile;
}

std::string TargetInfo::describe() const {
  return fmt::format("{} {}x{}-bit{} L1 {}K L2 {}K", cpu, vectorRegisters,
                     vectorBits, fma ? " fma" : "", l1Bytes / 1024,
                     l2Bytes / 1024);
}

} // namespace kiln::codegen
