//===- Opcode.h - HLO opcodes and their static properties -------*- C++ -*-===//
#ifndef KILN_IR_OPCODE_H
#define KILN_IR_OPCODE_H

#include <optional>
#include <string_view>

namespace kiln::ir {

enum class Opcode {
#define KILN_OPCODE(Enumerator, Spelling, Arity, Kind) Enumerator,
#include "kiln/IR/Opcodes.def"
};

enum class OpcodeKind {
  Leaf,
  ElementwiseUnary,
  ElementwiseBinary,
  ElementwiseTernary,
  Layout,
  Reduction,
  Contraction,
  Indexing,
  Structural
};

/// Every opcode in declaration order.
inline constexpr Opcode kAllOpcodes[] = {
#define KILN_OPCODE(Enumerator, Spelling, Arity, Kind) Opcode::Enumerator,
#include "kiln/IR/Opcodes.def"
};

std::string_view opcodeName(Opcode opcode);
std::optional<Opcode> parseOpcodeName(std::string_view name);
/// Fixed operand count, or -1 for variadic opcodes.
int opcodeArity(Opcode opcode);
OpcodeKind opcodeKind(Opcode opcode);
bool isElementwise(Opcode opcode);

/// Comparison of `compare`.
enum class ComparisonDirection { EQ, NE, LT, LE, GT, GE };
std::string_view comparisonDirectionName(ComparisonDirection direction);
std::optional<ComparisonDirection> parseComparisonDirection(std::string_view);

/// The binary operation a reduce or reduce-window combines elements with.
enum class ReducerKind { Add, Mul, Max, Min, And, Or };
std::string_view reducerKindName(ReducerKind kind);
std::optional<ReducerKind> parseReducerKind(std::string_view name);

/// What a fusion computation computes (informational for code generation).
enum class FusionKind { Loop, Input, Output };
std::string_view fusionKindName(FusionKind kind);
std::optional<FusionKind> parseFusionKind(std::string_view name);

} // namespace kiln::ir

#endif // KILN_IR_OPCODE_H
