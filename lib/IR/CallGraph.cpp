//===- CallGraph.cpp - Which computation calls which ----------------------===//
//
// Built with iterative depth-first searches, so a long chain of
// computations in hostile input cannot overflow the stack before the depth
// limits are checked.
//
//===----------------------------------------------------------------------===//
#include "kiln/IR/CallGraph.h"

#include <algorithm>
#include <fmt/format.h>
#include <set>

namespace kiln::ir {

namespace {

std::string where(const Computation &computation) {
  return fmt::format("in computation '{}': ", computation.name());
}

std::vector<const Computation *> calleesOf(const Computation &computation) {
  std::vector<const Computation *> callees;
  for (const Instruction *instruction : computation.instructions())
    for (const Computation *callee : instruction->calledComputations())
      if (callee)
        callees.push_back(callee);
  return callees;
}

/// Every computation in depth-first finishing order (callees first), or an
/// error naming a cycle. Three colours: White unseen, Grey on the stack.
Expected<std::vector<const Computation *>>
finishingOrder(const std::vector<Computation *> &all) {
  enum Colour { White, Grey, Black };
  std::map<const Computation *, Colour> colour;
  std::vector<const Computation *> order;
  for (const Computation *start : all) {
    if (colour[start] != White)
      continue;
    std::vector<std::pair<const Computation *, std::vector<const Computation *>>>
        stack;
    stack.push_back({start, calleesOf(*start)});
    colour[start] = Grey;
    while (!stack.empty()) {
      auto &[node, pending] = stack.back();
      if (pending.empty()) {
        colour[node] = Black;
        order.push_back(node);
        stack.pop_back();
        continue;
      }
      const Computation *callee = pending.back();
      pending.pop_back();
      if (colour[callee] == Grey)
        return makeError("{}call cycle through computation '{}'", where(*node),
                         callee->name());
      if (colour[callee] == White) {
        colour[callee] = Grey;
        stack.push_back({callee, calleesOf(*callee)});
      }
    }
  }
  return order;
}

/// Depths of calls below each computation, all contexts and fusions only,
/// checked against the limits. `order` lists callees before callers.
Error checkDepths(const std::vector<const Computation *> &order) {
  std::map<const Computation *, std::pair<int64_t, int64_t>> depth;
  for (const Computation *computation : order) {
    auto &[calls, fusions] = depth[computation];
    for (const Instruction *instruction : computation->instructions()) {
      for (const Computation *callee : instruction->calledComputations()) {
        if (!callee)
          continue;
        auto [calleeCalls, calleeFusions] = depth.at(callee);
        calls = std::max(calls, calleeCalls + 1);
        if (instruction->opcode() == Opcode::Fusion)
          fusions = std::max(fusions, calleeFusions + 1);
        if (fusions > kMaxFusionDepth)
          return makeError("{}fusion '{}' nests fusions {} levels deep; kiln "
                           "allows at most {}",
                           where(*computation), instruction->name(), fusions,
                           kMaxFusionDepth);
        if (calls > kMaxCallDepth)
          return makeError("{}'{}' nests calls {} levels deep; kiln allows at "
                           "most {}",
                           where(*computation), instruction->name(), calls,
                           kMaxCallDepth);
      }
    }
  }
  return Error::success();
}

CallContext contextOf(Opcode opcode) {
  if (callsSequentially(opcode))
    return CallContext::Sequential;
  return appliesPerElement(opcode) ? CallContext::Embedded : CallContext::Fused;
}

} // namespace

Expected<CallGraph> CallGraph::build(const Module &module) {
  CallGraph graph;
  std::vector<Computation *> all = module.computations();
  for (const Computation *computation : all)
    graph.contexts_[computation] = computation == module.entry()
                                       ? CallContext::Entry
                                       : CallContext::Uncalled;
  for (const Computation *caller : all) {
    for (const Instruction *instruction : caller->instructions()) {
      const std::vector<Computation *> &callees =
          instruction->calledComputations();
      for (size_t slot = 0; slot < callees.size(); ++slot) {
        const Computation *callee = callees[slot];
        if (!callee)
          continue;
        if (callee == module.entry())
          return makeError("{}instruction '{}' ({}): calls the entry "
                           "computation '{}'",
                           where(*caller), instruction->name(),
                           opcodeName(instruction->opcode()), callee->name());
        CallContext context = contextOf(instruction->opcode());
        CallContext &known = graph.contexts_[callee];
        if (known != CallContext::Uncalled && known != context)
          return makeError(
              "{}instruction '{}' ({}): calls computation '{}' {}, but it is "
              "also {}; a computation is called in one way only (fused, run "
              "whole or applied per element)",
              where(*caller), instruction->name(),
              opcodeName(instruction->opcode()), callee->name(),
              context == CallContext::Fused      ? "as a fusion"
              : context == CallContext::Embedded ? "per element"
                                                 : "as a whole",
              known == CallContext::Fused     ? "fused"
              : known == CallContext::Embedded ? "applied per element"
                                              : "run whole");
        known = context;
        graph.sites_[callee].push_back({instruction, slot});
      }
    }
  }
  Expected<std::vector<const Computation *>> order = finishingOrder(all);
  if (!order)
    return order.takeError();
  if (Error e = checkDepths(*order))
    return e;
  // Post order of what the entry reaches: the finishing order filtered.
  std::set<const Computation *> reached;
  if (const Computation *entry = module.entry()) {
    std::vector<const Computation *> work{entry};
    reached.insert(entry);
    while (!work.empty()) {
      const Computation *next = work.back();
      work.pop_back();
      for (const Computation *callee : calleesOf(*next))
        if (reached.insert(callee).second)
          work.push_back(callee);
    }
  }
  for (const Computation *computation : *order)
    if (reached.count(computation))
      graph.postOrder_.push_back(const_cast<Computation *>(computation));
  return graph;
}

CallContext CallGraph::context(const Computation &computation) const {
  auto it = contexts_.find(&computation);
  return it == contexts_.end() ? CallContext::Uncalled : it->second;
}

const std::vector<CallSite> &
CallGraph::callSites(const Computation &computation) const {
  static const std::vector<CallSite> none;
  auto it = sites_.find(&computation);
  return it == sites_.end() ? none : it->second;
}

void forEachCallee(const Instruction &instruction,
                   const std::function<void(Computation &, size_t)> &fn) {
  const std::vector<Computation *> &callees = instruction.calledComputations();
  for (size_t slot = 0; slot < callees.size(); ++slot)
    if (callees[slot])
      fn(*callees[slot], slot);
}

Error forEachComputation(
    Module &module,
    const std::function<Error(Computation &, CallContext)> &fn) {
  Expected<CallGraph> graph = CallGraph::build(module);
  if (!graph)
    return graph.takeError();
  for (Computation *computation : graph->postOrder())
    if (Error e = fn(*computation, graph->context(*computation)))
      return e;
  return Error::success();
}

} // namespace kiln::ir
