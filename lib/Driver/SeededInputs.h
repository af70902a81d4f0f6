//===- SeededInputs.h - Reproducible inputs for `kiln check` ----*- C++ -*-===//
//
// The same inputs the real-model tests feed every runtime (test/models,
// test/tf-ops/kilnrun.py): one mulberry32 generator, seed 1, drawn through
// the entry parameters in order; floats uniform in [0,1), integers in
// [0,255] (int8: 128..255 wrap to -128..-1, as NumPy's astype(int8) does
// in the runners), bools true with p=0.5. So `kiln check` without --input sees the
// inputs the saved ONNX Runtime / TF.js references were computed from.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_LIB_DRIVER_SEEDEDINPUTS_H
#define KILN_LIB_DRIVER_SEEDEDINPUTS_H

#include "kiln/IR/Module.h"
#include "kiln/Support/Error.h"

#include <vector>

namespace kiln::driver {

/// One literal per entry parameter of `module`, in number order; an error
/// when an input's memory cannot be allocated.
Expected<std::vector<ir::Literal>> seededInputs(const ir::Module &module);

} // namespace kiln::driver

#endif // KILN_LIB_DRIVER_SEEDEDINPUTS_H
