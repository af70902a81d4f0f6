//===- EvalAppliedReduce.cpp - reduce with a to_apply computation ---------===//
//
// XLA's variadic reduce, written for obvious correctness: for every result
// position the N accumulators start at the N init values and take the
// reduced elements in row-major order of the reduced dimensions; each step
// runs the to_apply computation on (accumulators..., elements...) through
// the evaluator itself. Shapes were checked by the verifier.
//
//===----------------------------------------------------------------------===//
#include "EvalInternal.h"

#include "kiln/Eval/Evaluator.h"
#include "kiln/IR/Computation.h"

#include <algorithm>

namespace kiln::eval::detail {

std::vector<Literal> initialAccumulators(const Operands &ops) {
  std::vector<Literal> acc;
  for (size_t i = ops.size() / 2; i < ops.size(); ++i)
    acc.push_back(*ops[i]);
  return acc;
}

Error foldApplied(const ir::Computation &callee, std::vector<Literal> &acc,
                  std::vector<Literal> elements) {
  std::vector<Literal> args = acc;
  for (Literal &element : elements)
    args.push_back(std::move(element));
  Expected<std::vector<Literal>> next = evaluateComputation(callee, args);
  if (!next)
    return next.takeError();
  acc = std::move(*next);
  return Error::success();
}

Expected<std::vector<Literal>> evalAppliedReduce(const Instruction &inst,
                                  const Operands &ops) {
  const ir::Computation &callee = *inst.calledComputations().at(0);
  size_t n = ops.size() / 2;
  const std::vector<int64_t> &dims = ops[0]->shape().dims();
  // Sorted: the reduced elements are taken in row-major order, as the
  // compiled code takes them.
  std::vector<int64_t> reducedAxes = inst.attrs().dimensions;
  std::sort(reducedAxes.begin(), reducedAxes.end());
  std::vector<int64_t> keptAxes, keptDims, reducedDims;
  for (size_t axis = 0; axis < dims.size(); ++axis) {
    if (std::count(reducedAxes.begin(), reducedAxes.end(), int64_t(axis)))
      continue;
    keptAxes.push_back(int64_t(axis));
    keptDims.push_back(dims[axis]);
  }
  for (int64_t axis : reducedAxes)
    reducedDims.push_back(dims[size_t(axis)]);
  std::vector<Literal> results;
  for (size_t i = 0; i < n; ++i)
    results.emplace_back(Shape(ops[i]->shape().dtype(), keptDims));
  Error status = Error::success();
  std::vector<int64_t> full(dims.size());
  int64_t out = 0;
  forEachIndex(keptDims, [&](const std::vector<int64_t> &kept) {
    if (status)
      return;
    for (size_t k = 0; k < keptAxes.size(); ++k)
      full[size_t(keptAxes[k])] = kept[k];
    std::vector<Literal> acc = initialAccumulators(ops);
    forEachIndex(reducedDims, [&](const std::vector<int64_t> &reduced) {
      if (status)
        return;
      for (size_t k = 0; k < reducedAxes.size(); ++k)
        full[size_t(reducedAxes[k])] = reduced[k];
      int64_t at = linearIndex(full, dims);
      std::vector<Literal> elements;
      for (size_t i = 0; i < n; ++i)
        elements.push_back(scalarAt(*ops[i], at));
      status = foldApplied(callee, acc, std::move(elements));
    });
    if (!status)
      for (size_t i = 0; i < n; ++i)
        storeScalar(results[i], out, acc[i]);
    ++out;
  });
  if (status)
    return status;
  return results;
}

} // namespace kiln::eval::detail
