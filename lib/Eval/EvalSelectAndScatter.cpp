//===- EvalSelectAndScatter.cpp - select-and-scatter ----------------------===//
//
// XLA's select-and-scatter (the gradient of max-pool), written for obvious
// correctness. The result starts as init everywhere. For each source
// position, in row-major order, the window over the operand is walked in
// row-major order of its taps, skipping padding: the first element is
// selected, and a later element replaces the selection when
// select(selected, element) is false. The source value is then combined
// into the result at the selected position: result = scatter(result,
// source). A window of padding only selects nothing and its source value
// is dropped. Both computations run through the evaluator itself.
//
//===----------------------------------------------------------------------===//
#include "EvalInternal.h"

#include "kiln/Eval/Evaluator.h"
#include "kiln/IR/Computation.h"

namespace kiln::eval::detail {

namespace {

/// The row-major position in `operand` selected in the window of source
/// position `at`, or -1 when the window holds only padding.
Expected<int64_t> selectInWindow(const Instruction &inst,
                                 const ir::Computation &select,
                                 const Literal &operand,
                                 const std::vector<int64_t> &at) {
  const std::vector<int64_t> &dims = operand.shape().dims();
  const std::vector<ir::WindowDim> &window = inst.attrs().window;
  std::vector<int64_t> windowSizes, from(dims.size());
  for (const ir::WindowDim &w : window)
    windowSizes.push_back(w.size);
  int64_t selected = -1;
  Error status = Error::success();
  forEachIndex(windowSizes, [&](const std::vector<int64_t> &tap) {
    if (status)
      return;
    for (size_t d = 0; d < dims.size(); ++d) {
      from[d] = windowSource(at[d], tap[d], dims[d], window[d]);
      if (from[d] < 0)
        return; // padding is never selected
    }
    int64_t candidate = linearIndex(from, dims);
    if (selected < 0) {
      selected = candidate;
      return;
    }
    Expected<std::vector<Literal>> keep = evaluateComputation(
        select, {scalarAt(operand, selected), scalarAt(operand, candidate)});
    if (!keep) {
      status = keep.takeError();
      return;
    }
    if (keep->front().bytes().at(0) == 0)
      selected = candidate;
  });
  if (status)
    return status;
  return selected;
}

} // namespace

Expected<Literal> evalSelectAndScatter(const Instruction &inst,
                                       const Operands &ops) {
  const ir::Computation &select = *inst.calledComputations().at(0);
  const ir::Computation &scatter = *inst.calledComputations().at(1);
  const Literal &operand = *ops[0], &source = *ops[1], &init = *ops[2];
  if (inst.attrs().window.size() != operand.shape().dims().size())
    return instructionError(inst, "window needs one entry per dimension");
  Literal out(inst.shape());
  for (int64_t i = 0; i < out.shape().numElements(); ++i)
    storeScalar(out, i, init);
  Error status = Error::success();
  int64_t from = 0;
  forEachIndex(source.shape().dims(), [&](const std::vector<int64_t> &at) {
    if (status)
      return;
    Expected<int64_t> selected = selectInWindow(inst, select, operand, at);
    if (!selected) {
      status = selected.takeError();
      return;
    }
    if (*selected >= 0) {
      Expected<std::vector<Literal>> combined = evaluateComputation(
          scatter, {scalarAt(out, *selected), scalarAt(source, from)});
      if (!combined) {
        status = combined.takeError();
        return;
      }
      storeScalar(out, *selected, combined->front());
    }
    ++from;
  });
  if (status)
    return status;
  return out;
}

} // namespace kiln::eval::detail
