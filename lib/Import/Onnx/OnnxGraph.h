//===- OnnxGraph.h - The state of one ONNX graph while it is lowered -*- C++ -*-===//
//
// OnnxImporter.cpp reads the model and checks it as a whole (opsets,
// unsupported ops, input types and shapes); OnnxGraph.cpp holds what a
// lowering sees: the value of every name in the graph (initializers become
// constants on first use) and the OnnxNodeContext of one node.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_LIB_IMPORT_ONNX_ONNXGRAPH_H
#define KILN_LIB_IMPORT_ONNX_ONNXGRAPH_H

#include "Onnx/OnnxOps.h"

#include "onnx/onnx.pb.h"

#include <map>
#include <set>
#include <string>

namespace kiln::import::onnx {

/// Names -> HLO values of one graph under construction. A subgraph (a
/// branch of If) has its enclosing graph as parent: names it does not
/// define itself are looked up there, as ONNX's scoping rules say.
class OnnxContext;

class OnnxGraph {
public:
  OnnxGraph(GraphBuilder &builder, const onnxpb::GraphProto &graph,
            std::string baseDir, OnnxGraph *parent = nullptr);

  GraphBuilder &builder() { return builder_; }
  const std::string &baseDir() const { return baseDir_; }
  bool isInitializer(const std::string &name) const {
    return initializers_.count(name) != 0;
  }

  /// The value named `name`: a node output, a graph input, or an
  /// initializer (made a constant here on first use), of this graph or an
  /// enclosing one. nullptr with the builder's error set when the name is
  /// unknown or its tensor is bad.
  Value lookup(const std::string &name);
  void define(const std::string &name, Value value) { values_[name] = value; }
  /// The value of `name` if this graph or an enclosing one defines it;
  /// nullptr without an error otherwise.
  Value find(const std::string &name);
  /// Names a value a node computed after the node output it is, so HLO
  /// instructions (and `kiln check`, dumps) show the source node; a value
  /// already named that way (passed through by Identity, ...), a parameter
  /// and a constant keep their names.
  void nameAfterOutput(Value value, const std::string &output);

  /// Lowers `nodes` in order at `opset`. The error, if any, names the node:
  /// "node 'NAME' (OpType): message".
  /// Counts one more subgraph inlined anywhere in the model (the branch a
  /// constant If condition takes; loops are whiles and inline nothing);
  /// false once the model's total passes
  /// ResourceLimits::kMaxUnrolledIterations.
  bool countInlinedSubgraph();

  Error lowerNodes(const google::protobuf::RepeatedPtrField<onnxpb::NodeProto>
                       &nodes,
                   int64_t opset);
  /// Lowers one node; one with a run-time sized input only when its op
  /// passes padding through (elementwise), else the error says so.
  void lowerNode(OnnxContext &context, const onnxpb::NodeProto &node);

private:
  /// `name` of this graph only; nullptr (no error) when it is not here.
  Value findLocal(const std::string &name);

  GraphBuilder &builder_;
  std::string baseDir_;
  OnnxGraph *parent_;
  std::map<std::string, const onnxpb::TensorProto *> initializers_;
  std::map<std::string, Value> values_;
  std::set<Value> named_; ///< values named after an output (root graph)
  int64_t inlinedSubgraphs_ = 0; ///< the root graph's count for the model
};

/// The node-level view a lowering works through.
class OnnxContext final : public OnnxNodeContext {
public:
  OnnxContext(OnnxGraph &graph, const onnxpb::NodeProto &node, int64_t opset);

  const std::string &name() const override { return name_; }
  const std::string &opType() const override { return node_.op_type(); }
  int64_t opset() const override { return opset_; }

  size_t inputCount() const override { return size_t(node_.input_size()); }
  bool hasInput(size_t i) const override;
  Value input(size_t i) const override;

  bool hasAttr(std::string_view key) const override;
  int64_t attrInt(std::string_view key, int64_t fallback) override;
  double attrFloat(std::string_view key, double fallback) override;
  std::string attrString(std::string_view key, std::string fallback) override;
  std::vector<int64_t> attrInts(std::string_view key) override;
  std::vector<double> attrFloats(std::string_view key) override;
  std::vector<std::string> attrStrings(std::string_view key) override;
  std::optional<ir::Literal> attrTensor(std::string_view key) override;

  size_t outputCount() const override { return size_t(node_.output_size()); }
  bool wantsOutput(size_t i) const override;
  void setOutput(size_t i, Value value) override;

  std::optional<std::vector<Value>>
  inlineSubgraph(std::string_view key,
                 const std::vector<Value> &inputs) override;
  std::optional<Subgraph>
  buildSubgraph(std::string_view key, const std::vector<ir::Shape> &inputShapes,
                std::string_view role) override;

  /// The graph attribute `key` of a node passing it `inputCount` inputs, or
  /// null after failing with why not (Onnx{Graph,Subgraph}.cpp).
  const onnxpb::GraphProto *subgraphAttribute(std::string_view key,
                                              size_t inputCount);

  /// Index of the first wanted output the lowering did not set, or -1.
  int64_t firstMissingOutput() const;
  /// The index of the last output the lowering set, or -1.
  int64_t lastSetOutput() const;
  /// The first attribute the lowering could not read (wrong type, or a
  /// function attribute reference), or "" when every read succeeded.
  const std::string &attributeError() const { return attributeError_; }

private:
  /// The attribute named `key` if present. One that exists with a type
  /// other than `type` reads as absent, and the first such is kept in
  /// attributeError() rather than failing the builder at once: the lowering
  /// then goes on as for a missing attribute, with a working builder, and
  /// cannot trip over values a failed builder no longer makes (several
  /// null dereferences the fuzzers found). lowerNodes reports it after.
  const onnxpb::AttributeProto *
  attr(std::string_view key, onnxpb::AttributeProto::AttributeType type);

  OnnxGraph &graph_;
  const onnxpb::NodeProto &node_;
  int64_t opset_;
  std::string name_;
  std::vector<bool> outputSet_;
  std::string attributeError_;
};

} // namespace kiln::import::onnx

#endif // KILN_LIB_IMPORT_ONNX_ONNXGRAPH_H
