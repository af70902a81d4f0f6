//===- Printer.h - HLO text output ------------------------------*- C++ -*-===//
//
// Prints modules in kiln's HLO text format (docs/hlo.md). Parsing the output
// with parseModule and printing again gives identical text.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_IR_PRINTER_H
#define KILN_IR_PRINTER_H

#include "kiln/IR/Module.h"

#include <string>

namespace kiln::ir {

std::string printModule(const Module &module);
std::string printComputation(const Computation &computation);
/// One line, without indentation or ROOT marker: "a = f32[2] add(x, y)".
std::string printInstruction(const Instruction &instruction);
/// The constant's value as it appears between the parentheses.
std::string printLiteral(const Literal &literal);

} // namespace kiln::ir

#endif // KILN_IR_PRINTER_H
