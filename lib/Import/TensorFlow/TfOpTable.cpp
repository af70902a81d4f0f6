//===- TfOpTable.cpp - Finding a TensorFlow op's lowering -----------------===//
#include "TensorFlow/TfOps.h"

#include <fmt/format.h>

#include <array>

namespace kiln::import::tf {

namespace {
// Ops that are deliberately out of scope, with the reason users see.
struct OutOfScope {
  std::string_view op;
  std::string_view reason;
};

// v1 control flow is rewritten into While and SelectV2 before lowering
// (TfFunctionalize.h); a node left over is outside any loop or cond.
constexpr std::string_view kControlFlow =
    "a v1 control flow node outside any loop frame or cond";
constexpr std::string_view kTensorList =
    "kiln lowers TensorLists as static buffers for Reserve, EmptyTensorList, "
    "FromTensor, GetItem, SetItem, PushBack, PopBack, Stack, Length and "
    "ElementShape only";
constexpr std::string_view kTensorArray =
    "kiln lowers TensorArrays as static buffers for TensorArrayV3 and its "
    "Write, Read, Gather, Scatter, Split, Concat, Size and Close (V3) only";
constexpr std::string_view kDataDependent =
    "its output shape depends on the input values, which an ahead-of-time "
    "compiler cannot size";

const OutOfScope kOutOfScope[] = {
    {"Switch", kControlFlow},        {"Merge", kControlFlow},
    {"Enter", kControlFlow},         {"Exit", kControlFlow},
    {"NextIteration", kControlFlow}, {"LoopCond", kControlFlow},
    {"RefSwitch", kControlFlow},     {"RefEnter", kControlFlow},
    {"RefMerge", kControlFlow},      {"RefExit", kControlFlow},
    {"Unique", kDataDependent},      {"UniqueV2", kDataDependent},
    {"ListDiff", kDataDependent},    {"SetDiff1D", kDataDependent},
};

constexpr std::string_view kTensorListPrefix = "TensorList";
constexpr std::string_view kTensorArrayPrefix = "TensorArray";
} // namespace

TfLowering findTfLowering(std::string_view op) {
  for (std::span<const TfOpRule> table :
       {tfGraphRules(), tfElementwiseRules(), tfArrayRules(), tfNnRules(),
        tfTrainingRules(), tfControlFlowRules(), tfWhileRules(),
        tfTensorListRules(), tfTensorArrayRules(), tfSelectionRules()})
    for (const TfOpRule &rule : table)
      if (rule.op == op)
        return rule.lower;
  return nullptr;
}

std::string_view tfUnsupportedReason(std::string_view op) {
  for (const OutOfScope &entry : kOutOfScope)
    if (entry.op == op)
      return entry.reason;
  if (op.substr(0, kTensorListPrefix.size()) == kTensorListPrefix)
    return kTensorList;
  if (op.substr(0, kTensorArrayPrefix.size()) == kTensorArrayPrefix)
    return kTensorArray;
  return {};
}

} // namespace kiln::import::tf
