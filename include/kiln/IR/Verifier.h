//===- Verifier.h - Shape inference and IR consistency ----------*- C++ -*-===//
//
// inferShape computes the result shape an opcode must have from its operand
// shapes and attributes, rejecting inconsistent input. verifyModule checks
// every instruction's declared shape against it, plus structure (operand
// counts, parameters numbered 0..n-1 with no gaps, operands defined before
// use, unique names, fusion callees present, entry set). Messages name the
// computation and instruction: "in %main: instruction %d (dot): ...".
//
//===----------------------------------------------------------------------===//
#ifndef KILN_IR_VERIFIER_H
#define KILN_IR_VERIFIER_H

#include "kiln/IR/Module.h"
#include "kiln/Support/Error.h"

namespace kiln::ir {

/// The result shape of `instruction` given its current operands and
/// attributes. For opcodes whose result type is free (convert, parameter,
/// constant, iota, arg-max/min index type) the declared shape is checked
/// for consistency and returned.
Expected<Shape> inferShape(const Instruction &instruction);

Error verifyComputation(const Computation &computation);
Error verifyModule(const Module &module);

} // namespace kiln::ir

#endif // KILN_IR_VERIFIER_H
