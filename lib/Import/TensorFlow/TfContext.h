//===- TfContext.h - The TfNodeContext the importer lowers through -*- C++ -*-===//
//
// One TfContext per node: resolved data inputs, typed access to the
// NodeDef's attributes (TF.js weights stand in for a Const's `value`), and
// the variable hooks backed by the importer's shared VariableState.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_LIB_IMPORT_TENSORFLOW_TFCONTEXT_H
#define KILN_LIB_IMPORT_TENSORFLOW_TFCONTEXT_H

#include "TensorFlow/TfGraph.h"
#include "TensorFlow/TfOps.h"

#include <map>

namespace kiln::import::tf {

/// A tfcompile `variable` entry resolved against the graph.
struct VariableSpec {
  std::string name; ///< config name, or the node name
  size_t node = 0;
  ir::Shape shape;
  bool readonly = true;
  Value parameter = nullptr;
};

/// What every node context shares: the graph, the config's variables and
/// the updates recorded so far.
struct VariableState {
  const TfGraph &graph;
  std::vector<VariableSpec> variables;
  std::map<size_t, size_t> byNode;     ///< variable node -> variables index
  std::map<size_t, Value> updates;     ///< variables index -> new value
  std::map<std::pair<size_t, int64_t>, Value> fed; ///< fed tensors

  /// The variable that output `index` of `node` refers to, following
  /// Identity-like nodes; nullptr when it is none.
  const VariableSpec *variableAt(size_t node, int64_t index) const;
};

/// What the lowering knows about TensorList values beyond their buffers
/// (TfNodeContext's TensorList hooks), shared by a graph and the functions
/// it calls.
struct ListMarks {
  std::map<Value, int64_t> unshaped; ///< placeholder -> bound
  std::map<Value, Value> lengths;    ///< counted list -> its s32[] length
};

/// Lowers library functions for the nodes that call them (the importer's
/// GraphLowering).
class FunctionCaller {
public:
  virtual ~FunctionCaller() = default;
  /// `caller` is the calling node's name (names the values made).
  virtual Expected<std::vector<Value>>
  callFunction(const std::string &function, const std::vector<Value> &arguments,
               GraphBuilder &into, const std::string &caller) = 0;
};

class TfContext : public TfNodeContext {
public:
  /// `weight` replaces the Const's `value` attribute (TF.js); when
  /// `requireWeight`, a Const without one and without stored values is an
  /// error instead of zeros.
  TfContext(GraphBuilder &builder, VariableState &state, size_t node,
            std::vector<Value> inputs, std::vector<NodeInput> dataInputs,
            const ir::Literal *weight, bool requireWeight,
            FunctionCaller &functions, ListMarks &lists);

  const std::string &name() const override { return def_.name(); }
  const std::string &op() const override { return def_.op(); }

  size_t inputCount() const override { return inputs_.size(); }
  Value input(size_t i) const override;

  bool hasAttr(std::string_view key) const override;
  int64_t attrInt(std::string_view key, int64_t fallback) override;
  double attrFloat(std::string_view key, double fallback) override;
  bool attrBool(std::string_view key, bool fallback) override;
  std::string attrString(std::string_view key, std::string fallback) override;
  std::vector<int64_t> attrInts(std::string_view key) override;
  std::vector<double> attrFloats(std::string_view key) override;
  std::vector<std::string> attrStrings(std::string_view key) override;
  std::optional<ir::DType> attrType(std::string_view key) override;
  std::optional<std::vector<int64_t>> attrShape(std::string_view key) override;
  std::optional<ir::Literal> attrTensor(std::string_view key) override;
  std::optional<std::string> attrFunction(std::string_view key) override;
  std::vector<std::string> attrFunctions(std::string_view key) override;
  std::optional<std::vector<Value>>
  callFunction(const std::string &function, const std::vector<Value> &arguments,
               GraphBuilder &into) override;
  std::optional<int64_t> unshapedListBound(Value list) const override;
  void markUnshapedList(Value list, int64_t bound) override;
  Value listLength(Value list) const override;
  void setListLength(Value list, Value length) override;
  void forgetLists(const ir::Computation &computation) override;

  std::optional<std::string> variableOf(size_t i) const override;
  void updateVariable(const std::string &variable, Value value) override;
  Value currentValue(const std::string &variable) override;

  void setOutput(size_t index, Value value) override;
  std::vector<Value> takeOutputs() { return std::move(outputs_); }
  /// The first attribute the lowering found with the wrong kind, or "".
  const std::string &attributeError() const { return attributeError_; }

private:
  /// The attribute if present with `kind`. One present with another kind
  /// reads as absent and the first such is kept in attributeError(), not
  /// failed at once, so the lowering goes on with a working builder (as for
  /// a missing attribute); Lowering::lowerNode reports it.
  const tensorflow::AttrValue *attr(std::string_view key,
                                    tensorflow::AttrValue::ValueCase kind);

  VariableState &state_;
  const tensorflow::NodeDef &def_;
  std::vector<Value> inputs_;
  std::vector<NodeInput> dataInputs_;
  const ir::Literal *weight_;
  bool requireWeight_;
  FunctionCaller &functions_;
  ListMarks &lists_;
  std::vector<Value> outputs_;
  std::string attributeError_;
};

} // namespace kiln::import::tf

#endif // KILN_LIB_IMPORT_TENSORFLOW_TFCONTEXT_H
