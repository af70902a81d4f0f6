//===- WhileLoopUtils.h - Pieces shared by the loop passes ------*- C++ -*-===//
//
// The while-loop simplifier and loop-invariant code motion both rewrite a
// loop's state tuple (dropping or appending elements), which changes the
// shape of the while, of its condition's and body's parameter and of the
// body's root together. These helpers keep that in one place. Internal to
// lib/Transforms.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_LIB_TRANSFORMS_WHILELOOPUTILS_H
#define KILN_LIB_TRANSFORMS_WHILELOOPUTILS_H

#include "kiln/IR/Module.h"

#include <string>
#include <vector>

namespace kiln::transforms {

inline ir::Computation &loopCondition(const ir::Instruction &loop) {
  return *loop.calledComputations()[0];
}
inline ir::Computation &loopBody(const ir::Instruction &loop) {
  return *loop.calledComputations()[1];
}

/// Whether a pass may change `loop`'s state layout: its state is a tuple
/// the body's root builds with a tuple instruction, and nothing but `loop`
/// runs its condition or its body (before flatten-call-graph two loops may
/// share them; changing one would break the other).
bool ownsTupleLoop(const ir::Module &module, const ir::Instruction &loop);

/// Whether the body's root element `index` is the body's state element
/// `index` unchanged (get-tuple-element(parameter), index=index).
bool isPassThrough(const ir::Computation &body, int64_t index);

/// Whether `value` is get-tuple-element(parameter(0)) of its computation.
bool readsState(const ir::Instruction &value);

/// Gives `loop`, its condition's and its body's parameter the state shape
/// `state`. The caller makes the operand and the body's root match.
void setStateShape(ir::Instruction &loop, const ir::Shape &state);

/// Element `index` of the tuple `value`: the operand when `value` is a
/// tuple instruction, else a new get-tuple-element appended to
/// `computation` (so invariance and constants stay visible through it).
ir::Instruction *elementOf(ir::Computation &computation, ir::Instruction *value,
                           int64_t index, const std::string &name);

/// A tuple, appended to `computation`, of elementOf(value, i) for each i
/// in `indices`.
ir::Instruction *tupleOfElements(ir::Computation &computation,
                                 ir::Instruction *value,
                                 const std::vector<int64_t> &indices);

/// Replaces `loop` (a while of `parent`) by `replacement` in every use and
/// as the root, then removes it.
void replaceLoop(ir::Instruction *loop, ir::Instruction *replacement);

/// Every while instruction of the computations that run whole (the entry,
/// while bodies and conditions, conditional branches), inner loops first.
std::vector<ir::Instruction *> wholeComputationLoops(ir::Module &module);

} // namespace kiln::transforms

#endif // KILN_LIB_TRANSFORMS_WHILELOOPUTILS_H
