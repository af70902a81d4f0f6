//===- TargetInfoTest.cpp - What code generation reads of each target ----===//
#include "kiln/CodeGen/TargetInfo.h"
#include "kiln/Target/Target.h"

#include "llvm/Target/TargetMachine.h"

#include <catch2/catch.hpp>

using namespace kiln;

namespace {

codegen::TargetInfo infoFor(const std::string &triple, const std::string &cpu,
                            const std::string &features = "") {
  Expected<target::ResolvedTarget> resolved =
      target::resolveTarget({triple, cpu, features});
  if (!resolved)
    FAIL(resolved.errorMessage());
  auto machine = target::createTargetMachine(*resolved);
  if (!machine)
    FAIL(machine.errorMessage());
  return codegen::TargetInfo::fromMachine(**machine);
}

} // namespace

TEST_CASE("32-bit ARM: NEON, VFP version and FMA come from the CPU",
          "[target][codegen]") {
  codegen::TargetInfo a7 = infoFor("armv7a-linux-gnueabihf", "");
  CHECK(a7.vectorBits == 128);
  CHECK(a7.vectorRegisters == 16);
  CHECK(a7.fma);                  // VFPv4
  CHECK(a7.fmaDouble);            // with double precision
  CHECK(a7.doubleFpu);
  CHECK_FALSE(a7.nativeRounding); // VRINT is ARMv8

  // The VFPv3-D16 baseline: no fused multiply-add (llvm.fma would be a
  // libm call), no NEON: 128-bit IR vectors split into scalars.
  codegen::TargetInfo baseline = infoFor("armv7a-linux-gnueabihf", "generic");
  CHECK_FALSE(baseline.fma);
  CHECK_FALSE(baseline.fmaDouble);
  CHECK(baseline.doubleFpu); // VFPv3-D16 computes f64 without fusing
  CHECK(baseline.vectorRegisters == 8);

  // Cortex-M4: single-precision FMA only; f64 never reaches llvm.fma.
  codegen::TargetInfo m4 = infoFor("thumbv7em-none-eabihf", "");
  CHECK(m4.fma);
  CHECK_FALSE(m4.fmaDouble);
  CHECK_FALSE(m4.doubleFpu); // f32 math must not go through f64 here
  CHECK_FALSE(m4.nativeRounding);
  // Cortex-M7: FPv5 with double precision and VRINT.
  codegen::TargetInfo m7 = infoFor("thumbv7em-none-eabihf", "cortex-m7");
  CHECK(m7.fma);
  CHECK(m7.fmaDouble);
  CHECK(m7.doubleFpu);
  // Cortex-M33: single precision like the M4; LLVM's Cortex-M55 has the
  // FPU's optional double precision.
  CHECK_FALSE(infoFor("thumbv8m.main-none-eabihf", "").doubleFpu);
  CHECK(infoFor("thumbv8.1m.main-none-eabihf", "").doubleFpu);
  CHECK(m7.nativeRounding);
}

TEST_CASE("RISC-V 64: F and D fuse, V gives 32 vector registers",
          "[target][codegen]") {
  codegen::TargetInfo gc = infoFor("riscv64-linux-gnu", "");
  CHECK(gc.fma);
  CHECK(gc.fmaDouble);
  CHECK(gc.doubleFpu);
  CHECK(gc.vectorRegisters == 8); // scalar FPU: 32 registers, 4 per vector
  codegen::TargetInfo rvv = infoFor("riscv64-linux-gnu", "", "+v");
  CHECK(rvv.vectorBits == 128);
  CHECK(rvv.vectorRegisters == 32);
}

TEST_CASE("Scalar FPUs get a 5x4 f32 GEMM tile, NEON keeps two vectors",
          "[target][codegen]") {
  // A broadcast A value is one S register on a scalar FPU: 5 x 4
  // accumulators + 4 B + 5 A values = 29 of the 32 single registers.
  for (const auto &[triple, cpu] :
       {std::pair<std::string, std::string>{"thumbv7em-none-eabihf", ""},
        {"thumbv7em-none-eabihf", "cortex-m7"},
        {"armv7a-linux-gnueabihf", "generic"},
        {"riscv64-linux-gnu", ""}}) {
    codegen::GemmTile tile = infoFor(triple, cpu).gemmTile(4, 125, 64, 64);
    INFO(triple << " " << cpu);
    CHECK(tile.mr == 5);
    CHECK(tile.nr == 4);
  }
  // f64 on VFPv3-D16: 16 D registers, 4 x 2 accumulators.
  codegen::GemmTile f64 =
      infoFor("armv7a-linux-gnueabihf", "generic").gemmTile(8, 125, 64, 64);
  CHECK(f64.mr == 4);
  CHECK(f64.nr == 2);
  // NEON's quad registers: two vectors per row, as on x86, and 5 rows: 10
  // accumulators, 2 B vectors, 2 A broadcasts and a spare of the 16, with
  // or without VFPv4 (the 6-row tile spilled where LLVM's scheduler loads
  // the A broadcasts early: lit CodeGen/Kernels/gemm-arm32-neon.hlo).
  for (const char *cpu :
       {"", "cortex-a7", "cortex-a9", "cortex-a15", "cortex-a53", "cortex-a72"}) {
    codegen::GemmTile tile =
        infoFor("armv7a-linux-gnueabihf", cpu).gemmTile(4, 125, 64, 64);
    INFO(cpu);
    CHECK(tile.nr == 8);
    CHECK(tile.mr == 5);
  }
}

TEST_CASE("Only the Cortex-A53 runs the assembly micro-kernel, on f32 4x16",
          "[target][codegen]") {
  codegen::GemmTile a53 =
      infoFor("aarch64-linux-gnu", "cortex-a53").gemmTile(4, 125, 64, 64);
  CHECK(a53.mr == 4);
  CHECK(a53.nr == 16);
  CHECK(a53.asmKSteps == 8);
  CHECK(a53.interleavedPanels);
  // Not for f64, nor for skinny tiles other than 4 x 16, nor other cores.
  CHECK(infoFor("aarch64-linux-gnu", "cortex-a53")
            .gemmTile(8, 125, 64, 64)
            .asmKSteps == 0);
  codegen::GemmTile skinny =
      infoFor("aarch64-linux-gnu", "cortex-a53").gemmTile(4, 2, 64, 64);
  CHECK(skinny.asmKSteps == 0);
  CHECK_FALSE(skinny.interleavedPanels);
  // Nor where unaligned accesses fault: A's rows load at any offset.
  CHECK(infoFor("aarch64-linux-gnu", "cortex-a53", "+strict-align")
            .gemmTile(4, 125, 64, 64)
            .asmKSteps == 0);
  for (const char *cpu : {"cortex-a55", "cortex-a72", "neoverse-n1"}) {
    codegen::GemmTile tile =
        infoFor("aarch64-linux-gnu", cpu).gemmTile(4, 125, 64, 64);
    INFO(cpu);
    CHECK(tile.asmKSteps == 0);
    CHECK_FALSE(tile.interleavedPanels);
  }
}

TEST_CASE("x86-64 and AArch64 keep their facts", "[target][codegen]") {
  codegen::TargetInfo sse = infoFor("x86_64-linux-gnu", "x86-64");
  CHECK_FALSE(sse.fma);
  CHECK_FALSE(sse.fmaDouble);
  CHECK(sse.doubleFpu);
  codegen::TargetInfo haswell = infoFor("x86_64-linux-gnu", "haswell");
  CHECK(haswell.fma);
  CHECK(haswell.fmaDouble);
  CHECK(haswell.vectorBits == 256);
  codegen::TargetInfo a72 = infoFor("aarch64-linux-gnu", "cortex-a72");
  CHECK(a72.fma);
  CHECK(a72.fmaDouble);
  CHECK(a72.doubleFpu);
  CHECK(a72.vectorRegisters == 32);
}
