//===- ComparatorMatch.h - Recognise a plain key-order comparator -*- C++ -*-===//
//
// XLA writes a sort's order as a comparator computation (`to_apply=%lt`).
// The common one (what JAX and TensorFlow print for an ordinary sort) is a
// single LT or GT compare of the first operand's lhs and rhs; kiln's sort
// has a fast form for exactly that order (`descending=`), with the other
// operands permuted alongside. This recognises those comparators so the
// parser can map one to the other, as ReducerMatch.h does for reducers.
// jnp.sort's comparator is the same compare with type=TOTALORDER; it is
// recognised too, and its order reported, so callers map it only where
// they can honour the total order.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_IR_COMPARATORMATCH_H
#define KILN_IR_COMPARATORMATCH_H

#include "kiln/IR/Shape.h"

#include <optional>
#include <vector>

namespace kiln::ir {

class Computation;

/// The order a key-order comparator puts operand 0 in.
struct KeyOrder {
  bool descending = false;
  /// The compare is `type=TOTALORDER` (floats in IEEE totalOrder: -NaN
  /// first, -0 before +0, +NaN last), which kiln's descending= form does
  /// not follow: it keeps -0 and +0 equal and puts every NaN at one end.
  bool totalOrder = false;
};

/// For a sort of `operands`: whether `comparator` is exactly
/// `ROOT c = pred[] compare(p0, p1), direction=LT` (ascending) or `GT`
/// (descending), either operand order, where p0 and p1 are parameters 0
/// and 1 (lhs and rhs of operand 0), of any comparison type. It must have
/// the 2N scalar parameters of a sort's comparator, of the operands'
/// dtypes, and no instruction other than them and the compare. Returns the
/// order, or nothing when the comparator is anything else (the general
/// form).
std::optional<KeyOrder> matchKeyOrderComparator(
    const Computation &comparator, const std::vector<Shape> &operands);

} // namespace kiln::ir

#endif // KILN_IR_COMPARATORMATCH_H
