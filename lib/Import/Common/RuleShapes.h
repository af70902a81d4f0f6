//===- RuleShapes.h - Lowerings that are one HLO call, for rule tables -*- C++ -*-===//
//
// Most elementwise ops of both front ends lower to one GraphBuilder call on
// their inputs. These templates are those lowerings; a front end
// instantiates them with its own context type, so the function pointers fit
// its rule table:
//
//   {"Abs", unaryOp<TfNodeContext, Opcode::Abs>}
//
// Each front end keeps short aliases (TfElementwiseOps.cpp,
// OnnxElementwiseOps.cpp) so its table reads `unaryOp<Opcode::Abs>`.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_LIB_IMPORT_COMMON_RULESHAPES_H
#define KILN_LIB_IMPORT_COMMON_RULESHAPES_H

#include "Common/NodeContext.h"

namespace kiln::import::rules {

template <class Context, ir::Opcode Op> void unaryOp(Context &c) {
  if (c.requireInputs(1))
    c.setOutput(0, c.builder().unary(Op, c.input(0)));
}

template <class Context, ir::Opcode Op> void binaryOp(Context &c) {
  if (c.requireInputs(2))
    c.setOutput(0, c.builder().binary(Op, c.input(0), c.input(1)));
}

template <class Context, ir::ComparisonDirection Dir>
void compareOp(Context &c) {
  if (c.requireInputs(2))
    c.setOutput(0, c.builder().compare(Dir, c.input(0), c.input(1)));
}

template <class Context, Value (*Fn)(GraphBuilder &, Value)>
void unaryFn(Context &c) {
  if (c.requireInputs(1))
    c.setOutput(0, Fn(c.builder(), c.input(0)));
}

template <class Context, Value (*Fn)(GraphBuilder &, Value, Value)>
void binaryFn(Context &c) {
  if (c.requireInputs(2))
    c.setOutput(0, Fn(c.builder(), c.input(0), c.input(1)));
}

} // namespace kiln::import::rules

#endif // KILN_LIB_IMPORT_COMMON_RULESHAPES_H
