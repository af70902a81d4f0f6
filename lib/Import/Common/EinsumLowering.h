//===- EinsumLowering.h - Einstein summation as dots and reductions -*- C++ -*-===//
//
// Lowers an einsum equation ("bij,bjk->bik", "...ii->...i", "i,i", implicit
// outputs, ellipses) to HLO: repeated labels in one operand take the
// diagonal, labels only one operand uses and the output does not are summed
// first, operands are contracted pairwise with `dot`, and the result is
// transposed to the output's label order.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_LIB_IMPORT_COMMON_EINSUMLOWERING_H
#define KILN_LIB_IMPORT_COMMON_EINSUMLOWERING_H

#include "kiln/Import/GraphBuilder.h"

#include <string>
#include <vector>

namespace kiln::import {

/// Einstein summation of `operands` (all of one dtype) by `equation`.
/// Ellipsis dimensions must agree between operands (no size-1 broadcasting).
Value einsum(GraphBuilder &b, const std::string &equation,
             std::vector<Value> operands);

} // namespace kiln::import

#endif // KILN_LIB_IMPORT_COMMON_EINSUMLOWERING_H
