//===- Profile.cpp - Per-kernel counters around the entry's calls ---------===//
//
// What `--profile` adds to the LLVM module, for entry NAME_run (the C
// layouts are in runtime/include/kiln/profile.h and the generated header):
//
//   NAME_run.profile.strings   every name of the kernel table, NUL-separated
//   NAME_run.profile.kernels   kiln_profile_kernel[N] (constant)
//   NAME_run.profile.counters  kiln_profile_counter[N] (zero-initialized)
//   NAME_run.profile.run       kiln_profile_counter for whole entry calls
//   NAME_run.profile           the kiln_profile NAME_profile() returns
//   NAME_run.profile.clock, .clock_ctx   the caller's clock, or null
//   NAME_run.profile.now       reads the caller's clock, else the target's
//                              counter (llvm.readcyclecounter: RDTSC on
//                              x86-64, CNTVCT_EL0 on AArch64)
//
// Each kernel call becomes
//   start = now(); call; end = now(); counter.calls += 1;
//   counter.ticks += end - start; last_start = start; last_ticks = end - start
// so the kernel functions themselves are the same as without --profile.
//
//===----------------------------------------------------------------------===//
#include "Profile.h"

#include "kiln/Analysis/CostAnalysis.h"

#include <llvm/IR/Constants.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Intrinsics.h>
#include <llvm/IR/Module.h>

#include <algorithm>
#include <vector>

namespace kiln::codegen {

using llvm::Constant;
using llvm::Value;

namespace {

/// kiln_profile_counter's fields, all uint64_t, in order.
enum CounterField : unsigned { kCalls, kTicks, kLastStart, kLastTicks };
constexpr unsigned kCounterFields = 4;

llvm::StructType *counterType(llvm::LLVMContext &c) {
  llvm::Type *i64 = llvm::Type::getInt64Ty(c);
  return llvm::StructType::get(c,
                               std::vector<llvm::Type *>(kCounterFields, i64));
}

/// kiln_profile_kernel: instruction, opcode, sources, flops, bytes_read,
/// bytes_written.
llvm::StructType *kernelType(llvm::LLVMContext &c) {
  llvm::Type *ptr = llvm::PointerType::getUnqual(c);
  llvm::Type *i64 = llvm::Type::getInt64Ty(c);
  return llvm::StructType::get(c, {ptr, ptr, ptr, i64, i64, i64});
}

/// kiln_profile: model, num_kernels, kernels, counters, run.
llvm::StructType *profileType(llvm::LLVMContext &c) {
  llvm::Type *ptr = llvm::PointerType::getUnqual(c);
  return llvm::StructType::get(c,
                               {ptr, llvm::Type::getInt64Ty(c), ptr, ptr, ptr});
}

llvm::GlobalVariable *addGlobal(llvm::Module &module, Constant *init,
                                bool constant, const std::string &name) {
  return new llvm::GlobalVariable(module, init->getType(), constant,
                                  llvm::GlobalValue::InternalLinkage, init,
                                  name);
}

/// Every string of the profile in one global: one symbol however many
/// kernels, and each string a pointer into it.
class StringTable {
public:
  /// Adds `text`; pointerTo(n) points to the n-th added once created.
  void add(const std::string &text) {
    offsets_.push_back(blob_.size());
    blob_ += text;
    blob_ += '\0';
  }
  void create(llvm::Module &module, const std::string &name) {
    global_ = addGlobal(module,
                        llvm::ConstantDataArray::getString(
                            module.getContext(), blob_, /*AddNull=*/false),
                        true, name);
    global_->setUnnamedAddr(llvm::GlobalValue::UnnamedAddr::Global);
  }
  /// The `index`-th string added.
  Constant *pointerTo(size_t index) const {
    llvm::LLVMContext &c = global_->getContext();
    return llvm::ConstantExpr::getInBoundsGetElementPtr(
        llvm::Type::getInt8Ty(c), global_,
        llvm::ConstantInt::get(llvm::Type::getInt64Ty(c), offsets_[index]));
  }

private:
  std::string blob_;
  std::vector<size_t> offsets_;
  llvm::GlobalVariable *global_ = nullptr;
};

/// The globals behind NAME_profile(), built from the kernel list.
struct ProfileState {
  llvm::GlobalVariable *counters = nullptr, *run = nullptr;
  llvm::GlobalVariable *clock = nullptr, *clockContext = nullptr;
  llvm::GlobalVariable *descriptor = nullptr;
};

ProfileState createState(llvm::Module &module, const std::string &prefix,
                         const std::string &modelName,
                         llvm::ArrayRef<ProfiledCall> calls) {
  llvm::LLVMContext &c = module.getContext();
  llvm::Type *i64 = llvm::Type::getInt64Ty(c);
  StringTable strings;
  strings.add(modelName);
  for (const ProfiledCall &call : calls) {
    strings.add(call.kernel.instruction);
    strings.add(call.kernel.opcode);
    strings.add(call.kernel.sources);
  }
  strings.create(module, prefix + ".strings");

  std::vector<Constant *> rows;
  for (size_t i = 0; i < calls.size(); ++i) {
    const ProfileKernel &kernel = calls[i].kernel;
    rows.push_back(llvm::ConstantStruct::get(
        kernelType(c),
        {strings.pointerTo(1 + 3 * i), strings.pointerTo(2 + 3 * i),
         strings.pointerTo(3 + 3 * i),
         llvm::ConstantInt::get(i64, uint64_t(kernel.flops)),
         llvm::ConstantInt::get(i64, uint64_t(kernel.bytesRead)),
         llvm::ConstantInt::get(i64, uint64_t(kernel.bytesWritten))}));
  }
  auto *kernels =
      addGlobal(module,
                llvm::ConstantArray::get(
                    llvm::ArrayType::get(kernelType(c), rows.size()), rows),
                true, prefix + ".kernels");

  ProfileState state;
  auto *countersType = llvm::ArrayType::get(counterType(c), calls.size());
  state.counters =
      addGlobal(module, llvm::ConstantAggregateZero::get(countersType), false,
                prefix + ".counters");
  state.run =
      addGlobal(module, llvm::ConstantAggregateZero::get(counterType(c)), false,
                prefix + ".run");
  auto *null = llvm::ConstantPointerNull::get(llvm::PointerType::getUnqual(c));
  state.clock = addGlobal(module, null, false, prefix + ".clock");
  state.clockContext = addGlobal(module, null, false, prefix + ".clock_ctx");
  state.descriptor =
      addGlobal(module,
                llvm::ConstantStruct::get(
                    profileType(c), {strings.pointerTo(0),
                                     llvm::ConstantInt::get(i64, calls.size()),
                                     kernels, state.counters, state.run}),
                true, prefix);
  return state;
}

/// A new function of `module` carrying `like`'s target attributes.
llvm::Function *createFunction(llvm::Module &module, llvm::FunctionType *type,
                               llvm::GlobalValue::LinkageTypes linkage,
                               const std::string &name,
                               const llvm::Function &like) {
  auto *function = llvm::Function::Create(type, linkage, name, module);
  function->setDoesNotThrow();
  for (const char *attr : {"target-cpu", "target-features", "no-builtins"})
    if (like.hasFnAttribute(attr))
      function->addFnAttr(like.getFnAttribute(attr));
  return function;
}

/// `uint64_t now(void)`: the caller's clock when one is set, else the
/// target's cycle counter.
llvm::Function *createClockFunction(llvm::Module &module,
                                    const std::string &name,
                                    const ProfileState &state,
                                    const llvm::Function &entry) {
  llvm::LLVMContext &c = module.getContext();
  llvm::Type *i64 = llvm::Type::getInt64Ty(c);
  llvm::Type *ptr = llvm::PointerType::getUnqual(c);
  auto *now = createFunction(module, llvm::FunctionType::get(i64, false),
                             llvm::GlobalValue::InternalLinkage, name, entry);
  // Inlined, its branch gets threaded through the entry and the entry
  // grows a copy of itself per clock; one call per read is simpler and
  // costs the same few cycles at every read.
  now->addFnAttr(llvm::Attribute::NoInline);
  auto *start = llvm::BasicBlock::Create(c, "entry", now);
  auto *own = llvm::BasicBlock::Create(c, "counter", now);
  auto *callers = llvm::BasicBlock::Create(c, "caller", now);
  llvm::IRBuilder<> b(start);
  Value *clock = b.CreateLoad(ptr, state.clock, "clock");
  b.CreateCondBr(b.CreateIsNull(clock), own, callers);
  b.SetInsertPoint(own);
  b.CreateRet(b.CreateIntrinsic(llvm::Intrinsic::readcyclecounter, {}, {}));
  b.SetInsertPoint(callers);
  Value *context = b.CreateLoad(ptr, state.clockContext, "ctx");
  b.CreateRet(
      b.CreateCall(llvm::FunctionType::get(i64, {ptr}, false), clock, context));
  return now;
}

/// The external accessors: `const kiln_profile *NAME_profile(void)` and
/// `void NAME_profile_set_clock(kiln_profile_clock clock, void *ctx)`.
void createAccessors(llvm::Module &module, const std::string &symbol,
                     const ProfileState &state, const llvm::Function &entry) {
  llvm::LLVMContext &c = module.getContext();
  llvm::Type *ptr = llvm::PointerType::getUnqual(c);
  auto *get = createFunction(module, llvm::FunctionType::get(ptr, false),
                             llvm::GlobalValue::ExternalLinkage, symbol, entry);
  llvm::IRBuilder<> b(llvm::BasicBlock::Create(c, "entry", get));
  b.CreateRet(state.descriptor);

  auto *set = createFunction(
      module,
      llvm::FunctionType::get(llvm::Type::getVoidTy(c), {ptr, ptr}, false),
      llvm::GlobalValue::ExternalLinkage, symbol + "_set_clock", entry);
  set->getArg(0)->setName("clock");
  set->getArg(1)->setName("ctx");
  b.SetInsertPoint(llvm::BasicBlock::Create(c, "entry", set));
  b.CreateStore(set->getArg(0), state.clock);
  b.CreateStore(set->getArg(1), state.clockContext);
  b.CreateRetVoid();
}

/// counter.calls += 1, counter.ticks += end - start, last_start = start,
/// last_ticks = end - start.
void emitCounterUpdate(llvm::IRBuilder<> &b, Value *counter, Value *start,
                       Value *end) {
  llvm::StructType *type = counterType(b.getContext());
  auto field = [&](unsigned index) {
    return b.CreateConstInBoundsGEP2_32(type, counter, 0, index);
  };
  Value *ticks = b.CreateSub(end, start, "ticks");
  b.CreateStore(
      b.CreateAdd(b.CreateLoad(b.getInt64Ty(), field(kCalls)), b.getInt64(1)),
      field(kCalls));
  b.CreateStore(b.CreateAdd(b.CreateLoad(b.getInt64Ty(), field(kTicks)), ticks),
                field(kTicks));
  b.CreateStore(start, field(kLastStart));
  b.CreateStore(ticks, field(kLastTicks));
}

} // namespace

namespace {

/// The instructions a kernel computes: a fusion's own, or the instruction.
std::vector<const ir::Instruction *>
computedInstructions(const ir::Instruction &instruction) {
  const ir::Computation *fused = instruction.calledComputation();
  if (!fused)
    return {&instruction};
  std::vector<const ir::Instruction *> out;
  for (const ir::Instruction *inner : fused->instructions())
    if (inner->opcode() != ir::Opcode::Parameter &&
        inner->opcode() != ir::Opcode::Constant)
      out.push_back(inner);
  return out;
}

/// The source-model nodes of `computed`, each once, in order; their HLO
/// names when none has a source node (HLO text input).
std::string sourceList(const std::vector<const ir::Instruction *> &computed) {
  std::vector<std::string> names;
  for (const ir::Instruction *inner : computed)
    if (!inner->sourceNode().empty() &&
        std::find(names.begin(), names.end(), inner->sourceNode()) ==
            names.end())
      names.push_back(inner->sourceNode());
  if (names.empty())
    for (const ir::Instruction *inner : computed)
      names.push_back(inner->name());
  std::string out;
  for (const std::string &name : names)
    out += (out.empty() ? "" : ",") + name;
  return out;
}

} // namespace

ProfileKernel describeKernel(const ir::Instruction &instruction) {
  ProfileKernel kernel;
  kernel.instruction = instruction.name();
  kernel.opcode = std::string(ir::opcodeName(instruction.opcode()));
  kernel.sources = sourceList(computedInstructions(instruction));
  analysis::Cost cost = analysis::instructionCost(instruction);
  kernel.flops = cost.flops;
  kernel.bytesRead = cost.bytesRead;
  kernel.bytesWritten = cost.bytesWritten;
  return kernel;
}

ProfileKernel describePair(const ir::Instruction &depthwise,
                           const ir::Instruction &pointwise) {
  ProfileKernel first = describeKernel(depthwise);
  ProfileKernel kernel = describeKernel(pointwise);
  kernel.opcode = "paired";
  if (!first.sources.empty())
    kernel.sources = kernel.sources.empty()
                         ? first.sources
                         : first.sources + "," + kernel.sources;
  kernel.flops += first.flops;
  kernel.bytesRead += first.bytesRead;
  kernel.bytesWritten += first.bytesWritten;
  return kernel;
}

ProfileKernel describeResultCopies(const analysis::BufferAssignment &buffers) {
  ProfileKernel kernel;
  kernel.instruction = "(results)";
  kernel.opcode = "copy";
  int64_t bytes = 0;
  for (int64_t i = 0; i < buffers.resultCount(); ++i)
    if (buffers.resultNeedsCopy(i))
      bytes += buffers.slice(buffers.resultValue(i)).bytes;
  for (const analysis::WriteBack &writeBack : buffers.writeBacks()) {
    if (writeBack.unchanged)
      continue;
    int64_t value = buffers.slice(writeBack.value).bytes;
    bytes += writeBack.staging ? 2 * value : value; // staged: copied twice
  }
  kernel.bytesRead = kernel.bytesWritten = bytes;
  return kernel;
}

std::string profileSymbol(const std::string &entryName) {
  constexpr std::string_view suffix = "_run";
  std::string_view name = entryName;
  if (name.size() > suffix.size() &&
      name.substr(name.size() - suffix.size()) == suffix)
    name.remove_suffix(suffix.size());
  return std::string(name) + "_profile";
}

void instrumentEntry(llvm::Function &entry, const std::string &entryName,
                     llvm::ArrayRef<ProfiledCall> calls) {
  llvm::Module &module = *entry.getParent();
  std::string symbol = profileSymbol(entryName);
  std::string modelName = symbol.substr(0, symbol.size() - 8); // "_profile"
  std::string prefix = entryName + ".profile";
  ProfileState state = createState(module, prefix, modelName, calls);
  llvm::Function *now =
      createClockFunction(module, prefix + ".now", state, entry);
  createAccessors(module, symbol, state, entry);

  auto *counters =
      llvm::ArrayType::get(counterType(module.getContext()), calls.size());
  llvm::IRBuilder<> b(&*entry.getEntryBlock().getFirstInsertionPt());
  Value *runStart = b.CreateCall(now, {}, "run.start");
  for (size_t i = 0; i < calls.size(); ++i) {
    b.SetInsertPoint(calls[i].call);
    Value *start = b.CreateCall(now, {}, "kernel.start");
    b.SetInsertPoint(calls[i].call->getNextNode());
    Value *end = b.CreateCall(now, {}, "kernel.end");
    Value *slot = b.CreateConstInBoundsGEP2_64(counters, state.counters, 0, i);
    emitCounterUpdate(b, slot, start, end);
  }
  for (llvm::BasicBlock &block : entry)
    if (auto *ret = llvm::dyn_cast<llvm::ReturnInst>(block.getTerminator())) {
      b.SetInsertPoint(ret);
      emitCounterUpdate(b, state.run, runStart,
                        b.CreateCall(now, {}, "run.end"));
    }
}

} // namespace kiln::codegen
