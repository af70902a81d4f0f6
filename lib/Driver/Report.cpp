//===- Report.cpp - The compile report's container and text layout --------===//
#include "Report.h"

#include <algorithm>
#include <cctype>
#include <fmt/format.h>

namespace kiln::driver {

CompileReport buildCompileReport(const aot::ModelInfo &info,
                                 const ir::Module &module,
                                 const analysis::BufferAssignment &buffers,
                                 const std::vector<ObjectSymbol> &symbols) {
  CompileReport report;
  report.model = info.name;
  report.sections.push_back(codeReportSection(info, module, symbols));
  report.sections.push_back(weightsReportSection(module, symbols));
  report.sections.push_back(memoryReportSection(buffers));
  report.sections.push_back(concatenateReportSection(module, buffers));
  report.sections.push_back(totalsReportSection(info, symbols));
  report.sections.push_back(transposesReportSection(module));
  return report;
}

std::string CompileReport::toText() const {
  std::string out = fmt::format("kiln compile report: {}\n", model);
  for (const ReportSection &section : sections)
    out += fmt::format("\n== {} ==\n{}", section.title, section.text);
  return out;
}

std::string CompileReport::toJson() const {
  nlohmann::ordered_json json;
  json["format"] = "kiln-report";
  json["version"] = 1;
  json["model"] = model;
  for (const ReportSection &section : sections)
    json[section.key] = section.json;
  return json.dump(2) + "\n";
}

static bool isNumber(const std::string &cell) {
  return !cell.empty() && std::isdigit(static_cast<unsigned char>(cell[0]));
}

std::string formatTable(const std::vector<std::string> &header,
                        const std::vector<std::vector<std::string>> &rows) {
  std::vector<size_t> widths(header.size());
  for (size_t c = 0; c < header.size(); ++c) {
    widths[c] = header[c].size();
    for (const std::vector<std::string> &row : rows)
      widths[c] = std::max(widths[c], row.at(c).size());
  }
  // A header is aligned like the column's first cell.
  auto line = [&](const std::vector<std::string> &cells, bool isHeader) {
    std::string out;
    for (size_t c = 0; c < cells.size(); ++c) {
      bool right = isHeader ? !rows.empty() && isNumber(rows[0].at(c))
                            : isNumber(cells[c]);
      std::string padding(widths[c] - cells[c].size(), ' ');
      std::string cell = right ? padding + cells[c] : cells[c] + padding;
      out += (c ? "  " : "") + cell;
    }
    // Trailing padding of the last column would only add noise.
    out.erase(out.find_last_not_of(' ') + 1);
    return out + "\n";
  };
  std::string out = line(header, true);
  for (const std::vector<std::string> &row : rows)
    out += line(row, false);
  return out;
}

} // namespace kiln::driver
