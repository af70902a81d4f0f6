//===- BoundedResults.h - Model outputs of run-time size ---------*- C++ -*-===//
//
// A model output whose extent along one dimension is known only at run time
// (NonMaxSuppression, Where and what is computed from them) leaves the
// compiled function padded at its bound, followed at the end of the results
// by an s32[] count named `<output>_count` (docs/architecture.md, "Run-time
// sized values"; docs/abi.md). Both front ends assemble their results here.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_LIB_IMPORT_COMMON_BOUNDEDRESULTS_H
#define KILN_LIB_IMPORT_COMMON_BOUNDEDRESULTS_H

#include "kiln/Import/DynamicShapes.h"
#include "kiln/Import/Import.h"
#include "kiln/Support/Error.h"

#include <string>
#include <vector>

namespace kiln::import {

/// The results of an entry computation, in order, with their names.
struct ResultList {
  std::vector<Value> values;
  std::vector<std::string> names;
};

/// For each of the first `outputs` results with a dynamic dimension, appends
/// that dimension's run-time size as a result named `<output>_count` and
/// records a BoundedResult. Later results (variable updates) must be
/// static. Errors, prefixed with `file`, name the output: more than one
/// dynamic dimension, a dynamic variable update, a count name already taken.
Error appendBoundedCounts(const DynamicShapes &dynamic, const std::string &file,
                          size_t outputs, ResultList &results,
                          std::vector<BoundedResult> &bounded);

} // namespace kiln::import

#endif // KILN_LIB_IMPORT_COMMON_BOUNDEDRESULTS_H
