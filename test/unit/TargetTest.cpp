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
  Expected<ResolvedTarget> riscv = resolveTarget({"riscv64-linux-gnu", "", ""});
  REQUIRE_FALSE(riscv);
  CHECK(riscv.errorMessage().find("aarch64-linux-gnu") != std::string::npos);
  CHECK(riscv.errorMessage().find("x86_64-apple-macos") != std::string::npos);

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
  } cases[] = {{"x86_64-linux-gnu", true},      {"aarch64-linux-gnu", true},
               {"aarch64-linux-android", true}, {"aarch64-none-elf", true},
               {"arm64-apple-ios", false},      {"arm64-apple-macos", false},
               {"x86_64-apple-macos", false}};
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
