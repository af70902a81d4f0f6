//===- OnnxOps.h - The interface between the ONNX importer and lowerings --===//
//
// The importer (OnnxImporter.cpp) visits graph nodes in order and calls one
// lowering per node through an OnnxNodeContext. Lowerings live in one file
// per op family (OnnxElementwiseOps.cpp, OnnxTensorOps.cpp, OnnxNnOps.cpp,
// OnnxRecurrentOps.cpp, OnnxLossOps.cpp, OnnxSignalOps.cpp, ...), each
// exposing a table that OnnxOpTable.cpp concatenates. Semantics that differ
// between opset versions are decided inside a lowering from `opset()`.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_LIB_IMPORT_ONNX_ONNXOPS_H
#define KILN_LIB_IMPORT_ONNX_ONNXOPS_H

#include "Common/NodeContext.h"

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace kiln::import::onnx {

/// An ONNX node: the shared NodeContext plus its opset and optional outputs.
class OnnxNodeContext : public NodeContext {
public:
  virtual const std::string &opType() const = 0;
  /// The opset version of the node's domain that the model imports.
  virtual int64_t opset() const = 0;

  // --- Outputs -----------------------------------------------------------
  virtual size_t outputCount() const = 0;
  /// False for an optional output the model does not use (named "").
  virtual bool wantsOutput(size_t i) const = 0;

  // --- Subgraphs -----------------------------------------------------------
  /// Lowers the graph attribute `key` (If's then_branch, a Loop body, ...)
  /// inline, in the node's scope, with its graph inputs bound to `inputs`
  /// (as many as it declares), and returns the values of its outputs;
  /// nullopt after recording an error, which names the subgraph and its
  /// failing node.
  virtual std::optional<std::vector<Value>>
  inlineSubgraph(std::string_view key, const std::vector<Value> &inputs) = 0;

  /// A graph attribute lowered into a computation of its own (a loop body,
  /// a branch), which control flow calls instead of inlining it.
  struct Subgraph {
    /// Parameter 0 is the tuple (inputs..., captures...); the root is the
    /// tuple of the subgraph's outputs.
    ir::Computation *computation = nullptr;
    /// The outer values the subgraph reads (ONNX subgraphs see their
    /// enclosing scopes), in the caller's computation: the caller passes
    /// them after the inputs. Outer constants are cloned into the
    /// computation instead, so weights stay constants there.
    std::vector<Value> captures;
    std::vector<ir::Shape> outputShapes;
  };
  /// Lowers graph attribute `key` into a new computation of the module,
  /// named after the node and `role`, whose graph inputs have
  /// `inputShapes`; nullopt after recording an error.
  virtual std::optional<Subgraph>
  buildSubgraph(std::string_view key, const std::vector<ir::Shape> &inputShapes,
                std::string_view role) = 0;

protected:
  explicit OnnxNodeContext(GraphBuilder &builder) : NodeContext(builder) {}
  std::string_view notConstantHint() const override {
    return "depends on a graph input; freeze that input to its value with "
           "--freeze NAME=FILE.npy or NAME=V0,V1,..., or fix the shapes with "
           "--shape";
  }
};

using OnnxLowering = void (*)(OnnxNodeContext &);

struct OnnxOpRule {
  std::string_view opType;
  OnnxLowering lower;
};

std::span<const OnnxOpRule> onnxCoreRules();        // Constant, Identity
std::span<const OnnxOpRule> onnxElementwiseRules(); // math, compare, cast, reduce
std::span<const OnnxOpRule> onnxTensorRules();      // shape, slicing, gather, pad
std::span<const OnnxOpRule> onnxNnRules();          // conv, gemm, pool, norm, resize
std::span<const OnnxOpRule> onnxRecurrentRules();   // RNN, GRU, LSTM
std::span<const OnnxOpRule> onnxLossRules();     // NLL, softmax cross-entropy
std::span<const OnnxOpRule> onnxSignalRules();   // windows, DFT, STFT, mel
std::span<const OnnxOpRule> onnxSamplingRules(); // GridSample, RoiAlign
std::span<const OnnxOpRule> onnxControlFlowRules(); // If, Loop, Scan
std::span<const OnnxOpRule> onnxSelectionRules();   // NonMaxSuppression, NonZero

/// The lowering for an op of the default domain, or nullptr.
OnnxLowering findOnnxLowering(std::string_view opType);
/// True when `opType` at a pre-7 `opset` has the same definition as at
/// opset 7, so lowerings written for opsets 7-18 apply (OnnxOpsets.cpp).
bool readsAsOpset7(std::string_view opType, int64_t opset);
/// Why an op is out of scope for an AOT compiler (data-dependent shapes,
/// strings, sequences, randomness, training), or empty.
std::string_view onnxUnsupportedReason(std::string_view opType);

} // namespace kiln::import::onnx

#endif // KILN_LIB_IMPORT_ONNX_ONNXOPS_H
