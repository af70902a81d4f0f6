//===- LiteralUtil.h - Reading and making literals element by element -*- C++ -*-===//
//
// Importers read attribute tensors, shapes and axes as plain numbers and
// build constants from them; these helpers convert between any array dtype
// and int64_t/double (f16/bf16 through f32, pred as 0/1).
//
//===----------------------------------------------------------------------===//
#ifndef KILN_IMPORT_LITERALUTIL_H
#define KILN_IMPORT_LITERALUTIL_H

#include "kiln/IR/Literal.h"

#include <cstdint>
#include <vector>

namespace kiln::import {

double elementAsDouble(const ir::Literal &literal, int64_t index);
int64_t elementAsInt(const ir::Literal &literal, int64_t index);
std::vector<double> literalToDoubles(const ir::Literal &literal);
std::vector<int64_t> literalToInts(const ir::Literal &literal);

/// A literal of `shape` from values converted as kiln's `convert` does:
/// to an integer type truncated toward zero and clamped to its range, NaN
/// to 0; to f16/bf16 rounded to nearest even; to pred, nonzero is true.
ir::Literal literalFromDoubles(const ir::Shape &shape,
                               const std::vector<double> &values);
ir::Literal literalFromInts(const ir::Shape &shape,
                            const std::vector<int64_t> &values);

} // namespace kiln::import

#endif // KILN_IMPORT_LITERALUTIL_H
