//===- TensorCompare.h - How far one tensor is from another -----*- C++ -*-===//
//
// `kiln check` compares a computed tensor with a reference element by
// element. An element agrees when |got - want| <= atol + rtol * |want|
// (NumPy's allclose; NaN agrees with NaN, an infinity with the same
// infinity). The figures reported are the largest absolute error and the
// normwise relative error max|got - want| / max|want|, which stays
// meaningful where single reference values are near zero.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_LIB_DRIVER_TENSORCOMPARE_H
#define KILN_LIB_DRIVER_TENSORCOMPARE_H

#include "kiln/IR/Literal.h"

#include <cstdint>

namespace kiln::driver {

struct Tolerance {
  double rtol = 1e-3;
  double atol = 1e-4;
};

struct Difference {
  double maxAbs = 0;  ///< largest |got - want| (infinity for a NaN mismatch)
  double relative = 0; ///< maxAbs / max|want| (maxAbs when want is all 0)
  int64_t mismatches = 0; ///< elements outside the tolerance
  int64_t elements = 0;
  bool agrees() const { return mismatches == 0; }
};

/// `got` and `want` must have the same shape (dtype may differ: an f32
/// result against its f64 reference).
Difference compareTensors(const ir::Literal &got, const ir::Literal &want,
                          const Tolerance &tolerance);

} // namespace kiln::driver

#endif // KILN_LIB_DRIVER_TENSORCOMPARE_H
