//===- EvalSortComparator.cpp - sort ordered by a to_apply comparator -----===//
//
// XLA's sort with a comparator, written for obvious correctness: the row's
// positions are put in order by std::stable_sort, and each comparison runs
// the comparator on (lhs_0, rhs_0, lhs_1, rhs_1, ...) through the evaluator
// itself. Stable whatever is_stable says (a stable order is one of the
// orders an unstable sort may give), so compiled code, which is stable too,
// agrees element for element. The comparator must be a strict weak order,
// as XLA requires; the shapes were checked by the verifier.
//
//===----------------------------------------------------------------------===//
#include "EvalInternal.h"

#include "kiln/Eval/Evaluator.h"
#include "kiln/IR/Computation.h"

#include <algorithm>
#include <numeric>

namespace kiln::eval::detail {

Expected<std::vector<int64_t>>
orderRowByComparator(const ir::Computation &comparator,
                     const Operands &operands, int64_t first, int64_t stride,
                     int64_t n) {
  std::vector<int64_t> order(static_cast<size_t>(n));
  std::iota(order.begin(), order.end(), 0);
  Error error = Error::success();
  // std::stable_sort cannot stop early: after an error every comparison
  // answers false, and the error is returned once the sort ends.
  auto sortsBefore = [&](int64_t a, int64_t b) {
    if (error)
      return false;
    std::vector<Literal> args;
    for (const Literal *operand : operands) {
      args.push_back(scalarAt(*operand, first + a * stride));
      args.push_back(scalarAt(*operand, first + b * stride));
    }
    Expected<std::vector<Literal>> result =
        evaluateComputation(comparator, args);
    if (!result) {
      error = result.takeError();
      return false;
    }
    return result->front().bytes().at(0) != 0;
  };
  std::stable_sort(order.begin(), order.end(), sortsBefore);
  if (error)
    return error;
  return order;
}

} // namespace kiln::eval::detail
