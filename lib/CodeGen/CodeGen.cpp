//===- CodeGen.cpp - The entry function and the per-opcode dispatch -------===//
//
// emitModule creates `int NAME_run_parallel(const void* const* args,
// void* const* results, void* arena, const kiln_parallel *pool)`. Every
// scheduled instruction of the entry computation is emitted through
// lookupEmitter into an internal function of its own,
// `NAME_run.<instruction>`, taking the same four pointers; then one more,
// `NAME_run.results`, copies the results that do not already live in their
// result buffer and writes the new values of writable variables into their
// argument buffers (last, so no instruction reads a half-updated
// variable). NAME_run_parallel calls them in schedule order and returns 0;
// `int NAME_run(args, results, arena)` forwards to it with a null pool
// (Parallel.h), which runs every kernel's tasks serially. The computations
// a while or conditional runs get functions of their own the same way, and
// the while's or conditional's function calls them (ControlFlow.cpp). With
// options.profile, Profile.h then wraps each of those calls, nested ones
// included, with clock reads and counters (kiln compile --profile).
//
// Why functions: LLVM's optimizer and code generator have passes that grow
// faster than linearly with a function's size, and one function for a
// whole model took most of the compile time; small functions also let the
// LLVM work be split across threads (lib/Target/ParallelOptimize.cpp).
// Why one per instruction rather than pieces of a few instructions: LLVM's
// fixed cost per function turned out small. Measured (CPU s, --threads 1,
// pieces closed at N LLVM instructions): silero_vad 1.36 with one function
// per instruction, 2.31 at N=2000; movenet-lightning 1.68 / 1.71; iris
// 1.69 / 1.64; faceres-deep and blazeface-front equal within noise.
//
//===----------------------------------------------------------------------===//
#include "kiln/CodeGen/CodeGen.h"
#include "EmitterContext.h"
#include "Emitters.h"
#include "Kernels/TaskPair.h"
#include "Parallel.h"
#include "Profile.h"

#include <llvm/IR/Module.h>
#include <llvm/IR/Verifier.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>
#include <llvm/TargetParser/Triple.h>

#include <map>

namespace kiln::codegen {

namespace {
struct EmitterRow {
  ir::Opcode opcode;
  OpEmitter emitter;
};

constexpr EmitterRow kEmitterTable[] = {
#define KILN_EMITTER(Op, Function) {ir::Opcode::Op, &Function},
#include "Emitters.def"
};
} // namespace

OpEmitter lookupEmitter(ir::Opcode opcode) {
  // The generated rows: every opcode Opcodes.def marks as computed element
  // by element.
  if (ir::isKnownOpcode(opcode) &&
      ir::inFusion(opcode) == ir::InFusion::Generated)
    return &emitElemental;
  for (const EmitterRow &row : kEmitterTable)
    if (row.opcode == opcode)
      return row.emitter;
  return nullptr;
}

Error emitInstruction(EmitterContext &ctx, const ir::Instruction &instruction) {
  // A value only loop state reads that every trip overwrites first
  // (buffer assignment's dead initial values): nothing would see it.
  if (ctx.buffers().isDeadInitialValue(&instruction))
    return Error::success();
  // A reshape whose operand was computed in its slice (buffer assignment's
  // consumer hosts) has nothing to move: storage is row-major either way.
  if (instruction.opcode() == ir::Opcode::Reshape &&
      ctx.buffers().sameSlice({instruction.operand(0), -1},
                              {&instruction, -1}))
    return Error::success();
  OpEmitter emitter = lookupEmitter(instruction.opcode());
  if (!emitter)
    return makeError("codegen: opcode '{}' is not supported yet (instruction "
                     "'%{}')",
                     ir::opcodeName(instruction.opcode()), instruction.name());
  return emitter(ctx, instruction);
}

Error emitNothing(EmitterContext &, const ir::Instruction &) {
  return Error::success();
}

Error emitParameter(EmitterContext &, const ir::Instruction &) {
  return Error::success(); // lives in the caller's argument buffer
}

Error emitConstant(EmitterContext &, const ir::Instruction &) {
  // Scalars fold into their users as immediates; arrays become globals on
  // first use, so weights a kernel packs at compile time are stored once,
  // in the packed layout.
  return Error::success();
}

static Error copyResults(EmitterContext &ctx) {
  const analysis::BufferAssignment &buffers = ctx.buffers();
  for (int64_t i = 0; i < buffers.resultCount(); ++i) {
    if (!buffers.resultNeedsCopy(i))
      continue;
    if (Error e = copyValue(ctx, ctx.resultBuffer(i),
                             ctx.buffer(buffers.resultValue(i))))
      return e;
  }
  return Error::success();
}

/// The argument write-backs of writable variables, after every result copy
/// (a result may be a copy of a variable's old value). Values living in
/// another written argument are staged first, so swaps work.
static Error writeBackArguments(EmitterContext &ctx) {
  const analysis::BufferAssignment &buffers = ctx.buffers();
  auto stagingBuffer = [&](const analysis::WriteBack &writeBack) {
    BufferRef staging = ctx.buffer(writeBack.value);
    staging.address = ctx.builder().CreateConstInBoundsGEP1_64(
        ctx.builder().getInt8Ty(), ctx.arena(),
        uint64_t(writeBack.staging->offset));
    staging.align = analysis::BufferAssignment::kArenaAlignment;
    return staging;
  };
  for (const analysis::WriteBack &writeBack : buffers.writeBacks())
    if (writeBack.staging)
      if (Error e = copyValue(ctx, stagingBuffer(writeBack),
                               ctx.buffer(writeBack.value)))
        return e;
  for (const analysis::WriteBack &writeBack : buffers.writeBacks()) {
    if (writeBack.unchanged)
      continue;
    BufferRef source = writeBack.staging ? stagingBuffer(writeBack)
                                         : ctx.buffer(writeBack.value);
    if (Error e = copyValue(ctx, ctx.buffer(writeBack.target), source))
      return e;
  }
  return Error::success();
}

/// What every generated function carries: the target, and "no-builtins",
/// which keeps LLVM from turning copy/fill loops into memcpy or memset
/// calls (the object must link with nothing but itself).
static void addCodeAttributes(llvm::Function &function,
                              const CodeGenOptions &options,
                              llvm::TargetMachine &machine) {
  function.setDoesNotThrow();
  function.addFnAttr("no-builtins");
  function.addFnAttr("target-cpu", machine.getTargetCPU());
  if (!machine.getTargetFeatureString().empty())
    function.addFnAttr("target-features", machine.getTargetFeatureString());
  if (options.fastMath)
    function.addFnAttr("unsafe-fp-math", "true");
}

/// (args, results, arena, pool): the parallel entry's and every piece's.
static llvm::FunctionType *entryType(llvm::LLVMContext &context,
                                     llvm::Type *result) {
  llvm::Type *ptr = llvm::PointerType::getUnqual(context);
  return llvm::FunctionType::get(result, {ptr, ptr, ptr, ptr}, false);
}

static llvm::Function *createEntryFunction(llvm::Module &module,
                                           const CodeGenOptions &options,
                                           llvm::TargetMachine &machine) {
  llvm::LLVMContext &context = module.getContext();
  auto *function = llvm::Function::Create(
      entryType(context, llvm::Type::getInt32Ty(context)),
      llvm::GlobalValue::ExternalLinkage, parallelEntryName(options.entryName),
      module);
  function->getArg(0)->setName("args");
  function->getArg(1)->setName("results");
  function->getArg(2)->setName("arena");
  function->getArg(3)->setName("pool");
  addCodeAttributes(*function, options, machine);
  return function;
}

/// Emits `body` into a new internal function `name`(args, results, arena,
/// pool) with `entry`'s attributes. A body that emits nothing (a
/// parameter, a constant, a tuple) leaves no function (null). The builder's
/// insertion point is the caller's to restore.
static Expected<llvm::Function *>
emitPieceFunction(EmitterContext &ctx, llvm::Function &entry,
                  const std::string &name, llvm::function_ref<Error()> body) {
  llvm::LLVMContext &context = ctx.context();
  auto *function = llvm::Function::Create(
      entryType(context, llvm::Type::getVoidTy(context)),
      llvm::GlobalValue::InternalLinkage, name, ctx.module());
  for (unsigned i = 0; i < 4; ++i)
    function->getArg(i)->setName(entry.getArg(i)->getName());
  function->setAttributes(entry.getAttributes());
  // Inlined back, the pieces would rebuild the one huge function.
  function->addFnAttr(llvm::Attribute::NoInline);
  auto *prologue = llvm::BasicBlock::Create(context, "prologue", function);
  auto *start = llvm::BasicBlock::Create(context, "body", function);
  llvm::IRBuilder<> &builder = ctx.builder();
  builder.SetInsertPoint(start);
  ctx.beginFunction(*function, *prologue);
  ctx.setParallelPool(function->getArg(3));
  Error error = body();
  builder.CreateRetVoid();
  llvm::BranchInst::Create(start, prologue);
  if (error)
    return error;
  bool empty =
      function->size() == 2 && prologue->size() == 1 && start->size() == 1;
  if (empty) {
    function->eraseFromParent();
    return nullptr;
  }
  return function;
}

/// The calls a while or conditional makes to its callees' pieces.
using CalleeCalls = std::map<const ir::Instruction *, std::vector<PieceCall>>;

/// The first instruction after `i` in `schedule` that may emit code (not a
/// parameter or a constant), or the schedule's size.
static size_t nextWithCode(const std::vector<const ir::Instruction *> &schedule,
                           size_t i) {
  size_t next = i + 1;
  while (next < schedule.size() &&
         (schedule[next]->opcode() == ir::Opcode::Parameter ||
          schedule[next]->opcode() == ir::Opcode::Constant))
    ++next;
  return next;
}

/// One function for a depthwise convolution and the pointwise one after it
/// in the schedule, run as one job (Kernels/TaskPair.h).
static Expected<Piece> emitPairPiece(EmitterContext &ctx,
                                     llvm::Function &entry,
                                     kernels::TaskPair &pair) {
  Expected<llvm::Function *> function = emitPieceFunction(
      ctx, entry,
      ctx.options().entryName + "." + pair.depthwise->name() + "+" +
          pair.pointwise->name(),
      [&]() -> Error {
        ctx.setTaskPair(&pair);
        Error error = emitInstruction(ctx, *pair.depthwise);
        if (!error)
          error = emitInstruction(ctx, *pair.pointwise);
        finishTaskPair(ctx, pair);
        ctx.setTaskPair(nullptr);
        return error;
      });
  if (!function)
    return function.takeError();
  return Piece{pair.pointwise, *function, pair.depthwise};
}

/// One function per instruction of `schedule` that emits code, in order
/// (one for a depthwise/pointwise pair). A while's or conditional's callees
/// get theirs first (recursively), and its own function calls them
/// (ControlFlow.cpp), recording the calls in `calleeCalls`.
static Expected<std::vector<Piece>>
emitPieces(EmitterContext &ctx, llvm::Function &entry,
           const std::vector<const ir::Instruction *> &schedule,
           CalleeCalls &calleeCalls) {
  std::vector<Piece> pieces;
  for (size_t i = 0; i < schedule.size(); ++i) {
    const ir::Instruction *instruction = schedule[i];
    size_t next = nextWithCode(schedule, i);
    std::optional<kernels::TaskPair> pair;
    if (next < schedule.size())
      pair = kernels::findTaskPair(ctx, *instruction, *schedule[next]);
    if (pair) {
      Expected<Piece> piece = emitPairPiece(ctx, entry, *pair);
      if (!piece)
        return piece.takeError();
      pieces.push_back(*piece);
      i = next;
      continue;
    }
    std::vector<std::vector<Piece>> calleePieces;
    if (ir::callsSequentially(instruction->opcode())) {
      for (const ir::Computation *callee : instruction->calledComputations()) {
        auto inner = emitPieces(ctx, entry, ctx.buffers().schedule(*callee),
                                calleeCalls);
        if (!inner)
          return inner.takeError();
        calleePieces.push_back(std::move(*inner));
      }
    }
    Expected<llvm::Function *> function = emitPieceFunction(
        ctx, entry, ctx.options().entryName + "." + instruction->name(), [&] {
          if (ir::callsSequentially(instruction->opcode()))
            return emitControlFlow(ctx, *instruction, calleePieces,
                                   calleeCalls[instruction]);
          return emitInstruction(ctx, *instruction);
        });
    if (!function)
      return function.takeError();
    if (*function)
      pieces.push_back({instruction, *function});
  }
  return pieces;
}

/// The profiled kernel of `call` and, after it, those of the calls it makes
/// to callee pieces (a loop body's kernels, once per iteration), named
/// "while/instruction" so the table can nest them.
static void addProfiledCalls(const std::string &prefix, const PieceCall &call,
                             const CalleeCalls &calleeCalls,
                             std::vector<ProfiledCall> &calls) {
  ProfileKernel kernel =
      call.paired ? describePair(*call.paired, *call.instruction)
                  : describeKernel(*call.instruction);
  kernel.instruction = prefix + kernel.instruction;
  auto nested = calleeCalls.find(call.instruction);
  if (nested != calleeCalls.end()) // its callees' kernels have the cost
    kernel.flops = kernel.bytesRead = kernel.bytesWritten = 0;
  calls.push_back({call.call, std::move(kernel)});
  if (nested == calleeCalls.end())
    return;
  for (const PieceCall &inner : nested->second)
    addProfiledCalls(prefix + call.instruction->name() + "/", inner,
                     calleeCalls, calls);
}

/// Calls `function` at the end of `entry` with its four arguments.
static llvm::CallInst *callFromEntry(EmitterContext &ctx, llvm::Function &entry,
                                     llvm::Function *function) {
  llvm::IRBuilder<> &builder = ctx.builder();
  builder.SetInsertPoint(&entry.back());
  return builder.CreateCall(function, {entry.getArg(0), entry.getArg(1),
                                       entry.getArg(2), entry.getArg(3)});
}

Expected<CodeGenResult> emitModule(const ir::Module &module,
                                   const analysis::BufferAssignment &buffers,
                                   const CodeGenOptions &options,
                                   llvm::LLVMContext &context,
                                   llvm::TargetMachine &machine) {
  auto llvmModule = std::make_unique<llvm::Module>(module.name(), context);
  llvmModule->setTargetTriple(machine.getTargetTriple().str());
  llvmModule->setDataLayout(machine.createDataLayout());
  llvm::Function *entry = createEntryFunction(*llvmModule, options, machine);

  llvm::IRBuilder<> builder(llvm::BasicBlock::Create(context, "entry", entry));
  TargetInfo target = TargetInfo::fromMachine(machine);
  EmitterContext ctx(*llvmModule, builder, buffers, options, target);
  ctx.setEntryFunction(entry);
  std::vector<ProfiledCall> calls; // every kernel call, for --profile
  CalleeCalls calleeCalls;
  auto pieces = emitPieces(ctx, *entry, buffers.schedule(), calleeCalls);
  if (!pieces)
    return pieces.takeError();
  for (const Piece &piece : *pieces) {
    llvm::CallInst *call = callFromEntry(ctx, *entry, piece.function);
    if (options.profile)
      addProfiledCalls("", {piece.instruction, call, piece.paired},
                       calleeCalls, calls);
  }
  Expected<llvm::Function *> copies =
      emitPieceFunction(ctx, *entry, options.entryName + ".results", [&] {
        if (Error e = copyResults(ctx))
          return e;
        return writeBackArguments(ctx);
      });
  if (!copies)
    return copies.takeError();
  if (*copies) {
    llvm::CallInst *call = callFromEntry(ctx, *entry, *copies);
    if (options.profile)
      calls.push_back({call, describeResultCopies(buffers)});
  }
  builder.SetInsertPoint(&entry->back());
  builder.CreateRet(builder.getInt32(0));
  if (options.profile)
    instrumentEntry(*entry, options.entryName, calls);
  emitSerialEntry(*entry, options.entryName);

  std::string problems;
  llvm::raw_string_ostream stream(problems);
  if (llvm::verifyModule(*llvmModule, &stream))
    return makeError("codegen: internal error, invalid LLVM IR for module "
                     "'{}': {}",
                     module.name(), problems);
  CodeGenResult result;
  result.module = std::move(llvmModule);
  result.weightsBytes = ctx.weightsBytes();
  result.kernels = ctx.kernelRecords();
  result.targetDescription = target.describe();
  for (const ProfiledCall &call : calls)
    result.profileKernels.push_back(call.kernel);
  return result;
}

} // namespace kiln::codegen
