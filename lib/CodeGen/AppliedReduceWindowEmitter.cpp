//===- AppliedReduceWindowEmitter.cpp - reduce-window with to_apply --------===//
//
// XLA's variadic reduce-window (an arg-max pool: (value, index) pairs): for
// every output position N accumulators (entry-block slots, so registers)
// start at the N init values and fold the window's taps in row-major order
// of the window, the evaluator's order, with the to_apply computation
// emitted inline on (accumulators..., elements...). A tap on padding or a
// base-dilation hole reads each input's init value (XLA's rule). Not split
// across threads, like reduce with to_apply.
//
//===----------------------------------------------------------------------===//
#include "AppliedComputation.h"
#include "ComputeHelpers.h"
#include "Emitters.h"

namespace kiln::codegen {

using llvm::Value;

Error emitAppliedReduceWindow(EmitterContext &ctx,
                              const ir::Instruction &reduceWindow) {
  const ir::Computation &callee = *reduceWindow.calledComputation();
  size_t n = reduceWindow.operandCount() / 2;
  const ir::Shape &in = reduceWindow.operand(0)->shape();
  std::vector<int64_t> windowSizes;
  for (const ir::WindowDim &w : reduceWindow.attrs().window)
    windowSizes.push_back(w.size);
  std::vector<BufferRef> outs;
  std::vector<llvm::AllocaInst *> accs;
  for (size_t i = 0; i < n; ++i) {
    outs.push_back(ctx.outputBuffer(reduceWindow, n == 1 ? -1 : int64_t(i)));
    ir::DType dtype = reduceWindow.operand(i)->shape().dtype();
    accs.push_back(entryAlloca(ctx, ctx.computeType(dtype), "acc"));
  }
  std::vector<int64_t> outDims = outs[0].dims;
  // An empty operand has nothing to read: every tap is padding.
  bool empty = in.numElements() == 0;
  llvm::IRBuilder<> &b = ctx.builder();
  auto loadAll = [&] {
    std::vector<Value *> values;
    for (llvm::AllocaInst *acc : accs)
      values.push_back(b.CreateLoad(acc->getAllocatedType(), acc));
    return values;
  };
  return ctx.emitLoopNest(outDims, [&](llvm::ArrayRef<Value *> outIndex)
                                       -> Error {
    std::vector<Value *> inits;
    for (size_t i = 0; i < n; ++i) {
      Expected<Value *> init = ctx.operandElement(reduceWindow, n + i, {});
      if (!init)
        return init.takeError();
      inits.push_back(*init);
      b.CreateStore(*init, accs[i]);
    }
    Error taps = ctx.emitLoopNest(
        windowSizes,
        [&](llvm::ArrayRef<Value *> winIndex) -> Error {
          std::vector<Value *> args = loadAll();
          WindowTap tap;
          if (!empty)
            tap = windowTap(ctx, reduceWindow, outIndex, winIndex);
          for (size_t i = 0; i < n; ++i) {
            if (empty) {
              args.push_back(inits[i]);
              continue;
            }
            Expected<Value *> element =
                ctx.operandElement(reduceWindow, i, tap.index);
            if (!element)
              return element.takeError();
            args.push_back(b.CreateSelect(tap.valid, *element, inits[i]));
          }
          Expected<std::vector<Value *>> next =
              emitAppliedComputation(ctx, callee, args);
          if (!next)
            return next.takeError();
          for (size_t i = 0; i < n; ++i)
            b.CreateStore((*next)[i], accs[i]);
          return Error::success();
        },
        "w");
    if (taps)
      return taps;
    std::vector<Value *> results = loadAll();
    for (size_t i = 0; i < n; ++i)
      ctx.storeElement(outs[i], linearOrZero(ctx, outIndex, outDims),
                       results[i]);
    return Error::success();
  });
}

} // namespace kiln::codegen
