//===- Inspect.cpp - `kiln inspect`: what a model is and costs ------------===//
#include "kiln/Driver/Inspect.h"
#include "Graphviz.h"

#include "kiln/Analysis/BufferAssignment.h"
#include "kiln/Analysis/CostAnalysis.h"
#include "kiln/Driver/Driver.h"
#include "kiln/Driver/Optimize.h"
#include "kiln/Import/TensorFlow.h"

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

/// Reads only the source summary, for models whose import failed. One row
/// per format with a summarizer; other formats report only the error.
using Summarizer = Expected<import::SourceSummary> (*)(
    const std::string &, const import::ImportOptions &);
struct SummarizerRow {
  std::string_view extension;
  Summarizer summarize;
};
const SummarizerRow kSummarizers[] = {
    {".pb", &import::summarizeTensorFlow},
    {".pbtxt", &import::summarizeTensorFlow},
    {".json", &import::summarizeTensorFlow},
};

import::SourceSummary summaryAfterFailure(const InspectOptions &options) {
  std::string extension =
      std::filesystem::path(options.model).extension().string();
  for (const SummarizerRow &row : kSummarizers) {
    if (row.extension != extension)
      continue;
    Expected<import::SourceSummary> summary =
        row.summarize(options.model, options.import);
    if (summary)
      return *summary;
    (void)summary.takeError(); // the import error already says it
  }
  return {};
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
                             arg.variable ? "variable" : "feed",
                             arg.readonly});
  }
  const ir::Shape &root = model.module->entry()->root()->shape();
  std::vector<ir::Shape> shapes =
      root.isTuple() ? root.tupleElements() : std::vector<ir::Shape>{root};
  for (size_t i = 0; i < shapes.size(); ++i) {
    bool update = std::any_of(
        model.variableUpdates.begin(), model.variableUpdates.end(),
        [&](const import::VariableUpdate &u) { return u.result == i; });
    report.outputs.push_back({model.resultNames.at(i), shapes[i],
                              update ? "variable-update" : "fetch", true});
  }
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
    report.error = model.errorMessage();
    report.summary = summaryAfterFailure(options);
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
  return text;
}

nlohmann::ordered_json tensorJson(const TensorSummary &tensor, bool input) {
  nlohmann::ordered_json json;
  json["name"] = tensor.name;
  json["dtype"] = std::string(ir::numpyName(tensor.shape.dtype()));
  json["shape"] = tensor.shape.dims();
  json["kind"] = tensor.kind;
  if (input)
    json["readonly"] = tensor.readonly;
  return json;
}
} // namespace

std::string formatInspectText(const InspectReport &report) {
  std::string text = fmt::format("model: {}\n", report.model);
  if (!report.summary.format.empty())
    text += fmt::format("format: {}\n", report.summary.format);
  if (report.error.empty()) {
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
  }
  return text;
}

std::string formatInspectJson(const InspectReport &report) {
  nlohmann::ordered_json json;
  json["model"] = report.model;
  json["format"] = report.summary.format;
  if (report.error.empty()) {
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
