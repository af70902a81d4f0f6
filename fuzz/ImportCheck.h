//===- ImportCheck.h - The contract every importer keeps --------*- C++ -*-===//
//
// An import either fails with a kiln diagnostic or returns a module that
// passes the verifier (Import.h promises a verified module).
//
//===----------------------------------------------------------------------===//

#ifndef KILN_FUZZ_IMPORTCHECK_H
#define KILN_FUZZ_IMPORTCHECK_H

#include "FuzzSupport.h"

#include "kiln/IR/Verifier.h"
#include "kiln/Import/Import.h"

#include <cstdio>
#include <cstdlib>

namespace kiln::fuzz {

inline void checkImport(Expected<import::ImportedModel> &model) {
  if (!model) {
    requireDiagnostic(model.errorMessage());
    return;
  }
  if (Error error = ir::verifyModule(*model->module)) {
    std::fprintf(stderr, "kiln fuzz: imported module fails to verify:\n%s\n",
                 error.message().c_str());
    std::abort();
  }
}

} // namespace kiln::fuzz

#endif // KILN_FUZZ_IMPORTCHECK_H
