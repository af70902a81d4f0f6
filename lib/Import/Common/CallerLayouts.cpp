//===- CallerLayouts.cpp - --input-layout / --output-layout ---------------===//
//
// Both flags rewrite only the entry's edges: a feed's parameter takes the
// caller's shape and one transpose restores the model's order for every
// reader; a result is transposed once before it leaves. Everything between
// is the model as imported, so the simplifier's transpose rules do the rest
// (two transposes that cancel vanish, and layout sinking carries the rest
// through elementwise chains).
//
//===----------------------------------------------------------------------===//
#include "kiln/Import/CallerLayouts.h"

#include <algorithm>
#include <charconv>
#include <numeric>

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace kiln::import {

namespace {

bool isPermutation(const std::vector<int64_t> &permutation) {
  std::vector<int64_t> sorted = permutation;
  std::sort(sorted.begin(), sorted.end());
  for (size_t i = 0; i < sorted.size(); ++i)
    if (sorted[i] != int64_t(i))
      return false;
  return true;
}

std::vector<int64_t> inverse(const std::vector<int64_t> &permutation) {
  std::vector<int64_t> result(permutation.size());
  for (size_t i = 0; i < permutation.size(); ++i)
    result[size_t(permutation[i])] = int64_t(i);
  return result;
}

ir::Shape permuted(const ir::Shape &shape,
                   const std::vector<int64_t> &permutation) {
  std::vector<int64_t> dims;
  for (int64_t dim : permutation)
    dims.push_back(shape.dim(size_t(dim)));
  return ir::Shape(shape.dtype(), std::move(dims));
}

/// "0,2,3,1" -> {0, 2, 3, 1}; nullopt when an item is not a number.
std::optional<std::vector<int64_t>> parseIndexList(std::string_view text) {
  std::vector<int64_t> items;
  while (true) {
    size_t comma = text.find(',');
    std::string_view item = text.substr(0, comma);
    int64_t value = 0;
    auto [end, error] = std::from_chars(item.data(), item.data() + item.size(), value);
    if (item.empty() || error != std::errc() || end != item.data() + item.size())
      return std::nullopt;
    items.push_back(value);
    if (comma == std::string_view::npos)
      return items;
    text.remove_prefix(comma + 1);
  }
}

/// The transpose of `value` by `permutation`, added to the entry.
ir::Instruction *addTranspose(ir::Computation &entry, ir::Instruction *value,
                              const std::vector<int64_t> &permutation) {
  ir::Attributes attrs;
  attrs.dimensions = permutation;
  ir::Instruction *transpose =
      entry.add(ir::Opcode::Transpose, permuted(value->shape(), permutation),
                {value}, std::move(attrs), value->name() + ".layout");
  transpose->setSourceNode(value->sourceNode());
  return transpose;
}

std::string knownNames(const std::vector<std::string> &names) {
  return names.empty() ? "none" : fmt::format("{}", fmt::join(names, ", "));
}

/// The permutation for `layout` on a tensor of `shape`, or an error that
/// names the flag, the spec and what the tensor is.
Expected<std::vector<int64_t>>
permutationFor(std::string_view flag, const std::string &name,
               const std::string &layout, std::string_view what,
               const ir::Shape &shape) {
  if (shape.isTuple())
    return makeError("{} '{}={}': {} '{}' is a tuple, not an array", flag,
                     name, layout, what, name);
  Expected<std::vector<int64_t>> permutation =
      layoutPermutation(layout, shape.rank());
  if (!permutation)
    return makeError("{} '{}={}': {} '{}' is {}: {}", flag, name, layout,
                     what, name, shape.toString(),
                     permutation.takeError().message());
  return permutation;
}

Error applyInputLayout(ImportedModel &model, size_t arg,
                       const std::string &layout) {
  ArgMetadata &metadata = model.args[arg];
  ir::Computation &entry = *model.module->entry();
  ir::Instruction *parameter = entry.parameter(int64_t(arg));
  if (metadata.variable)
    return makeError("--input-layout '{}={}': '{}' is a variable, which the "
                     "model updates in place in its own layout; only feeds "
                     "take a layout",
                     metadata.name, layout, metadata.name);
  Expected<std::vector<int64_t>> permutation = permutationFor(
      "--input-layout", metadata.name, layout, "input", parameter->shape());
  if (!permutation)
    return permutation.takeError();
  std::vector<ir::Instruction *> readers = parameter->users();
  parameter->setShape(permuted(parameter->shape(), *permutation));
  ir::Instruction *modelOrder =
      addTranspose(entry, parameter, inverse(*permutation));
  for (ir::Instruction *reader : readers)
    reader->replaceOperand(parameter, modelOrder);
  if (entry.root() == parameter)
    entry.setRoot(modelOrder);
  metadata.layout = *permutation;
  return Error::success();
}

bool isWrittenBack(const ImportedModel &model, size_t result) {
  return std::any_of(model.variableUpdates.begin(), model.variableUpdates.end(),
                     [&](const VariableUpdate &u) { return u.result == result; });
}

Error applyOutputLayout(ImportedModel &model, size_t result,
                        const std::string &layout) {
  const std::string &name = model.resultNames[result];
  ir::Computation &entry = *model.module->entry();
  ir::Instruction *root = entry.root();
  bool tupleRoot = root->opcode() == ir::Opcode::Tuple;
  if (!tupleRoot && root->shape().isTuple())
    return makeError("--output-layout '{}={}': the results are elements of "
                     "one {} instruction, which a layout cannot split",
                     name, layout, ir::opcodeName(root->opcode()));
  if (isWrittenBack(model, result))
    return makeError("--output-layout '{}={}': '{}' is a variable's new "
                     "value, written back in the model's layout",
                     name, layout, name);
  ir::Instruction *value = tupleRoot ? root->operand(result) : root;
  Expected<std::vector<int64_t>> permutation =
      permutationFor("--output-layout", name, layout, "output", value->shape());
  if (!permutation)
    return permutation.takeError();
  ir::Instruction *callerOrder = addTranspose(entry, value, *permutation);
  if (tupleRoot) {
    root->setOperand(result, callerOrder);
    root->setShape(ir::Shape::tuple([&] {
      std::vector<ir::Shape> elements;
      for (const ir::Instruction *operand : root->operands())
        elements.push_back(operand->shape());
      return elements;
    }()));
  } else {
    entry.setRoot(callerOrder);
  }
  // A bounded result's count keeps counting the same model dimension,
  // which now sits where the permutation put it.
  for (BoundedResult &bounded : model.boundedResults)
    if (bounded.result == result)
      bounded.dim = inverse(*permutation)[size_t(bounded.dim)];
  model.resultLayouts[result] = *permutation;
  return Error::success();
}

std::vector<std::string> argNames(const ImportedModel &model) {
  std::vector<std::string> names;
  for (const ArgMetadata &arg : model.args)
    names.push_back(arg.name);
  return names;
}

/// One side of the entry's edges: the flag, what it names ("input" or
/// "output"), the model's names on that side, and the rewrite of one of them.
struct LayoutSide {
  std::string_view flag;
  std::string_view what;
  std::vector<std::string> names;
  Error (*apply)(ImportedModel &, size_t, const std::string &);
};

Error applyLayouts(ImportedModel &model, const LayoutSide &side,
                   const std::map<std::string, std::string> &layouts,
                   const std::string &path) {
  for (const auto &[name, layout] : layouts) {
    auto it = std::find(side.names.begin(), side.names.end(), name);
    if (it == side.names.end())
      return makeError("{}: {} '{}={}': the model has no {} '{}' (its {}s: {})",
                       path, side.flag, name, layout, side.what, name,
                       side.what, knownNames(side.names));
    if (Error error = side.apply(model, size_t(it - side.names.begin()), layout))
      return makeError("{}: {}", path, error.message());
  }
  return Error::success();
}

} // namespace

Expected<std::vector<int64_t>> layoutPermutation(std::string_view layout,
                                                 int64_t rank) {
  std::vector<int64_t> permutation;
  if (layout == "nhwc" || layout == "nchw") {
    if (rank < 3)
      return makeError("'{}' needs a tensor of rank 3 or more (batch, "
                       "channels and at least one spatial dim)",
                       layout);
    permutation.resize(size_t(rank));
    std::iota(permutation.begin(), permutation.end(), 0);
    // nhwc moves the channels (dim 1) last; nchw moves the last dim to 1.
    if (layout == "nhwc")
      std::rotate(permutation.begin() + 1, permutation.begin() + 2,
                  permutation.end());
    else
      std::rotate(permutation.begin() + 1, permutation.end() - 1,
                  permutation.end());
    return permutation;
  }
  std::optional<std::vector<int64_t>> list = parseIndexList(layout);
  if (!list)
    return makeError("expected 'nhwc', 'nchw' or a permutation such as "
                     "0,2,3,1, found '{}'",
                     layout);
  if (int64_t(list->size()) != rank || !isPermutation(*list))
    return makeError("'{}' is not a permutation of the {} dims 0..{}", layout,
                     rank, rank - 1);
  return *list;
}

Expected<std::map<std::string, std::string>>
parseLayoutSpecs(const std::vector<std::string> &specs, std::string_view flag) {
  std::map<std::string, std::string> layouts;
  for (const std::string &spec : specs) {
    size_t equals = spec.find('=');
    if (equals == std::string::npos || equals == 0 || equals + 1 == spec.size())
      return makeError("{} '{}': expected NAME=LAYOUT, where LAYOUT is nhwc, "
                       "nchw or a permutation such as 0,2,3,1",
                       flag, spec);
    if (!layouts.emplace(spec.substr(0, equals), spec.substr(equals + 1)).second)
      return makeError("{} '{}': input or output '{}' is given a layout twice",
                       flag, spec, spec.substr(0, equals));
  }
  return layouts;
}

Error applyCallerLayouts(ImportedModel &model, const ImportOptions &options,
                         const std::string &path) {
  Expected<std::map<std::string, std::string>> inputs =
      parseLayoutSpecs(options.inputLayouts, "--input-layout");
  if (!inputs)
    return inputs.takeError();
  Expected<std::map<std::string, std::string>> outputs =
      parseLayoutSpecs(options.outputLayouts, "--output-layout");
  if (!outputs)
    return outputs.takeError();
  if (inputs->empty() && outputs->empty())
    return Error::success();
  if (Error error = applyLayouts(
          model, {"--input-layout", "input", argNames(model), &applyInputLayout},
          *inputs, path))
    return error;
  if (Error error = applyLayouts(model,
                                 {"--output-layout", "output",
                                  model.resultNames, &applyOutputLayout},
                                 *outputs, path))
    return error;
  model.module->entry()->sortTopologically();
  return Error::success();
}

} // namespace kiln::import
