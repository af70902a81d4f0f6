//===- Parser.h - HLO text input --------------------------------*- C++ -*-===//
//
// Parses kiln's HLO text format. Errors are formatted with
// formatSourceError: "file:line:col: error: ..." plus the line and a caret.
// The parser checks syntax, names (undefined, duplicate, use before
// definition) and operand counts; run verifyModule for shape checking.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_IR_PARSER_H
#define KILN_IR_PARSER_H

#include "kiln/IR/Module.h"
#include "kiln/Support/Error.h"

#include <memory>
#include <string_view>

namespace kiln::ir {

Expected<std::unique_ptr<Module>> parseModule(std::string_view text,
                                              std::string_view fileName);

} // namespace kiln::ir

#endif // KILN_IR_PARSER_H
