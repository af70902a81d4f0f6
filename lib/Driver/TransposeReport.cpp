//===- TransposeReport.cpp - The report's "transposes" section ------------===//
//
// Which transposes survive the optimization pipeline and how many bytes they
// move. Importers of NCHW models (tf2onnx, paddle2onnx) wrap every spatial op
// in NCHW <-> NHWC transposes that the simplifier is meant to cancel; what is
// left here is what a layout change would still have to remove (model edges,
// or an op the sinking rules do not cross). A transpose inside a fusion is
// listed too: it is not materialized, but its loop reads across rows.
//
//===----------------------------------------------------------------------===//
#include "Report.h"

#include <algorithm>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <map>

namespace kiln::driver {

namespace {

/// The text lists this many, biggest first; the JSON lists every one.
constexpr size_t kTextRows = 10;

/// One transpose left in the optimized module.
struct TransposeRow {
  std::string instruction, computation, node, fusion, shape;
  std::vector<int64_t> dimensions; ///< the permutation
  int64_t bytes = 0; ///< the result's bytes: each element is moved once
};

/// The fusion instruction (by name) that calls each fused computation.
std::map<const ir::Computation *, std::string>
fusionCallers(const ir::Module &module) {
  std::map<const ir::Computation *, std::string> callers;
  for (const ir::Computation *computation : module.computations())
    for (const ir::Instruction *instruction : computation->instructions())
      if (instruction->opcode() == ir::Opcode::Fusion)
        if (const ir::Computation *called = instruction->calledComputation())
          callers.emplace(called, instruction->name());
  return callers;
}

std::vector<TransposeRow> transposeRows(const ir::Module &module) {
  auto callers = fusionCallers(module);
  std::vector<TransposeRow> rows;
  for (const ir::Computation *computation : module.computations())
    for (const ir::Instruction *instruction : computation->instructions()) {
      if (instruction->opcode() != ir::Opcode::Transpose)
        continue;
      TransposeRow row;
      row.instruction = instruction->name();
      row.computation = computation->name();
      row.node = instruction->sourceNode();
      if (auto caller = callers.find(computation); caller != callers.end())
        row.fusion = caller->second;
      row.shape = instruction->shape().toString();
      row.dimensions = instruction->attrs().dimensions;
      row.bytes = instruction->shape().byteSize();
      rows.push_back(std::move(row));
    }
  std::stable_sort(rows.begin(), rows.end(),
                   [](const TransposeRow &a, const TransposeRow &b) {
                     return a.bytes > b.bytes;
                   });
  return rows;
}

std::string orDash(const std::string &text) {
  return text.empty() ? "-" : text;
}

} // namespace

ReportSection transposesReportSection(const ir::Module &module) {
  std::vector<TransposeRow> rows = transposeRows(module);
  int64_t total = 0, fused = 0;
  for (const TransposeRow &row : rows) {
    total += row.bytes;
    fused += row.fusion.empty() ? 0 : 1;
  }

  ReportSection section;
  section.key = section.title = "transposes";
  section.text = fmt::format(
      "transposes: {} ({} materialized, {} fused), {} bytes moved per run\n",
      rows.size(), rows.size() - size_t(fused), fused, total);
  std::vector<std::vector<std::string>> cells;
  for (size_t i = 0; i < rows.size() && i < kTextRows; ++i) {
    const TransposeRow &row = rows[i];
    cells.push_back({row.instruction, orDash(row.fusion), orDash(row.node),
                     row.shape,
                     fmt::format("{{{}}}", fmt::join(row.dimensions, ",")),
                     std::to_string(row.bytes)});
  }
  if (!cells.empty())
    section.text += formatTable({"instruction", "fused in", "node", "shape",
                                 "dimensions", "bytes"},
                                cells);
  if (rows.size() > kTextRows)
    section.text += fmt::format("... {} more\n", rows.size() - kTextRows);

  section.json["count"] = rows.size();
  section.json["bytes"] = total;
  section.json["transposes"] = nlohmann::ordered_json::array();
  for (const TransposeRow &row : rows) {
    nlohmann::ordered_json json;
    json["instruction"] = row.instruction;
    json["computation"] = row.computation;
    if (!row.fusion.empty())
      json["fusion"] = row.fusion;
    if (!row.node.empty())
      json["node"] = row.node;
    json["shape"] = row.shape;
    json["dimensions"] = row.dimensions;
    json["bytes"] = row.bytes;
    section.json["transposes"].push_back(json);
  }
  return section;
}

} // namespace kiln::driver
