//===- TfLoopBounds.h - The trip bound of a loop as TensorFlow writes it -*- C++ -*-===//
//
// A TensorList that EmptyTensorList makes without a bound (max_num_elements
// -1) gets the trip bound of the loop it enters, found at import time from
// the loop's callee computations: the analysis passes run too late to size
// the list's buffer.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_LIB_IMPORT_TENSORFLOW_TFLOOPBOUNDS_H
#define KILN_LIB_IMPORT_TENSORFLOW_TFLOOPBOUNDS_H

#include "kiln/Import/GraphBuilder.h"

#include <optional>
#include <vector>

namespace kiln::import::tf {

/// The most trips a loop of condition `cond` and body `body` (computations
/// of one tuple parameter, the state) can run from `init`, as TensorFlow
/// writes a bounded loop: the condition is `counter < limit`, alone or
/// and-ed with other tests; the body adds 1 to the counter; the counter
/// starts at a constant; the limit is a constant, or a state element that
/// starts at one and that the body passes on unchanged (TF2's
/// maximum_iterations, a TF1 invariant). nullopt when no such test is found;
/// then `unknownLimit` is the init of a limit element that is no constant,
/// if there is one (to name in the error).
std::optional<int64_t> loopTripBound(const ir::Computation &cond,
                                     const ir::Computation &body,
                                     const std::vector<Value> &init,
                                     Value &unknownLimit);

/// Whether `body` adds exactly 1 to state element `index` on every trip.
bool stepsByOne(const ir::Computation &body, int64_t index);
/// Whether `body` passes state element `index` on unchanged.
bool keepsElement(const ir::Computation &body, int64_t index);

} // namespace kiln::import::tf

#endif // KILN_LIB_IMPORT_TENSORFLOW_TFLOOPBOUNDS_H
