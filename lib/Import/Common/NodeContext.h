//===- NodeContext.h - What a lowering sees of one source node -*- C++ -*-===//
//
// Both front ends lower one source node at a time through a context: its
// inputs as HLO values, its attributes, and where its outputs go. The part
// of that interface TensorFlow and ONNX share lives here, with the helpers
// written against it (required inputs, compile-time constant inputs) and the
// rule shapes both op tables use (RuleShapes.h). TfNodeContext and
// OnnxNodeContext add what only their format has (TF variables and dtype
// attributes; ONNX opsets and optional outputs).
//
//===----------------------------------------------------------------------===//
#ifndef KILN_LIB_IMPORT_COMMON_NODECONTEXT_H
#define KILN_LIB_IMPORT_COMMON_NODECONTEXT_H

#include "kiln/Import/GraphBuilder.h"
#include "kiln/IR/Literal.h"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kiln::import {

class NodeContext {
public:
  virtual ~NodeContext() = default;

  GraphBuilder &builder() { return builder_; }
  /// The node's name, for error messages.
  virtual const std::string &name() const = 0;

  // --- Inputs ------------------------------------------------------------
  virtual size_t inputCount() const = 0;
  /// False for an input the node does not have (ONNX: absent or named "").
  virtual bool hasInput(size_t i) const { return i < inputCount(); }
  virtual Value input(size_t i) const = 0;
  /// True when inputs 0..n-1 are all present; otherwise records which one
  /// is missing and returns false.
  bool requireInputs(size_t n);
  /// Input i as integers when it is a constant (after import-time folding);
  /// otherwise records "input i (what) must be a compile-time constant"
  /// with the front end's hint on how to make it one, and returns nullopt.
  /// These are shape-like values (axes, sizes, pads, a trip count): a
  /// constant of more than kMaxConstantInts elements is an error, before
  /// it is converted (a bad model's 800 MB block_shape took gigabytes).
  std::optional<std::vector<int64_t>> constantInts(size_t i,
                                                   std::string_view what);
  static constexpr int64_t kMaxConstantInts = int64_t(1) << 20;
  /// Input i as a double when it is a one-element constant (Range's start,
  /// limit and delta); otherwise records an error and returns nullopt.
  std::optional<double> constantScalar(size_t i, std::string_view what);

  // --- Attributes --------------------------------------------------------
  virtual bool hasAttr(std::string_view key) const = 0;
  /// Each getter returns `fallback` (or empty) when the attribute is
  /// absent; a present attribute of the wrong kind records an error.
  virtual int64_t attrInt(std::string_view key, int64_t fallback) = 0;
  virtual double attrFloat(std::string_view key, double fallback) = 0;
  virtual std::string attrString(std::string_view key,
                                 std::string fallback) = 0;
  virtual std::vector<int64_t> attrInts(std::string_view key) = 0;
  virtual std::vector<double> attrFloats(std::string_view key) = 0;
  virtual std::vector<std::string> attrStrings(std::string_view key) = 0;
  /// A tensor attribute (TF Const's value, ONNX Constant's value).
  virtual std::optional<ir::Literal> attrTensor(std::string_view key) = 0;

  // --- Outputs -----------------------------------------------------------
  virtual void setOutput(size_t index, Value value) = 0;

  /// Records an error about this node (the importer adds file/node/op).
  Value fail(std::string message) { return builder_.fail(std::move(message)); }

protected:
  explicit NodeContext(GraphBuilder &builder) : builder_(builder) {}
  /// Completes "input i (what) must be a compile-time constant, but it ..."
  /// in the front end's words (what the input depends on, how to fix it).
  virtual std::string_view notConstantHint() const = 0;

  GraphBuilder &builder_;
};

} // namespace kiln::import

#endif // KILN_LIB_IMPORT_COMMON_NODECONTEXT_H
