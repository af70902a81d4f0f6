//===- TargetInfo.h - What code generation knows of the target -*- C++ -*-===//
//
// One description of the target CPU, derived once from the TargetMachine
// (triple, --cpu, --features), that every kernel decision reads: vector
// width and register count, FMA, native rounding, data cache sizes, and the
// register tile of the GEMM micro-kernel. Nothing else in CodeGen looks at
// subtarget features.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_CODEGEN_TARGETINFO_H
#define KILN_CODEGEN_TARGETINFO_H

#include <cstdint>
#include <string>

namespace llvm {
class TargetMachine;
} // namespace llvm

namespace kiln::codegen {

/// The register tile and cache blocking of one GEMM instance: an MR x NR
/// block of the output lives in vector registers while K runs, and M is
/// split into blocks of MC rows so MC x KC of the left operand stays in L2.
/// KC is all of K (see TargetInfo::gemmTile).
struct GemmTile {
  int64_t mr = 1,
          nr = 1;    ///< register tile: rows x columns (nr = lanes * vectors)
  int64_t lanes = 1; ///< elements per vector register
  int64_t kc = 1, mc = 1; ///< cache blocks
  /// K steps per iteration of the micro-kernel's loop when A's rows are
  /// contiguous in K: each row's A elements for them load as one vector,
  /// and every FMA takes its A value by lane (in-order cores, see gemmTile).
  int64_t kUnroll = 1;
  /// Each K row of a packed panel holds its 16-column blocks as 4 x 4
  /// transposed (column 4q + j at 4j + q), so one AArch64 LD4 loads the
  /// block's four vectors: the layout the in-order micro-kernel reads.
  bool interleavedPanels = false;
  /// K steps per iteration of the inline-assembly micro-kernel for full
  /// tiles (Cortex-A53; 0: none, the K loop is LLVM's). See
  /// lib/CodeGen/Kernels/InOrderMicroKernel.h.
  int64_t asmKSteps = 0;
};

struct TargetInfo {
  std::string triple, cpu;
  bool isX86 = false, isAArch64 = false;
  /// Widest vector register kernels use, in bits: 512 (AVX-512F), 256 (AVX),
  /// 128 (SSE2, NEON, RISC-V V, and targets without vector registers,
  /// whose 128-bit IR vectors LLVM splits into scalar operations).
  unsigned vectorBits = 128;
  /// Architectural vector registers: 32 with AVX-512 and on AArch64, else 16.
  unsigned vectorRegisters = 16;
  /// A fused multiply-add instruction (AArch64, x86 FMA3): contractions
  /// accumulate with llvm.fma, otherwise with a multiply and an add.
  bool fma = false;
  /// The same for double precision: false on single-precision FPUs
  /// (Cortex-M4, M33), where f64 must not reach llvm.fma (a libm call).
  bool fmaDouble = false;
  /// Double-precision arithmetic in hardware (x86-64, AArch64, ARM with
  /// FP64, RISC-V D). Without it (Cortex-M4/M33/M55, soft-float parts) f64
  /// is a library call per operation, so the math emitter computes f32
  /// transcendentals in f32 only (MathSingle.cpp).
  bool doubleFpu = false;
  /// Unaligned accesses fault (`+strict-align`: bare-metal AArch64 with the
  /// MMU off). LLVM's own loads honour it; kiln's inline assembly must too.
  bool strictAlign = false;
  /// llvm.floor/ceil/trunc/roundeven are single instructions (AArch64, SSE4.1).
  bool nativeRounding = false;
  /// Per-core data caches in bytes (from a table of known CPUs, with
  /// conservative defaults for "generic").
  int64_t l1Bytes = 32 * 1024, l2Bytes = 256 * 1024;

  /// Derives everything from the target machine's triple, CPU and features.
  static TargetInfo fromMachine(const llvm::TargetMachine &machine);

  /// Elements of `elementBytes` bytes in one vector register.
  int64_t lanes(int64_t elementBytes) const {
    return int64_t(vectorBits / 8) / elementBytes;
  }
  /// The GEMM tile for elements of `elementBytes` bytes (4: f32, 8: f64),
  /// an m x n output and a contraction of length k. Skinny GEMMs (m <= 4,
  /// batch-1 fully connected layers) get a tile of all m rows and a wide
  /// NR, so the packed weights stream as one sequence with enough
  /// accumulators. NR never exceeds n rounded up to whole vectors.
  GemmTile gemmTile(int64_t elementBytes, int64_t m, int64_t n,
                    int64_t k) const;

  /// One line for reports: "avx512 32x512-bit fma L1 32K L2 1024K".
  std::string describe() const;
};

} // namespace kiln::codegen

#endif // KILN_CODEGEN_TARGETINFO_H
