//===- Import.h - What every model importer takes and returns ---*- C++ -*-===//
//
// An importer turns a framework model (TensorFlow GraphDef or TF.js graph
// model, ONNX) into a verified HLO module whose entry parameters are the
// feeds then the variables and whose root holds the fetches, plus the
// metadata the header and manifest need (names, variable kinds) and a
// summary of the source graph for `kiln inspect`.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_IMPORT_IMPORT_H
#define KILN_IMPORT_IMPORT_H

#include "kiln/IR/Module.h"
#include "kiln/Support/Error.h"

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace kiln::import {

struct ImportOptions {
  /// tfcompile feed/fetch config (text proto or JSON); empty: the model's
  /// own inputs and outputs.
  std::string configPath;
  /// "NAME=D0,D1,..." from --shape: fixes the dimensions of input NAME.
  std::vector<std::string> shapes;
  /// "NAME=FILE.npy" or "NAME=V0,V1,..." from --freeze: input NAME becomes
  /// a constant with that value and leaves the entry's parameters
  /// (FrozenInputs.h).
  std::vector<std::string> freeze;
  /// "NAME=LAYOUT" from --input-layout / --output-layout: the caller's
  /// buffer for input or result NAME holds its dims in another order
  /// (CallerLayouts.h); applied to the imported module by the driver.
  std::vector<std::string> inputLayouts;
  std::vector<std::string> outputLayouts;
};

/// One op the importer cannot lower, with every node that uses it.
struct UnsupportedOp {
  std::string op;
  std::vector<std::string> nodes;
  std::string reason; ///< e.g. "control flow is not supported yet"
};

/// One dimension of an input or output as the model declares it: a size,
/// or unknown, with the name the model gives it (ONNX dim_param) if any.
struct DeclaredDim {
  std::optional<int64_t> size;
  std::string symbol; ///< of an unknown dimension; empty when unnamed
};

/// An input or output as the model declares it, before any lowering: what
/// `kiln inspect` shows when the shapes are not static, and what `kiln run`
/// checks an --input file's shape against.
struct DeclaredTensor {
  std::string name;
  std::optional<ir::DType> dtype;               ///< nullopt: not declared
  std::optional<std::vector<DeclaredDim>> dims; ///< nullopt: rank unknown
  /// Every dimension a known size.
  bool isStatic() const;
};

/// A tensor declared with sizes where -1 means unknown (TensorFlow's way);
/// `dims` nullopt: rank unknown.
DeclaredTensor
declaredFromSizes(std::string name, std::optional<ir::DType> dtype,
                  const std::optional<std::vector<int64_t>> &dims);

/// "float32[N,3,?]": unknown dimensions by their symbol, else "?"; "?" for
/// an undeclared dtype, "[...]" for an unknown rank.
std::string describeDeclared(const DeclaredTensor &tensor);

/// What `kiln inspect` shows about the source graph.
struct SourceSummary {
  std::string format;                    ///< "TensorFlow GraphDef", "ONNX", ...
  std::map<std::string, int64_t> opHistogram; ///< source op -> node count
  std::vector<UnsupportedOp> unsupported;
  int64_t weightBytes = 0;               ///< bytes of stored weights
  /// The model's feeds with --shape applied, frozen (--freeze) ones left
  /// out. Only the summarizers fill it, and only when the feeds and the
  /// graph check out apart from unknown dimensions (nullopt otherwise: the
  /// import's error says what is wrong), so callers can tell that --shape
  /// is all an import is missing.
  std::optional<std::vector<DeclaredTensor>> inputs;
  /// The outputs with what the model declares of them (ONNX: its output
  /// types; TensorFlow: a config fetch's `type` and `shape`).
  std::vector<DeclaredTensor> outputs;
};

/// Per-arg and per-result metadata beyond what the HLO shapes say.
struct ArgMetadata {
  std::string name;      ///< feed or variable name for the header
  bool variable = false; ///< a tfcompile `variable`
  bool readonly = true;  ///< variables: false when the step updates it
  /// --input-layout: the caller's dim i is the model's dim layout[i];
  /// empty: the model's own order.
  std::vector<int64_t> layout;

  static ArgMetadata feed(std::string name) {
    return {std::move(name), false, true, {}};
  }
  static ArgMetadata variableArg(std::string name, bool readonly) {
    return {std::move(name), true, readonly, {}};
  }
};

/// A writable variable: the entry computes its new value as result
/// `result`, which the generated code writes back into arg `arg` in place
/// (so it is not a public result in the header and manifest).
struct VariableUpdate {
  size_t result = 0;
  size_t arg = 0;
};

/// A result stored at its bound along `dim` whose run-time extent is
/// result `countResult` (an s32[] named `<output>_count`): NonMaxSuppression
/// and Where outputs and what is computed from them.
struct BoundedResult {
  size_t result = 0;
  int64_t dim = 0;
  size_t countResult = 0;
};

struct ImportedModel {
  std::unique_ptr<ir::Module> module;
  std::vector<ArgMetadata> args;       ///< one per entry parameter
  std::vector<std::string> resultNames; ///< one per root result
  std::vector<VariableUpdate> variableUpdates;
  std::vector<BoundedResult> boundedResults;
  /// --output-layout, by result number: as ArgMetadata::layout.
  std::map<size_t, std::vector<int64_t>> resultLayouts;
  SourceSummary summary;
};

/// The message for unsupported ops: one line per op with its nodes, e.g.
///   "model.pb: 2 unsupported ops in the graph:\n  Switch (control flow ...)
///   : nodes cond/Switch, cond/Switch_1\n  ...".
std::string formatUnsupported(const std::string &file,
                              const std::vector<UnsupportedOp> &ops);

/// Sends libprotobuf's own log lines (which it prints to stderr as
/// "[libprotobuf ERROR ...]") through kiln's warning format instead; call
/// once at startup.
void routeProtobufLogs();

/// Parses every --shape spec into name -> dims; errors name the bad spec.
Expected<std::map<std::string, std::vector<int64_t>>>
parseShapeOverrides(const std::vector<std::string> &specs);

} // namespace kiln::import

#endif // KILN_IMPORT_IMPORT_H
