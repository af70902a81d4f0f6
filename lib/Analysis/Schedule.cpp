//===- Schedule.cpp - Orders that keep few arena bytes live ---------------===//
//
// The list schedule follows XLA's list scheduler: among ready instructions,
// run the one with the best (bytes freed by its last uses) - (bytes it
// defines). The depth-first schedule follows XLA's DFS scheduler: a post-
// order that enters the operand with the largest subgraph first. Neither is
// optimal in general (the problem is NP-hard), so the candidates are
// measured and the lowest peak wins.
//
// Instructions and values are numbered by stored position so every
// container and tie-break is independent of addresses.
//
//===----------------------------------------------------------------------===//
#include "kiln/Analysis/Schedule.h"

#include <algorithm>
#include <cassert>
#include <limits>
#include <unordered_map>

namespace kiln::analysis {

using ir::Instruction;
using ir::Opcode;

std::string_view scheduleStrategyName(ScheduleStrategy strategy) {
  switch (strategy) {
  case ScheduleStrategy::Stored:
    return "stored";
  case ScheduleStrategy::List:
    return "list";
  case ScheduleStrategy::DepthFirst:
    return "depth-first";
  }
  return "?";
}

namespace {

bool isAlias(const Instruction *instruction) {
  return instruction->opcode() == Opcode::Tuple ||
         instruction->opcode() == Opcode::GetTupleElement;
}

/// The computation as numbered instructions and arena values, with who
/// defines and who uses each value.
class Graph {
public:
  Graph(const std::vector<const Instruction *> &instructions,
        const MemoryModel &model);

  size_t size() const { return instructions_.size(); }
  const Instruction *instruction(size_t i) const { return instructions_[i]; }
  size_t indexOf(const Instruction *instruction) const {
    return index_.at(instruction);
  }
  /// Distinct operand instructions of instruction i, by index.
  const std::vector<size_t> &operands(size_t i) const { return operands_[i]; }
  /// Distinct users of instruction i, by index.
  const std::vector<size_t> &users(size_t i) const { return users_[i]; }
  /// Arena values instruction i reads (aliases followed; none for aliases).
  const std::vector<size_t> &reads(size_t i) const { return reads_[i]; }
  /// Arena values instruction i defines.
  const std::vector<size_t> &defines(size_t i) const { return defines_[i]; }
  /// Instructions reading value v, by index.
  const std::vector<size_t> &readers(size_t v) const { return readers_[v]; }
  size_t valueCount() const { return bytes_.size(); }
  int64_t bytes(size_t v) const { return bytes_[v]; }
  bool liveOut(size_t v) const { return liveOut_[v]; }
  int64_t transient(size_t i) const { return transient_[i]; }

private:
  std::vector<const Instruction *> instructions_;
  std::unordered_map<const Instruction *, size_t> index_;
  std::vector<std::vector<size_t>> operands_, users_, reads_, defines_;
  std::vector<std::vector<size_t>> readers_;
  std::vector<int64_t> bytes_, transient_;
  std::vector<bool> liveOut_;
};

void appendUnique(std::vector<size_t> &list, size_t item) {
  if (std::find(list.begin(), list.end(), item) == list.end())
    list.push_back(item);
}

Graph::Graph(const std::vector<const Instruction *> &instructions,
             const MemoryModel &model)
    : instructions_(instructions) {
  size_t n = instructions_.size();
  operands_.resize(n);
  users_.resize(n);
  reads_.resize(n);
  defines_.resize(n);
  transient_.assign(n, 0);
  for (size_t i = 0; i < n; ++i)
    index_[instructions_[i]] = i;
  std::map<ValueRef, size_t> valueIndex;
  for (size_t i = 0; i < n; ++i) {
    const Instruction *instruction = instructions_[i];
    if (auto it = model.transient.find(instruction);
        it != model.transient.end())
      transient_[i] = it->second;
    auto defined = model.defined.find(instruction);
    if (defined == model.defined.end())
      continue;
    for (const auto &[value, bytes] : defined->second) {
      valueIndex[value] = bytes_.size();
      defines_[i].push_back(bytes_.size());
      bytes_.push_back(bytes);
      liveOut_.push_back(model.liveOut.count(value) != 0);
    }
  }
  readers_.resize(bytes_.size());
  std::vector<ValueRef> used;
  for (size_t i = 0; i < n; ++i) {
    const Instruction *instruction = instructions_[i];
    for (const Instruction *operand : instruction->operands()) {
      size_t o = index_.at(operand);
      appendUnique(operands_[i], o);
      appendUnique(users_[o], i);
    }
    // Order-only edges count as operands: both strategies then honour them.
    if (auto after = model.runsAfter.find(instruction);
        after != model.runsAfter.end())
      for (const Instruction *before : after->second) {
        size_t o = index_.at(before);
        appendUnique(operands_[i], o);
        appendUnique(users_[o], i);
      }
    // tuple and get-tuple-element only alias: their users read instead.
    if (isAlias(instruction))
      continue;
    used.clear();
    for (const Instruction *operand : instruction->operands())
      containedValues(operand, used);
    for (ValueRef value : used) {
      if (auto host = model.readsAs.find(value); host != model.readsAs.end())
        value = host->second;
      auto it = valueIndex.find(value);
      if (it == valueIndex.end())
        continue; // not in the arena
      appendUnique(reads_[i], it->second);
      appendUnique(readers_[it->second], i);
    }
  }
}

/// Every instruction of `entry` in stored order.
std::vector<const Instruction *> storedOrder(const ir::Computation &entry) {
  std::vector<const Instruction *> order;
  for (const Instruction *instruction : entry.instructions())
    order.push_back(instruction);
  return order;
}

int64_t saturatingAdd(int64_t a, int64_t b) {
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max() / 2;
  return a > kMax - b ? kMax : a + b;
}

/// Greedy list scheduling over a Graph numbered in stored order.
class ListScheduler {
public:
  explicit ListScheduler(const Graph &graph) : graph_(graph) {}
  std::vector<size_t> run();

private:
  int64_t priority(size_t i) const;
  void makeReady(size_t i);
  void updatePriority(size_t i);
  void retire(size_t i);

  const Graph &graph_;
  std::vector<size_t> pendingOperands_, unreadBy_;
  std::vector<bool> done_;
  std::vector<int64_t> key_; // priority while ready
  /// Ready instructions by (-priority, stored index): begin() runs next.
  std::set<std::pair<int64_t, size_t>> ready_;
};

/// Bytes whose last read this is, minus the bytes it makes live.
int64_t ListScheduler::priority(size_t i) const {
  int64_t score = 0;
  for (size_t v : graph_.reads(i))
    if (unreadBy_[v] == 1 && !graph_.liveOut(v))
      score += graph_.bytes(v);
  for (size_t v : graph_.defines(i))
    // A value nobody reads dies at once: it raises only this position.
    if (!graph_.readers(v).empty() || graph_.liveOut(v))
      score -= graph_.bytes(v);
  return score;
}

void ListScheduler::makeReady(size_t i) {
  key_[i] = -priority(i);
  ready_.insert({key_[i], i});
}

void ListScheduler::updatePriority(size_t i) {
  if (done_[i] || pendingOperands_[i] != 0)
    return; // not ready yet: the priority is computed when it is
  ready_.erase({key_[i], i});
  makeReady(i);
}

/// Runs instruction i: its reads may leave a single reader left, whose
/// priority then rises; its users may become ready.
void ListScheduler::retire(size_t i) {
  done_[i] = true;
  for (size_t v : graph_.reads(i))
    if (--unreadBy_[v] == 1)
      for (size_t reader : graph_.readers(v))
        if (!done_[reader])
          updatePriority(reader);
  for (size_t user : graph_.users(i))
    if (--pendingOperands_[user] == 0)
      makeReady(user);
}

std::vector<size_t> ListScheduler::run() {
  size_t n = graph_.size();
  pendingOperands_.resize(n);
  done_.assign(n, false);
  key_.assign(n, 0);
  unreadBy_.resize(graph_.valueCount());
  for (size_t v = 0; v < graph_.valueCount(); ++v)
    unreadBy_[v] = graph_.readers(v).size();
  for (size_t i = 0; i < n; ++i) {
    pendingOperands_[i] = graph_.operands(i).size();
    if (pendingOperands_[i] == 0)
      makeReady(i);
  }
  std::vector<size_t> order;
  while (!ready_.empty()) {
    size_t next = ready_.begin()->second;
    ready_.erase(ready_.begin());
    order.push_back(next);
    retire(next);
  }
  assert(order.size() == n && "the computation has a cycle");
  return order;
}

std::vector<const Instruction *>
toInstructions(const Graph &graph, const std::vector<size_t> &order) {
  std::vector<const Instruction *> out;
  out.reserve(order.size());
  for (size_t i : order)
    out.push_back(graph.instruction(i));
  return out;
}

/// Arena bytes defined in the subgraph below each instruction (shared
/// subgraphs counted once per path, saturating: only the ranking matters).
std::vector<int64_t> subgraphBytes(const Graph &graph) {
  std::vector<int64_t> total(graph.size(), 0);
  // Stored order is topological for data operands; an order-only operand
  // stored later counts as 0 (this is a ranking, not a bound).
  for (size_t i = 0; i < graph.size(); ++i) {
    int64_t sum = graph.transient(i);
    for (size_t v : graph.defines(i))
      sum = saturatingAdd(sum, graph.bytes(v));
    for (size_t o : graph.operands(i))
      sum = saturatingAdd(sum, total[o]);
    total[i] = sum;
  }
  return total;
}

/// Post-order from `start`, operands by descending subgraph bytes, then
/// stored position; appends to `order`.
void depthFirstFrom(const Graph &graph, const std::vector<int64_t> &total,
                    size_t start, std::vector<bool> &visited,
                    std::vector<size_t> &order) {
  auto sortedOperands = [&](size_t i) {
    std::vector<size_t> operands = graph.operands(i);
    std::stable_sort(operands.begin(), operands.end(), [&](size_t a, size_t b) {
      return total[a] != total[b] ? total[a] > total[b] : a < b;
    });
    return operands;
  };
  // An explicit stack: chains of thousands of instructions are common.
  struct Frame {
    size_t instruction;
    std::vector<size_t> operands;
    size_t next = 0;
  };
  if (visited[start])
    return;
  visited[start] = true;
  std::vector<Frame> stack;
  stack.push_back({start, sortedOperands(start)});
  while (!stack.empty()) {
    Frame &frame = stack.back();
    if (frame.next == frame.operands.size()) {
      order.push_back(frame.instruction);
      stack.pop_back();
      continue;
    }
    size_t operand = frame.operands[frame.next++];
    if (visited[operand])
      continue;
    visited[operand] = true;
    stack.push_back({operand, sortedOperands(operand)});
  }
}

} // namespace

int64_t peakLiveBytes(const std::vector<const Instruction *> &order,
                      const MemoryModel &model) {
  Graph graph(order, model);
  size_t n = graph.size();
  // delta[p]: bytes becoming live at p minus those dead after p-1.
  std::vector<int64_t> delta(n + 2, 0);
  auto addRange = [&](size_t first, size_t last, int64_t bytes) {
    delta[first] += bytes;
    delta[last + 1] -= bytes;
  };
  for (size_t i = 0; i < n; ++i) {
    addRange(i, i, graph.transient(i));
    for (size_t v : graph.defines(i)) {
      size_t last = i;
      for (size_t reader : graph.readers(v))
        last = std::max(last, reader);
      if (graph.liveOut(v))
        last = n;
      addRange(i, last, graph.bytes(v));
    }
  }
  addRange(n, n, model.endBytes);
  int64_t live = 0, peak = 0;
  for (size_t p = 0; p <= n; ++p) {
    live += delta[p];
    peak = std::max(peak, live);
  }
  return peak;
}

std::vector<const Instruction *> listSchedule(const ir::Computation &entry,
                                              const MemoryModel &model) {
  Graph graph(storedOrder(entry), model);
  if (graph.size() == 0)
    return {};
  return toInstructions(graph, ListScheduler(graph).run());
}

std::vector<const Instruction *>
depthFirstSchedule(const ir::Computation &entry, const MemoryModel &model) {
  Graph graph(storedOrder(entry), model);
  std::vector<int64_t> total = subgraphBytes(graph);
  std::vector<bool> visited(graph.size(), false);
  std::vector<size_t> order;
  if (entry.root())
    depthFirstFrom(graph, total, graph.indexOf(entry.root()), visited, order);
  // Whatever the root does not reach (unused parameters, dead code when
  // the optimizer did not run) still runs, in stored order.
  for (size_t i = 0; i < graph.size(); ++i)
    depthFirstFrom(graph, total, i, visited, order);
  return toInstructions(graph, order);
}

/// Whether `order` runs every key of `model.runsAfter` after its list.
static bool honoursRunsAfter(const std::vector<const Instruction *> &order,
                             const MemoryModel &model) {
  if (model.runsAfter.empty())
    return true;
  std::unordered_map<const Instruction *, size_t> position;
  for (size_t i = 0; i < order.size(); ++i)
    position[order[i]] = i;
  for (const auto &[later, earlier] : model.runsAfter)
    for (const Instruction *before : earlier)
      if (position.at(before) > position.at(later))
        return false;
  return true;
}

Schedule scheduleForMemory(const ir::Computation &entry,
                           const MemoryModel &model) {
  // The list schedule always honours runsAfter; the stored order may not.
  Schedule best{listSchedule(entry, model), 0, ScheduleStrategy::List};
  best.peakLiveBytes = peakLiveBytes(best.order, model);
  auto consider = [&](std::vector<const Instruction *> order,
                      ScheduleStrategy strategy) {
    int64_t peak = peakLiveBytes(order, model);
    if (peak < best.peakLiveBytes)
      best = {std::move(order), peak, strategy};
  };
  if (std::vector<const Instruction *> stored = storedOrder(entry);
      honoursRunsAfter(stored, model)) {
    // Ties keep the stored order: it goes first when allowed.
    int64_t peak = peakLiveBytes(stored, model);
    if (peak <= best.peakLiveBytes)
      best = {std::move(stored), peak, ScheduleStrategy::Stored};
  }
  consider(depthFirstSchedule(entry, model), ScheduleStrategy::DepthFirst);
  return best;
}

} // namespace kiln::analysis
