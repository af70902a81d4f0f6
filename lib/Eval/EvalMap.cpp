//===- EvalMap.cpp - map: a scalar computation per element ----------------===//
//
// For every element position, runs the to_apply computation through the
// evaluator itself on the operands' elements there. Shapes were checked by
// the verifier.
//
//===----------------------------------------------------------------------===//
#include "EvalInternal.h"

#include "kiln/Eval/Evaluator.h"
#include "kiln/IR/Computation.h"

namespace kiln::eval::detail {

Expected<Literal> evalMap(const Instruction &inst, const Operands &ops) {
  const ir::Computation &callee = *inst.calledComputations().at(0);
  Literal out(inst.shape());
  size_t outSize = ir::byteSize(inst.shape().dtype());
  for (int64_t at = 0; at < inst.shape().numElements(); ++at) {
    std::vector<Literal> args;
    for (const Literal *operand : ops)
      args.push_back(scalarAt(*operand, at));
    Expected<std::vector<Literal>> result = evaluateComputation(callee, args);
    if (!result)
      return result.takeError();
    std::copy(result->front().bytes().begin(), result->front().bytes().end(),
              out.bytes().begin() + std::ptrdiff_t(size_t(at) * outSize));
  }
  return out;
}

} // namespace kiln::eval::detail
