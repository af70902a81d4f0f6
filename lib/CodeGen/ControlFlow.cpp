//===- ControlFlow.cpp - while and conditional as loops and switches ------===//
//
// A while or conditional is one piece of its own (CodeGen.cpp), whose code
// calls the pieces of its callees, already emitted, with the same four
// pointers: every callee value lives in the caller's arena (buffer
// assignment places a callee's arena as a block inside it), so no pointer
// changes hands.
//
//  - while: copy the init elements into the loop state's slices (but those
//    no trip reads before overwriting them); then loop:
//    run the condition's pieces, load the pred[] its root left, leave when
//    false; run the body's pieces, copy its root elements into the state's
//    slices. The body's parameter reads those slices directly. Loops are
//    never unrolled (llvm.loop.unroll.disable): code size does not grow with
//    the trip count.
//  - conditional: a switch on the selector (pred[]: true runs branch 0; an
//    s32[] index outside [0, N) runs the last branch), each case running its
//    branch's pieces and copying the branch root into the result's slices.
//    The branch's parameter reads the operand's slices directly.
//
//===----------------------------------------------------------------------===//
#include "Emitters.h"

#include <llvm/IR/MDBuilder.h>

namespace kiln::codegen {

using analysis::ValueRef;

namespace {

/// The array values of `instruction`'s result (the elements of a tuple, or
/// the array), each resolved to where it lives.
std::vector<ValueRef> arrayValues(const ir::Instruction &instruction) {
  std::vector<ValueRef> values;
  if (!instruction.shape().isTuple()) {
    values.push_back(analysis::resolveValue({&instruction, -1}));
    return values;
  }
  for (size_t i = 0; i < instruction.shape().tupleElements().size(); ++i)
    values.push_back(analysis::resolveValue({&instruction, int64_t(i)}));
  return values;
}

bool sameSlice(const analysis::BufferSlice &a, const analysis::BufferSlice &b) {
  return a.kind == b.kind && a.index == b.index && a.offset == b.offset;
}

/// Copies each array value of `from` into the matching slice of `to`
/// (a while's state or a conditional's result), skipping values already
/// there and, for a while's initial state (`initial`), elements no trip
/// reads before overwriting them.
Error copyInto(EmitterContext &ctx, const ir::Instruction &from,
               const ir::Instruction &to, bool initial = false) {
  std::vector<ValueRef> sources = arrayValues(from);
  std::vector<ValueRef> targets = arrayValues(to);
  const analysis::BufferAssignment &buffers = ctx.buffers();
  for (size_t i = 0; i < targets.size(); ++i) {
    if (sameSlice(buffers.slice(sources[i]), buffers.slice(targets[i])) ||
        (initial && buffers.isOverwrittenInitialState(&to, int64_t(i))))
      continue;
    if (Error e = copyValue(ctx, ctx.buffer(targets[i]), ctx.buffer(sources[i])))
      return e;
  }
  return Error::success();
}

/// Calls `pieces` with the arguments of the function being emitted, and
/// records each call in `calls`.
void callPieces(EmitterContext &ctx, const std::vector<Piece> &pieces,
                std::vector<PieceCall> &calls) {
  llvm::IRBuilder<> &builder = ctx.builder();
  llvm::Function *current = builder.GetInsertBlock()->getParent();
  for (const Piece &piece : pieces)
    calls.push_back(
        {piece.instruction,
         builder.CreateCall(piece.function,
                            {current->getArg(0), current->getArg(1),
                             current->getArg(2), current->getArg(3)}),
         piece.paired});
}

/// The first element of scalar `value`, in its storage type.
llvm::Value *loadScalar(EmitterContext &ctx, ValueRef value) {
  BufferRef buffer = ctx.buffer(value);
  return ctx.builder().CreateLoad(ctx.storageType(buffer.dtype),
                                  buffer.address);
}

Error emitWhile(EmitterContext &ctx, const ir::Instruction &loop,
                const std::vector<std::vector<Piece>> &callees,
                std::vector<PieceCall> &calls) {
  llvm::IRBuilder<> &builder = ctx.builder();
  llvm::LLVMContext &context = ctx.context();
  llvm::Function *function = builder.GetInsertBlock()->getParent();
  if (Error e = copyInto(ctx, *loop.operand(0), loop, /*initial=*/true))
    return e;
  auto *header = llvm::BasicBlock::Create(context, "while.condition", function);
  auto *body = llvm::BasicBlock::Create(context, "while.body", function);
  auto *exit = llvm::BasicBlock::Create(context, "while.exit", function);
  builder.CreateBr(header);

  builder.SetInsertPoint(header);
  callPieces(ctx, callees[0], calls);
  const ir::Computation &condition = *loop.calledComputations()[0];
  llvm::Value *flag = loadScalar(ctx, {condition.root(), -1});
  builder.CreateCondBr(
      builder.CreateICmpNE(flag, llvm::ConstantInt::get(flag->getType(), 0)),
      body, exit);

  builder.SetInsertPoint(body);
  callPieces(ctx, callees[1], calls);
  const ir::Computation &bodyComputation = *loop.calledComputations()[1];
  if (Error e = copyInto(ctx, *bodyComputation.root(), loop))
    return e;
  llvm::BranchInst *back = builder.CreateBr(header);
  // Never unrolled: one copy of the body whatever the trip count.
  llvm::MDNode *disable = llvm::MDNode::get(
      context, llvm::MDString::get(context, "llvm.loop.unroll.disable"));
  llvm::MDNode *loopId = llvm::MDNode::getDistinct(context, {nullptr, disable});
  loopId->replaceOperandWith(0, loopId);
  back->setMetadata(llvm::LLVMContext::MD_loop, loopId);

  builder.SetInsertPoint(exit);
  return Error::success();
}

Error emitConditional(EmitterContext &ctx,
                      const ir::Instruction &conditional,
                      const std::vector<std::vector<Piece>> &callees,
                      std::vector<PieceCall> &calls) {
  llvm::IRBuilder<> &builder = ctx.builder();
  llvm::LLVMContext &context = ctx.context();
  llvm::Function *function = builder.GetInsertBlock()->getParent();
  llvm::Value *selector = loadScalar(ctx, {conditional.operand(0), -1});
  llvm::Value *index = selector;
  if (conditional.operand(0)->shape().dtype() == ir::DType::Pred)
    // true runs branch 0, false branch 1.
    index = builder.CreateSelect(
        builder.CreateICmpNE(selector, llvm::ConstantInt::get(selector->getType(), 0)),
        builder.getInt32(0), builder.getInt32(1));
  const std::vector<ir::Computation *> &branches =
      conditional.calledComputations();
  auto *exit = llvm::BasicBlock::Create(context, "conditional.exit", function);
  std::vector<llvm::BasicBlock *> blocks;
  for (size_t k = 0; k < branches.size(); ++k)
    blocks.push_back(llvm::BasicBlock::Create(
        context, "conditional.branch" + std::to_string(k), function));
  // An index outside [0, N) takes the default: the last branch.
  llvm::SwitchInst *dispatch =
      builder.CreateSwitch(index, blocks.back(), unsigned(branches.size() - 1));
  for (size_t k = 0; k + 1 < branches.size(); ++k)
    dispatch->addCase(builder.getInt32(uint32_t(k)), blocks[k]);
  for (size_t k = 0; k < branches.size(); ++k) {
    builder.SetInsertPoint(blocks[k]);
    callPieces(ctx, callees[k], calls);
    if (Error e = copyInto(ctx, *branches[k]->root(), conditional))
      return e;
    builder.CreateBr(exit);
  }
  builder.SetInsertPoint(exit);
  return Error::success();
}

} // namespace

Error copyValue(EmitterContext &ctx, const BufferRef &target,
                const BufferRef &source) {
  // A generated loop, never a memcpy call: the object must link with
  // nothing but itself.
  return ctx.emitElementLoop(
      target, true, [&](const ElementIndex &index) -> Expected<llvm::Value *> {
        return ctx.loadElement(source, index.linear, index.lanes);
      });
}

Error emitControlFlow(EmitterContext &ctx, const ir::Instruction &instruction,
                      const std::vector<std::vector<Piece>> &calleePieces,
                      std::vector<PieceCall> &calls) {
  if (instruction.opcode() == ir::Opcode::While)
    return emitWhile(ctx, instruction, calleePieces, calls);
  if (instruction.opcode() == ir::Opcode::Conditional)
    return emitConditional(ctx, instruction, calleePieces, calls);
  return makeError("codegen: '%{}' ({}) is not control flow",
                   instruction.name(), ir::opcodeName(instruction.opcode()));
}

} // namespace kiln::codegen
