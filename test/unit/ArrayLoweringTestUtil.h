//===- ArrayLoweringTestUtil.h - Fake node contexts for lowering tests -*- C++ -*-===//
//
// Small fakes of the TF and ONNX node contexts so the array-op lowerings can
// be driven without an importer, and a Graph that evaluates the result with
// the reference evaluator. Shared by ArrayLoweringTest.cpp (TensorFlow) and
// OnnxArrayLoweringTest.cpp.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_TEST_UNIT_ARRAYLOWERINGTESTUTIL_H
#define KILN_TEST_UNIT_ARRAYLOWERINGTESTUTIL_H

#include "../../lib/Import/Common/ArrayLowering.h"
#include "../../lib/Import/Onnx/OnnxOps.h"
#include "../../lib/Import/TensorFlow/TfOps.h"

#include "kiln/Eval/Evaluator.h"
#include "kiln/IR/Module.h"
#include "kiln/IR/Verifier.h"
#include "kiln/Import/LiteralUtil.h"

#include <catch2/catch.hpp>

#include <map>
#include <numeric>
#include <variant>

namespace kiln::import::testing {

using ir::DType;
using ir::Shape;

using Attr = std::variant<int64_t, double, std::string, std::vector<int64_t>,
                          std::vector<double>, DType, ir::Literal>;
using Attrs = std::map<std::string, Attr, std::less<>>;

inline std::vector<double> iotaValues(int64_t n, double start = 0) {
  std::vector<double> v(static_cast<size_t>(n));
  std::iota(v.begin(), v.end(), start);
  return v;
}

/// A module under construction, its inputs as parameters or constants.
struct Graph {
  ir::Module module{"m"};
  ir::Computation *entry = nullptr;
  GraphBuilder b{*addEntry()};
  std::vector<ir::Literal> args;

  ir::Computation *addEntry() {
    entry = module.addComputation("main");
    module.setEntry(entry);
    return entry;
  }
  Value param(Shape shape, std::vector<double> values) {
    args.push_back(literalFromDoubles(shape, values));
    return b.parameter(int64_t(args.size() - 1), shape, "p");
  }
  Value constant(Shape shape, std::vector<double> values) {
    return b.constant(literalFromDoubles(shape, values));
  }
  Value ints(std::vector<int64_t> values) { return b.ints(DType::S32, values); }
  /// Evaluates `root`; returns its dims and values.
  std::pair<std::vector<int64_t>, std::vector<double>> run(Value root) {
    REQUIRE(root);
    REQUIRE(b.ok());
    entry->setRoot(root);
    Error error = ir::verifyModule(module);
    INFO((error ? error.message() : ""));
    REQUIRE(!error);
    auto results = eval::evaluateModule(module, args);
    REQUIRE(results);
    return {results->at(0).shape().dims(), literalToDoubles(results->at(0))};
  }
};

template <typename T> T attrOr(const Attrs &attrs, std::string_view key, T fallback) {
  auto it = attrs.find(key);
  if (it == attrs.end())
    return fallback;
  if (const T *value = std::get_if<T>(&it->second))
    return *value;
  return fallback;
}

class FakeTfNode : public tf::TfNodeContext {
public:
  FakeTfNode(GraphBuilder &b, std::string op, std::vector<Value> inputs, Attrs attrs)
      : TfNodeContext(b), op_(std::move(op)), inputs_(std::move(inputs)),
        attrs_(std::move(attrs)) {}
  const std::string &name() const override { return op_; }
  const std::string &op() const override { return op_; }
  size_t inputCount() const override { return inputs_.size(); }
  Value input(size_t i) const override { return inputs_.at(i); }
  bool hasAttr(std::string_view key) const override { return attrs_.count(key); }
  int64_t attrInt(std::string_view k, int64_t f) override { return attrOr(attrs_, k, f); }
  double attrFloat(std::string_view k, double f) override { return attrOr(attrs_, k, f); }
  bool attrBool(std::string_view k, bool f) override {
    return attrOr<int64_t>(attrs_, k, f) != 0;
  }
  std::string attrString(std::string_view k, std::string f) override {
    return attrOr(attrs_, k, f);
  }
  std::vector<int64_t> attrInts(std::string_view k) override {
    return attrOr(attrs_, k, std::vector<int64_t>{});
  }
  std::vector<double> attrFloats(std::string_view k) override {
    return attrOr(attrs_, k, std::vector<double>{});
  }
  std::vector<std::string> attrStrings(std::string_view) override { return {}; }
  std::optional<DType> attrType(std::string_view k) override {
    return attrOr(attrs_, k, DType::F32);
  }
  std::optional<std::vector<int64_t>> attrShape(std::string_view) override {
    return std::nullopt;
  }
  std::optional<ir::Literal> attrTensor(std::string_view) override { return std::nullopt; }
  std::optional<std::string> variableOf(size_t) const override { return std::nullopt; }
  void updateVariable(const std::string &, Value) override {}
  // No `override`: the hook is newer than some trees this test builds in.
  Value currentValue(const std::string &) { return nullptr; }
  // These tests lower single ops: no function library.
  std::optional<std::string> attrFunction(std::string_view) override {
    return std::nullopt;
  }
  std::vector<std::string> attrFunctions(std::string_view) override { return {}; }
  std::optional<std::vector<Value>> callFunction(const std::string &,
                                                 const std::vector<Value> &,
                                                 GraphBuilder &) override {
    return std::nullopt;
  }
  std::optional<int64_t> unshapedListBound(Value) const override {
    return std::nullopt;
  }
  void markUnshapedList(Value, int64_t) override {}
  Value listLength(Value) const override { return nullptr; }
  void setListLength(Value, Value) override {}
  void forgetLists(const ir::Computation &) override {}
  void setOutput(size_t index, Value value) override {
    outputs.resize(std::max(outputs.size(), index + 1));
    outputs[index] = value;
  }
  std::vector<Value> outputs;

private:
  std::string op_;
  std::vector<Value> inputs_;
  Attrs attrs_;
};

class FakeOnnxNode : public onnx::OnnxNodeContext {
public:
  FakeOnnxNode(GraphBuilder &b, std::string op, int64_t opset,
               std::vector<Value> inputs, Attrs attrs, size_t outputs = 1)
      : OnnxNodeContext(b), outputs(outputs), op_(std::move(op)),
        opset_(opset), inputs_(std::move(inputs)), attrs_(std::move(attrs)) {}
  const std::string &name() const override { return op_; }
  const std::string &opType() const override { return op_; }
  int64_t opset() const override { return opset_; }
  size_t inputCount() const override { return inputs_.size(); }
  bool hasInput(size_t i) const override { return i < inputs_.size() && inputs_[i]; }
  Value input(size_t i) const override { return inputs_.at(i); }
  bool hasAttr(std::string_view key) const override { return attrs_.count(key); }
  int64_t attrInt(std::string_view k, int64_t f) override { return attrOr(attrs_, k, f); }
  double attrFloat(std::string_view k, double f) override { return attrOr(attrs_, k, f); }
  std::string attrString(std::string_view k, std::string f) override {
    return attrOr(attrs_, k, f);
  }
  std::vector<int64_t> attrInts(std::string_view k) override {
    return attrOr(attrs_, k, std::vector<int64_t>{});
  }
  std::vector<double> attrFloats(std::string_view k) override {
    return attrOr(attrs_, k, std::vector<double>{});
  }
  std::vector<std::string> attrStrings(std::string_view) override { return {}; }
  std::optional<ir::Literal> attrTensor(std::string_view k) override {
    auto it = attrs_.find(k);
    if (it == attrs_.end())
      return std::nullopt;
    return std::get<ir::Literal>(it->second);
  }
  size_t outputCount() const override { return outputs.size(); }
  bool wantsOutput(size_t) const override { return true; }
  void setOutput(size_t i, Value value) override { outputs.at(i) = value; }
  /// The ops under unit test have no subgraphs (If/Loop/Scan are tested
  /// through real models: test/models/controlflow).
  std::optional<std::vector<Value>>
  inlineSubgraph(std::string_view key, const std::vector<Value> &) override {
    fail(fmt::format("no subgraph '{}' in a unit test", key));
    return std::nullopt;
  }
  std::optional<Subgraph> buildSubgraph(std::string_view key,
                                        const std::vector<ir::Shape> &,
                                        std::string_view) override {
    fail(fmt::format("no subgraph '{}' in a unit test", key));
    return std::nullopt;
  }
  std::vector<Value> outputs;

private:
  std::string op_;
  int64_t opset_;
  std::vector<Value> inputs_;
  Attrs attrs_;
};

/// Lowers one TF node and returns its outputs.
inline std::vector<Value> lowerTf(Graph &g, const std::string &op,
                           std::vector<Value> inputs, Attrs attrs = {}) {
  FakeTfNode node(g.b, op, std::move(inputs), std::move(attrs));
  tf::TfLowering lower = tf::findTfLowering(op);
  REQUIRE(lower);
  lower(node);
  INFO("lowering error");
  return node.outputs;
}

inline std::vector<Value> lowerOnnx(Graph &g, const std::string &op, int64_t opset,
                             std::vector<Value> inputs, Attrs attrs = {},
                             size_t outputs = 1) {
  FakeOnnxNode node(g.b, op, opset, std::move(inputs), std::move(attrs), outputs);
  onnx::OnnxLowering lower = onnx::findOnnxLowering(op);
  REQUIRE(lower);
  lower(node);
  return node.outputs;
}

using Dims = std::vector<int64_t>;
using Values = std::vector<double>;

inline void checkClose(const Values &actual, const Values &expected, double tol = 1e-6) {
  REQUIRE(actual.size() == expected.size());
  for (size_t i = 0; i < actual.size(); ++i) {
    INFO("element " << i);
    CHECK(actual[i] == Approx(expected[i]).margin(tol));
  }
}
} // namespace kiln::import::testing

#endif // KILN_TEST_UNIT_ARRAYLOWERINGTESTUTIL_H
