//===- OnnxOpTable.cpp - Finding an ONNX op's lowering --------------------===//
#include "Onnx/OnnxOps.h"

#include <fmt/format.h>

namespace kiln::import::onnx {

namespace {
struct OutOfScope {
  std::string_view opType;
  std::string_view reason;
};

constexpr std::string_view kDataDependent =
    "its output shape depends on input values, which an ahead-of-time "
    "compiler cannot allocate for";
constexpr std::string_view kStrings = "string tensors are not supported by "
                                      "an ahead-of-time compiler";
constexpr std::string_view kSequences =
    "sequence and optional types are not supported by an ahead-of-time "
    "compiler";
constexpr std::string_view kRandom =
    "random number generation is not supported by an ahead-of-time compiler";

const OutOfScope kOutOfScope[] = {
    {"Unique", kDataDependent},
    {"Compress", kDataDependent},
    {"StringNormalizer", kStrings},
    {"RegexFullMatch", kStrings},
    {"StringConcat", kStrings},
    {"StringSplit", kStrings},
    {"TfIdfVectorizer", kStrings},
    {"SequenceAt", kSequences},
    {"SequenceConstruct", kSequences},
    {"SequenceEmpty", kSequences},
    {"SequenceErase", kSequences},
    {"SequenceInsert", kSequences},
    {"SequenceLength", kSequences},
    {"SequenceMap", kSequences},
    {"SplitToSequence", kSequences},
    {"ConcatFromSequence", kSequences},
    {"Optional", kSequences},
    {"OptionalGetElement", kSequences},
    {"OptionalHasElement", kSequences},
    {"RandomNormal", kRandom},
    {"RandomNormalLike", kRandom},
    {"RandomUniform", kRandom},
    {"RandomUniformLike", kRandom},
    {"Multinomial", kRandom},
    {"Bernoulli", kRandom},
};
} // namespace

OnnxLowering findOnnxLowering(std::string_view opType) {
  for (std::span<const OnnxOpRule> table :
       {onnxCoreRules(), onnxElementwiseRules(), onnxTensorRules(),
        onnxNnRules(), onnxRecurrentRules(), onnxLossRules(), onnxSignalRules(),
        onnxSamplingRules(), onnxControlFlowRules(), onnxSelectionRules()})
    for (const OnnxOpRule &rule : table)
      if (rule.opType == opType)
        return rule.lower;
  return nullptr;
}

std::string_view onnxUnsupportedReason(std::string_view opType) {
  for (const OutOfScope &entry : kOutOfScope)
    if (entry.opType == opType)
      return entry.reason;
  return {};
}

} // namespace kiln::import::onnx
