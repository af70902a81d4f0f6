//===- Compare.h - What a compare instruction computes on two values -*- C++ -*-===//
//
// One definition of `compare`'s directions on host values, for the
// evaluator and for analyses that reason about compared constants (trip
// counts). On floats these are IEEE comparisons: every ordered comparison
// with NaN is false, NE is true.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_IR_COMPARE_H
#define KILN_IR_COMPARE_H

#include "kiln/IR/Opcode.h"

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

} // namespace kiln::ir

#endif // KILN_IR_COMPARE_H
