//===- Evaluator.h - Reference interpreter for HLO --------------*- C++ -*-===//
//
// Executes any verified module with plain loops written for obvious
// correctness. It is the oracle for code generation tests and the engine of
// constant folding, and shares no code with lib/CodeGen so that a bug cannot
// hide in both. f16/bf16 are computed through f32.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_EVAL_EVALUATOR_H
#define KILN_EVAL_EVALUATOR_H

#include "kiln/IR/Module.h"
#include "kiln/Support/Error.h"

#include <vector>

namespace kiln::eval {

/// Runs the entry computation. `args` are the entry parameters in number
/// order; the result holds one literal per result (the elements of a tuple
/// root, or the single array root).
Expected<std::vector<ir::Literal>>
evaluateModule(const ir::Module &module, const std::vector<ir::Literal> &args);

/// Runs a computation whose parameters are `args`; a tuple root gives one
/// literal per element.
Expected<std::vector<ir::Literal>>
evaluateComputation(const ir::Computation &computation,
                    const std::vector<ir::Literal> &args);

/// Evaluates one array-shaped instruction given literals for its operands
/// (used by constant folding). Tuple-producing opcodes are not accepted.
Expected<ir::Literal>
evaluateInstruction(const ir::Instruction &instruction,
                    const std::vector<const ir::Literal *> &operands);

} // namespace kiln::eval

#endif // KILN_EVAL_EVALUATOR_H
