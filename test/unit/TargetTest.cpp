//===- TargetTest.cpp - Target selection, emission and the JIT -----------===//
#include "kiln/Target/Target.h"
#include "kiln/Target/Jit.h"

#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/TargetParser/Host.h"

#include <catch2/catch.hpp>

using namespace kiln;
using namespace kiln::target;

namespace {

ResolvedTarget resolveOrFail(const TargetOptions &options) {
  Expected<ResolvedTarget> resolved = resolveTarget(options);
  if (!resolved)
    FAIL(resolved.errorMessage());
  return *resolved;
}

/// Builds `int NAME(const void* const* args, void* const* results, void*)`
/// computing results[0][0] = args[0][0] * 2 + 1 on floats: enough to check
/// the ABI end to end without the code generator.
std::unique_ptr<llvm::Module> buildAffine(llvm::LLVMContext &context,
                                          const std::string &name) {
  auto module = std::make_unique<llvm::Module>("affine", context);
  llvm::IRBuilder<> b(context);
  llvm::Type *ptr = b.getPtrTy();
  auto *type = llvm::FunctionType::get(b.getInt32Ty(), {ptr, ptr, ptr}, false);
  auto *function = llvm::Function::Create(type, llvm::Function::ExternalLinkage,
                                          name, module.get());
  b.SetInsertPoint(llvm::BasicBlock::Create(context, "entry", function));
  llvm::Value *in = b.CreateLoad(ptr, function->getArg(0));
  llvm::Value *out = b.CreateLoad(ptr, function->getArg(1));
  llvm::Value *x = b.CreateLoad(b.getFloatTy(), in);
  llvm::Value *y =
      b.CreateFAdd(b.CreateFMul(x, llvm::ConstantFP::get(b.getFloatTy(), 2.0)),
                   llvm::ConstantFP::get(b.getFloatTy(), 1.0));
  b.CreateStore(y, out);
  b.CreateRet(b.getInt32(0));
  return module;
}

std::string compileAffine(const std::string &triple, const std::string &cpu,
                          OutputKind kind) {
  ResolvedTarget resolved = resolveOrFail({triple, cpu, ""});
  auto machine = createTargetMachine(resolved);
  REQUIRE(machine);
  llvm::LLVMContext context;
  auto module = buildAffine(context, "affine_run");
  REQUIRE_FALSE(optimizeModule(*module, **machine));
  Expected<std::string> bytes = emitModule(*module, **machine, kind);
  REQUIRE(bytes);
  return *bytes;
}

} // namespace

TEST_CASE("the host is the default target with the host CPU", "[target]") {
  ResolvedTarget host = resolveOrFail({});
  CHECK(host.isHost);
  CHECK(host.cpu == llvm::sys::getHostCPUName().str());
  CHECK(host.warnings.empty());
  CHECK(resolveOrFail({"", "native", ""}).cpu == host.cpu);
}

TEST_CASE("cross targets are normalized and default to generic with a warning",
          "[target]") {
  ResolvedTarget arm = resolveOrFail({"aarch64-linux-gnu", "", ""});
  CHECK(arm.triple == "aarch64-unknown-linux-gnu");
  CHECK(arm.cpu == "generic");
  REQUIRE(arm.warnings.size() == 1);
  CHECK(arm.warnings[0].find("--cpu") != std::string::npos);

  ResolvedTarget a72 = resolveOrFail({"aarch64-linux-gnu", "cortex-a72", ""});
  CHECK(a72.cpu == "cortex-a72");
  CHECK(a72.warnings.empty());
}

TEST_CASE("unknown triples and CPUs list the valid choices", "[target]") {
  Expected<ResolvedTarget> mips = resolveTarget({"mips-linux-gnu", "", ""});
  REQUIRE_FALSE(mips);
  CHECK(mips.errorMessage().find("aarch64-linux-gnu") != std::string::npos);
  CHECK(mips.errorMessage().find("thumbv7em-none-eabihf") != std::string::npos);
  CHECK(mips.errorMessage().find("riscv64-linux-gnu") != std::string::npos);

  Expected<ResolvedTarget> bogus = resolveTarget({"bogus", "", ""});
  REQUIRE_FALSE(bogus);
  CHECK(bogus.errorMessage().find("valid targets") != std::string::npos);

  Expected<ResolvedTarget> cpu =
      resolveTarget({"aarch64-linux-gnu", "pentium4", ""});
  REQUIRE_FALSE(cpu);
  CHECK(cpu.errorMessage().find("unsupported --cpu 'pentium4'") !=
        std::string::npos);
  CHECK(cpu.errorMessage().find("cortex-a72") != std::string::npos);

  Expected<ResolvedTarget> feature =
      resolveTarget({"aarch64-linux-gnu", "generic", "+nosuchthing"});
  REQUIRE_FALSE(feature);
  CHECK(feature.errorMessage().find("nosuchthing") != std::string::npos);
  CHECK(resolveTarget({"aarch64-linux-gnu", "generic", "+neon,-sve"}));
}

TEST_CASE("relocation model: PIC with an OS, static on bare metal",
          "[target]") {
  auto machineFor = [](const std::string &triple) {
    auto machine = createTargetMachine(resolveOrFail({triple, "generic", ""}));
    REQUIRE(machine);
    return std::move(*machine);
  };
  CHECK(machineFor("x86_64-linux-gnu")->getRelocationModel() ==
        llvm::Reloc::PIC_);
  CHECK(machineFor("arm64-apple-ios")->getRelocationModel() ==
        llvm::Reloc::PIC_);
  CHECK(machineFor("aarch64-linux-android")->getRelocationModel() ==
        llvm::Reloc::PIC_);
  CHECK(machineFor("aarch64-none-elf")->getRelocationModel() ==
        llvm::Reloc::Static);
}

TEST_CASE("objects for every supported triple, deterministically", "[target]") {
  const char *elfMagic = "\x7f"
                         "ELF";
  struct Case {
    const char *triple;
    bool elf;
  } cases[] = {
      {"x86_64-linux-gnu", true},      {"aarch64-linux-gnu", true},
      {"aarch64-linux-android", true}, {"aarch64-none-elf", true},
      {"arm64-apple-ios", false},      {"arm64-apple-macos", false},
      {"x86_64-apple-macos", false},   {"armv7a-linux-gnueabihf", true},
      {"thumbv7em-none-eabihf", true}, {"riscv64-linux-gnu", true}};
  for (const Case &c : cases) {
    INFO(c.triple);
    std::string object = compileAffine(c.triple, "generic", OutputKind::Object);
    if (c.elf) {
      CHECK(object.compare(0, 4, elfMagic) == 0);
    } else {
      // Mach-O 64-bit magic 0xfeedfacf, little-endian.
      CHECK(object.compare(0, 4, "\xcf\xfa\xed\xfe") == 0);
    }
    CHECK(object == compileAffine(c.triple, "generic", OutputKind::Object));
  }
}

namespace {

bool hasFeature(const ResolvedTarget &target, const std::string &feature) {
  std::string list = "," + target.features + ",";
  return list.find("," + feature + ",") != std::string::npos;
}

} // namespace

TEST_CASE("32-bit ARM and RISC-V triples imply a CPU and its features",
          "[target]") {
  struct Case {
    const char *triple, *cpu;
  } defaults[] = {{"thumbv7em-none-eabihf", "cortex-m4"},
                  {"thumbv7em-none-eabi", "cortex-m4"},
                  {"thumbv8m.main-none-eabihf", "cortex-m33"},
                  {"thumbv8.1m.main-none-eabihf", "cortex-m55"},
                  {"armv7a-linux-gnueabihf", "cortex-a7"},
                  {"armv7-none-linux-androideabi21", "generic"},
                  {"armv6-linux-gnueabihf", "arm1176jzf-s"},
                  {"riscv64-linux-gnu", "generic-rv64"}};
  for (const Case &c : defaults) {
    INFO(c.triple);
    ResolvedTarget resolved = resolveOrFail({c.triple, "", ""});
    CHECK(resolved.cpu == c.cpu);
    CHECK(resolved.warnings.empty());
  }

  // Cortex-A7: NEON and VFPv4 with 32 double registers, from the CPU alone.
  ResolvedTarget a7 = resolveOrFail({"armv7a-linux-gnueabihf", "", ""});
  CHECK(hasFeature(a7, "+neon"));
  CHECK(hasFeature(a7, "+vfp4"));
  CHECK(hasFeature(a7, "+d32"));
  // The generic armv7 Linux baseline: VFPv3-D16, no NEON.
  ResolvedTarget baseline =
      resolveOrFail({"armv7a-linux-gnueabihf", "generic", ""});
  CHECK(hasFeature(baseline, "+vfp3d16"));
  CHECK(hasFeature(baseline, "-neon"));
  CHECK(hasFeature(baseline, "-d32"));
  // Android armeabi-v7a: generic with NEON.
  CHECK(hasFeature(resolveOrFail({"armv7-none-linux-androideabi21", "", ""}),
                   "+neon"));
  // Cortex-M4: single-precision VFPv4, no double precision.
  ResolvedTarget m4 = resolveOrFail({"thumbv7em-none-eabihf", "", ""});
  CHECK(hasFeature(m4, "+vfp4d16sp"));
  CHECK(hasFeature(m4, "-fp64"));
  // Cortex-M55: MVE off unless asked for; the user's features come last.
  ResolvedTarget m55 = resolveOrFail({"thumbv8.1m.main-none-eabihf", "", ""});
  CHECK(hasFeature(m55, "-mve"));
  ResolvedTarget helium =
      resolveOrFail({"thumbv8.1m.main-none-eabihf", "", "+mve.fp"});
  CHECK(helium.features.size() > m55.features.size());
  CHECK(helium.features.substr(helium.features.size() - 7) == "+mve.fp");
  // RISC-V 64 Linux: RV64GC.
  ResolvedTarget rv = resolveOrFail({"riscv64-linux-gnu", "", "+v"});
  CHECK(hasFeature(rv, "+d"));
  CHECK(hasFeature(rv, "+c"));
  CHECK(hasFeature(rv, "+v"));
}

TEST_CASE("Cortex-M CPUs and triples only go together", "[target]") {
  Expected<ResolvedTarget> mOnA =
      resolveTarget({"armv7a-linux-gnueabihf", "cortex-m4", ""});
  REQUIRE_FALSE(mOnA);
  CHECK(mOnA.errorMessage().find("M-profile") != std::string::npos);
  Expected<ResolvedTarget> aOnM =
      resolveTarget({"thumbv7em-none-eabihf", "cortex-a7", ""});
  REQUIRE_FALSE(aOnM);
  CHECK(aOnM.errorMessage().find("cortex-m4") != std::string::npos);
  CHECK(resolveTarget({"thumbv7em-none-eabihf", "cortex-m7", ""}));
}

TEST_CASE("the ARM float ABI and RISC-V's lp64d follow the triple",
          "[target]") {
  auto machineFor = [](const std::string &triple) {
    auto machine = createTargetMachine(resolveOrFail({triple, "", ""}));
    REQUIRE(machine);
    return std::move(*machine);
  };
  CHECK(machineFor("armv7a-linux-gnueabihf")->Options.FloatABIType ==
        llvm::FloatABI::Hard);
  CHECK(machineFor("thumbv7em-none-eabihf")->Options.FloatABIType ==
        llvm::FloatABI::Hard);
  // eabi and Android: FPU code, floats passed in integer registers.
  CHECK(machineFor("thumbv7em-none-eabi")->Options.FloatABIType ==
        llvm::FloatABI::Soft);
  CHECK(machineFor("armv7-none-linux-androideabi21")->Options.FloatABIType ==
        llvm::FloatABI::Soft);
  CHECK(machineFor("riscv64-linux-gnu")->Options.MCOptions.getABIName() ==
        "lp64d");
}

TEST_CASE("assembly and LLVM IR name the entry symbol", "[target]") {
  std::string assembly =
      compileAffine("aarch64-linux-gnu", "cortex-a72", OutputKind::Assembly);
  CHECK(assembly.find("affine_run:") != std::string::npos);
  // IEEE-faithful by default: no fused multiply-add contraction.
  CHECK(assembly.find("fadd") != std::string::npos);
  CHECK(assembly.find("fmadd") == std::string::npos);
  std::string ir =
      compileAffine("x86_64-linux-gnu", "generic", OutputKind::LLVMIR);
  CHECK(ir.find("define") != std::string::npos);
  CHECK(ir.find("@affine_run") != std::string::npos);
  CHECK(ir.find("x86_64-unknown-linux-gnu") != std::string::npos);
}

TEST_CASE("the JIT runs generated code through the C ABI", "[target][jit]") {
  auto context = std::make_unique<llvm::LLVMContext>();
  auto module = buildAffine(*context, "jit_affine_run");
  auto machine = createTargetMachine(resolveOrFail({}));
  REQUIRE(machine);
  REQUIRE_FALSE(optimizeModule(*module, **machine));
  auto jit = Jit::create(std::move(module), std::move(context));
  if (!jit)
    FAIL(jit.errorMessage());
  Expected<EntryFunction> entry = (*jit)->lookup("jit_affine_run");
  REQUIRE(entry);
  float x = 20.5f, y = 0;
  const void *args[] = {&x};
  void *results[] = {&y};
  CHECK((*entry)(args, results, nullptr) == 0);
  CHECK(y == 42.0f);
  CHECK_FALSE((*jit)->lookup("no_such_symbol"));
}
