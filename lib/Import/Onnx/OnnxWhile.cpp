//===- OnnxWhile.cpp - Building blocks of the whiles ONNX lowerings make --===//
#include "Onnx/OnnxWhile.h"

#include <fmt/format.h>

namespace kiln::import::onnx {

/// The computation of a counted while: element `counter` of the state is
/// below `limit` (an element index, or nullopt for the constant `bound`),
/// and element `flag`, if any, is true.
ir::Computation *buildCondition(OnnxNodeContext &ctx, const ir::Shape &state,
                                std::optional<int64_t> limitElement,
                                int64_t bound, std::optional<int64_t> flag) {
  GraphBuilder &b = ctx.builder();
  ir::Computation *condition = newComputation(b, ctx.name() + ".cond");
  GraphBuilder c(*condition);
  c.setSourceNode(ctx.name());
  Value param = c.parameter(0, state, condition->name() + ".state");
  Value counter = c.getTupleElement(param, 0);
  Value limit = limitElement ? c.getTupleElement(param, *limitElement)
                             : c.scalar(ir::DType::S64, double(bound));
  Value go = c.compare(ir::ComparisonDirection::LT, counter, limit);
  if (flag)
    go = c.binary(ir::Opcode::And, go, c.getTupleElement(param, *flag));
  return finish(b, c, *condition, go) ? condition : nullptr;
}

} // namespace kiln::import::onnx
