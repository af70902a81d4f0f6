//===- EvalAppliedReduceWindow.cpp - reduce-window with to_apply -----------===//
//
// XLA's variadic reduce-window, written for obvious correctness: for every
// output position the N accumulators start at the N init values and take
// the window's taps in row-major order of the window; a tap on padding or a
// base-dilation hole gives each input's init value (XLA's rule). Each step
// runs the to_apply computation on (accumulators..., elements...) through
// the evaluator itself. Shapes were checked by the verifier.
//
//===----------------------------------------------------------------------===//
#include "EvalInternal.h"

#include "kiln/IR/Computation.h"

namespace kiln::eval::detail {

Expected<std::vector<Literal>>
evalAppliedReduceWindow(const Instruction &inst, const Operands &ops) {
  const ir::Computation &callee = *inst.calledComputations().at(0);
  size_t n = ops.size() / 2;
  const std::vector<int64_t> &dims = ops[0]->shape().dims();
  const std::vector<ir::WindowDim> &window = inst.attrs().window;
  if (window.size() != dims.size())
    return instructionError(inst, "window needs one entry per dimension");
  std::vector<int64_t> windowSizes;
  for (const ir::WindowDim &w : window)
    windowSizes.push_back(w.size);
  std::vector<Literal> results;
  for (size_t i = 0; i < n; ++i)
    results.emplace_back(inst.shape().isTuple()
                             ? inst.shape().tupleElements()[i]
                             : inst.shape());
  Error status = Error::success();
  std::vector<int64_t> from(dims.size());
  int64_t out = 0;
  forEachIndex(results[0].shape().dims(), [&](const std::vector<int64_t> &at) {
    if (status)
      return;
    std::vector<Literal> acc = initialAccumulators(ops);
    forEachIndex(windowSizes, [&](const std::vector<int64_t> &tap) {
      if (status)
        return;
      bool inside = true;
      for (size_t d = 0; d < dims.size(); ++d) {
        from[d] = windowSource(at[d], tap[d], dims[d], window[d]);
        inside = inside && from[d] >= 0;
      }
      std::vector<Literal> elements;
      for (size_t i = 0; i < n; ++i)
        elements.push_back(inside ? scalarAt(*ops[i], linearIndex(from, dims))
                                  : *ops[n + i]);
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
