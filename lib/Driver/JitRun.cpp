//===- JitRun.cpp - `kiln run` through the code generator and LLJIT ------===//
//
// Executes exactly the code `kiln compile` would put in an object for the
// host, so `kiln run` (without --reference) checks the generated code.
//
//===----------------------------------------------------------------------===//
#include "kiln/Driver/Compile.h"

#include "MemoryBudget.h"

#include "kiln/Analysis/BufferAssignment.h"
#include "kiln/CodeGen/CodeGen.h"
#include "kiln/Support/Allocation.h"
#include "kiln/Target/Jit.h"
#include "kiln/Target/Target.h"

#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Target/TargetMachine.h"

#include <cstdlib>
#include <memory>

namespace kiln::driver {

namespace {

constexpr const char *kEntryName = "kiln_jit_run";

struct FreeDeleter {
  void operator()(void *pointer) const { std::free(pointer); }
};

/// The arena, aligned as the generated code requires; at least one byte so
/// the pointer is never null.
std::unique_ptr<void, FreeDeleter> allocateArena(int64_t bytes) {
  constexpr size_t align = analysis::BufferAssignment::kArenaAlignment;
  size_t size = (size_t(bytes) + align - 1) / align * align;
  return std::unique_ptr<void, FreeDeleter>(
      std::aligned_alloc(align, size == 0 ? align : size));
}

} // namespace

Expected<std::unique_ptr<target::Jit>>
compileForHostJit(const ir::Module &module,
                  const analysis::BufferAssignment &buffers,
                  const codegen::CodeGenOptions &options) {
  Expected<target::ResolvedTarget> host = target::resolveTarget({});
  if (!host)
    return host.takeError();
  auto machine = target::createTargetMachine(*host);
  if (!machine)
    return machine.takeError();
  auto context = std::make_unique<llvm::LLVMContext>();
  auto generated =
      codegen::emitModule(module, buffers, options, *context, **machine);
  if (!generated)
    return generated.takeError();
  auto optimized = target::optimizeModuleInParallel(
      std::move(generated->module), *host, target::defaultThreadCount());
  if (!optimized)
    return optimized.takeError();
  return target::Jit::create(std::move(*optimized), std::move(context));
}

Expected<std::vector<ir::Literal>>
runWithJit(const ir::Module &module, const std::vector<ir::Literal> &args,
           bool winograd) {
  std::vector<ir::Literal> copies = args;
  return runWithJit(module, copies, {}, winograd);
}

Expected<std::vector<ir::Literal>>
runWithJit(const ir::Module &module, std::vector<ir::Literal> &args,
           const std::vector<analysis::ArgWriteBack> &writeBacks,
           bool winograd) {
  Expected<analysis::BufferAssignment> buffers =
      analysis::BufferAssignment::build(module, writeBacks, winograd);
  if (!buffers)
    return buffers.takeError();
  if (Error error = checkArenaSize(*buffers))
    return error;
  codegen::CodeGenOptions options;
  options.entryName = kEntryName;
  options.winograd = winograd;
  auto jit = compileForHostJit(module, *buffers, options);
  if (!jit)
    return jit.takeError();
  Expected<target::EntryFunction> entry = (*jit)->lookup(kEntryName);
  if (!entry)
    return entry.takeError();

  std::vector<const void *> argPointers;
  for (ir::Literal &arg : args)
    argPointers.push_back(arg.bytes().data());
  std::vector<ir::Literal> results;
  std::vector<void *> resultPointers;
  for (int64_t i = 0; i < buffers->resultCount(); ++i) {
    analysis::ValueRef value = buffers->resultValue(i);
    const ir::Shape &shape = value.instruction->shape();
    Expected<ir::Literal> result = allocateLiteral(
        value.tupleIndex < 0 ? shape
                             : shape.tupleElements()[size_t(value.tupleIndex)],
        fmt::format("result {} (%{})", i, value.instruction->name()));
    if (!result)
      return result.takeError();
    results.push_back(std::move(*result));
  }
  for (ir::Literal &result : results)
    resultPointers.push_back(result.bytes().data());
  auto arena = allocateArena(buffers->arenaBytes());
  if (!arena)
    return allocationError("the arena", buffers->arenaBytes());
  if (int status =
          (*entry)(argPointers.data(), resultPointers.data(), arena.get()))
    return makeError("the generated code returned status {}", status);
  return results;
}

} // namespace kiln::driver
