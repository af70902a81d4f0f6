//===- TfGraph.cpp - Indexing, pruning and ordering a GraphDef ------------===//
#include "TensorFlow/TfGraph.h"

#include <fmt/format.h>

#include <algorithm>
#include <deque>
#include <queue>

namespace kiln::import::tf {

namespace {
// "^name" (control), "name:3", "name" -> name, index, control.
std::tuple<std::string_view, int64_t, bool> splitInput(std::string_view text) {
  bool control = !text.empty() && text.front() == '^';
  if (control)
    text.remove_prefix(1);
  size_t colon = text.rfind(':');
  if (colon == std::string_view::npos || colon + 1 == text.size())
    return {text, 0, control};
  int64_t index = 0;
  for (char c : text.substr(colon + 1)) {
    if (c < '0' || c > '9')
      return {text, 0, control};
    index = index * 10 + (c - '0');
  }
  return {text.substr(0, colon), index, control};
}
} // namespace

Expected<TfGraph> TfGraph::build(const tensorflow::GraphDef &graph,
                                 const std::string &file) {
  TfGraph result;
  result.file_ = file;
  for (const tensorflow::NodeDef &node : graph.node()) {
    if (node.name().empty())
      return makeError("{}: error: node {} ({}) has no name", file,
                       result.nodes_.size(), node.op());
    if (!result.byName_.emplace(node.name(), result.nodes_.size()).second)
      return makeError("{}: error: two nodes are named '{}'", file, node.name());
    result.nodes_.push_back(&node);
  }
  result.inputs_.resize(result.nodes_.size());
  result.consumed_.assign(result.nodes_.size(), false);
  for (size_t i = 0; i < result.nodes_.size(); ++i) {
    const tensorflow::NodeDef &node = *result.nodes_[i];
    for (const std::string &text : node.input()) {
      auto [name, index, control] = splitInput(text);
      auto source = result.byName_.find(name);
      if (source == result.byName_.end())
        return makeError("{}: node '{}' ({}): error: input '{}' names no node "
                         "in the graph",
                         file, node.name(), node.op(), text);
      result.inputs_[i].push_back({source->second, index, control});
      result.consumed_[source->second] = true;
    }
  }
  return result;
}

int64_t TfGraph::find(const std::string &name) const {
  auto it = byName_.find(name);
  return it == byName_.end() ? -1 : int64_t(it->second);
}

std::map<size_t, std::string>
TfGraph::prune(const std::vector<std::pair<size_t, std::string>> &roots,
               const IsFed &isFed) const {
  std::map<size_t, std::string> needed;
  std::deque<size_t> queue;
  for (const auto &[node, label] : roots)
    if (needed.emplace(node, label).second)
      queue.push_back(node);
  while (!queue.empty()) {
    size_t node = queue.front();
    queue.pop_front();
    for (const NodeInput &input : inputs_[node]) {
      // A fed tensor is a parameter: what computes it is not needed.
      if (isFed(input.node, input.index))
        continue;
      if (needed.emplace(input.node, needed[node]).second)
        queue.push_back(input.node);
    }
  }
  return needed;
}

Expected<std::vector<size_t>>
TfGraph::topologicalOrder(const std::set<size_t> &subset,
                          const IsFed &isFed) const {
  // Kahn's algorithm; a min-heap keeps ties in file order so the HLO is
  // deterministic and reads like the source graph.
  std::map<size_t, size_t> pending;
  std::map<size_t, std::vector<size_t>> users;
  for (size_t node : subset) {
    pending[node] = 0;
    for (const NodeInput &input : inputs_[node]) {
      if (!subset.count(input.node) || isFed(input.node, input.index))
        continue;
      ++pending[node];
      users[input.node].push_back(node);
    }
  }
  std::priority_queue<size_t, std::vector<size_t>, std::greater<>> ready;
  for (const auto &[node, count] : pending)
    if (count == 0)
      ready.push(node);
  std::vector<size_t> order;
  while (!ready.empty()) {
    size_t node = ready.top();
    ready.pop();
    order.push_back(node);
    for (size_t user : users[node])
      if (--pending[user] == 0)
        ready.push(user);
  }
  if (order.size() == subset.size())
    return order;
  std::set<size_t> remaining;
  for (const auto &[node, count] : pending)
    if (count > 0)
      remaining.insert(node);
  std::vector<std::string> names;
  for (size_t node : cycleAmong(remaining, isFed))
    names.push_back(fmt::format("'{}' ({})", nodes_[node]->name(),
                                nodes_[node]->op()));
  return makeError("{}: error: the graph has a cycle: {} -> {}", file_,
                   fmt::join(names, " -> "), names.front());
}

std::vector<size_t> TfGraph::cycleAmong(const std::set<size_t> &remaining,
                                        const IsFed &isFed) const {
  // Every remaining node waits on a remaining input, so walking inputs
  // backwards from any of them must revisit a node: that loop is a cycle.
  std::vector<size_t> walk;
  std::map<size_t, size_t> position;
  size_t node = *remaining.begin();
  while (!position.count(node)) {
    position[node] = walk.size();
    walk.push_back(node);
    for (const NodeInput &input : inputs_[node]) {
      if (remaining.count(input.node) && !isFed(input.node, input.index)) {
        node = input.node;
        break;
      }
    }
  }
  std::vector<size_t> cycle(walk.begin() + position[node], walk.end());
  std::reverse(cycle.begin(), cycle.end()); // producers before consumers
  return cycle;
}

} // namespace kiln::import::tf
