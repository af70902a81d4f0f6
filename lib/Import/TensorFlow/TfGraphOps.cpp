//===- TfGraphOps.cpp - Placeholder, Const, Identity and other graph plumbing ===//
//
// Ops that move values around without computing: constants, identities
// (including the gradient-blocking and debugging ones, which are identities
// in a compiled forward or training step), and the variable plumbing the
// importer does not resolve itself (reads of a variable give its value).
//
//===----------------------------------------------------------------------===//
#include "TensorFlow/TfOps.h"

#include <fmt/format.h>

namespace kiln::import::tf {

namespace {
void lowerConst(TfNodeContext &c) {
  std::optional<ir::Literal> value = c.attrTensor("value");
  if (!value)
    return;
  std::optional<ir::DType> dtype = c.attrType("dtype");
  if (dtype && *dtype != value->shape().dtype()) {
    c.fail(fmt::format("attribute 'dtype' is {} but the value is {}",
                       ir::dtypeName(*dtype), value->shape().toString()));
    return;
  }
  c.setOutput(0, c.builder().constant(std::move(*value)));
}

// Identity and friends: output 0 is input 0.
void lowerIdentity(TfNodeContext &c) { c.setOutput(0, c.input(0)); }

// IdentityN: output i is input i.
void lowerIdentityN(TfNodeContext &c) {
  for (size_t i = 0; i < c.inputCount(); ++i)
    c.setOutput(i, c.input(i));
}

void lowerNoOp(TfNodeContext &) {}

// A resource read: the variable's latest value in the step (after any
// update ordered before it), or the input itself for a fed handle.
void lowerReadVariable(TfNodeContext &c) {
  std::optional<std::string> variable = c.variableOf(0);
  c.setOutput(0, variable ? c.currentValue(*variable) : c.input(0));
}

// EnsureShape: an identity that checks the (static) shape.
void lowerEnsureShape(TfNodeContext &c) {
  Value x = c.input(0);
  std::optional<std::vector<int64_t>> shape = c.attrShape("shape");
  if (!x)
    return;
  if (shape) {
    bool fits = shape->size() == x->shape().dims().size();
    for (size_t i = 0; fits && i < shape->size(); ++i)
      fits = (*shape)[i] < 0 || (*shape)[i] == x->shape().dim(i);
    if (!fits) {
      c.fail(fmt::format("the input has shape {} but the node ensures [{}]",
                         x->shape().toString(), fmt::join(*shape, ",")));
      return;
    }
  }
  c.setOutput(0, x);
}

// The importer turns every Placeholder it reaches into a parameter or an
// error naming the fetch that needs it; this only runs if that changes.
void lowerPlaceholder(TfNodeContext &c) {
  c.fail("the placeholder is not fed; add a feed for it to the config");
}

// Variables named in the config become parameters before lowering; any
// other variable cannot be compiled.
void lowerVariable(TfNodeContext &c) {
  c.fail(fmt::format("variable '{}' is not in the config; list it as "
                     "variable {{ node_name: \"{}\" ... }} or freeze the graph",
                     c.name(), c.name()));
}

const TfOpRule kRules[] = {
    {"Const", &lowerConst},
    {"Placeholder", &lowerPlaceholder},
    // Unfed, it is its default input.
    {"PlaceholderWithDefault", &lowerIdentity},
    {"Identity", &lowerIdentity},
    {"RefIdentity", &lowerIdentity},
    {"Snapshot", &lowerIdentity},
    // Gradient blocking changes nothing when computing values.
    {"StopGradient", &lowerIdentity},
    {"PreventGradient", &lowerIdentity},
    // Numerics checks are dropped: compiled code does not raise errors.
    {"CheckNumerics", &lowerIdentity},
    {"CheckNumericsV2", &lowerIdentity},
    {"EnsureShape", &lowerEnsureShape},
    {"IdentityN", &lowerIdentityN},
    {"NoOp", &lowerNoOp},
    {"ReadVariableOp", &lowerReadVariable},
    {"VariableV2", &lowerVariable},
    {"Variable", &lowerVariable},
    {"VarHandleOp", &lowerVariable},
};
} // namespace

std::span<const TfOpRule> tfGraphRules() { return kRules; }

} // namespace kiln::import::tf
