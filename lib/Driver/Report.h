//===- Report.h - `kiln compile --emit report` ------------------*- C++ -*-===//
//
// The compile report explains where a compiled model's bytes go. It is a
// list of sections, each rendered twice: as text (PREFIX.report.txt: a
// "== title ==" heading, then lines and tables) and as JSON
// (PREFIX.report.json: one object per section under its key). Adding a
// section (code bytes per kernel, bytes per weight, ...) is one function
// returning a ReportSection, in its own file, and one line in
// buildCompileReport.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_LIB_DRIVER_REPORT_H
#define KILN_LIB_DRIVER_REPORT_H

#include "kiln/AOT/ModelInfo.h"
#include "kiln/Analysis/BufferAssignment.h"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace kiln::driver {

struct ReportSection {
  std::string key;   ///< the JSON key (snake_case)
  std::string title; ///< the text heading
  std::string text;  ///< the text body, every line ending in '\n'
  nlohmann::ordered_json json;
};

struct CompileReport {
  std::string model; ///< the model's C name (NAME)
  std::vector<ReportSection> sections;

  /// PREFIX.report.txt: "kiln compile report: NAME", then every section.
  std::string toText() const;
  /// PREFIX.report.json: {"format", "version", "model", then one key per
  /// section}, two-space indented.
  std::string toJson() const;
};

/// Every section of the report of one compiled model.
CompileReport buildCompileReport(const aot::ModelInfo &info,
                                 const analysis::BufferAssignment &buffers);

/// A text table: columns padded to their widest cell, numbers (cells
/// starting with a digit) right-aligned, two spaces between columns.
std::string formatTable(const std::vector<std::string> &header,
                        const std::vector<std::vector<std::string>> &rows);

/// The "memory" section (MemoryReport.cpp): arena, peak live bytes and
/// where the peak is, and every arena buffer with its live range.
ReportSection memoryReportSection(const analysis::BufferAssignment &buffers);

} // namespace kiln::driver

#endif // KILN_LIB_DRIVER_REPORT_H
