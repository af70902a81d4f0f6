//===- TransformUtils.h - Helpers shared by the rewriting passes -*- C++ -*-===//
//
// Small, pass-independent pieces: building an instruction with its shape
// inferred by the verifier's rules, recognizing splat constants by their
// exact bit pattern (so -0.0 and +0.0 are told apart), and permutation
// arithmetic for transposes. Internal to lib/Transforms.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_LIB_TRANSFORMS_TRANSFORMUTILS_H
#define KILN_LIB_TRANSFORMS_TRANSFORMUTILS_H

#include "kiln/IR/Module.h"

#include <cstdint>
#include <set>
#include <string>
#include <vector>

namespace kiln::transforms {

/// Appends `opcode(operands)` to `computation` with its result shape
/// inferred; `declared` supplies what the operands cannot (see
/// ir::inferShape). The name is made unique from `name`. Returns nullptr
/// when shape inference rejects the operands (a rewrite rule then gives up).
/// The new instruction is appended at the end: callers re-sort the
/// computation topologically before it is verified.
ir::Instruction *build(ir::Computation &computation, ir::Opcode opcode,
                       std::vector<ir::Instruction *> operands,
                       ir::Attributes attrs, const ir::Shape &declared,
                       const std::string &name);

/// Element values recognized by their exact bit pattern in a given dtype.
enum class SplatValue {
  Zero,         ///< integers 0, floats +0.0, pred false
  NegativeZero, ///< floats -0.0 only
  One,          ///< integers 1, floats 1.0, pred true
};

/// Whether every element of `literal` is `value` (false for empty arrays
/// of an unsupported dtype pattern).
bool isSplatLiteral(const ir::Literal &literal, SplatValue value);

/// Whether `instruction` is a constant, or a chain of broadcasts and
/// reshapes of a constant, every element of which is `value`.
bool isSplat(const ir::Instruction *instruction, SplatValue value);

/// The permutation Q with Q[P[i]] = i.
std::vector<int64_t> inversePermutation(const std::vector<int64_t> &permutation);
/// transpose(transpose(x, inner), outer) == transpose(x, result).
std::vector<int64_t> composePermutations(const std::vector<int64_t> &inner,
                                         const std::vector<int64_t> &outer);
bool isIdentityPermutation(const std::vector<int64_t> &permutation);
/// Whether `value` is a transpose that changes which dimension is innermost
/// (it reads its operand with a stride along every output row).
bool movesInnermostDimension(const ir::Instruction &value);

/// Adds the values `root` returns to `out`: itself and, through tuples, its
/// elements (the fusion passes keep these materialized).
void collectRootValues(const ir::Instruction *root,
                       std::set<const ir::Instruction *> &out);

/// The computations that run whole, with buffers of their own: the entry
/// and every computation a while or conditional runs (callees first, the
/// entry last). The fusion passes and transpose hoisting run on each.
std::vector<ir::Computation *> runWholeComputations(ir::Module &module);

/// Copies `callee`'s instructions into `caller` (appended: the caller
/// re-sorts), its parameters replaced by `arguments` in parameter order, and
/// returns the copy of its root. Callees of the copied instructions are
/// shared, not copied. Used by inline-calls and by the while-loop
/// simplifier for a loop that runs its body once.
ir::Instruction *
copyComputationInto(ir::Computation &caller, const ir::Computation &callee,
                    const std::vector<ir::Instruction *> &arguments);

/// Removes every computation (except the entry) that nothing calls.
/// Returns whether any was removed.
bool removeUncalledComputations(ir::Module &module);

} // namespace kiln::transforms

#endif // KILN_LIB_TRANSFORMS_TRANSFORMUTILS_H
