//===- Passes.h - Factories of every registered pass ------------*- C++ -*-===//
#ifndef KILN_TRANSFORMS_PASSES_H
#define KILN_TRANSFORMS_PASSES_H

#include "kiln/Transforms/Pass.h"

namespace kiln {

#define KILN_PASS(Name, Factory) std::unique_ptr<Pass> Factory();
#include "kiln/Transforms/Passes.def"

} // namespace kiln

#endif // KILN_TRANSFORMS_PASSES_H
