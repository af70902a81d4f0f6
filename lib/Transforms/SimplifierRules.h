//===- SimplifierRules.h - The algebraic simplifier's rule tables -*- C++ -*-===//
//
// The `algebraic-simplifier` pass applies rewrite rules, one row per rule,
// kept by family in their own files: arithmetic identities
// (SimplifierArithmetic.cpp), data-movement rules (SimplifierLayout.cpp),
// explicit pads folded into window padding (SimplifierPadFolding.cpp) and
// transpose sinking (TransposeSinking.cpp, TransposeReshapeSinking.cpp,
// TransposeReductionSinking.cpp, TransposeGatherSinking.cpp). A rule looks at one instruction
// and returns the value that replaces it (an existing instruction or one it
// builds with transforms::build), or nullptr when it does not apply. Every
// rule preserves the value exactly, bit for bit, NaNs and -0.0 included.
// Internal to lib/Transforms.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_LIB_TRANSFORMS_SIMPLIFIERRULES_H
#define KILN_LIB_TRANSFORMS_SIMPLIFIERRULES_H

#include "kiln/IR/Instruction.h"

#include <span>

namespace kiln::transforms {

using Rule = ir::Instruction *(*)(ir::Instruction &instruction);

struct RuleRow {
  ir::Opcode opcode; ///< The rule is tried on instructions of this opcode.
  Rule rule;
};

std::span<const RuleRow> arithmeticRules();
std::span<const RuleRow> layoutRules();
std::span<const RuleRow> padFoldingRules();
/// Transposes across reshapes (TransposeReshapeSinking.cpp): below a
/// reshape that only inserts or removes size-1 dims, and into a dense
/// layer's constant weights after a flatten.
std::span<const RuleRow> transposeReshapeRules();
/// Transposes below reduce and reduce-window, their dims or window permuted
/// along (TransposeReductionSinking.cpp).
std::span<const RuleRow> transposeReductionRules();
/// Transposes below gathers (an importer's resize), the operand-side dims
/// renamed (TransposeGatherSinking.cpp).
std::span<const RuleRow> transposeGatherRules();

/// Moves a transpose below an elementwise op (any opcode) so that it can
/// meet another transpose and cancel:
///   op(transpose(x, P), c) -> transpose(op(x, transpose(c, P^-1)), P).
/// Applies when every operand is a transpose by the same P (used by this
/// op only, so no transpose is duplicated), a constant (its transpose is
/// folded), a broadcast (re-broadcast with permuted dimensions) or a scalar
/// bound of clamp. A concatenate moves the same way, its dimension d
/// becoming P[d]:
///   concatenate(transpose(x, P), c), dim=d
///     -> transpose(concatenate(x, transpose(c, P^-1)), dim=P[d]), P).
ir::Instruction *sinkTranspose(ir::Instruction &instruction);

/// A broadcast equal to transpose(broadcast, permutation), built next to
/// `broadcast`; the broadcast's operand is transposed first when the
/// permuted dimensions would not be increasing. nullptr on failure.
ir::Instruction *transposeBroadcast(ir::Instruction &broadcast,
                                    const std::vector<int64_t> &permutation,
                                    const std::string &name);

} // namespace kiln::transforms

#endif // KILN_LIB_TRANSFORMS_SIMPLIFIERRULES_H
