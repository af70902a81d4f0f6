//===- Inspect.h - `kiln inspect`: what a model is and costs ----*- C++ -*-===//
//
// Imports a model (any format) and reports its format, inputs and outputs,
// the op histogram of the source graph, unsupported ops, weight bytes,
// FLOPs and bytes moved (analysis::moduleCost) and the arena the compiled
// code would need. When the import fails the report still holds what is
// known (for TensorFlow and ONNX models the source summary, unsupported ops
// included) and the error; when it fails only because inputs have unknown
// dimensions, it holds the summary and which --shape would give the cost.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_DRIVER_INSPECT_H
#define KILN_DRIVER_INSPECT_H

#include "kiln/Analysis/CostAnalysis.h"
#include "kiln/IR/Module.h"
#include "kiln/Import/Import.h"
#include "kiln/Support/Error.h"

#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

namespace kiln::driver {

struct InspectOptions {
  std::string model;
  import::ImportOptions import; ///< --config, --shape
  bool json = false;            ///< one JSON object instead of text
  /// --dot STAGE: print the Graphviz of the HLO at STAGE ("import": as
  /// imported, "opt": after the default pipeline, as compiled) instead of
  /// the report.
  std::string dot;
};

/// One input or output of the imported model.
struct TensorSummary {
  std::string name;
  ir::Shape shape;
  /// Inputs: "feed" or "variable"; outputs: "fetch", "variable-update"
  /// for the new value of a writable variable (written back in place), or
  /// "count" for the count of a bounded output (docs/abi.md).
  std::string kind;
  bool readonly = true; ///< variables only
  /// A bounded output: its count's name; a count: the output it counts.
  /// Empty otherwise.
  std::string boundPartner;
  int64_t boundDim = -1; ///< the bounded dimension, for both
};

/// What the model costs once compiled (absent when the import failed).
/// A while of the optimized module and how often it runs its body.
struct LoopSummary {
  std::string name;        ///< the while instruction
  std::string computation; ///< where it is: the entry or a loop body
  std::optional<int64_t> tripCount; ///< analysis::whileTripCount
};

struct ModelCost {
  analysis::Cost imported;           ///< of the imported HLO (moduleCost)
  analysis::Cost optimized;          ///< after the default pipeline
  int64_t instructions = 0;          ///< imported HLO instructions
  int64_t optimizedInstructions = 0; ///< after the default pipeline
  int64_t arenaBytes = 0;            ///< buffer assignment, optimized module
  /// Every loop; FLOPs and bytes count a loop of unknown trip count once.
  std::vector<LoopSummary> loops;
};

struct InspectReport {
  std::string model;
  import::SourceSummary summary;
  std::vector<TensorSummary> inputs, outputs;
  std::optional<ModelCost> cost;
  /// The inputs whose dimensions the model leaves unknown, when the import
  /// failed for that alone: the inputs and outputs are then the summary's
  /// declared ones, and the cost needs --shape for each of these.
  std::vector<std::string> inputsNeedingShape;
  /// Empty when the import succeeded (or lacked only static shapes).
  std::string error;
};

/// Builds the report; never fails: an import error (unknown format
/// included) is recorded in `report.error` next to what is known.
InspectReport inspectModel(const InspectOptions &options);

std::string formatInspectText(const InspectReport &report);
/// One JSON object (keys documented in docs/cli.md).
std::string formatInspectJson(const InspectReport &report);

/// `kiln inspect`: prints the report to `out` as text or JSON; returns the
/// import error (after printing what is known) when the import failed.
Error runInspect(const InspectOptions &options, std::ostream &out);

} // namespace kiln::driver

#endif // KILN_DRIVER_INSPECT_H
