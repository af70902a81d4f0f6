//===- CallGraph.h - Which computation calls which --------------*- C++ -*-===//
//
// The one walker over nested computations. Every analysis and pass that
// must see loop bodies, branches and fused computations goes through
// CallGraph::postOrder (callees before callers) or forEachCallee, so none of
// them switches on `while` or `conditional` to find callees.
//
// A computation is called in one context: Sequential (a while's condition
// or body, a conditional's branch, a call's callee: run whole, with buffers
// of its own), Fused (a fusion's computation: inlined into the caller's
// kernel) or Embedded (the to_apply of reduce, map or scatter, or sort's
// comparator: scalars only, inlined per element by the caller's emitter). build() refuses cycles, calls of the entry, a computation used in
// both contexts, and nesting deeper than the walkers allow.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_IR_CALLGRAPH_H
#define KILN_IR_CALLGRAPH_H

#include "kiln/IR/Module.h"
#include "kiln/Support/Error.h"

#include <functional>
#include <map>
#include <vector>

namespace kiln::ir {

enum class CallContext {
  Entry,      ///< the module's entry
  Sequential, ///< run whole by while, conditional or call
  Fused,      ///< inlined into a fusion's kernel
  Embedded,   ///< scalars applied per element (to_apply, sort's comparator)
  Uncalled    ///< nothing calls it (dead; removed by dead code elimination)
};

/// One use of a computation: `caller` calls it in slot `slot` of
/// Instruction::calledComputations.
struct CallSite {
  const Instruction *caller = nullptr;
  size_t slot = 0;
};

/// How deeply calls may nest (counting every context), so recursive
/// walkers over nested computations stay shallow.
inline constexpr int64_t kMaxCallDepth = 32;
/// How deeply fusions may nest: the entry's fusion may call a computation
/// holding fusions, but no deeper (buffer assignment and the emitter handle
/// that much; deeper nesting only comes from hand-written or corrupt input).
inline constexpr int64_t kMaxFusionDepth = 2;

class CallGraph {
public:
  /// Errors name the computation and the instruction at fault.
  static Expected<CallGraph> build(const Module &module);

  CallContext context(const Computation &computation) const;
  /// Every call of `computation`, in module order.
  const std::vector<CallSite> &callSites(const Computation &computation) const;
  /// Computations reachable from the entry, each after all it calls; the
  /// entry is last.
  const std::vector<Computation *> &postOrder() const { return postOrder_; }

private:
  std::map<const Computation *, CallContext> contexts_;
  std::map<const Computation *, std::vector<CallSite>> sites_;
  std::vector<Computation *> postOrder_;
};

/// Calls `fn(callee, slot)` for each computation `instruction` calls.
void forEachCallee(const Instruction &instruction,
                   const std::function<void(Computation &, size_t)> &fn);

/// Calls `fn(computation, context)` for every computation reachable from
/// the entry, callees before callers. Fails as CallGraph::build does.
Error forEachComputation(
    Module &module,
    const std::function<Error(Computation &, CallContext)> &fn);

} // namespace kiln::ir

#endif // KILN_IR_CALLGRAPH_H
