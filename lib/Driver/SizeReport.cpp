//===- SizeReport.cpp - The report's "code", "weights" and "totals" -------===//
//
// Where the object's bytes go, read from its symbol table (ObjectSymbols):
// code generation names every function and constant after what it
// computes or holds, so each symbol leads back to an HLO instruction and
// through it to the model's node:
//   NAME_run, NAME_run_parallel   the entry points
//   NAME_run.INST                 the code of one scheduled instruction
//   NAME_run.results              copies of results and write-backs
//   kiln.kernel.N                 a contraction kernel (shared by shapes)
//   ....task                      the pool task of a parallel piece
//   const.INST, packed.INST       a constant, as is or packed for a kernel
//
//===----------------------------------------------------------------------===//
#include "Report.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>

namespace kiln::driver {

namespace {

constexpr std::string_view kTaskSuffix = ".task";

bool startsWith(std::string_view text, std::string_view prefix) {
  return text.substr(0, prefix.size()) == prefix;
}

/// Every instruction of the module by name (names are module-unique).
std::map<std::string, const ir::Instruction *, std::less<>>
instructionsByName(const ir::Module &module) {
  std::map<std::string, const ir::Instruction *, std::less<>> byName;
  for (const ir::Computation *computation : module.computations())
    for (const ir::Instruction *instruction : computation->instructions())
      byName.emplace(instruction->name(), instruction);
  return byName;
}

/// The constant a weight symbol holds: "const.INST" or "packed.INST".
struct WeightName {
  std::string_view instruction;
  bool packed = false;
};
std::optional<WeightName> weightName(std::string_view symbol) {
  for (auto [prefix, packed] : {std::pair{std::string_view("const."), false},
                                {std::string_view("packed."), true}})
    if (startsWith(symbol, prefix))
      return WeightName{symbol.substr(prefix.size()), packed};
  return std::nullopt;
}

/// One function of the object as the "code" section lists it.
struct CodeRow {
  std::string symbol, kind, instruction, node, users;
  std::string computation; ///< where the instruction is, when it is one
  int64_t bytes = 0;
};

CodeRow codeRow(const ObjectSymbol &symbol, const aot::ModelInfo &info,
                const std::map<std::string, const ir::Instruction *,
                               std::less<>> &byName) {
  CodeRow row;
  row.symbol = symbol.name;
  row.bytes = symbol.bytes;
  std::string_view name = symbol.name;
  bool task = name.size() > kTaskSuffix.size() &&
              name.substr(name.size() - kTaskSuffix.size()) == kTaskSuffix;
  if (task)
    name.remove_suffix(kTaskSuffix.size());
  std::string entry = info.name + "_run";
  if (name == entry || name == entry + "_parallel") {
    row.kind = "entry";
  } else if (name == entry + ".results") {
    row.kind = "results";
  } else if (startsWith(name, entry + ".")) {
    row.kind = "instruction";
    row.instruction = std::string(name.substr(entry.size() + 1));
    if (auto found = byName.find(row.instruction); found != byName.end()) {
      row.node = found->second->sourceNode();
      row.computation = found->second->parent()->name();
    }
  } else if (startsWith(name, "kiln.kernel.")) {
    row.kind = "kernel";
    for (const aot::KernelInfo &kernel : info.kernels)
      if (kernel.function == name)
        row.users += (row.users.empty() ? "" : ", ") + kernel.instruction;
  } else {
    row.kind = "other";
  }
  if (task)
    row.kind += " task";
  return row;
}

/// Biggest first, then by name: what to look at to shrink the object.
template <typename Row> void sortBySize(std::vector<Row> &rows) {
  std::stable_sort(rows.begin(), rows.end(), [](const Row &a, const Row &b) {
    return a.bytes != b.bytes ? a.bytes > b.bytes : a.symbol < b.symbol;
  });
}

std::string orDash(const std::string &text) {
  return text.empty() ? "-" : text;
}

/// One constant of the object as the "weights" section lists it.
struct WeightRow {
  std::string symbol, instruction, node, dtype;
  std::vector<int64_t> shape;
  bool packed = false;
  int64_t bytes = 0;
};

/// With loops or branches, the instructions' code summed per computation
/// (the entry, each body, condition and branch; shared kernels are not any
/// one computation's), as text and into `json`["computations"].
std::string codePerComputation(const std::vector<CodeRow> &rows,
                               const ir::Module &module,
                               nlohmann::ordered_json &json) {
  std::map<std::string, int64_t> bytes;
  for (const CodeRow &row : rows)
    if (!row.computation.empty())
      bytes[row.computation] += row.bytes;
  if (bytes.size() < 2)
    return "";
  std::vector<std::vector<std::string>> cells;
  json["computations"] = nlohmann::ordered_json::array();
  for (const ir::Computation *computation : module.computations()) {
    auto found = bytes.find(computation->name());
    if (found == bytes.end())
      continue;
    cells.push_back({computation->name(), std::to_string(found->second)});
    json["computations"].push_back(
        {{"name", computation->name()}, {"bytes", found->second}});
  }
  return "\ninstruction code per computation:\n" +
         formatTable({"computation", "bytes"}, cells);
}

} // namespace

bool isWeightSymbol(std::string_view symbol) {
  return weightName(symbol).has_value();
}

ObjectSizes sumObjectSizes(const std::vector<ObjectSymbol> &symbols) {
  ObjectSizes sizes;
  for (const ObjectSymbol &symbol : symbols) {
    if (symbol.isFunction)
      sizes.codeBytes += symbol.bytes;
    else if (isWeightSymbol(symbol.name))
      sizes.weightBytes += symbol.bytes;
    else
      sizes.otherDataBytes += symbol.bytes;
  }
  return sizes;
}

ReportSection codeReportSection(const aot::ModelInfo &info,
                                const ir::Module &module,
                                const std::vector<ObjectSymbol> &symbols) {
  auto byName = instructionsByName(module);
  std::vector<CodeRow> rows;
  for (const ObjectSymbol &symbol : symbols)
    if (symbol.isFunction)
      rows.push_back(codeRow(symbol, info, byName));
  sortBySize(rows);

  ReportSection section;
  section.key = section.title = "code";
  int64_t total = sumObjectSizes(symbols).codeBytes;
  section.text = fmt::format("code: {} bytes in {} functions\n", total,
                             rows.size());
  std::vector<std::vector<std::string>> cells;
  for (const CodeRow &row : rows)
    cells.push_back({row.symbol, row.kind,
                     orDash(row.kind == "kernel" ? row.users : row.instruction),
                     orDash(row.node), std::to_string(row.bytes)});
  section.text +=
      formatTable({"function", "kind", "instruction", "node", "bytes"}, cells);

  section.json["bytes"] = total;
  section.json["functions"] = nlohmann::ordered_json::array();
  for (const CodeRow &row : rows) {
    nlohmann::ordered_json json;
    json["symbol"] = row.symbol;
    json["kind"] = row.kind;
    if (!row.instruction.empty())
      json["instruction"] = row.instruction;
    if (!row.node.empty())
      json["node"] = row.node;
    if (!row.users.empty())
      json["used_by"] = row.users;
    if (!row.computation.empty())
      json["computation"] = row.computation;
    json["bytes"] = row.bytes;
    section.json["functions"].push_back(json);
  }
  section.text += codePerComputation(rows, module, section.json);
  return section;
}

ReportSection weightsReportSection(const ir::Module &module,
                                   const std::vector<ObjectSymbol> &symbols) {
  auto byName = instructionsByName(module);
  std::vector<WeightRow> rows;
  std::vector<const ObjectSymbol *> others;
  for (const ObjectSymbol &symbol : symbols) {
    if (symbol.isFunction)
      continue;
    std::optional<WeightName> weight = weightName(symbol.name);
    if (!weight) {
      others.push_back(&symbol);
      continue;
    }
    WeightRow row;
    row.symbol = symbol.name;
    row.instruction = std::string(weight->instruction);
    row.packed = weight->packed;
    row.bytes = symbol.bytes;
    if (auto found = byName.find(weight->instruction); found != byName.end()) {
      const ir::Instruction &constant = *found->second;
      row.node = constant.sourceNode();
      row.dtype = std::string(ir::dtypeName(constant.shape().dtype()));
      row.shape = constant.shape().dims();
    }
    rows.push_back(std::move(row));
  }
  sortBySize(rows);

  ReportSection section;
  section.key = section.title = "weights";
  ObjectSizes sizes = sumObjectSizes(symbols);
  section.text = fmt::format(
      "weights: {} bytes in {} constants; other read-only data: {} bytes\n",
      sizes.weightBytes, rows.size(), sizes.otherDataBytes);
  std::vector<std::vector<std::string>> cells;
  for (const WeightRow &row : rows)
    cells.push_back(
        {row.symbol, row.instruction, orDash(row.node),
         row.dtype.empty()
             ? "-"
             : fmt::format("{}[{}]", row.dtype, fmt::join(row.shape, ",")),
         row.packed ? "packed" : "as is", std::to_string(row.bytes)});
  section.text += formatTable(
      {"symbol", "instruction", "node", "shape", "layout", "bytes"}, cells);
  for (const ObjectSymbol *other : others)
    section.text +=
        fmt::format("other data: {} ({} bytes)\n", other->name, other->bytes);

  section.json["bytes"] = sizes.weightBytes;
  section.json["weights"] = nlohmann::ordered_json::array();
  for (const WeightRow &row : rows) {
    nlohmann::ordered_json json;
    json["symbol"] = row.symbol;
    json["instruction"] = row.instruction;
    if (!row.node.empty())
      json["node"] = row.node;
    json["dtype"] = row.dtype;
    json["shape"] = row.shape;
    json["packed"] = row.packed;
    json["bytes"] = row.bytes;
    section.json["weights"].push_back(json);
  }
  section.json["other_data"] = nlohmann::ordered_json::array();
  for (const ObjectSymbol *other : others)
    section.json["other_data"].push_back(
        {{"symbol", other->name}, {"bytes", other->bytes}});
  return section;
}

ReportSection totalsReportSection(const aot::ModelInfo &info,
                                  const std::vector<ObjectSymbol> &symbols) {
  ObjectSizes sizes = sumObjectSizes(symbols);
  ReportSection section;
  section.key = section.title = "totals";
  section.text = formatTable(
      {"what", "bytes"},
      {{"code", std::to_string(sizes.codeBytes)},
       {"weights", std::to_string(sizes.weightBytes)},
       {"other read-only data", std::to_string(sizes.otherDataBytes)},
       {"arena", std::to_string(info.arenaBytes)},
       {"peak live", std::to_string(info.peakLiveBytes)},
       {"flash", std::to_string(info.flashBytes)},
       {"ram", std::to_string(info.ramBytes)}});
  section.json["code_bytes"] = sizes.codeBytes;
  section.json["weight_bytes"] = sizes.weightBytes;
  section.json["other_data_bytes"] = sizes.otherDataBytes;
  section.json["arena_bytes"] = info.arenaBytes;
  section.json["peak_live_bytes"] = info.peakLiveBytes;
  section.json["flash_bytes"] = info.flashBytes;
  section.json["ram_bytes"] = info.ramBytes;
  return section;
}

} // namespace kiln::driver
