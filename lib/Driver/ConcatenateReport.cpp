//===- ConcatenateReport.cpp - The report's "concatenates" section --------===//
//
// A concatenate with a buffer of its own costs a copy of every operand that
// was not computed straight into its part of that buffer (buffer
// assignment's consumer hosts). The section lists every operand of every
// such concatenate (the entry's and those of loop bodies and branches, in
// module order) and, for each copied one, why: the copies are meant to be
// the exception, so each needs a reason one can act on.
//
//===----------------------------------------------------------------------===//
#include "Report.h"

#include <fmt/format.h>

#include <map>
#include <utility>

namespace kiln::driver {

namespace {

struct OperandRow {
  const ir::Instruction *concatenate = nullptr;
  const ir::Instruction *operand = nullptr;
  std::string reason; ///< empty: computed in place
};

/// The rows, concatenates in module order, operands in operand order
/// (each once).
std::vector<OperandRow> operandRows(const ir::Module &module,
                                    const analysis::BufferAssignment &buffers) {
  std::map<std::pair<const ir::Instruction *, const ir::Instruction *>,
           std::string>
      copied;
  for (const analysis::ConcatenateCopy &copy : buffers.concatenateCopies())
    copied[{copy.concatenate, copy.operand}] = copy.reason;
  std::vector<OperandRow> rows;
  for (const ir::Computation *computation : module.computations())
    for (const ir::Instruction *concat : computation->instructions()) {
      if (concat->opcode() != ir::Opcode::Concatenate)
        continue;
      std::vector<const ir::Instruction *> seen;
      for (const ir::Instruction *operand : concat->operands()) {
        if (std::find(seen.begin(), seen.end(), operand) != seen.end())
          continue;
        seen.push_back(operand);
        auto reason = copied.find({concat, operand});
        if (reason != copied.end())
          rows.push_back({concat, operand, reason->second});
        else if (buffers.inPlaceInConcatenate({operand, -1}, concat))
          rows.push_back({concat, operand, ""});
      }
    }
  return rows;
}

} // namespace

ReportSection
concatenateReportSection(const ir::Module &module,
                         const analysis::BufferAssignment &buffers) {
  std::vector<OperandRow> rows = operandRows(module, buffers);
  ReportSection section;
  section.key = "concatenates";
  section.title = "concatenates";
  size_t copies = 0;
  std::vector<std::vector<std::string>> cells;
  nlohmann::ordered_json &json = section.json;
  json["operands"] = nlohmann::ordered_json::array();
  for (const OperandRow &row : rows) {
    bool inPlace = row.reason.empty();
    copies += inPlace ? 0 : 1;
    cells.push_back({"%" + row.concatenate->name(), "%" + row.operand->name(),
                     inPlace ? "in place" : "copied",
                     inPlace ? "-" : row.reason});
    nlohmann::ordered_json entry;
    entry["concatenate"] = row.concatenate->name();
    entry["operand"] = row.operand->name();
    entry["in_place"] = inPlace;
    if (!inPlace)
      entry["reason"] = row.reason;
    json["operands"].push_back(entry);
  }
  json["copied"] = copies;
  section.text += fmt::format(
      "{} operands of concatenates: {} computed in place, {} copied\n",
      rows.size(), rows.size() - copies, copies);
  if (!rows.empty())
    section.text += formatTable({"concatenate", "operand", "how", "why copied"},
                                cells);
  return section;
}

} // namespace kiln::driver
