//===- Optimize.h - The optimizing step of compile and the JIT --*- C++ -*-===//
//
// `kiln compile` and `kiln run` (JIT) optimize a copy of the imported
// module with the default pipeline (kiln/Transforms/Passes.h) before buffer
// assignment; `kiln run --reference` evaluates the unoptimized module, so
// the evaluator stays an independent oracle of what was imported.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_DRIVER_OPTIMIZE_H
#define KILN_DRIVER_OPTIMIZE_H

#include "kiln/Import/Import.h"
#include "kiln/IR/Module.h"
#include "kiln/Support/Error.h"

#include <memory>

namespace kiln::driver {

/// A copy of `module`, run through the default pipeline when `optimize`
/// (--no-opt turns it off). Entry parameters and the root's results keep
/// their number, order and shapes.
/// `fusion` false leaves out the fusion passes (--no-fusion).
Expected<std::unique_ptr<ir::Module>> optimizedCopy(const ir::Module &module,
                                                    bool optimize = true,
                                                    bool fusion = true);

/// The same for an imported model; the metadata (arg and result names,
/// variable updates, source summary) is copied unchanged.
Expected<import::ImportedModel>
optimizedCopy(const import::ImportedModel &model, bool optimize = true,
              bool fusion = true);

} // namespace kiln::driver

#endif // KILN_DRIVER_OPTIMIZE_H
