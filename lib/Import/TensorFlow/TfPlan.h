//===- TfPlan.h - A TensorFlow model with its feeds, fetches and pruned graph -*- C++ -*-===//
//
// Planning is everything the importer decides before lowering a node: the
// model and config are read, feeds/fetches/variables resolved against the
// graph (with --shape), the graph pruned to what the fetches and variable
// updates need, and summarized for `kiln inspect`. check() then rejects a
// plan that cannot be lowered, reporting every unsupported op at once.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_LIB_IMPORT_TENSORFLOW_TFPLAN_H
#define KILN_LIB_IMPORT_TENSORFLOW_TFPLAN_H

#include "TensorFlow/TfContext.h"
#include "TensorFlow/TfFunctions.h"
#include "TensorFlow/TfGraph.h"
#include "TensorFlow/TfModel.h"

#include "kiln/Import/Import.h"

#include <memory>

namespace kiln::import::tf {

struct FeedSpec {
  std::string name; ///< config name, or the node name
  size_t node = 0;
  int64_t index = 0;
  ir::Shape shape;
  Value parameter = nullptr; ///< the entry parameter, or the frozen constant
  /// --freeze: the feed's value, a constant instead of an entry parameter.
  std::optional<ir::Literal> frozen;
};

struct FetchSpec {
  std::string name; ///< config name, or "node:index"
  size_t node = 0;
  int64_t index = 0;
  /// The config's optional `type`/`shape`, checked against the result.
  std::optional<ir::DType> type;
  std::optional<std::vector<int64_t>> dims;
};

struct TfPlan {
  TfModel model;
  std::unique_ptr<TfGraph> graph;
  std::unique_ptr<FunctionLibrary> library; ///< the graph's functions
  std::unique_ptr<VariableState> state; ///< variables and fed tensors
  std::string configName; ///< the config file, or the model for defaults
  std::vector<FeedSpec> feeds;
  std::vector<FetchSpec> fetches;
  /// The pruned graph: node -> what needs it ("fetch 'y'", ...).
  std::map<size_t, std::string> needed;
  std::vector<size_t> order; ///< filled by check()
  SourceSummary summary;
  /// The unsupported ops of the graph's own nodes: check() rejects them.
  /// The summary also lists those in the library functions it calls,
  /// which fail only if lowered (an If inlines only the branch a constant
  /// predicate takes).
  std::vector<UnsupportedOp> graphUnsupported;
  /// The unfrozen feeds as declared (dims may be unknown), for the summary.
  std::vector<DeclaredTensor> declaredFeeds;
  /// False when planned for a summary with feeds of unknown dimensions:
  /// such a plan is never lowered (their FeedSpec shapes are
  /// placeholders).
  bool staticShapes = true;

  bool isTfJs() const { return model.format == "TensorFlow.js graph model"; }
  /// Unsupported ops (all of them), unfed placeholders, cycles; fills order.
  Error check();
};

/// What a plan is for: an import needs every feed's shape static; a
/// summary (`kiln inspect`, `kiln run` finding which shapes are missing)
/// takes feeds with unknown dimensions as they are.
enum class PlanPurpose { Import, Summary };

/// Reads and plans the import of `path` with `options`.
Expected<std::unique_ptr<TfPlan>>
planImport(const std::string &path, const ImportOptions &options,
           PlanPurpose purpose = PlanPurpose::Import);

} // namespace kiln::import::tf

#endif // KILN_LIB_IMPORT_TENSORFLOW_TFPLAN_H
