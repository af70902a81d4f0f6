//===- ReducerMatch.h - Recognise a binary reducer computation --*- C++ -*-===//
//
// XLA writes the combiner of reduce and reduce-window as a computation
// (`to_apply=%add`). kiln's reduce carries a ReducerKind instead. This
// recognises the computations that are exactly one of those kinds, so the
// parser (and later a pass over imported modules) can map one to the other.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_IR_REDUCERMATCH_H
#define KILN_IR_REDUCERMATCH_H

#include "kiln/IR/Opcode.h"

#include <optional>
#include <string>

namespace kiln::ir {

class Computation;

struct ReducerMatch {
  std::optional<ReducerKind> kind; ///< set when the computation matches
  std::string mismatch;            ///< otherwise: why, for error messages
};

/// Whether `computation` is `ROOT r = T[] OP(p0, p1)` over its two scalar
/// parameters (numbered 0 and 1) of one dtype T (either operand order), with OP one of add,
/// multiply, maximum, minimum, and, or. Other instructions may not appear:
/// the computation must be exactly the reducer.
ReducerMatch matchBinaryReducer(const Computation &computation);

} // namespace kiln::ir

#endif // KILN_IR_REDUCERMATCH_H
