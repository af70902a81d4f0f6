//===- OverwrittenLoopState.h - Initial loop state no trip reads -*- C++ -*-===//
//
// A scan's output buffer enters its loop as a zero broadcast, and the body
// writes one slab of it per trip with dynamic-update-slice at the counter.
// When those writes cover every slab exactly once and nothing reads the
// element's old value in between, no trip (nor the loop's users) ever sees
// the initial value: filling it is dead work. Buffer assignment records
// what that makes dead (BufferAssignment::isDeadInitialValue) and code
// generation neither computes those values nor copies them into the state.
// The IR keeps its meaning: the evaluator still computes the zeros, which
// nothing observes.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_ANALYSIS_OVERWRITTENLOOPSTATE_H
#define KILN_ANALYSIS_OVERWRITTENLOOPSTATE_H

#include "kiln/IR/Computation.h"

#include <set>

namespace kiln::analysis {

/// Whether no trip of while `loop` reads the initial value of its state
/// element `element`, and the loop's result holds none of it. True when:
///  - the loop is counted (countedLoop: counter element, start, step, trip
///    count);
///  - body root element `element` is a dynamic-update-slice of parameter
///    element `element` whose update spans the element on every axis but
///    one, `a`, where it is 1 wide, at a start index along `a` that is the
///    counter read, the counter plus or minus a constant, or a constant
///    minus the counter, so that the trips write slabs 0 .. n-1 of `a` (n
///    the element's size there, equal to the trip count) once each, in
///    either order (a reversed scan counts down);
///  - nothing else reads the element: in the body the update is its only
///    reader (as the buffer it updates, operand 0) and the root its only
///    reader (once); the condition does not read it; every read of the
///    state goes through get-tuple-element.
/// A body reading rows it already wrote is not recognized (conservative).
bool initialStateOverwritten(const ir::Instruction &loop, int64_t element);

/// The instructions of `computation` whose values only initial state
/// elements that no trip reads (initialStateOverwritten) depend on: every
/// reader is such a while's initial-state tuple (read by that while alone,
/// at overwritten elements only) or itself in the set. Parameters,
/// constants, tuples, get-tuple-elements, whiles and conditionals (their
/// callees are code of their own) and values the root returns never are.
std::set<const ir::Instruction *>
deadInitialValues(const ir::Computation &computation);

} // namespace kiln::analysis

#endif // KILN_ANALYSIS_OVERWRITTENLOOPSTATE_H
