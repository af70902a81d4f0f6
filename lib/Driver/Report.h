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
#include "kiln/IR/Module.h"
#include "kiln/Support/Error.h"

#include <nlohmann/json.hpp>

#include <string>
#include <string_view>
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

/// A defined function or data symbol of the emitted object.
struct ObjectSymbol {
  std::string name; ///< as in the symbol table (Mach-O: without the '_')
  int64_t bytes = 0;
  bool isFunction = false; ///< code; otherwise (read-only) data
};

/// The defined function and data symbols of an object file, by name. ELF
/// sizes are the symbols' own (st_size, what `nm --size-sort` prints);
/// Mach-O records none, so a symbol reaches the next one in its section.
Expected<std::vector<ObjectSymbol>> readObjectSymbols(std::string_view object);

/// A weight constant's symbol: const.INST (as is) or packed.INST (packed
/// for a kernel). Code generation names every weight so (SizeReport.cpp).
bool isWeightSymbol(std::string_view symbol);

/// The symbols the object references but does not define, sorted: what it
/// needs from libc or the compiler runtime (the manifest's
/// "required_symbols"; __aeabi_* helpers on 32-bit ARM, say).
Expected<std::vector<std::string>>
readUndefinedSymbols(std::string_view object);

/// The object's bytes by kind (SizeReport.cpp; the manifest's "sizes").
struct ObjectSizes {
  int64_t codeBytes = 0;   ///< every function symbol
  int64_t weightBytes = 0; ///< constants: const.NAME and packed.NAME symbols
  int64_t otherDataBytes = 0; ///< other data symbols (e.g. zero rows)
};
ObjectSizes sumObjectSizes(const std::vector<ObjectSymbol> &symbols);

/// Every section of the report of one compiled model: code, weights,
/// memory, totals, transposes. `module` is the compiled (optimized) module and
/// `symbols` the emitted object's.
CompileReport buildCompileReport(const aot::ModelInfo &info,
                                 const ir::Module &module,
                                 const analysis::BufferAssignment &buffers,
                                 const std::vector<ObjectSymbol> &symbols);

/// A text table: columns padded to their widest cell, numbers (cells
/// starting with a digit) right-aligned, two spaces between columns.
std::string formatTable(const std::vector<std::string> &header,
                        const std::vector<std::vector<std::string>> &rows);

/// The "code" section (SizeReport.cpp): every function of the object with
/// its bytes and the HLO instruction (and source node) it computes.
ReportSection codeReportSection(const aot::ModelInfo &info,
                                const ir::Module &module,
                                const std::vector<ObjectSymbol> &symbols);
/// The "weights" section (SizeReport.cpp): every constant in the object,
/// its instruction, source node, dtype and shape and bytes.
ReportSection weightsReportSection(const ir::Module &module,
                                   const std::vector<ObjectSymbol> &symbols);
/// The "totals" section (SizeReport.cpp): the manifest's "sizes".
ReportSection totalsReportSection(const aot::ModelInfo &info,
                                  const std::vector<ObjectSymbol> &symbols);

/// The "memory" section (MemoryReport.cpp): arena, peak live bytes and
/// where the peak is, and every arena buffer with its live range.
ReportSection memoryReportSection(const analysis::BufferAssignment &buffers);

/// The "transposes" section (TransposeReport.cpp): every transpose left in
/// the optimized module (materialized or inside a fusion) with the bytes it
/// moves, biggest first, and their count and total.
ReportSection transposesReportSection(const ir::Module &module);

/// The "concatenates" section (ConcatenateReport.cpp): every operand of a
/// concatenate with a buffer of its own, whether it was computed in place
/// in its part of that buffer, and if not, why the concatenate copies it.
ReportSection concatenateReportSection(const ir::Module &module,
                                       const analysis::BufferAssignment &buffers);

} // namespace kiln::driver

#endif // KILN_LIB_DRIVER_REPORT_H
