//===- OnnxCoreOps.cpp - Ops the ONNX importer core lowers itself ---------===//
//
// Constant and Identity are graph plumbing rather than math: a Constant
// becomes an HLO constant (so the builder folds everything computed from
// it) and Identity forwards its input.
//
//===----------------------------------------------------------------------===//
#include "Onnx/OnnxOps.h"

#include "kiln/Import/LiteralUtil.h"

#include <fmt/format.h>

namespace kiln::import::onnx {

namespace {
void lowerConstant(OnnxNodeContext &ctx) {
  GraphBuilder &b = ctx.builder();
  if (ctx.hasAttr("value")) {
    if (std::optional<ir::Literal> literal = ctx.attrTensor("value"))
      ctx.setOutput(0, b.constant(std::move(*literal)));
    return;
  }
  if (ctx.hasAttr("value_float")) {
    ctx.setOutput(0, b.scalar(ir::DType::F32, ctx.attrFloat("value_float", 0)));
    return;
  }
  if (ctx.hasAttr("value_int")) {
    ctx.setOutput(0, b.constant(literalFromInts(ir::Shape::scalar(ir::DType::S64),
                                                {ctx.attrInt("value_int", 0)})));
    return;
  }
  if (ctx.hasAttr("value_floats")) {
    std::vector<double> values = ctx.attrFloats("value_floats");
    ir::Shape shape(ir::DType::F32, {int64_t(values.size())});
    ctx.setOutput(0, b.constant(literalFromDoubles(shape, values)));
    return;
  }
  if (ctx.hasAttr("value_ints")) {
    ctx.setOutput(0, b.ints(ir::DType::S64, ctx.attrInts("value_ints")));
    return;
  }
  if (ctx.hasAttr("value_string") || ctx.hasAttr("value_strings")) {
    ctx.fail("string tensors are not supported by an ahead-of-time compiler");
    return;
  }
  if (ctx.hasAttr("sparse_value")) {
    ctx.fail("sparse constants are not supported");
    return;
  }
  ctx.fail("expected one of the attributes value, value_float(s), "
           "value_int(s), but found none");
}

void lowerIdentity(OnnxNodeContext &ctx) { ctx.setOutput(0, ctx.input(0)); }

const OnnxOpRule kCoreRules[] = {
    {"Constant", &lowerConstant},
    {"Identity", &lowerIdentity},
};
} // namespace

std::span<const OnnxOpRule> onnxCoreRules() { return kCoreRules; }

} // namespace kiln::import::onnx
