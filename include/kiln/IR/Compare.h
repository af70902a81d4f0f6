//===- Compare.h - What a compare instruction computes on two values -*- C++ -*-===//
//
// One definition of `compare`'s directions on host values, for the
// evaluator and for analyses that reason about compared constants (trip
// counts). On floats these are IEEE comparisons: every ordered comparison
// with NaN is false, NE is true. type=TOTALORDER compares the float's bits
// mapped by totalOrderKey instead.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_IR_COMPARE_H
#define KILN_IR_COMPARE_H

#include "kiln/IR/Opcode.h"

#include <limits>
#include <type_traits>

namespace kiln::ir {

template <typename T>
bool compareHolds(ComparisonDirection direction, T a, T b) {
  switch (direction) {
  case ComparisonDirection::EQ: return a == b;
  case ComparisonDirection::NE: return a != b;
  case ComparisonDirection::LT: return a < b;
  case ComparisonDirection::LE: return a <= b;
  case ComparisonDirection::GT: return a > b;
  case ComparisonDirection::GE: return a >= b;
  }
  return false;
}

/// The bits of a float as a signed integer that orders like IEEE
/// totalOrder: -NaN < -Inf < ... < -0 < +0 < ... < +Inf < +NaN. Sign and
/// magnitude become two's complement: a negative float's magnitude bits
/// are flipped, so a larger magnitude is a smaller integer, and -0 (sign
/// bit only) lands just below +0.
template <typename Bits>
std::make_signed_t<Bits> totalOrderKey(Bits bits) {
  static_assert(std::is_unsigned_v<Bits>);
  using Signed = std::make_signed_t<Bits>;
  constexpr Bits kMagnitude = std::numeric_limits<Bits>::max() >> 1;
  Signed asSigned = Signed(bits);
  return asSigned < 0 ? Signed(bits ^ kMagnitude) : asSigned;
}

} // namespace kiln::ir

#endif // KILN_IR_COMPARE_H
