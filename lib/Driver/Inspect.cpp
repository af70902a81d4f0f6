//===- Inspect.cpp - `kiln inspect`: what a model is and costs ------------===//
#include "kiln/Driver/Inspect.h"
#include "Graphviz.h"

#include "kiln/Analysis/BufferAssignment.h"
#include "kiln/Analysis/CostAnalysis.h"
#include "kiln/Analysis/TripCount.h"
#include "kiln/Driver/Driver.h"
#include "kiln/Driver/Optimize.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <ostream>

namespace kiln::driver {

namespace {
using ir::Instruction;
using ir::Opcode;

int64_t instructionCount(const ir::Module &module) {
  int64_t count = 0;
  for (const ir::Computation *computation : module.computations())
    count += int64_t(computation->instructionCount());
  return count;
}

// --- Building the report --------------------------------------------------

/// The source summary of a model whose import failed: what can be known
/// without lowering (empty for HLO text and files that do not parse).
import::SourceSummary summaryAfterFailure(const InspectOptions &options) {
  Expected<import::SourceSummary> summary =
      summarizeModel(options.model, options.import);
  if (summary)
    return *summary;
  (void)summary.takeError(); // the import error already says it
  return {};
}

/// The inputs still without static shapes when they are all the import
/// lacks (the summary found nothing else wrong); empty otherwise.
std::vector<std::string>
inputsNeedingShape(const import::SourceSummary &summary) {
  std::vector<std::string> names;
  if (!summary.inputs || !summary.unsupported.empty())
    return names;
  for (const import::DeclaredTensor &input : *summary.inputs)
    if (!input.isStatic())
      names.push_back(input.name);
  return names;
}

/// For HLO text the module is the source graph: its opcodes and constants.
void summarizeHlo(const ir::Module &module, import::SourceSummary &summary) {
  for (const ir::Computation *computation : module.computations())
    for (const Instruction *instruction : computation->instructions()) {
      ++summary.opHistogram[std::string(ir::opcodeName(instruction->opcode()))];
      if (instruction->opcode() == Opcode::Constant)
        summary.weightBytes += instruction->shape().byteSize();
    }
}

void describeTensors(const import::ImportedModel &model,
                     InspectReport &report) {
  std::vector<Instruction *> parameters = model.module->entry()->parameters();
  for (size_t i = 0; i < parameters.size(); ++i) {
    const import::ArgMetadata &arg = model.args.at(i);
    report.inputs.push_back({arg.name, parameters[i]->shape(),
                             arg.variable ? "variable" : "feed", arg.readonly,
                             "", -1});
  }
  const ir::Shape &root = model.module->entry()->root()->shape();
  std::vector<ir::Shape> shapes =
      root.isTuple() ? root.tupleElements() : std::vector<ir::Shape>{root};
  for (size_t i = 0; i < shapes.size(); ++i) {
    bool update = std::any_of(
        model.variableUpdates.begin(), model.variableUpdates.end(),
        [&](const import::VariableUpdate &u) { return u.result == i; });
    report.outputs.push_back({model.resultNames.at(i), shapes[i],
                              update ? "variable-update" : "fetch", true, "",
                              -1});
  }
  for (const import::BoundedResult &bounded : model.boundedResults) {
    TensorSummary &output = report.outputs.at(bounded.result);
    TensorSummary &count = report.outputs.at(bounded.countResult);
    output.boundPartner = count.name;
    count.boundPartner = output.name;
    output.boundDim = count.boundDim = bounded.dim;
    count.kind = "count";
  }
}

std::vector<LoopSummary> summarizeLoops(const ir::Module &module) {
  std::vector<LoopSummary> loops;
  for (const ir::Computation *computation : module.computations())
    for (const ir::Instruction *instruction : computation->instructions())
      if (instruction->opcode() == ir::Opcode::While)
        loops.push_back({instruction->name(), computation->name(),
                         analysis::whileTripCount(*instruction)});
  return loops;
}

Expected<ModelCost> measure(const ir::Module &module) {
  ModelCost cost;
  cost.imported = analysis::moduleCost(module);
  cost.instructions = instructionCount(module);
  Expected<std::unique_ptr<ir::Module>> optimized = optimizedCopy(module);
  if (!optimized)
    return optimized.takeError();
  cost.optimized = analysis::moduleCost(**optimized);
  cost.optimizedInstructions = instructionCount(**optimized);
  cost.loops = summarizeLoops(**optimized);
  Expected<analysis::BufferAssignment> buffers =
      analysis::BufferAssignment::build(**optimized);
  if (!buffers)
    return buffers.takeError();
  cost.arenaBytes = buffers->arenaBytes();
  return cost;
}
} // namespace

InspectReport inspectModel(const InspectOptions &options) {
  InspectReport report;
  report.model = options.model;
  Expected<import::ImportedModel> model =
      importModel(options.model, options.import);
  if (!model) {
    report.summary = summaryAfterFailure(options);
    // Unknown dimensions alone leave the report complete for what can be
    // known: a newcomer's first look at a model must not need --shape.
    report.inputsNeedingShape = inputsNeedingShape(report.summary);
    if (report.inputsNeedingShape.empty())
      report.error = model.errorMessage();
    return report;
  }
  report.summary = model->summary;
  if (report.summary.opHistogram.empty())
    summarizeHlo(*model->module, report.summary);
  describeTensors(*model, report);
  Expected<ModelCost> cost = measure(*model->module);
  if (!cost)
    report.error = cost.errorMessage();
  else
    report.cost = *cost;
  return report;
}

// --- Printing -------------------------------------------------------------

namespace {
/// Source ops by descending count, ties by name.
std::vector<std::pair<std::string, int64_t>>
sortedHistogram(const import::SourceSummary &summary) {
  std::vector<std::pair<std::string, int64_t>> ops(
      summary.opHistogram.begin(), summary.opHistogram.end());
  std::stable_sort(ops.begin(), ops.end(), [](const auto &a, const auto &b) {
    return a.second > b.second;
  });
  return ops;
}

std::string describeTensor(const TensorSummary &tensor) {
  std::string text =
      fmt::format("{}: {}", tensor.name,
                  describeArrayType(ir::numpyName(tensor.shape.dtype()),
                                    tensor.shape.dims()));
  if (tensor.kind == "variable")
    return text + (tensor.readonly ? " variable (read-only)"
                                   : " variable (updated in place)");
  if (tensor.kind == "variable-update")
    return text + " (new value of a variable, written back in place)";
  if (tensor.kind == "count")
    return text + fmt::format(" (valid entries of '{}' along dim {})",
                              tensor.boundPartner, tensor.boundDim);
  if (!tensor.boundPartner.empty())
    return text + fmt::format(" (padded at its bound along dim {}; '{}' "
                              "holds the valid entries)",
                              tensor.boundDim, tensor.boundPartner);
  return text;
}

const import::DeclaredTensor *findDeclared(const import::SourceSummary &summary,
                                           const std::string &name) {
  for (const import::DeclaredTensor &input : *summary.inputs)
    if (input.name == name)
      return &input;
  return nullptr;
}

/// "N,3,224,224" for --shape: each unknown dimension by its symbol, else
/// "D<i>"; "D0,D1,..." for an unknown rank. Adds the placeholders used.
std::string shapeSpec(const import::DeclaredTensor &input,
                      std::vector<std::string> &placeholders) {
  auto use = [&](const std::string &placeholder) {
    if (std::find(placeholders.begin(), placeholders.end(), placeholder) ==
        placeholders.end())
      placeholders.push_back(placeholder);
    return placeholder;
  };
  if (!input.dims)
    return use("D0,D1,...");
  std::vector<std::string> dims;
  for (size_t i = 0; i < input.dims->size(); ++i) {
    const import::DeclaredDim &dim = (*input.dims)[i];
    dims.push_back(dim.size              ? std::to_string(*dim.size)
                   : !dim.symbol.empty() ? use(dim.symbol)
                                         : use(fmt::format("D{}", i)));
  }
  return fmt::format("{}", fmt::join(dims, ","));
}

/// The --shape flags that would make the cost computable, e.g.
/// "--shape input=N,3,224,224 with N replaced by a size".
std::string shapeHint(const InspectReport &report) {
  std::vector<std::string> flags, placeholders;
  for (const std::string &name : report.inputsNeedingShape)
    flags.push_back(fmt::format(
        "--shape {}={}", name,
        shapeSpec(*findDeclared(report.summary, name), placeholders)));
  return fmt::format("{} with {} replaced by {}", fmt::join(flags, " "),
                     fmt::join(placeholders, ", "),
                     placeholders.size() == 1 ? "a size" : "sizes");
}

/// A declared input or output as text; an output whose type only the
/// lowering would tell says so.
std::string describeDeclaredTensor(const import::DeclaredTensor &tensor) {
  if (!tensor.dtype && !tensor.dims)
    return tensor.name + ": known once the inputs have static shapes";
  return tensor.name + ": " + import::describeDeclared(tensor);
}

/// Sizes as numbers, unknown dimensions as their symbol or null; null for
/// an unknown rank.
nlohmann::ordered_json declaredDimsJson(const import::DeclaredTensor &tensor) {
  if (!tensor.dims)
    return nullptr;
  nlohmann::ordered_json dims = nlohmann::ordered_json::array();
  for (const import::DeclaredDim &dim : *tensor.dims) {
    if (dim.size)
      dims.push_back(*dim.size);
    else if (!dim.symbol.empty())
      dims.push_back(dim.symbol);
    else
      dims.push_back(nullptr);
  }
  return dims;
}

nlohmann::ordered_json declaredJson(const import::DeclaredTensor &tensor,
                                    bool input) {
  nlohmann::ordered_json json;
  json["name"] = tensor.name;
  json["dtype"] =
      tensor.dtype
          ? nlohmann::ordered_json(std::string(ir::numpyName(*tensor.dtype)))
          : nlohmann::ordered_json(nullptr);
  json["shape"] = declaredDimsJson(tensor);
  json["kind"] = input ? "feed" : "fetch";
  if (input)
    json["readonly"] = true;
  return json;
}

nlohmann::ordered_json tensorJson(const TensorSummary &tensor, bool input) {
  nlohmann::ordered_json json;
  json["name"] = tensor.name;
  json["dtype"] = std::string(ir::numpyName(tensor.shape.dtype()));
  json["shape"] = tensor.shape.dims();
  json["kind"] = tensor.kind;
  if (input)
    json["readonly"] = tensor.readonly;
  if (tensor.kind == "count")
    json["count_of"] = {{"name", tensor.boundPartner},
                        {"dim", tensor.boundDim}};
  else if (!tensor.boundPartner.empty())
    json["bounded"] = {{"dim", tensor.boundDim},
                       {"count", tensor.boundPartner}};
  return json;
}
} // namespace

/// One line per loop: its trip count, or that FLOPs and bytes count it
/// once.
std::string formatLoops(const std::vector<LoopSummary> &loops) {
  if (loops.empty())
    return "";
  std::string text = fmt::format("loops: {}\n", loops.size());
  for (const LoopSummary &loop : loops)
    text += fmt::format(
        "  {} (in {}): {}\n", loop.name, loop.computation,
        loop.tripCount
            ? fmt::format("{} iterations", *loop.tripCount)
            : std::string("trip count unknown (FLOPs and bytes count one "
                          "iteration)"));
  return text;
}

std::string formatInspectText(const InspectReport &report) {
  std::string text = fmt::format("model: {}\n", report.model);
  if (!report.summary.format.empty())
    text += fmt::format("format: {}\n", report.summary.format);
  if (!report.inputsNeedingShape.empty()) {
    text += "inputs:\n";
    for (const import::DeclaredTensor &input : *report.summary.inputs)
      text += "  " + describeDeclaredTensor(input) + "\n";
    text += "outputs:\n";
    for (const import::DeclaredTensor &output : report.summary.outputs)
      text += "  " + describeDeclaredTensor(output) + "\n";
  } else if (report.error.empty()) {
    text += "inputs:\n";
    for (const TensorSummary &input : report.inputs)
      text += "  " + describeTensor(input) + "\n";
    text += "outputs:\n";
    for (const TensorSummary &output : report.outputs)
      text += "  " + describeTensor(output) + "\n";
  }
  int64_t nodes = 0;
  for (const auto &[op, count] : report.summary.opHistogram)
    nodes += count;
  text += fmt::format("ops ({} nodes, {} kinds):\n", nodes,
                      report.summary.opHistogram.size());
  for (const auto &[op, count] : sortedHistogram(report.summary))
    text += fmt::format("  {:<24} {}\n", op, count);
  text += fmt::format("unsupported ops: {}\n",
                      report.summary.unsupported.empty() ? "none" : "");
  for (const import::UnsupportedOp &op : report.summary.unsupported)
    text += fmt::format("  {}{}: nodes {}\n", op.op,
                        op.reason.empty() ? "" : " (" + op.reason + ")",
                        fmt::join(op.nodes, ", "));
  text += fmt::format("weight bytes: {}\n", report.summary.weightBytes);
  if (report.cost) {
    const ModelCost &cost = *report.cost;
    text += fmt::format("FLOPs: {} (imported HLO), {} (optimized)\n",
                        cost.imported.flops, cost.optimized.flops);
    text += fmt::format("bytes read: {} (imported HLO), {} (optimized)\n",
                        cost.imported.bytesRead, cost.optimized.bytesRead);
    text += fmt::format("bytes written: {} (imported HLO), {} (optimized)\n",
                        cost.imported.bytesWritten,
                        cost.optimized.bytesWritten);
    text += fmt::format("HLO instructions: {} (imported), {} (optimized)\n",
                        cost.instructions, cost.optimizedInstructions);
    text += fmt::format("arena bytes: {}\n", cost.arenaBytes);
    text += formatLoops(cost.loops);
  }
  if (!report.inputsNeedingShape.empty())
    text += fmt::format("FLOPs, bytes and arena: need static shapes: give {}\n",
                        shapeHint(report));
  return text;
}

std::string formatInspectJson(const InspectReport &report) {
  nlohmann::ordered_json json;
  json["model"] = report.model;
  json["format"] = report.summary.format;
  if (!report.inputsNeedingShape.empty()) {
    json["inputs"] = nlohmann::ordered_json::array();
    for (const import::DeclaredTensor &input : *report.summary.inputs)
      json["inputs"].push_back(declaredJson(input, true));
    json["outputs"] = nlohmann::ordered_json::array();
    for (const import::DeclaredTensor &output : report.summary.outputs)
      json["outputs"].push_back(declaredJson(output, false));
  } else if (report.error.empty()) {
    json["inputs"] = nlohmann::ordered_json::array();
    for (const TensorSummary &input : report.inputs)
      json["inputs"].push_back(tensorJson(input, true));
    json["outputs"] = nlohmann::ordered_json::array();
    for (const TensorSummary &output : report.outputs)
      json["outputs"].push_back(tensorJson(output, false));
  }
  json["ops"] = nlohmann::ordered_json::array();
  for (const auto &[op, count] : sortedHistogram(report.summary))
    json["ops"].push_back({{"op", op}, {"count", count}});
  json["unsupported"] = nlohmann::ordered_json::array();
  for (const import::UnsupportedOp &op : report.summary.unsupported)
    json["unsupported"].push_back(
        {{"op", op.op}, {"reason", op.reason}, {"nodes", op.nodes}});
  json["weight_bytes"] = report.summary.weightBytes;
  if (report.cost) {
    const ModelCost &cost = *report.cost;
    json["flops"] = cost.imported.flops;
    json["optimized_flops"] = cost.optimized.flops;
    json["bytes_read"] = cost.imported.bytesRead;
    json["optimized_bytes_read"] = cost.optimized.bytesRead;
    json["bytes_written"] = cost.imported.bytesWritten;
    json["optimized_bytes_written"] = cost.optimized.bytesWritten;
    json["instructions"] = cost.instructions;
    json["optimized_instructions"] = cost.optimizedInstructions;
    json["arena_bytes"] = cost.arenaBytes;
    json["loops"] = nlohmann::ordered_json::array();
    for (const LoopSummary &loop : cost.loops)
      json["loops"].push_back(
          {{"name", loop.name},
           {"computation", loop.computation},
           {"trip_count", loop.tripCount ? nlohmann::ordered_json(*loop.tripCount)
                                         : nlohmann::ordered_json()}});
  }
  if (!report.inputsNeedingShape.empty()) {
    json["needs_shape"] = report.inputsNeedingShape;
    json["shape_hint"] = shapeHint(report);
  }
  if (!report.error.empty())
    json["error"] = report.error;
  // Replace invalid UTF-8 (node names come from user files) instead of
  // throwing.
  return json.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) +
         "\n";
}

namespace {
/// `kiln inspect --dot STAGE`: the graph instead of the report.
Error printDot(const InspectOptions &options, std::ostream &out) {
  if (options.dot != "import" && options.dot != "opt")
    return makeError("invalid --dot '{}': expected import or opt",
                     options.dot);
  Expected<import::ImportedModel> model =
      importModel(options.model, options.import);
  if (!model)
    return model.takeError();
  std::string name = std::filesystem::path(options.model).stem().string();
  if (options.dot == "import") {
    out << moduleToDot(*model->module, name + ": imported HLO");
  } else {
    Expected<std::unique_ptr<ir::Module>> optimized =
        optimizedCopy(*model->module);
    if (!optimized)
      return optimized.takeError();
    out << moduleToDot(**optimized, name + ": optimized HLO (as compiled)");
  }
  out.flush();
  return Error::success();
}
} // namespace

Error runInspect(const InspectOptions &options, std::ostream &out) {
  if (!options.dot.empty())
    return printDot(options, out);
  InspectReport report = inspectModel(options);
  out << (options.json ? formatInspectJson(report)
                       : formatInspectText(report));
  out.flush();
  if (!report.error.empty())
    return Error::failure(report.error);
  return Error::success();
}

} // namespace kiln::driver
