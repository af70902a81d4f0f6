//===- Allocation.h - Model-sized allocations that fail as errors -*- C++ -*-===//
//
// A size a model declares may fit every budget (the user raised
// --max-arena) and still be more than the machine can give. std::vector
// reports that by throwing std::bad_alloc, which would end kiln as an
// "internal error"; these helpers turn it into an Error naming what was
// being allocated. The exception is caught where it is thrown and never
// crosses a library boundary.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_SUPPORT_ALLOCATION_H
#define KILN_SUPPORT_ALLOCATION_H

#include "kiln/Support/CheckedArithmetic.h"
#include "kiln/Support/Error.h"

#include <cstdint>
#include <new>
#include <stdexcept>
#include <string_view>
#include <vector>

namespace kiln {

/// The error for an allocation of `bytes` for `what` that the system refused.
inline Error allocationError(std::string_view what, int64_t bytes) {
  return makeError("cannot allocate {} bytes for {}: out of memory", bytes,
                   what);
}

/// `count` value-initialized elements (zeros for arithmetic types), or an
/// error naming `what` when there is not enough memory.
template <typename T>
Expected<std::vector<T>> allocateVector(int64_t count, std::string_view what) {
  assert(count >= 0 && "allocation sizes are checked before");
  try {
    return std::vector<T>(size_t(count));
  } catch (const std::bad_alloc &) {
  } catch (const std::length_error &) {
  }
  return allocationError(
      what, checkedMul(count, int64_t(sizeof(T))).value_or(INT64_MAX));
}

} // namespace kiln

#endif // KILN_SUPPORT_ALLOCATION_H
