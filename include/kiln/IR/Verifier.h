//===- Verifier.h - Shape inference and IR consistency ----------*- C++ -*-===//
//
// inferShape computes the result shape an opcode must have from its operand
// shapes and attributes, rejecting inconsistent input. verifyModule checks
// every instruction's declared shape against it, plus structure (operand
// counts, parameters numbered 0..n-1 with no gaps, operands defined before
// use, unique names, fusion callees present, entry set). Messages name the
// computation and instruction:
//   "in computation 'main': instruction 'd' (dot): lhs contracting dimension
//    1 has size 3 but rhs contracting dimension 0 has size 4".
//
//===----------------------------------------------------------------------===//
#ifndef KILN_IR_VERIFIER_H
#define KILN_IR_VERIFIER_H

#include "kiln/IR/Module.h"
#include "kiln/Support/Error.h"

#include <vector>

namespace kiln::ir {

/// The result shape of `instruction` given its current operands and
/// attributes. For opcodes whose result type is free (convert, parameter,
/// constant, iota, arg-max/min index type) the declared shape is checked
/// for consistency and returned. The error message is prefixed with the
/// computation (when the instruction has one) and the instruction.
Expected<Shape> inferShape(const Instruction &instruction);

/// The same rule without an Instruction, for importers and passes that want
/// a result shape before creating the instruction. `declared` supplies what
/// the operands cannot determine: the result dtype of convert, arg-max/min
/// and iota, the result dimensions of broadcast, reshape and iota, and the
/// whole shape of parameter and constant; other opcodes ignore it. `called`
/// is the fusion's computation (ignored by other opcodes). Messages carry no
/// instruction prefix, e.g. "expected 2 operands but found 3".
Expected<Shape> inferShape(Opcode opcode, const std::vector<Shape> &operands,
                           const Attributes &attrs, const Shape &declared,
                           const Computation *called = nullptr);
/// The same with every callee, in Instruction::calledComputations order
/// (a while's condition and body, a conditional's branches).
Expected<Shape> inferShape(Opcode opcode, const std::vector<Shape> &operands,
                           const Attributes &attrs, const Shape &declared,
                           const std::vector<const Computation *> &called);

/// Checks that `shape` is well formed: a known dtype, dimensions >= 0, an
/// element count and byte size that fit in int64_t, tuples without
/// dimensions. Messages start with `what` ("result shape ...").
Error verifyShape(const Shape &shape, std::string_view what);

Error verifyComputation(const Computation &computation);
Error verifyModule(const Module &module);

} // namespace kiln::ir

#endif // KILN_IR_VERIFIER_H
