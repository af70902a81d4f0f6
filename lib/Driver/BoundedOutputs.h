//===- BoundedOutputs.h - The valid entries of padded results ---*- C++ -*-===//
//
// A bounded result (import::BoundedResult: NonMaxSuppression, Where and
// what is computed from them) comes back padded at its bound along one
// dimension, with an s32[] count result saying how many entries are valid.
// `kiln run` writes and `kiln check` compares only those entries.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_LIB_DRIVER_BOUNDEDOUTPUTS_H
#define KILN_LIB_DRIVER_BOUNDEDOUTPUTS_H

#include "kiln/IR/Literal.h"
#include "kiln/Import/Import.h"
#include "kiln/Support/Error.h"

#include <string>
#include <vector>

namespace kiln::driver {

/// The first `count` entries of `padded` along `dim`.
ir::Literal leadingEntries(const ir::Literal &padded, int64_t dim,
                           int64_t count);

/// The value of a bounded result's count, checked against its bound; the
/// error names `name` (the bounded result).
Expected<int64_t> validCount(const ir::Literal &count, const ir::Shape &padded,
                             int64_t dim, const std::string &name);

/// Replaces each bounded result among `results` (one per module result,
/// named by `names`) with its valid entries.
Error trimBoundedResults(const std::vector<import::BoundedResult> &bounded,
                   const std::vector<std::string> &names,
                   std::vector<ir::Literal> &results);

} // namespace kiln::driver

#endif // KILN_LIB_DRIVER_BOUNDEDOUTPUTS_H
