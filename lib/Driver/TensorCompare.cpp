//===- TensorCompare.cpp - Element-wise and normwise tensor errors --------===//
#include "TensorCompare.h"

#include "kiln/Import/LiteralUtil.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <limits>

namespace kiln::driver {

Difference compareTensors(const ir::Literal &got, const ir::Literal &want,
                          const Tolerance &tolerance) {
  assert(got.shape().dims() == want.shape().dims() && "same shape");
  Difference difference;
  difference.elements = got.numElements();
  double largest = 0;
  for (int64_t i = 0; i < difference.elements; ++i) {
    double a = import::elementAsDouble(got, i);
    double b = import::elementAsDouble(want, i);
    if (std::isfinite(b))
      largest = std::max(largest, std::fabs(b));
    double error;
    if (std::isnan(a) || std::isnan(b))
      error = std::isnan(a) && std::isnan(b)
                  ? 0
                  : std::numeric_limits<double>::infinity();
    else if (std::isinf(a) || std::isinf(b))
      error = a == b ? 0 : std::numeric_limits<double>::infinity();
    else
      error = std::fabs(a - b);
    difference.maxAbs = std::max(difference.maxAbs, error);
    if (std::isinf(error) ||
        error > tolerance.atol + tolerance.rtol * std::fabs(b))
      ++difference.mismatches;
  }
  difference.relative =
      largest > 0 ? difference.maxAbs / largest : difference.maxAbs;
  return difference;
}

} // namespace kiln::driver
