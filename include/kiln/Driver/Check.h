//===- Check.h - `kiln check`: golden check of compiled code -----*- C++ -*-===//
//
// Compiles a model for the host through the JIT, runs it and the reference
// evaluator on the same inputs and compares every top-level instruction of
// the optimized module (lib/Driver/CheckModule.h), then the outputs against
// the evaluator on the imported module and, with --expect, against another
// runtime's saved results. docs/cli.md describes the report.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_DRIVER_CHECK_H
#define KILN_DRIVER_CHECK_H

#include "kiln/Import/Import.h"
#include "kiln/Support/Error.h"

#include <iosfwd>
#include <string>
#include <vector>

namespace kiln::driver {

struct CheckOptions {
  std::string model;
  import::ImportOptions import;    ///< --config, --shape, --freeze
  std::vector<std::string> inputs; ///< NAME=FILE.npy; none: seeded inputs
  std::vector<std::string> expect; ///< NAME=FILE.npy per compared result
  bool f64 = false;                ///< also evaluate in float64
  double rtol = 1e-3, atol = 1e-4; ///< --tolerance RTOL[,ATOL]
  bool fusion = true;              ///< --no-fusion
  bool winograd = true;            ///< --no-winograd
  /// Test-only (--inject-error): perturb this instruction's compiled value.
  std::string injectError;
};

/// Runs the check and prints the report to `out`. Returns true when every
/// comparison agrees within the tolerance.
Expected<bool> runCheck(const CheckOptions &options, std::ostream &out);

/// Parses --tolerance "RTOL" or "RTOL,ATOL" into `options`.
Error parseTolerance(const std::string &text, CheckOptions &options);

} // namespace kiln::driver

#endif // KILN_DRIVER_CHECK_H
