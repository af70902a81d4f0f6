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
#include "AppliedAccumulators.h"
#include "ComputeHelpers.h"
#include "Emitters.h"

namespace kiln::codegen {

using llvm::Value;

Error emitAppliedReduceWindow(EmitterContext &ctx,
                              const ir::Instruction &reduceWindow) {
  const ir::Shape &in = reduceWindow.operand(0)->shape();
  std::vector<int64_t> windowSizes;
  for (const ir::WindowDim &w : reduceWindow.attrs().window)
    windowSizes.push_back(w.size);
  // An empty operand has nothing to read: every tap is padding.
  bool empty = in.numElements() == 0;
  llvm::IRBuilder<> &b = ctx.builder();
  AppliedAccumulators accumulators(ctx, reduceWindow);
  return ctx.emitLoopNest(
      accumulators.outDims(),
      [&](llvm::ArrayRef<Value *> outIndex) -> Error {
        Expected<std::vector<Value *>> inits = accumulators.start();
        if (!inits)
          return inits.takeError();
        Error taps = ctx.emitLoopNest(
            windowSizes,
            [&](llvm::ArrayRef<Value *> winIndex) -> Error {
              if (empty)
                return accumulators.fold(*inits);
              WindowTap tap = windowTap(ctx, reduceWindow, outIndex, winIndex);
              std::vector<Value *> elements;
              for (size_t i = 0; i < accumulators.count(); ++i) {
                Expected<Value *> element =
                    ctx.operandElement(reduceWindow, i, tap.index);
                if (!element)
                  return element.takeError();
                elements.push_back(
                    b.CreateSelect(tap.valid, *element, (*inits)[i]));
              }
              return accumulators.fold(elements);
            },
            "w");
        if (taps)
          return taps;
        accumulators.finish(outIndex);
        return Error::success();
      });
}

} // namespace kiln::codegen
