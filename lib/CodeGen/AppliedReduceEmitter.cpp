//===- AppliedReduceEmitter.cpp - reduce with a to_apply computation ------===//
//
// XLA's variadic reduce: N accumulators (entry-block slots, so they become
// registers) start at the N init values; for every reduced element, in
// row-major order of the reduced dimensions (the evaluator's order, which
// matters for non-associative computations such as an arg-max with ties),
// the to_apply computation is emitted inline on (accumulators...,
// elements...). The result is one array per input. Not split across
// threads: the callee is arbitrary, so no combining of partial results is
// assumed.
//
//===----------------------------------------------------------------------===//
#include "AppliedAccumulators.h"
#include "ComputeHelpers.h"
#include "Emitters.h"

#include <algorithm>

namespace kiln::codegen {

using llvm::Value;

Error emitAppliedReduce(EmitterContext &ctx, const ir::Instruction &reduce) {
  const ir::Shape &in = reduce.operand(0)->shape();
  std::vector<int64_t> reduced = reduce.attrs().dimensions;
  std::sort(reduced.begin(), reduced.end());
  std::vector<int64_t> reducedSizes;
  for (int64_t d : reduced)
    reducedSizes.push_back(in.dim(size_t(d)));
  AppliedAccumulators accumulators(ctx, reduce);
  return ctx.emitLoopNest(
      accumulators.outDims(),
      [&](llvm::ArrayRef<Value *> outIndex) -> Error {
        if (Expected<std::vector<Value *>> inits = accumulators.start();
            !inits)
          return inits.takeError();
        Error inner = ctx.emitLoopNest(
            reducedSizes,
            [&](llvm::ArrayRef<Value *> innerIndex) -> Error {
              std::vector<Value *> full =
                  mergeIndices(outIndex, innerIndex, reduced, in.rank());
              std::vector<Value *> elements;
              for (size_t i = 0; i < accumulators.count(); ++i) {
                Expected<Value *> element =
                    ctx.operandElement(reduce, i, full);
                if (!element)
                  return element.takeError();
                elements.push_back(*element);
              }
              return accumulators.fold(elements);
            },
            "r");
        if (inner)
          return inner;
        accumulators.finish(outIndex);
        return Error::success();
      });
}

} // namespace kiln::codegen
