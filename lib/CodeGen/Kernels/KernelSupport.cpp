//===- KernelSupport.cpp - Building blocks of the contraction kernels ----===//
#include "KernelSupport.h"

#include <algorithm>

#include <llvm/IR/Constants.h>
#include <llvm/IR/Intrinsics.h>
#include <llvm/IR/Module.h>

namespace kiln::codegen::kernels {

using llvm::Value;

Expected<llvm::Function *>
kernelFunction(EmitterContext &ctx, const std::string &key, size_t pointerArgs,
               llvm::function_ref<Error(llvm::Function &)> body,
               size_t writtenArgs, bool taskRange) {
  auto &cache = ctx.kernelFunctions();
  auto found = cache.find(key);
  if (found != cache.end())
    return found->second;
  llvm::LLVMContext &context = ctx.context();
  std::vector<llvm::Type *> params(pointerArgs,
                                   llvm::PointerType::getUnqual(context));
  if (taskRange)
    params.insert(params.end(), 2, llvm::Type::getInt64Ty(context));
  auto *type =
      llvm::FunctionType::get(llvm::Type::getVoidTy(context), params, false);
  std::string name = "kiln.kernel." + std::to_string(cache.size());
  auto *function = llvm::Function::Create(
      type, llvm::GlobalValue::InternalLinkage, name, ctx.module());
  // A kernel stays a function of its own: that is what keeps code size and
  // LLVM time proportional to the number of distinct shapes, not layers.
  function->addFnAttr(llvm::Attribute::NoInline);
  function->addFnAttr(llvm::Attribute::NoUnwind);
  function->addFnAttr("no-builtins");
  if (llvm::Function *entry = ctx.entryFunction())
    for (const char *attr : {"target-cpu", "target-features", "unsafe-fp-math"})
      if (entry->hasFnAttribute(attr))
        function->addFnAttr(entry->getFnAttribute(attr));
  for (size_t i = 0; i < pointerArgs; ++i) {
    function->addParamAttr(unsigned(i), llvm::Attribute::NoCapture);
    if (i < writtenArgs)
      function->addParamAttr(unsigned(i), llvm::Attribute::NoAlias);
    else
      function->addParamAttr(unsigned(i), llvm::Attribute::ReadOnly);
  }
  if (taskRange) {
    function->getArg(unsigned(pointerArgs))->setName("first.task");
    function->getArg(unsigned(pointerArgs + 1))->setName("last.task");
  }
  cache[key] = function;

  llvm::IRBuilder<> &b = ctx.builder();
  llvm::IRBuilderBase::InsertPointGuard guard(b);
  b.SetInsertPoint(llvm::BasicBlock::Create(context, "entry", function));
  if (Error e = body(*function))
    return e;
  b.CreateRetVoid();
  return function;
}

/// Kernel loops are vectorized and blocked by hand, so LLVM's loop
/// vectorizer and unroller are switched off for them: measured, that cuts
/// 20-33% of compile time (movenet-lightning 4.6 -> 3.7 s, posenet 1.8 ->
/// 1.2 s, BlazeFace back 1.4 -> 1.0 s) and leaves the kernels' machine code
/// as it was (the GEMM micro-kernel is identical).
static void markExplicitlyVectorized(EmitterContext &ctx,
                                     llvm::BranchInst &latch) {
  llvm::LLVMContext &c = ctx.context();
  auto flag = [&](const char *name, bool value) {
    return llvm::MDNode::get(
        c, {llvm::MDString::get(c, name),
            llvm::ConstantAsMetadata::get(
                llvm::ConstantInt::get(llvm::Type::getInt1Ty(c), value))});
  };
  llvm::TempMDNode placeholder = llvm::MDNode::getTemporary(c, {});
  llvm::MDNode *loop = llvm::MDNode::get(
      c, {placeholder.get(), flag("llvm.loop.vectorize.enable", false),
          llvm::MDNode::get(
              c, {llvm::MDString::get(c, "llvm.loop.unroll.disable")})});
  loop->replaceOperandWith(0, loop);
  latch.setMetadata(llvm::LLVMContext::MD_loop, loop);
}

Error emitIf(EmitterContext &ctx, Value *condition,
             llvm::function_ref<Error()> body, const llvm::Twine &name) {
  llvm::IRBuilder<> &b = ctx.builder();
  llvm::Function *function = b.GetInsertBlock()->getParent();
  auto *then = llvm::BasicBlock::Create(ctx.context(), name, function);
  auto *done =
      llvm::BasicBlock::Create(ctx.context(), name + ".done", function);
  b.CreateCondBr(condition, then, done);
  b.SetInsertPoint(then);
  if (Error e = body())
    return e;
  b.CreateBr(done);
  b.SetInsertPoint(done);
  return Error::success();
}

const ir::Instruction *soleContraction(const ir::Instruction &fusion) {
  if (fusion.opcode() != ir::Opcode::Fusion ||
      fusion.attrs().fusionKind != ir::FusionKind::Output)
    return nullptr;
  const ir::Instruction *contraction = nullptr;
  for (const ir::Instruction *inner :
       fusion.calledComputation()->instructions()) {
    if (inner->opcode() != ir::Opcode::Dot &&
        inner->opcode() != ir::Opcode::Convolution)
      continue;
    if (contraction)
      return nullptr;
    contraction = inner;
  }
  return contraction;
}

bool hasKernelDtype(const ir::Instruction &contraction) {
  ir::DType dtype = contraction.shape().dtype();
  return (dtype == ir::DType::F32 || dtype == ir::DType::F64) &&
         contraction.operand(0)->shape().dtype() == dtype &&
         contraction.operand(1)->shape().dtype() == dtype;
}

void recordKernel(EmitterContext &ctx, KernelRecord record,
                  const ir::Instruction &computed,
                  const llvm::Function &function) {
  record.instruction = computed.name();
  record.function = function.getName().str();
  ctx.kernelRecords().push_back(std::move(record));
}

Expected<std::vector<Value *>>
emitCarriedLoop(EmitterContext &ctx, Value *begin, Value *end, int64_t step,
                std::vector<Value *> initial, CarriedBody body,
                const llvm::Twine &name) {
  llvm::IRBuilder<> &b = ctx.builder();
  llvm::Function *function = b.GetInsertBlock()->getParent();
  llvm::BasicBlock *preheader = b.GetInsertBlock();
  llvm::BasicBlock *loop =
      llvm::BasicBlock::Create(ctx.context(), name + ".loop", function);
  llvm::BasicBlock *exit =
      llvm::BasicBlock::Create(ctx.context(), name + ".exit", function);
  // On a 32-bit target an i64 counter costs an adds/adc pair and a
  // two-word compare per iteration: count in pointer width there and give
  // the body the index sign-extended (InstCombine folds the extension
  // into the i32 address arithmetic). Kernel ranges index one object, so
  // they fit in 31 bits on a target whose address space is 32 bits.
  llvm::Type *counterType = b.getIntNTy(
      std::min(64u, ctx.module().getDataLayout().getPointerSizeInBits()));
  if (counterType != begin->getType()) {
    begin = b.CreateTrunc(begin, counterType);
    end = b.CreateTrunc(end, counterType);
  }
  b.CreateBr(loop);
  b.SetInsertPoint(loop);
  llvm::PHINode *index = b.CreatePHI(counterType, 2, name);
  index->addIncoming(begin, preheader);
  std::vector<llvm::PHINode *> phis;
  std::vector<Value *> carried;
  for (Value *value : initial) {
    llvm::PHINode *phi = b.CreatePHI(value->getType(), 2);
    phi->addIncoming(value, preheader);
    phis.push_back(phi);
    carried.push_back(phi);
  }
  Value *bodyIndex = counterType == b.getInt64Ty()
                         ? static_cast<Value *>(index)
                         : b.CreateSExt(index, b.getInt64Ty());
  Expected<std::vector<Value *>> next = body(bodyIndex, carried);
  if (!next)
    return next.takeError();
  llvm::BasicBlock *latch = b.GetInsertBlock();
  for (size_t i = 0; i < phis.size(); ++i)
    phis[i]->addIncoming((*next)[i], latch);
  // No signed wrap either when narrowed, so SCEV sees through the sext.
  bool narrowed = counterType != b.getInt64Ty();
  Value *following =
      b.CreateAdd(index, llvm::ConstantInt::get(counterType, step), "",
                  /*HasNUW=*/true, /*HasNSW=*/narrowed);
  index->addIncoming(following, latch);
  llvm::BranchInst *latchBranch =
      b.CreateCondBr(b.CreateICmpSLT(following, end), loop, exit);
  markExplicitlyVectorized(ctx, *latchBranch);
  b.SetInsertPoint(exit);
  return next;
}

Error emitRangeLoop(EmitterContext &ctx, Value *begin, Value *end, int64_t step,
                    llvm::function_ref<Error(Value *)> body,
                    const llvm::Twine &name) {
  Expected<std::vector<Value *>> done = emitCarriedLoop(
      ctx, begin, end, step, {},
      [&](Value *index,
          const std::vector<Value *> &) -> Expected<std::vector<Value *>> {
        if (Error e = body(index))
          return e;
        return std::vector<Value *>{};
      },
      name);
  return done ? Error::success() : done.takeError();
}

Value *offsetPointer(EmitterContext &ctx, ir::DType dtype, Value *ptr,
                     Value *offset) {
  return ctx.builder().CreateInBoundsGEP(ctx.storageType(dtype), ptr, offset);
}

static Value *laneMask(EmitterContext &ctx, int64_t lanes, int64_t valid) {
  std::vector<llvm::Constant *> bits;
  for (int64_t i = 0; i < lanes; ++i)
    bits.push_back(ctx.builder().getInt1(i < valid));
  return llvm::ConstantVector::get(bits);
}

std::optional<std::pair<int64_t, int64_t>>
stridedOutput(EmitterContext &ctx, const ir::Instruction &writer) {
  analysis::ValueRef value{&writer, -1};
  if (!ctx.buffers().hasSlice(value))
    return std::nullopt;
  const analysis::BufferSlice &slice = ctx.buffers().slice(value);
  if (!slice.strided())
    return std::nullopt;
  int64_t element = int64_t(ir::byteSize(writer.shape().dtype()));
  return std::pair{slice.rowBytes / element, slice.rowStride / element};
}

Value *loadLanes(EmitterContext &ctx, ir::DType dtype, Value *ptr,
                 int64_t lanes, int64_t valid, uint64_t align) {
  llvm::IRBuilder<> &b = ctx.builder();
  auto *type =
      llvm::FixedVectorType::get(ctx.storageType(dtype), unsigned(lanes));
  if (valid >= lanes)
    return b.CreateAlignedLoad(type, ptr, llvm::Align(align));
  return b.CreateMaskedLoad(type, ptr, llvm::Align(align),
                            laneMask(ctx, lanes, valid),
                            llvm::Constant::getNullValue(type));
}

void storeLanes(EmitterContext &ctx, ir::DType, Value *ptr, Value *value,
                int64_t valid, uint64_t align) {
  llvm::IRBuilder<> &b = ctx.builder();
  auto *type = llvm::cast<llvm::FixedVectorType>(value->getType());
  int64_t lanes = type->getNumElements();
  if (valid >= lanes) {
    b.CreateAlignedStore(value, ptr, llvm::Align(align));
    return;
  }
  b.CreateMaskedStore(value, ptr, llvm::Align(align),
                      laneMask(ctx, lanes, valid));
}

Value *multiplyAdd(EmitterContext &ctx, Value *acc, Value *a, Value *b) {
  llvm::IRBuilder<> &builder = ctx.builder();
  if (ctx.fusedMultiplyAdd(acc->getType()))
    return builder.CreateIntrinsic(llvm::Intrinsic::fma, {acc->getType()},
                                   {a, b, acc});
  return builder.CreateFAdd(acc, builder.CreateFMul(a, b));
}

Value *zeroRow(EmitterContext &ctx, ir::DType dtype, int64_t count) {
  std::string name = "kiln.zeros." + std::string(ir::dtypeName(dtype)) + "." +
                     std::to_string(count);
  if (llvm::GlobalVariable *existing = ctx.module().getNamedGlobal(name))
    return existing;
  auto *type = llvm::ArrayType::get(ctx.storageType(dtype), uint64_t(count));
  auto *global =
      new llvm::GlobalVariable(ctx.module(), type, /*isConstant=*/true,
                               llvm::GlobalValue::PrivateLinkage,
                               llvm::Constant::getNullValue(type), name);
  global->setAlignment(llvm::Align(64));
  return global;
}

} // namespace kiln::codegen::kernels
