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
#include "AppliedComputation.h"
#include "ComputeHelpers.h"
#include "Emitters.h"

#include <algorithm>

namespace kiln::codegen {

using llvm::Value;

Error emitAppliedReduce(EmitterContext &ctx, const ir::Instruction &reduce) {
  const ir::Computation &callee = *reduce.calledComputation();
  size_t n = reduce.operandCount() / 2;
  const ir::Shape &in = reduce.operand(0)->shape();
  std::vector<int64_t> reduced = reduce.attrs().dimensions;
  std::sort(reduced.begin(), reduced.end());
  std::vector<int64_t> reducedSizes, outDims;
  for (int64_t d : reduced)
    reducedSizes.push_back(in.dim(size_t(d)));
  for (int64_t d = 0; d < in.rank(); ++d)
    if (!std::binary_search(reduced.begin(), reduced.end(), d))
      outDims.push_back(in.dim(size_t(d)));
  std::vector<BufferRef> outs;
  std::vector<llvm::AllocaInst *> accs;
  for (size_t i = 0; i < n; ++i) {
    outs.push_back(ctx.outputBuffer(reduce, n == 1 ? -1 : int64_t(i)));
    ir::DType dtype = reduce.operand(i)->shape().dtype();
    accs.push_back(entryAlloca(ctx, ctx.computeType(dtype), "acc"));
  }
  llvm::IRBuilder<> &b = ctx.builder();
  auto loadAll = [&] {
    std::vector<Value *> values;
    for (llvm::AllocaInst *acc : accs)
      values.push_back(b.CreateLoad(acc->getAllocatedType(), acc));
    return values;
  };
  return ctx.emitLoopNest(outDims, [&](llvm::ArrayRef<Value *> outIndex)
                                       -> Error {
    for (size_t i = 0; i < n; ++i) {
      Expected<Value *> init = ctx.operandElement(reduce, n + i, {});
      if (!init)
        return init.takeError();
      b.CreateStore(*init, accs[i]);
    }
    Error inner = ctx.emitLoopNest(
        reducedSizes,
        [&](llvm::ArrayRef<Value *> innerIndex) -> Error {
          std::vector<Value *> full =
              mergeIndices(outIndex, innerIndex, reduced, in.rank());
          std::vector<Value *> args = loadAll();
          for (size_t i = 0; i < n; ++i) {
            Expected<Value *> element = ctx.operandElement(reduce, i, full);
            if (!element)
              return element.takeError();
            args.push_back(*element);
          }
          Expected<std::vector<Value *>> next =
              emitAppliedComputation(ctx, callee, args);
          if (!next)
            return next.takeError();
          for (size_t i = 0; i < n; ++i)
            b.CreateStore((*next)[i], accs[i]);
          return Error::success();
        },
        "r");
    if (inner)
      return inner;
    std::vector<Value *> results = loadAll();
    for (size_t i = 0; i < n; ++i)
      ctx.storeElement(outs[i], linearOrZero(ctx, outIndex, outDims),
                       results[i]);
    return Error::success();
  });
}

} // namespace kiln::codegen
