//===- Driver.h - What the kiln subcommands do, as library calls -*- C++ -*-===//
//
// tools/kiln only parses flags into these option structs and calls the
// matching run function, so every subcommand is reachable from tests
// without the CLI. Functions return Error/Expected and never throw; their
// messages are complete sentences for the user (the tool adds "error: ").
//
//===----------------------------------------------------------------------===//
#ifndef KILN_DRIVER_DRIVER_H
#define KILN_DRIVER_DRIVER_H

#include "kiln/IR/Literal.h"
#include "kiln/Import/Import.h"
#include "kiln/IR/Module.h"
#include "kiln/Support/Error.h"
#include "kiln/Support/Npy.h"

#include <iosfwd>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kiln::driver {

/// Reads an HLO text file ("-" reads stdin), parses and verifies it.
Expected<std::unique_ptr<ir::Module>> loadModule(const std::string &path);

/// Imports any model format kiln reads, chosen by extension (docs/formats.md),
/// applying the feed/fetch config and --shape overrides of `options`.
Expected<import::ImportedModel>
importModel(const std::string &path, const import::ImportOptions &options);

/// What a TensorFlow or ONNX model declares, read without lowering it
/// (format, ops, unsupported ops, weights, inputs with unknown dimensions,
/// outputs); an error for a model that does not parse and for formats
/// without a summarizer (HLO text, whose module is its own summary).
Expected<import::SourceSummary>
summarizeModel(const std::string &path, const import::ImportOptions &options);

/// importModel for commands given the inputs' values (`kiln run`, `check`,
/// `profile`): an input whose dimensions the model leaves unknown and no
/// --shape gives takes the shape of its --input .npy file (from the header
/// alone). A file whose shape differs from --shape, or from a dimension the
/// model declares, is an error naming the input, the file and both shapes.
Expected<import::ImportedModel>
importWithInputShapes(const std::string &path,
                      const import::ImportOptions &options,
                      const std::vector<std::string> &inputSpecs);

/// An HLO module as an imported model: args named after the parameters,
/// results after resultNames().
import::ImportedModel importedFromModule(std::unique_ptr<ir::Module> module);

/// importModel without a config, keeping only the module.
Expected<std::unique_ptr<ir::Module>> loadModel(const std::string &path);

/// Splits "a,b,,c" into {"a", "b", "c"} (empty items dropped).
std::vector<std::string> splitList(std::string_view text);

struct OptOptions {
  std::string input = "-";             ///< HLO file, or "-" for stdin.
  std::vector<std::string> passes;     ///< Registered pass names, in order.
  std::vector<std::string> printAfter; ///< Pass names, or "all".
  std::string output;                  ///< File to write; empty: `out`.
};

/// `kiln opt`: loads the input, runs the passes and prints the module as HLO
/// text to `output` (atomically) or `out`. --print-after dumps go to `log`.
Error runOpt(const OptOptions &options, std::ostream &out, std::ostream &log);

struct RunOptions {
  std::string model;
  import::ImportOptions import; ///< --config, --shape
  std::vector<std::string> inputs; ///< "NAME=FILE.npy", one per parameter.
  std::string outputDir = ".";
  /// Evaluate with the reference interpreter instead of the JIT.
  bool reference = false;
  /// JIT only: run the default optimization pipeline first (--no-opt turns
  /// it off). The reference interpreter always runs the module as imported.
  bool optimize = true;
  /// JIT only: its fusion passes (--no-fusion turns them off).
  bool fusion = true;
  /// JIT only: Winograd convolutions (--no-winograd turns them off).
  bool winograd = true;
};

/// One result written by runModel.
struct RunOutput {
  std::string name; ///< Result name (instruction name) before sanitizing.
  std::string path; ///< The .npy file written.
  ir::Shape shape;  ///< As written: a bounded result's valid entries only.
  /// A bounded result (docs/abi.md): the dim its count applies to and the
  /// padded shape the model returned it in.
  struct Bound {
    int64_t dim = 0;
    ir::Shape padded;
  };
  std::optional<Bound> bound;
};

/// `kiln run`: binds every entry parameter by name to an .npy file, executes
/// the module and writes one .npy per result into `outputDir` (created if
/// missing). Either every result file is written or none is.
Expected<std::vector<RunOutput>> runModel(const RunOptions &options);

// The pieces runModel is built from, public for tests and other tools.

/// "float32[2,3]"; "float32[]" for a scalar.
std::string describeArrayType(std::string_view numpyDType,
                              const std::vector<int64_t> &dims);

/// Converts an .npy array to a literal (bool bytes normalized to 0/1).
Expected<ir::Literal> literalFromNpy(const NpyArray &array);
NpyArray npyFromLiteral(const ir::Literal &literal);

/// Parses "NAME=FILE.npy" specs and returns one literal per entry parameter,
/// in parameter-number order, checking names, count, dtype and shape.
Expected<std::vector<ir::Literal>>
bindInputs(const ir::Module &module, const std::vector<std::string> &specs);
/// The same, matching specs against the imported model's arg names.
Expected<std::vector<ir::Literal>>
bindInputs(const import::ImportedModel &model,
           const std::vector<std::string> &specs);

/// Names of the entry's results: the root's name; for a tuple root the
/// names of the tuple's operands; for another tuple-valued root (sort,
/// top-k) "ROOT.0", "ROOT.1", ...
std::vector<std::string> resultNames(const ir::Module &module);

/// Replaces every character outside [A-Za-z0-9_.-] with '_'.
std::string sanitizeFileName(std::string_view name);

} // namespace kiln::driver

#endif // KILN_DRIVER_DRIVER_H
