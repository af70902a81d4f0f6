//===- Parallel.cpp - Kernels split into tasks for the caller's pool ------===//
#include "Parallel.h"

#include "kiln/Analysis/CostAnalysis.h"

#include <llvm/IR/Constants.h>
#include <llvm/IR/Module.h>

#include <algorithm>
#include <cassert>

namespace kiln::codegen {

using llvm::Value;

namespace {
/// A task below ~100k flops (a few microseconds) costs more to hand to
/// another thread than it saves.
constexpr int64_t kMinTaskFlops = 100'000;
/// Enough tasks to balance 2-8 threads; more only adds dispatch overhead.
constexpr int64_t kMaxTasks = 32;
/// What one element-at-a-time step costs besides its flops and bytes, in
/// flops: such loops run at roughly a tenth of a vector loop's rate
/// (measured on pads and max pools: 3-15 ns per element).
constexpr int64_t kScalarStepCost = 16;
} // namespace

int64_t roundTaskCount(int64_t wanted) {
  for (int64_t multiple : {8, 4, 2})
    if (wanted >= multiple)
      return wanted / multiple * multiple;
  return 1;
}

TaskSplit splitInto(int64_t units, int64_t tasks) {
  TaskSplit split;
  split.tasks = std::clamp<int64_t>(tasks, 1, std::max<int64_t>(units, 1));
  split.unitsPerTask =
      (std::max<int64_t>(units, 1) + split.tasks - 1) / split.tasks;
  return split;
}

TaskSplit splitUnits(int64_t units, int64_t flopsPerUnit,
                     int64_t minUnitsPerTask) {
  if (units <= 1 || flopsPerUnit <= 0)
    return splitInto(units, 1);
  int64_t byFlops = units * flopsPerUnit / kMinTaskFlops;
  int64_t byUnits = units / std::max<int64_t>(minUnitsPerTask, 1);
  return splitInto(units,
                   roundTaskCount(std::min({byFlops, byUnits, kMaxTasks})));
}

UnitRange taskUnits(EmitterContext &ctx, const TaskSplit &split, int64_t units,
                    Value *firstTask, Value *lastTask) {
  llvm::IRBuilder<> &b = ctx.builder();
  auto boundary = [&](Value *task) {
    return b.CreateUDiv(b.CreateNUWMul(task, ctx.i64(units)),
                        ctx.i64(split.tasks));
  };
  return {boundary(firstTask), boundary(lastTask)};
}

std::string parallelEntryName(const std::string &entryName) {
  return entryName + "_parallel";
}

/// `task(void *frame, int64_t i)`: loads each kernel's pointers from the
/// frame the call site filled (the calls' pointers one after another) and
/// runs task i of every kernel, in order. One per sequence of kernels.
static llvm::Function *taskFunction(EmitterContext &ctx,
                                    llvm::ArrayRef<KernelCall> calls) {
  llvm::Function &first = *calls.front().kernel;
  std::string name = first.getName().str();
  for (const KernelCall &call : calls.drop_front())
    name += "+" + call.kernel->getName().str();
  llvm::Function *&task = ctx.kernelFunctions()["task of " + name];
  if (task)
    return task;
  llvm::LLVMContext &c = ctx.context();
  llvm::Type *ptr = llvm::PointerType::getUnqual(c);
  llvm::Type *i64 = llvm::Type::getInt64Ty(c);
  auto *type =
      llvm::FunctionType::get(llvm::Type::getVoidTy(c), {ptr, i64}, false);
  task = llvm::Function::Create(type, llvm::GlobalValue::InternalLinkage,
                                name + ".task", ctx.module());
  task->addFnAttr(llvm::Attribute::NoUnwind);
  task->addFnAttr("no-builtins");
  for (const char *attr : {"target-cpu", "target-features", "unsafe-fp-math"})
    if (first.hasFnAttribute(attr))
      task->addFnAttr(first.getFnAttribute(attr));

  llvm::IRBuilder<> b(llvm::BasicBlock::Create(c, "entry", task));
  Value *index = task->getArg(1);
  Value *next = b.CreateNUWAdd(index, b.getInt64(1));
  size_t slot = 0;
  for (const KernelCall &call : calls) {
    std::vector<Value *> args;
    for (size_t i = 0; i < call.pointers.size(); ++i, ++slot)
      args.push_back(b.CreateAlignedLoad(
          ptr, b.CreateConstInBoundsGEP1_64(ptr, task->getArg(0), slot),
          ctx.pointerAlign()));
    args.push_back(index);
    args.push_back(next);
    b.CreateCall(call.kernel, args);
  }
  b.CreateRetVoid();
  return task;
}

/// Hands every task to pool->parallel_for; the frame holding the kernels'
/// pointers lives on this function's stack until parallel_for returns.
static void emitPoolCall(EmitterContext &ctx, llvm::ArrayRef<KernelCall> calls,
                         int64_t tasks, Value *pool) {
  llvm::IRBuilder<> &b = ctx.builder();
  llvm::Type *ptr = b.getPtrTy();
  llvm::Function *caller = b.GetInsertBlock()->getParent();
  std::vector<Value *> pointers;
  for (const KernelCall &call : calls)
    pointers.insert(pointers.end(), call.pointers.begin(), call.pointers.end());
  auto *frameType = llvm::ArrayType::get(ptr, pointers.size());
  llvm::AllocaInst *frame;
  {
    llvm::IRBuilder<> entry(&caller->getEntryBlock(),
                            caller->getEntryBlock().begin());
    frame = entry.CreateAlloca(frameType, nullptr, "task.frame");
    frame->setAlignment(ctx.pointerAlign());
  }
  b.CreateLifetimeStart(frame);
  for (size_t i = 0; i < pointers.size(); ++i)
    b.CreateAlignedStore(pointers[i],
                         b.CreateConstInBoundsGEP1_64(ptr, frame, i),
                         ctx.pointerAlign());
  // kiln_parallel is { parallel_for, ctx }: two pointers (runtime.h).
  Value *parallelFor = b.CreateAlignedLoad(ptr, pool, ctx.pointerAlign());
  Value *poolContext = b.CreateAlignedLoad(
      ptr, b.CreateConstInBoundsGEP1_64(ptr, pool, 1), ctx.pointerAlign());
  auto *forType = llvm::FunctionType::get(
      b.getVoidTy(), {ptr, b.getInt64Ty(), ptr, ptr}, false);
  b.CreateCall(forType, parallelFor,
               {poolContext, ctx.i64(tasks), taskFunction(ctx, calls), frame});
  b.CreateLifetimeEnd(frame);
}

/// Without a pool: one kernel runs once over all its tasks; several run
/// task by task, each task's kernels in order (what a pool thread does).
static void emitSerialCalls(EmitterContext &ctx,
                            llvm::ArrayRef<KernelCall> calls, int64_t tasks) {
  llvm::IRBuilder<> &b = ctx.builder();
  auto call = [&](const KernelCall &kernel, Value *first, Value *last) {
    std::vector<Value *> args(kernel.pointers.begin(), kernel.pointers.end());
    args.push_back(first);
    args.push_back(last);
    b.CreateCall(kernel.kernel, args);
  };
  if (calls.size() == 1) {
    call(calls.front(), ctx.i64(0), ctx.i64(tasks));
    return;
  }
  [[maybe_unused]] Error loop = ctx.emitLoop(
      0, tasks, 1,
      [&](Value *task) {
        Value *next = b.CreateNUWAdd(task, ctx.i64(1));
        for (const KernelCall &kernel : calls)
          call(kernel, task, next);
        return Error::success();
      },
      "task");
  assert(!loop && "a loop of calls cannot fail");
}

void emitKernelCalls(EmitterContext &ctx, llvm::ArrayRef<KernelCall> calls,
                     const TaskSplit &split) {
  llvm::IRBuilder<> &b = ctx.builder();
  Value *pool = ctx.parallelPool();
  if (!split.split() || !pool) {
    emitSerialCalls(ctx, calls, split.tasks);
    return;
  }
  llvm::Function *caller = b.GetInsertBlock()->getParent();
  llvm::LLVMContext &c = ctx.context();
  auto *viaPool = llvm::BasicBlock::Create(c, "tasks.pool", caller);
  auto *serial = llvm::BasicBlock::Create(c, "tasks.serial", caller);
  auto *join = llvm::BasicBlock::Create(c, "tasks.done", caller);
  b.CreateCondBr(b.CreateIsNotNull(pool), viaPool, serial);
  b.SetInsertPoint(viaPool);
  emitPoolCall(ctx, calls, split.tasks, pool);
  b.CreateBr(join);
  b.SetInsertPoint(serial);
  emitSerialCalls(ctx, calls, split.tasks);
  b.CreateBr(join);
  b.SetInsertPoint(join);
}

void emitKernelCall(EmitterContext &ctx, llvm::Function &kernel,
                    llvm::ArrayRef<Value *> pointers, const TaskSplit &split) {
  emitKernelCalls(ctx, {KernelCall{&kernel, pointers.vec()}}, split);
}

TaskSplit splitOutputLoop(EmitterContext &ctx,
                          const ir::Instruction &instruction, int64_t units,
                          int64_t scalarSteps) {
  if (!ctx.parallelPool() || units <= 1)
    return {};
  analysis::Cost cost = analysis::instructionCost(instruction);
  int64_t total = cost.flops + cost.bytesRead + cost.bytesWritten +
                  kScalarStepCost * scalarSteps;
  return splitUnits(units, total / units);
}

Error emitTasks(EmitterContext &ctx, const TaskSplit &split, int64_t units,
                llvm::function_ref<Error(const UnitRange &)> body) {
  llvm::IRBuilder<> &b = ctx.builder();
  llvm::Function *caller = b.GetInsertBlock()->getParent();
  llvm::LLVMContext &c = ctx.context();
  llvm::Type *ptr = b.getPtrTy();
  auto *type = llvm::FunctionType::get(
      b.getVoidTy(), {ptr, ptr, ptr, b.getInt64Ty(), b.getInt64Ty()}, false);
  auto *kernel =
      llvm::Function::Create(type, llvm::GlobalValue::InternalLinkage,
                             caller->getName() + ".tasks", ctx.module());
  for (unsigned i = 0; i < 3; ++i)
    kernel->getArg(i)->setName(caller->getArg(i)->getName());
  kernel->getArg(3)->setName("first.task");
  kernel->getArg(4)->setName("last.task");
  // One copy of the code, whether the pool or the serial path runs it.
  kernel->addFnAttr(llvm::Attribute::NoInline);
  kernel->addFnAttr(llvm::Attribute::NoUnwind);
  for (const char *attr :
       {"no-builtins", "target-cpu", "target-features", "unsafe-fp-math"})
    if (caller->hasFnAttribute(attr))
      kernel->addFnAttr(caller->getFnAttribute(attr));

  EmitterContext::FunctionState callerState = ctx.saveFunction();
  Error error = Error::success();
  {
    llvm::IRBuilderBase::InsertPointGuard guard(b);
    auto *prologue = llvm::BasicBlock::Create(c, "prologue", kernel);
    auto *start = llvm::BasicBlock::Create(c, "body", kernel);
    b.SetInsertPoint(start);
    ctx.beginFunction(*kernel, *prologue);
    ctx.setParallelPool(nullptr); // a task splits no further
    error = body(
        taskUnits(ctx, split, units, kernel->getArg(3), kernel->getArg(4)));
    b.CreateRetVoid();
    llvm::BranchInst::Create(start, prologue);
  }
  ctx.restoreFunction(std::move(callerState));
  if (error)
    return error;
  emitKernelCall(ctx, *kernel,
                 {caller->getArg(0), caller->getArg(1), caller->getArg(2)},
                 split);
  return Error::success();
}

Error emitSplitOrWhole(EmitterContext &ctx, const ir::Instruction &instruction,
                       int64_t units, int64_t scalarSteps,
                       llvm::function_ref<Error(const UnitRange *)> body) {
  TaskSplit split = splitOutputLoop(ctx, instruction, units, scalarSteps);
  if (!split.split())
    return body(nullptr);
  return emitTasks(ctx, split, units,
                   [&](const UnitRange &range) { return body(&range); });
}

void emitSerialEntry(llvm::Function &body, const std::string &serialName) {
  llvm::Module &module = *body.getParent();
  llvm::LLVMContext &c = module.getContext();
  llvm::Type *ptr = llvm::PointerType::getUnqual(c);
  auto *type = llvm::FunctionType::get(llvm::Type::getInt32Ty(c),
                                       {ptr, ptr, ptr}, false);
  auto *serial = llvm::Function::Create(
      type, llvm::GlobalValue::ExternalLinkage, serialName, module);
  serial->setDoesNotThrow();
  serial->getArg(0)->setName("args");
  serial->getArg(1)->setName("results");
  serial->getArg(2)->setName("arena");
  for (const char *attr : {"target-cpu", "target-features", "no-builtins"})
    if (body.hasFnAttribute(attr))
      serial->addFnAttr(body.getFnAttribute(attr));
  // One copy of the model's code: the serial entry only forwards.
  body.addFnAttr(llvm::Attribute::NoInline);
  llvm::IRBuilder<> b(llvm::BasicBlock::Create(c, "entry", serial));
  Value *result = b.CreateCall(
      &body, {serial->getArg(0), serial->getArg(1), serial->getArg(2),
              llvm::ConstantPointerNull::get(llvm::PointerType::getUnqual(c))});
  b.CreateRet(result);
}

} // namespace kiln::codegen
