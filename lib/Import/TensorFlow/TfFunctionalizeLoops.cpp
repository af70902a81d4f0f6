//===- TfFunctionalizeLoops.cpp - v1 loop frames to StatelessWhile --------===//
//
// One frame at a time, innermost first (TfFunctionalize.h): frames are
// assigned by walking the graph in order (an Enter's output lives in its
// frame_name's frame, an Exit's in the parent frame, any other node's where
// its inputs live); the deepest frame's loop structure is read off its
// Merges, and its cond and body become library functions of a new
// StatelessWhile.
//
// A loop variable or invariant carrying a TensorArray is typed DT_VARIANT
// (carriedType, TfFunctionalizeGraph.h).
//
//===----------------------------------------------------------------------===//
#include "TensorFlow/TfFunctionalizeGraph.h"

#include <optional>
#include <set>

namespace kiln::import::tf::functionalize {

namespace {

/// Frames are paths: the root is "", a child appends "|" + frame_name.
std::string parentFrame(const std::string &frame) {
  size_t bar = frame.rfind('|');
  return bar == std::string::npos ? "" : frame.substr(0, bar);
}

/// A frame path as messages show it: "outer > inner", or "the top level".
std::string displayFrame(const std::string &path) {
  if (path.empty())
    return "the top level";
  std::string text;
  for (char c : path.substr(1))
    text += c == '|' ? std::string(" > ") : std::string(1, c);
  return "frame '" + text + "'";
}

struct Frames {
  std::map<std::string, std::string> of;  ///< the frame a node runs in
  std::map<std::string, std::string> out; ///< the frame its outputs live in
};

Expected<Frames> assignFrames(Nodes &nodes, const std::vector<NodeDef *> &order,
                              const std::string &file) {
  Frames frames;
  for (NodeDef *node : order) {
    std::optional<std::string> frame;
    for (const std::string &input : node->input()) {
      Ref ref = parseRef(input);
      // A Const without inputs runs anywhere: the function using it gets a
      // copy (LoopExtractor::resolve).
      const NodeDef *producer = nodes.find(ref.node);
      if (nodes.isBackEdge(ref) ||
          (producer->op() == "Const" && producer->input_size() == 0))
        continue;
      const std::string &source = frames.out.at(ref.node);
      if (frame && *frame != source)
        return makeError("{}: node '{}' ({}): error: cannot functionalize: "
                         "it reads from {} and from {} (a value entering a "
                         "loop frame needs an Enter, one leaving it an Exit)",
                         file, node->name(), node->op(), displayFrame(*frame),
                         displayFrame(source));
      frame = source;
    }
    std::string here = frame.value_or("");
    frames.of[node->name()] = here;
    if (isEnter(*node))
      frames.out[node->name()] = here + "|" + attrString(*node, "frame_name");
    else if (isExit(*node)) {
      if (here.empty())
        return makeError("{}: node '{}' ({}): error: cannot functionalize: "
                         "an Exit outside any loop frame",
                         file, node->name(), node->op());
      frames.out[node->name()] = parentFrame(here);
    } else
      frames.out[node->name()] = here;
  }
  return frames;
}

/// The loop of one frame, read off its nodes.
struct Loop {
  std::string frame;     ///< frame_name
  NodeDef *loopCond = nullptr;
  std::vector<NodeDef *> merges, switches, nexts, enters; ///< per variable
  std::vector<NodeDef *> invariants; ///< is_constant Enters
  std::map<std::string, size_t> variableOf; ///< Merge / Switch -> variable
  std::map<std::string, size_t> invariantOf; ///< invariant Enter -> index
  std::vector<std::pair<NodeDef *, size_t>> exits; ///< Exit, its variable
};

class LoopExtractor {
public:
  LoopExtractor(tensorflow::GraphDef &graph, Nodes &nodes, const Frames &frames,
                std::string path, const std::string &file)
      : graph_(graph), nodes_(nodes), frames_(frames), path_(std::move(path)),
        file_(file) {}

  Error run();

private:
  Error fail(const NodeDef &node, const std::string &why) const {
    return makeError("{}: {}, node '{}' ({}): error: cannot functionalize "
                     "the loop: {}",
                     file_, displayFrame(path_), node.name(), node.op(), why);
  }
  bool inFrame(const std::string &name) const {
    auto it = frames_.of.find(name);
    return it != frames_.of.end() && it->second == path_;
  }
  Error readLoop();
  Error readVariable(NodeDef *merge);
  Error readExit(NodeDef *exit);
  /// The argument name or "node:port" a function reads for `ref`, adding
  /// the nodes it needs to `closure`; `switchesAreArgs` in the body.
  /// `ref` as a function reads it, without its inputs; `expand` when it is
  /// a node the function copies.
  Expected<std::string> classify(const Ref &ref, const NodeDef &user,
                                 bool inBody, bool &expand) const;
  Expected<std::string> resolve(const Ref &ref, const NodeDef &user,
                                bool inBody, std::set<std::string> &closure);
  Expected<tensorflow::FunctionDef>
  buildFunction(const std::string &name, const std::vector<std::string> &roots,
                bool inBody);
  std::string uniqueNodeName(const std::string &base) const;
  /// The type of the loop state an Enter starts (TensorArrays: DT_VARIANT).
  tensorflow::DataType stateType(const NodeDef &enter) const {
    return carriedType(nodes_, parseRef(enter.input(0)), attrType(enter));
  }

  tensorflow::GraphDef &graph_;
  Nodes &nodes_;
  const Frames &frames_;
  std::string path_;
  const std::string &file_;
  Loop loop_;
};

Error LoopExtractor::readVariable(NodeDef *merge) {
  NodeDef *enter = nullptr, *next = nullptr;
  for (const std::string &input : merge->input()) {
    Ref ref = parseRef(input);
    NodeDef *source = nodes_.find(ref.node);
    if (ref.control)
      continue;
    if (isEnter(*source) && !attrBool(*source, "is_constant"))
      enter = source;
    else if (isNextIteration(*source))
      next = source;
    else
      return fail(*merge, fmt::format("a loop Merge joins an Enter and a "
                                      "NextIteration, but it reads '{}' ({})",
                                      source->name(), source->op()));
  }
  if (!enter || !next)
    return fail(*merge, "a loop Merge needs both an Enter and a NextIteration "
                        "input");
  NodeDef *gate = nullptr;
  for (NodeDef &node : *graph_.mutable_node())
    if (isSwitch(node) && inFrame(node.name()) && node.input_size() >= 2 &&
        parseRef(node.input(0)).node == merge->name() &&
        parseRef(node.input(1)).node == loop_.loopCond->name()) {
      if (gate)
        return fail(*merge, "the loop variable feeds two Switches");
      gate = &node;
    }
  if (!gate)
    return fail(*merge, "the loop variable feeds no Switch on the LoopCond");
  size_t index = loop_.merges.size();
  loop_.merges.push_back(merge);
  loop_.switches.push_back(gate);
  loop_.nexts.push_back(next);
  loop_.enters.push_back(enter);
  loop_.variableOf[merge->name()] = index;
  loop_.variableOf[gate->name()] = index;
  return Error::success();
}

Error LoopExtractor::readExit(NodeDef *exit) {
  // Back from the Exit through Identity nodes to the Switch's false output.
  Ref ref = parseRef(exit->input(0));
  for (int depth = 0; depth < 1000; ++depth) {
    NodeDef *source = nodes_.find(ref.node);
    auto variable = loop_.variableOf.find(ref.node);
    if (variable != loop_.variableOf.end() && isSwitch(*source)) {
      if (ref.port != 0)
        return fail(*exit, "an Exit reads the Switch's true (continue) output");
      loop_.exits.emplace_back(exit, variable->second);
      return Error::success();
    }
    if (source->op() != "Identity" || !inFrame(source->name()) ||
        source->input_size() == 0)
      break;
    ref = parseRef(source->input(0));
  }
  return fail(*exit, "an Exit must read a loop Switch's false output, "
                     "directly or through Identity nodes");
}

Error LoopExtractor::readLoop() {
  // The extraction reads input 0 of each of these (the value it passes on).
  for (NodeDef &node : *graph_.mutable_node()) {
    bool primitive = isEnter(node) || isExit(node) || isNextIteration(node) ||
                     node.op() == "LoopCond";
    if (primitive && (isEnter(node) ? frames_.out.at(node.name()) == path_
                                    : inFrame(node.name())) &&
        (node.input_size() == 0 || parseRef(node.input(0)).control))
      return fail(node, fmt::format("the {} needs a data input (its input 0)", node.op()));
  }
  for (NodeDef &node : *graph_.mutable_node())
    if (isEnter(node) && frames_.out.at(node.name()) == path_)
      loop_.frame = attrString(node, "frame_name");
  for (NodeDef &node : *graph_.mutable_node()) {
    if (node.op() != "LoopCond" || !inFrame(node.name()))
      continue;
    if (loop_.loopCond)
      return fail(node, fmt::format("the frame has two LoopCond nodes ('{}' "
                                    "and this one)",
                                    loop_.loopCond->name()));
    loop_.loopCond = &node;
  }
  for (NodeDef &node : *graph_.mutable_node())
    if (isEnter(node) && frames_.out.at(node.name()) == path_ &&
        attrBool(node, "is_constant")) {
      loop_.invariantOf[node.name()] = loop_.invariants.size();
      loop_.invariants.push_back(&node);
    }
  if (!loop_.loopCond) {
    NodeDef *any = nullptr;
    for (NodeDef &node : *graph_.mutable_node())
      if (isEnter(node) && frames_.out.at(node.name()) == path_)
        any = &node;
    return fail(*any, "the frame has no LoopCond");
  }
  for (NodeDef &node : *graph_.mutable_node())
    if (isMerge(node) && inFrame(node.name()))
      if (Error error = readVariable(&node))
        return error;
  for (NodeDef &node : *graph_.mutable_node())
    if (isEnter(node) && frames_.out.at(node.name()) == path_ &&
        !attrBool(node, "is_constant") &&
        std::find(loop_.enters.begin(), loop_.enters.end(), &node) ==
            loop_.enters.end())
      return fail(node, "a non-constant Enter must feed a loop Merge (only "
                        "is_constant Enters are loop invariants)");
  for (NodeDef &node : *graph_.mutable_node())
    if (isExit(node) && inFrame(node.name()))
      if (Error error = readExit(&node))
        return error;
  return Error::success();
}

Expected<std::string> LoopExtractor::classify(const Ref &ref,
                                              const NodeDef &user, bool inBody,
                                              bool &expand) const {
  expand = false;
  NodeDef *source = nodes_.find(ref.node);
  auto variable = loop_.variableOf.find(ref.node);
  if (variable != loop_.variableOf.end()) {
    bool merge = isMerge(*source);
    // The condition reads the Merges; the body the Switches' true outputs.
    if (merge && !inBody)
      return fmt::format("var{}", variable->second);
    if (!merge && inBody && ref.port == 1)
      return fmt::format("var{}", variable->second);
    return fail(user, fmt::format("the {} reads '{}' ({}) output {}",
                                  inBody ? "body" : "condition", source->name(),
                                  source->op(), ref.port));
  }
  auto invariant = loop_.invariantOf.find(ref.node);
  if (invariant != loop_.invariantOf.end())
    return fmt::format("invariant{}", invariant->second);
  // A Const without inputs belongs to no frame: the function gets a copy.
  bool freeConstant = source->op() == "Const" && source->input_size() == 0;
  if (!inFrame(ref.node) && !freeConstant)
    return fail(user, fmt::format("it reads '{}' from outside the frame "
                                  "without an Enter",
                                  ref.node));
  if (isEnter(*source) || isExit(*source) || isMerge(*source) ||
      isSwitch(*source) || isNextIteration(*source) ||
      source->op() == "LoopCond")
    return fail(user, fmt::format("it reads '{}' ({}), which is not a loop "
                                  "variable of this frame",
                                  source->name(), source->op()));
  expand = true;
  return refText(ref.node, ref.port);
}

Expected<std::string> LoopExtractor::resolve(const Ref &ref, const NodeDef &user,
                                             bool inBody,
                                             std::set<std::string> &closure) {
  bool expand = false;
  Expected<std::string> text = classify(ref, user, inBody, expand);
  if (!text || !expand || !closure.insert(ref.node).second)
    return text;
  Error error = gatherInputs(
      nodes_, *nodes_.find(ref.node), closure,
      [&](const Ref &input, const NodeDef &reader) -> Expected<bool> {
        bool joins = false;
        Expected<std::string> checked = classify(input, reader, inBody, joins);
        if (!checked)
          return checked.takeError();
        return joins;
      });
  if (error)
    return error;
  return text;
}

Expected<tensorflow::FunctionDef>
LoopExtractor::buildFunction(const std::string &name,
                             const std::vector<std::string> &roots,
                             bool inBody) {
  tensorflow::FunctionDef function;
  tensorflow::OpDef &signature = *function.mutable_signature();
  signature.set_name(name);
  for (size_t i = 0; i < loop_.merges.size(); ++i) {
    auto *arg = signature.add_input_arg();
    arg->set_name(fmt::format("var{}", i));
    arg->set_type(stateType(*loop_.enters[i]));
  }
  for (size_t j = 0; j < loop_.invariants.size(); ++j) {
    auto *arg = signature.add_input_arg();
    arg->set_name(fmt::format("invariant{}", j));
    arg->set_type(stateType(*loop_.invariants[j]));
  }
  std::set<std::string> closure;
  std::vector<std::string> returned;
  const NodeDef &user = inBody ? *loop_.nexts.front() : *loop_.loopCond;
  for (const std::string &root : roots) {
    Expected<std::string> value = resolve(parseRef(root), user, inBody, closure);
    if (!value)
      return value.takeError();
    returned.push_back(*value);
  }
  for (const NodeDef &node : graph_.node()) {
    if (!closure.count(node.name()))
      continue;
    NodeDef *copy = function.add_node_def();
    *copy = node;
    copy->clear_input();
    for (const std::string &input : node.input()) {
      Ref ref = parseRef(input);
      if (ref.control)
        continue; // frame pivots; the function's nodes run as data allows
      Expected<std::string> value = resolve(ref, node, inBody, closure);
      if (!value)
        return value.takeError();
      copy->add_input(*value);
    }
  }
  for (size_t i = 0; i < returned.size(); ++i) {
    std::string output = fmt::format("out{}", i);
    auto *arg = signature.add_output_arg();
    arg->set_name(output);
    arg->set_type(!inBody ? tensorflow::DT_BOOL
                  : i < loop_.merges.size()
                      ? stateType(*loop_.enters[i])
                      : stateType(*loop_.invariants[i - loop_.merges.size()]));
    (*function.mutable_ret())[output] = returned[i];
  }
  return function;
}

std::string LoopExtractor::uniqueNodeName(const std::string &base) const {
  std::string name = base;
  for (int k = 1; nodes_.find(name); ++k)
    name = fmt::format("{}_{}", base, k);
  return name;
}

Error LoopExtractor::run() {
  if (Error error = readLoop())
    return error;
  if (loop_.merges.empty())
    return fail(*loop_.loopCond, "the frame has no loop variables");
  std::string base = loop_.frame.empty() ? "loop" : loop_.frame;
  std::string condName = uniqueFunctionName(graph_, base + "/kiln_cond");
  std::string bodyName = uniqueFunctionName(graph_, base + "/kiln_body");
  Expected<tensorflow::FunctionDef> cond =
      buildFunction(condName, {loop_.loopCond->input(0)}, false);
  if (!cond)
    return cond.takeError();
  std::vector<std::string> bodyRoots;
  for (NodeDef *next : loop_.nexts)
    bodyRoots.push_back(next->input(0));
  for (size_t j = 0; j < loop_.invariants.size(); ++j)
    bodyRoots.push_back(loop_.invariants[j]->name());
  Expected<tensorflow::FunctionDef> body = buildFunction(bodyName, bodyRoots, true);
  if (!body)
    return body.takeError();

  NodeDef loop;
  loop.set_name(uniqueNodeName(base + "/kiln_while"));
  loop.set_op("StatelessWhile");
  auto *types = (*loop.mutable_attr())["T"].mutable_list();
  for (NodeDef *enter : loop_.enters) {
    loop.add_input(enter->input(0));
    types->add_type(stateType(*enter));
  }
  for (NodeDef *invariant : loop_.invariants) {
    loop.add_input(invariant->input(0));
    types->add_type(stateType(*invariant));
  }
  (*loop.mutable_attr())["cond"].mutable_func()->set_name(condName);
  (*loop.mutable_attr())["body"].mutable_func()->set_name(bodyName);

  // Exits become Identities of the loop's outputs; the frame's other nodes
  // and its Enters go.
  std::set<std::string> exits;
  for (auto &[exit, variable] : loop_.exits) {
    tensorflow::DataType type = attrType(*exit);
    exit->set_op("Identity");
    exit->clear_input();
    exit->add_input(refText(loop.name(), int64_t(variable)));
    exit->mutable_attr()->clear();
    (*exit->mutable_attr())["T"].set_type(type);
    exits.insert(exit->name());
  }
  std::set<std::string> removed;
  for (const NodeDef &node : graph_.node())
    if (!exits.count(node.name()) &&
        (inFrame(node.name()) ||
         (isEnter(node) && frames_.out.at(node.name()) == path_)))
      removed.insert(node.name());
  for (const NodeDef &node : graph_.node()) {
    if (removed.count(node.name()))
      continue;
    for (const std::string &input : node.input())
      if (removed.count(parseRef(input).node) && !parseRef(input).control)
        return fail(node, fmt::format("it reads '{}' of the loop other than "
                                      "through an Exit",
                                      parseRef(input).node));
  }
  // Control edges into the frame's nodes have nothing left to order.
  removeNodes(graph_, removed);
  *graph_.add_node() = std::move(loop);
  *graph_.mutable_library()->add_function() = std::move(*cond);
  *graph_.mutable_library()->add_function() = std::move(*body);
  return Error::success();
}

} // namespace

Error extractInnermostLoop(tensorflow::GraphDef &graph, const std::string &file,
                           bool &extracted) {
  extracted = false;
  Nodes nodes(graph, file);
  Expected<std::vector<NodeDef *>> order = nodes.order();
  if (!order)
    return order.takeError();
  Expected<Frames> frames = assignFrames(nodes, *order, file);
  if (!frames)
    return frames.takeError();
  std::string deepest;
  for (const auto &[name, frame] : frames->of)
    if (std::count(frame.begin(), frame.end(), '|') >
        std::count(deepest.begin(), deepest.end(), '|'))
      deepest = frame;
  if (deepest.empty())
    return Error::success();
  extracted = true;
  LoopExtractor extractor(graph, nodes, *frames, deepest, file);
  return extractor.run();
}

} // namespace kiln::import::tf::functionalize
