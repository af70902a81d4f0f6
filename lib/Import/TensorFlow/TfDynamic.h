//===- TfDynamic.h - TensorFlow nodes with run-time sized inputs -*- C++ -*-===//
//
// A node with a run-time sized input (a dynamic dimension or size forms,
// docs/architecture.md "Run-time sized values") is lowered here instead of
// by its plain lowering alone:
//  - ops with a dynamic-aware lowering (TfDynamicOps.cpp: Shape, Fill,
//    Range, Slice, Pad, ConcatV2, TopKV2, Reshape, reductions) use it;
//  - ops with a propagation rule (TfDynamicRules.cpp: elementwise and
//    element moves) are lowered as usual and the rule records what their
//    outputs are;
//  - anything else is an error naming the node the run-time size came from.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_LIB_IMPORT_TENSORFLOW_TFDYNAMIC_H
#define KILN_LIB_IMPORT_TENSORFLOW_TFDYNAMIC_H

#include "TensorFlow/TfOps.h"

#include <functional>

namespace kiln::import::tf {

/// Runs `lower` on the current node with `inputs` in place of its own and
/// returns the outputs it set (errors stay in the builder).
using Relower =
    std::function<std::vector<Value>(TfLowering lower, std::vector<Value> inputs)>;

/// True when an input of the node is run-time sized.
bool hasDynamicInput(TfNodeContext &ctx);

/// Lowers the node (whose op's plain lowering is `plain`) and sets its
/// outputs, or records why it cannot take a run-time sized input.
void lowerDynamicNode(TfNodeContext &ctx, TfLowering plain,
                      const Relower &relower);

/// The propagation rule's half (TfDynamicRules.cpp): lowers the node with
/// `plain` and records its outputs' dynamic dims and forms. False (nothing
/// lowered) when the op has no rule.
bool lowerWithPropagation(TfNodeContext &ctx, TfLowering plain,
                          const Relower &relower);

/// The node's inputs, in order (a missing one is nullptr).
std::vector<Value> inputsOf(TfNodeContext &ctx);

} // namespace kiln::import::tf

#endif // KILN_LIB_IMPORT_TENSORFLOW_TFDYNAMIC_H
