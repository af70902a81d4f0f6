//===- TfOpDefs.cpp - Output argument lists of TensorFlow ops -------------===//
//
// The table lists the output arguments (names and sizes, from TensorFlow's
// op registry) of the ops that have more than one, and of the ops whose one
// argument is a list, so a misspelt argument name is caught there too.
// Every other op has a single output argument of one tensor.
//
//===----------------------------------------------------------------------===//
#include "TensorFlow/TfOpDefs.h"

#include <fmt/format.h>

#include <initializer_list>
#include <string>
#include <vector>

namespace kiln::import::tf {

namespace {
/// One output argument: `sizeAttr` empty for one tensor; else the int
/// attribute giving N (`list` false) or the type list (`list` true).
struct OutputArg {
  std::string_view name;
  std::string_view sizeAttr = {};
  bool list = false;
};

struct OpOutputs {
  std::string_view op;
  std::initializer_list<OutputArg> args;
};

const OpOutputs kOutputs[] = {
    {"TopKV2", {{"values"}, {"indices"}}},
    {"TopK", {{"values"}, {"indices"}}},
    {"Unique", {{"y"}, {"idx"}}},
    {"SoftmaxCrossEntropyWithLogits", {{"loss"}, {"backprop"}}},
    {"SparseSoftmaxCrossEntropyWithLogits", {{"loss"}, {"backprop"}}},
    {"BroadcastGradientArgs", {{"r0"}, {"r1"}}},
    {"FusedBatchNorm",
     {{"y"}, {"batch_mean"}, {"batch_variance"}, {"reserve_space_1"},
      {"reserve_space_2"}}},
    {"FusedBatchNormV2",
     {{"y"}, {"batch_mean"}, {"batch_variance"}, {"reserve_space_1"},
      {"reserve_space_2"}}},
    {"FusedBatchNormV3",
     {{"y"}, {"batch_mean"}, {"batch_variance"}, {"reserve_space_1"},
      {"reserve_space_2"}, {"reserve_space_3"}}},
    {"Switch", {{"output_false"}, {"output_true"}}},
    {"RefSwitch", {{"output_false"}, {"output_true"}}},
    {"Merge", {{"output"}, {"value_index"}}},
    {"RefMerge", {{"output"}, {"value_index"}}},
    {"NonMaxSuppressionV4", {{"selected_indices"}, {"valid_outputs"}}},
    {"NonMaxSuppressionV5",
     {{"selected_indices"}, {"selected_scores"}, {"valid_outputs"}}},
    {"Split", {{"output", "num_split"}}},
    {"SplitV", {{"output", "num_split"}}},
    {"Unpack", {{"output", "num"}}},
    {"ShapeN", {{"output", "N"}}},
    {"IdentityN", {{"output", "T", true}}},
    {"While", {{"output", "T", true}}},
    {"StatelessWhile", {{"output", "T", true}}},
    {"If", {{"output", "Tout", true}}},
    {"StatelessIf", {{"output", "Tout", true}}},
    {"Case", {{"output", "Tout", true}}},
    {"StatelessCase", {{"output", "Tout", true}}},
    {"PartitionedCall", {{"output", "Tout", true}}},
    {"StatefulPartitionedCall", {{"output", "Tout", true}}},
    {"TensorListPopBack", {{"output_handle"}, {"tensor"}}},
    {"TensorArrayV3", {{"handle"}, {"flow"}}},
    {"TensorArrayConcatV3", {{"value"}, {"lengths"}}},
};

/// How many tensors an argument sized by `attr` stands for on `node`.
Expected<int64_t> argumentSize(const tensorflow::NodeDef &node,
                               std::string_view argument,
                               std::string_view attr, bool list) {
  auto it = node.attr().find(std::string(attr));
  if (it != node.attr().end()) {
    if (!list && it->second.value_case() == tensorflow::AttrValue::kI)
      return it->second.i();
    if (list && it->second.value_case() == tensorflow::AttrValue::kList)
      return it->second.list().type_size();
  }
  return makeError("node '{}' ({}) needs {} attribute '{}' to size its "
                   "output argument '{}'",
                   node.name(), node.op(), list ? "a type list" : "an int",
                   attr, argument);
}

/// The argument lists of a library function's signature.
std::vector<OutputArg> signatureOutputs(const tensorflow::OpDef &signature) {
  std::vector<OutputArg> args;
  for (const tensorflow::OpDef::ArgDef &arg : signature.output_arg()) {
    if (!arg.type_list_attr().empty())
      args.push_back({arg.name(), arg.type_list_attr(), true});
    else
      args.push_back({arg.name(), arg.number_attr(), false});
  }
  return args;
}
} // namespace

Expected<int64_t> flatOutputIndex(const tensorflow::NodeDef &node,
                                  const tensorflow::OpDef *signature,
                                  std::string_view argument, int64_t index) {
  std::vector<OutputArg> args;
  if (signature) {
    args = signatureOutputs(*signature);
  } else {
    for (const OpOutputs &entry : kOutputs)
      if (entry.op == node.op())
        args.assign(entry.args.begin(), entry.args.end());
  }
  if (args.empty())
    return index; // one output argument: its index is the node's
  int64_t start = 0;
  std::vector<std::string_view> names;
  for (const OutputArg &arg : args) {
    bool named = arg.name == argument;
    int64_t size = 1;
    // The named argument's size only bounds the index: its tensors start at
    // `start` whatever it is, so a missing size attribute is no error there.
    bool sized = true;
    if (!arg.sizeAttr.empty()) {
      sized = !named || node.attr().count(std::string(arg.sizeAttr));
      if (sized) {
        Expected<int64_t> counted =
            argumentSize(node, arg.name, arg.sizeAttr, arg.list);
        if (!counted)
          return counted.takeError();
        size = *counted;
      }
    }
    if (named) {
      if (index < 0 || (sized && index >= size))
        return makeError("output argument '{}' of node '{}' ({}) has {} "
                         "tensor{}; index {} is out of range",
                         argument, node.name(), node.op(), size,
                         size == 1 ? "" : "s", index);
      return start + index;
    }
    start += size;
    names.push_back(arg.name);
  }
  return makeError("node '{}' ({}) has no output argument '{}' (it has {})",
                   node.name(), node.op(), argument, fmt::join(names, ", "));
}

} // namespace kiln::import::tf
