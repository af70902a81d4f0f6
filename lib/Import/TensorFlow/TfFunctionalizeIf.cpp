//===- TfFunctionalizeIf.cpp - v1 conds to If or SelectV2 -----------------===//
//
// Conds are rewritten one at a time, innermost first (the Merges with the
// most enclosing cond sides): a cond is the Merges on one predicate in one
// enclosing context. A cheap one (a few ops, none costly) becomes SelectV2
// per Merge: both sides run, which costs less than a conditional's calls.
// A costly one becomes a StatelessIf whose then/else functions hold each
// side's nodes (each side's closure from its Merge inputs back to the
// Switches on the predicate, whose switched values become the If's
// inputs); a side that reads an outer value other than through a Switch,
// or whose values are read outside the cond, is selected instead.
//
//===----------------------------------------------------------------------===//
#include "TensorFlow/TfFunctionalizeGraph.h"

#include <optional>

namespace kiln::import::tf::functionalize {

namespace {

constexpr std::string_view kCostlyOps[] = {
    "MatMul", "BatchMatMul", "BatchMatMulV2", "BatchMatMulV3", "_FusedMatMul",
    "Conv2D", "Conv3D", "DepthwiseConv2dNative", "FusedDepthwiseConv2dNative",
    "_FusedConv2D", "Conv2DBackpropInput", "Einsum", "TopKV2", "While",
    "StatelessWhile", "If", "StatelessIf", "Case", "StatelessCase",
    "PartitionedCall", "StatefulPartitionedCall"};
/// More ops than this on both sides together make a cond costly.
constexpr size_t kCheapOps = 8;

bool isFreeConstant(const NodeDef &node) {
  return node.op() == "Const" && node.input_size() == 0;
}

/// One side's nodes and what its functions read and return.
struct Side {
  std::set<std::string> nodes;
  std::vector<std::string> returns; ///< per Merge
};

class CondRewriter {
public:
  CondRewriter(tensorflow::GraphDef &graph, Nodes &nodes,
               const CondAnalysis &analysis, std::vector<const CondMerge *> cond,
               const std::string &file)
      : graph_(graph), nodes_(nodes), analysis_(analysis),
        cond_(std::move(cond)), file_(file), pred_(cond_.front()->pred) {}

  /// If or selects.
  Error run();

private:
  /// `ref` as side `port`'s function reads it, without its inputs
  /// (`expand` when it is a node the function copies); nullopt when the
  /// side cannot be extracted.
  std::optional<std::string> classify(const Ref &ref, int64_t port,
                                      bool &expand);
  std::optional<std::string> resolve(const Ref &ref, int64_t port, Side &side);
  bool costly(const Side &onTrue, const Side &onFalse) const;
  bool readOutside(const std::set<std::string> &removed) const;
  Error checkValueIndex() const;
  void asSelects();
  /// The type of what `merge` outputs, as a function result.
  tensorflow::DataType mergeType(const NodeDef &merge) {
    return carriedType(nodes_, Ref{merge.name(), 0, false}, attrType(merge));
  }
  tensorflow::FunctionDef function(const std::string &name, const Side &side,
                                   int64_t port);
  void asIf(const Side &onTrue, const Side &onFalse);
  void removeDead(std::set<std::string> removed);

  tensorflow::GraphDef &graph_;
  Nodes &nodes_;
  const CondAnalysis &analysis_;
  std::vector<const CondMerge *> cond_;
  const std::string &file_;
  std::string pred_;
  std::vector<std::pair<std::string, tensorflow::DataType>> inputs_;
  std::map<std::string, size_t> inputIndex_;
};

std::optional<std::string> CondRewriter::classify(const Ref &ref, int64_t port,
                                                  bool &expand) {
  expand = false;
  NodeDef *node = nodes_.find(ref.node);
  auto condSwitch = analysis_.switches.find(ref.node);
  if (condSwitch != analysis_.switches.end() && condSwitch->second == pred_) {
    if (ref.port != port)
      return std::nullopt;
    const std::string &value = node->input(0);
    auto [it, added] = inputIndex_.emplace(value, inputs_.size());
    if (added)
      inputs_.emplace_back(
          value, carriedType(nodes_, parseRef(value), attrType(*node)));
    return fmt::format("in{}", it->second);
  }
  if (!isFreeConstant(*node)) {
    auto sides = analysis_.sides.find(ref.node);
    bool inSide =
        sides != analysis_.sides.end() && sides->second.count({pred_, port});
    if (!inSide || isEnter(*node) || isExit(*node) || isNextIteration(*node) ||
        node->op() == "LoopCond" || isMerge(*node) || isSwitch(*node))
      return std::nullopt;
  }
  expand = true;
  return refText(ref.node, ref.port);
}

std::optional<std::string> CondRewriter::resolve(const Ref &ref, int64_t port,
                                                 Side &side) {
  bool expand = false;
  std::optional<std::string> text = classify(ref, port, expand);
  if (!text || !expand || !side.nodes.insert(ref.node).second)
    return text;
  Error blocked = gatherInputs(
      nodes_, *nodes_.find(ref.node), side.nodes,
      [&](const Ref &input, const NodeDef &) -> Expected<bool> {
        bool joins = false;
        if (!classify(input, port, joins))
          return makeError("not extractable"); // the cond is selected
        return joins;
      });
  if (blocked)
    return std::nullopt;
  return text;
}

bool CondRewriter::costly(const Side &onTrue, const Side &onFalse) const {
  size_t ops = 0;
  for (const Side *side : {&onTrue, &onFalse})
    for (const std::string &name : side->nodes) {
      const NodeDef &node = *nodes_.find(name);
      if (node.op() == "Const" || node.op() == "Identity")
        continue;
      ++ops;
      if (std::find(std::begin(kCostlyOps), std::end(kCostlyOps), node.op()) !=
          std::end(kCostlyOps))
        return true;
    }
  return ops > kCheapOps;
}

/// Whether a node staying in the graph reads one of `removed`.
bool CondRewriter::readOutside(const std::set<std::string> &removed) const {
  std::set<std::string> merges;
  for (const CondMerge *merge : cond_)
    merges.insert(merge->merge->name());
  for (const NodeDef &node : graph_.node()) {
    if (removed.count(node.name()) || merges.count(node.name()))
      continue;
    for (const std::string &input : node.input()) {
      Ref ref = parseRef(input);
      if (!ref.control && removed.count(ref.node))
        return true;
    }
  }
  return false;
}

Error CondRewriter::checkValueIndex() const {
  for (const NodeDef &node : graph_.node())
    for (const std::string &input : node.input()) {
      Ref ref = parseRef(input);
      for (const CondMerge *merge : cond_)
        if (ref.node == merge->merge->name() && ref.port == 1 && !ref.control)
          return makeError("{}: node '{}' ({}): error: cannot functionalize: "
                           "it reads the value_index of Merge '{}'",
                           file_, node.name(), node.op(), ref.node);
    }
  return Error::success();
}

void CondRewriter::asSelects() {
  for (const CondMerge *select : cond_) {
    NodeDef &merge = *select->merge;
    merge.set_op("SelectV2");
    merge.clear_input();
    merge.add_input(select->pred);
    merge.add_input(select->onTrue);
    merge.add_input(select->onFalse);
    merge.mutable_attr()->erase("N");
  }
}

tensorflow::FunctionDef CondRewriter::function(const std::string &name,
                                               const Side &side, int64_t port) {
  tensorflow::FunctionDef function;
  tensorflow::OpDef &signature = *function.mutable_signature();
  signature.set_name(name);
  for (size_t i = 0; i < inputs_.size(); ++i) {
    auto *arg = signature.add_input_arg();
    arg->set_name(fmt::format("in{}", i));
    arg->set_type(inputs_[i].second);
  }
  bool expand = false;
  for (const NodeDef &node : graph_.node()) {
    if (!side.nodes.count(node.name()))
      continue;
    NodeDef *copy = function.add_node_def();
    *copy = node;
    copy->clear_input();
    for (const std::string &input : node.input()) {
      Ref ref = parseRef(input);
      if (!ref.control) // pivots order nothing inside a function
        copy->add_input(*classify(ref, port, expand));
    }
  }
  for (size_t m = 0; m < cond_.size(); ++m) {
    std::string output = fmt::format("out{}", m);
    auto *arg = signature.add_output_arg();
    arg->set_name(output);
    arg->set_type(mergeType(*cond_[m]->merge));
    (*function.mutable_ret())[output] = side.returns[m];
  }
  return function;
}

void CondRewriter::asIf(const Side &onTrue, const Side &onFalse) {
  std::string base = parseRef(pred_).node;
  std::string thenName = uniqueFunctionName(graph_, base + "/kiln_then");
  std::string elseName = uniqueFunctionName(graph_, base + "/kiln_else");
  *graph_.mutable_library()->add_function() = function(thenName, onTrue, 1);
  *graph_.mutable_library()->add_function() = function(elseName, onFalse, 0);
  std::string ifName = base + "/kiln_if";
  for (int k = 1; nodes_.find(ifName); ++k)
    ifName = fmt::format("{}/kiln_if_{}", base, k);
  NodeDef *node = graph_.add_node();
  node->set_name(ifName);
  node->set_op("StatelessIf");
  node->add_input(pred_);
  auto &attrs = *node->mutable_attr();
  attrs["Tcond"].set_type(tensorflow::DT_BOOL);
  for (const auto &[value, type] : inputs_) {
    node->add_input(value);
    attrs["Tin"].mutable_list()->add_type(type);
  }
  for (const CondMerge *merge : cond_)
    attrs["Tout"].mutable_list()->add_type(mergeType(*merge->merge));
  attrs["then_branch"].mutable_func()->set_name(thenName);
  attrs["else_branch"].mutable_func()->set_name(elseName);
  for (size_t m = 0; m < cond_.size(); ++m) {
    NodeDef &merge = *cond_[m]->merge;
    tensorflow::DataType type = attrType(merge);
    merge.set_op("Identity");
    merge.clear_input();
    merge.add_input(refText(ifName, int64_t(m)));
    merge.mutable_attr()->clear();
    (*merge.mutable_attr())["T"].set_type(type);
  }
}

/// Removes `removed`, then every node of this cond's sides (pivots,
/// Switches on the predicate) that nothing left reads.
void CondRewriter::removeDead(std::set<std::string> removed) {
  // An Identity chain on the predicate (TF's pred_id) is the predicate.
  auto isPredicateCopy = [&](const NodeDef &node) {
    const NodeDef *at = &node;
    for (int depth = 0; depth < 1000 && at && at->op() == "Identity" &&
                        at->input_size() > 0;
         ++depth) {
      Ref ref = parseRef(at->input(0));
      if (ref.control)
        return false;
      if (refText(ref.node, ref.port) == pred_)
        return true;
      at = nodes_.find(ref.node);
    }
    return false;
  };
  auto ofThisCond = [&](const NodeDef &node) {
    auto condSwitch = analysis_.switches.find(node.name());
    if (condSwitch != analysis_.switches.end() && condSwitch->second == pred_)
      return true;
    if (isPredicateCopy(node))
      return true;
    auto sides = analysis_.sides.find(node.name());
    return sides != analysis_.sides.end() &&
           (sides->second.count({pred_, 0}) || sides->second.count({pred_, 1}));
  };
  for (bool more = true; more;) {
    more = false;
    std::set<std::string> read;
    for (const NodeDef &node : graph_.node())
      if (!removed.count(node.name()))
        for (const std::string &input : node.input())
          read.insert(parseRef(input).node);
    for (const NodeDef &node : graph_.node())
      if (!removed.count(node.name()) && !read.count(node.name()) &&
          ofThisCond(node) && !isMerge(node) && node.op() != "Identity") {
        removed.insert(node.name());
        more = true;
      }
    // Pivots are Identities of the predicate's Switch: dead once unread.
    for (const NodeDef &node : graph_.node())
      if (!removed.count(node.name()) && !read.count(node.name()) &&
          ofThisCond(node) && node.op() == "Identity" &&
          !std::any_of(cond_.begin(), cond_.end(), [&](const CondMerge *m) {
            return m->merge->name() == node.name();
          })) {
        removed.insert(node.name());
        more = true;
      }
  }
  removeNodes(graph_, removed);
}

Error CondRewriter::run() {
  if (Error error = checkValueIndex())
    return error;
  Side onTrue, onFalse;
  bool extractable = true;
  for (const CondMerge *merge : cond_) {
    std::optional<std::string> t = resolve(parseRef(merge->onTrue), 1, onTrue);
    std::optional<std::string> f = resolve(parseRef(merge->onFalse), 0, onFalse);
    extractable = extractable && t && f;
    if (!extractable)
      break;
    onTrue.returns.push_back(*t);
    onFalse.returns.push_back(*f);
  }
  std::set<std::string> removed;
  for (const Side *side : {&onTrue, &onFalse})
    for (const std::string &name : side->nodes)
      if (!isFreeConstant(*nodes_.find(name)))
        removed.insert(name);
  if (!extractable || !costly(onTrue, onFalse) || readOutside(removed)) {
    asSelects();
    return Error::success();
  }
  asIf(onTrue, onFalse);
  removeDead(std::move(removed));
  return Error::success();
}

/// The Switches on predicates no Merge joins any more become Identities
/// (both outputs the switched value).
void dropSwitches(tensorflow::GraphDef &graph, const CondAnalysis &analysis) {
  for (NodeDef &node : *graph.mutable_node())
    for (std::string &input : *node.mutable_input()) {
      Ref ref = parseRef(input);
      if (analysis.switches.count(ref.node) && !ref.control)
        input = ref.node;
    }
  for (NodeDef &node : *graph.mutable_node())
    if (analysis.switches.count(node.name())) {
      std::string value = node.input(0);
      node.set_op("Identity");
      node.clear_input();
      node.add_input(value);
    }
}

} // namespace

Error rewriteConds(tensorflow::GraphDef &graph, const std::string &file) {
  while (true) {
    Nodes nodes(graph, file);
    Expected<CondAnalysis> analysis = analyzeConds(graph, nodes, file);
    if (!analysis)
      return analysis.takeError();
    if (analysis->merges.empty()) {
      dropSwitches(graph, *analysis);
      return Error::success();
    }
    // The innermost cond: its Merges lie on the most enclosing sides.
    const CondMerge *inner = &analysis->merges.front();
    for (const CondMerge &merge : analysis->merges)
      if (analysis->sides.at(merge.merge->name()).size() >
          analysis->sides.at(inner->merge->name()).size())
        inner = &merge;
    const Sides &context = analysis->sides.at(inner->merge->name());
    std::vector<const CondMerge *> cond;
    for (const CondMerge &merge : analysis->merges)
      if (merge.pred == inner->pred &&
          analysis->sides.at(merge.merge->name()) == context)
        cond.push_back(&merge);
    CondRewriter rewriter(graph, nodes, *analysis, std::move(cond), file);
    if (Error error = rewriter.run())
      return error;
  }
}

} // namespace kiln::import::tf::functionalize
