//===- InstructionFusion.cpp - The `fusion` pass (loop and input fusions) -===//
//
// Forms XLA-style kLoop and kInput fusions in the entry computation (and in
// every computation that runs whole: while bodies and conditions, branches),
// so a chain of elementwise ops, broadcasts, reshapes, transposes, slices,
// dynamic slices, gathers, pads, concatenates, iotas, converts and selects
// runs as one loop that reads its outside operands once and writes one
// result, and a reduce or reduce-window reads its producers on the fly
// instead of from a buffer. A fused dynamic-slice reads its window straight
// from its operand (a scan's row of its input), its start indices clamped
// per element as XLA's rule says.
//
// Consumers are visited in reverse topological order, so when a value is
// considered every one of its users has already been decided. A consumer
// that can root a fusion (an elemental op: kLoop; reduce or reduce-window:
// kInput) grows a group through its operands. An operand P joins when it
// can be generated per element (ir::isElementalInFusion) and
//
//   - every user of P is a member the fusion replaces (no duplication), or
//   - P is cheap: the group then computes its own copy of P and P stays
//     for its other users. An expensive P (ir::CostClass::Expensive: exp,
//     log, tanh, divide, power, ...) is never duplicated, and neither is
//     the operand of a lone reshape (buffer assignment may read it in
//     place, so the reshape costs nothing).
//
// A reduce-window, and a reduce over the innermost dimension, accumulate
// one element at a time, so an expensive producer fused into them would
// lose the vectors it runs on alone: they take cheap producers only. A
// reduce-window whose windows overlap reads each operand element once per
// window covering it, so it never takes a duplicate either.
//
// A transpose that moves the innermost dimension neither joins nor roots a
// fusion: it keeps its tiled kernel and leaves the loops around it
// vectorized. A concatenate evaluates every operand for every output
// element (it selects among them), so only data movement (reshape,
// broadcast, transpose, slice, reverse: index arithmetic, no math) is
// fused through it; arithmetic producers stay outside and are computed
// once. Scalar
// constants are cloned into the group; array constants and everything else
// become the fusion's operands, in first-use order. Contractions join only
// through output fusions (the `output-fusion` pass); existing fusions are
// neither grown nor fused.
//
// The fusion replaces its root and keeps its name; fused values with no
// user left are removed.
//
//===----------------------------------------------------------------------===//
#include "kiln/Transforms/Passes.h"

#include "TransformUtils.h"

#include <algorithm>
#include <map>
#include <set>

namespace kiln {

namespace {
using ir::Instruction;
using ir::Opcode;

/// Bounds that keep one fused loop's generated code and its operand list
/// reasonable; a longer chain splits into several fusions.
constexpr size_t kMaxFusedInstructions = 96;
constexpr size_t kMaxFusionOperands = 32;

bool isScalarConstant(const Instruction *value) {
  return value->opcode() == Opcode::Constant && !value->shape().isTuple() &&
         value->shape().numElements() == 1;
}

/// Values generated per element inside a fusion (array constants and
/// parameters stay outside as operands).
bool isFusibleProducer(const Instruction *value) {
  // A transpose that changes which dimension is innermost reads its operand
  // with a stride along every output row. Alone it runs as a tiled
  // transpose kernel; fused, it would make the whole loop scalar (the
  // consumers' math included), so it is neither fused nor a fusion root.
  if (value->shape().isTuple() || transforms::movesInnermostDimension(*value))
    return false;
  switch (value->opcode()) {
  case Opcode::Parameter:
  case Opcode::Tuple:
  case Opcode::GetTupleElement:
  case Opcode::Fusion:
    return false;
  case Opcode::Constant:
    return isScalarConstant(value);
  default:
    return ir::isElementalInFusion(value->opcode());
  }
}

/// Ops that only move data: computing one inside a concatenate's operand
/// costs index arithmetic, not math.
bool movesDataOnly(const Instruction *value) {
  switch (value->opcode()) {
  case Opcode::Reshape:
  case Opcode::Broadcast:
  case Opcode::Transpose:
  case Opcode::Slice:
  case Opcode::Reverse:
  case Opcode::Copy:
    return true;
  default:
    return isScalarConstant(value);
  }
}

/// The kind of fusion `value` can root, if any.
std::optional<ir::FusionKind> rootKind(const Instruction *value) {
  if (value->shape().isTuple())
    return std::nullopt;
  // A reduce or reduce-window applying a to_apply computation stays
  // unfused: its emitter inlines the callee per element and reads its
  // inputs from buffers.
  if ((value->opcode() == Opcode::Reduce ||
       value->opcode() == Opcode::ReduceWindow) &&
      !value->calledComputations().empty())
    return std::nullopt;
  if (value->opcode() == Opcode::Reduce ||
      value->opcode() == Opcode::ReduceWindow)
    return ir::FusionKind::Input;
  if (value->opcode() == Opcode::Constant || !isFusibleProducer(value))
    return std::nullopt;
  return ir::FusionKind::Loop;
}

/// One fusion being formed: the root and the original instructions it
/// computes on the fly, in the order they joined.
class Group {
public:
  explicit Group(Instruction *root) : root_(root) { add(root, true, false); }

  Instruction *root() const { return root_; }
  const std::vector<Instruction *> &members() const { return members_; }
  bool contains(const Instruction *value) const {
    return index_.count(value) != 0;
  }
  /// Members other than the root and cloned scalar constants.
  size_t fusedCount() const {
    return size_t(std::count_if(members_.begin(), members_.end(),
                                [&](const Instruction *m) {
                                  return m != root_ && !isScalarConstant(m);
                                }));
  }
  /// `exclusive`: every user of `value` reads it inside the group, so the
  /// original disappears; otherwise the group computes a duplicate.
  void add(Instruction *value, bool exclusive, bool underConcatenate) {
    index_.insert(value);
    members_.push_back(value);
    if (exclusive)
      exclusive_.insert(value);
    if (underConcatenate)
      underConcatenate_.insert(value);
  }
  void removeLast() {
    index_.erase(members_.back());
    exclusive_.erase(members_.back());
    underConcatenate_.erase(members_.back());
    members_.pop_back();
  }
  /// Whether `member` is computed once per element of a concatenate that
  /// reads all its operands per element (so only data movement may join
  /// below it).
  bool readsPerConcatenatedElement(const Instruction *member) const {
    return member->opcode() == Opcode::Concatenate ||
           underConcatenate_.count(member) != 0;
  }
  /// Whether every user of `value` is a member that replaces its original;
  /// a duplicated member still needs the original's operands outside.
  bool onlyExclusiveUsers(const Instruction *value) const {
    return std::all_of(
        value->users().begin(), value->users().end(),
        [&](const Instruction *user) { return exclusive_.count(user) != 0; });
  }
  /// Outside values the members read, first use first (members in the
  /// entry's stored order, which is topological).
  std::vector<Instruction *>
  outsideOperands(const std::vector<Instruction *> &order) const {
    std::vector<Instruction *> operands;
    for (Instruction *member : order) {
      if (!contains(member))
        continue;
      for (Instruction *operand : member->operands())
        if (!contains(operand) && std::find(operands.begin(), operands.end(),
                                            operand) == operands.end())
          operands.push_back(operand);
    }
    return operands;
  }

private:
  Instruction *root_;
  std::vector<Instruction *> members_;
  std::set<const Instruction *> index_;
  std::set<const Instruction *> exclusive_;
  std::set<const Instruction *> underConcatenate_;
};

/// Grows the group rooted at one consumer through its operands: first
/// every producer only the group reads, then (when nothing more joins that
/// way) cheap producers others read too, and again.
class GroupBuilder {
public:
  GroupBuilder(const std::set<const Instruction *> &rootValues,
               const std::vector<Instruction *> &order)
      : rootValues_(rootValues), order_(order) {}

  Group grow(Instruction *root) {
    Group group(root);
    rereads_ = readsElementsRepeatedly(*root);
    scalar_ = accumulatesElementwise(*root);
    while (growExclusive(group) || growDuplicates(group)) {
    }
    return group;
  }

private:
  /// Operands whose values the group may compute itself (with whether
  /// they sit below a concatenate): only data movement below one.
  template <typename Visit>
  static void forEachCandidate(Group &group, Visit visit) {
    for (size_t i = 0; i < group.members().size(); ++i) {
      Instruction *member = group.members()[i];
      bool underConcatenate = group.readsPerConcatenatedElement(member);
      for (Instruction *operand : member->operands())
        if (!group.contains(operand) && isFusibleProducer(operand) &&
            (!underConcatenate || movesDataOnly(operand)))
          visit(operand, underConcatenate);
    }
  }

  /// Whether `root` reads some operand elements more than once: a
  /// reduce-window with overlapping or dilated windows.
  static bool readsElementsRepeatedly(const Instruction &root) {
    if (root.opcode() != Opcode::ReduceWindow)
      return false;
    for (const ir::WindowDim &w : root.attrs().window)
      if (w.stride < (w.size - 1) * w.windowDilation + 1)
        return true;
    return false;
  }

  /// Whether `root` reads its operand one element at a time (the reduce
  /// emitter's row path needs the innermost dimension kept).
  static bool accumulatesElementwise(const Instruction &root) {
    if (root.opcode() == Opcode::ReduceWindow)
      return true;
    if (root.opcode() != Opcode::Reduce)
      return false;
    const std::vector<int64_t> &reduced = root.attrs().dimensions;
    int64_t innermost = root.operand(0)->shape().rank() - 1;
    return std::find(reduced.begin(), reduced.end(), innermost) !=
           reduced.end();
  }

  bool growExclusive(Group &group) {
    bool grew = false;
    forEachCandidate(group, [&](Instruction *operand, bool underConcatenate) {
      if (group.contains(operand) || rootValues_.count(operand) ||
          !group.onlyExclusiveUsers(operand) ||
          (scalar_ && ir::isExpensive(operand->opcode())))
        return;
      grew |= admit(group, operand, true, underConcatenate);
    });
    return grew;
  }

  bool growDuplicates(Group &group) {
    // A lone reshape moves no data when it reads its operand in place (a
    // consumer host, a view of loop state): recomputing the operand would
    // only add a kernel and a pass over it.
    if (group.root()->opcode() == Opcode::Reshape &&
        group.members().size() == 1)
      return false;
    bool grew = false;
    forEachCandidate(group, [&](Instruction *operand, bool underConcatenate) {
      if (group.contains(operand))
        return;
      if (!isScalarConstant(operand) &&
          (rereads_ || ir::isExpensive(operand->opcode())))
        return;
      grew |= admit(group, operand, false, underConcatenate);
    });
    return grew;
  }

  /// Adds `value` unless that would break the group's size bounds.
  bool admit(Group &group, Instruction *value, bool exclusive,
             bool underConcatenate) {
    if (group.members().size() >= kMaxFusedInstructions)
      return false;
    group.add(value, exclusive, underConcatenate);
    if (group.outsideOperands(order_).size() > kMaxFusionOperands) {
      group.removeLast();
      return false;
    }
    return true;
  }

  const std::set<const Instruction *> &rootValues_;
  const std::vector<Instruction *> &order_;
  bool rereads_ = false; // the root reads operand elements repeatedly
  bool scalar_ = false;  // the root reads operand elements one at a time
};

/// Replaces a group's root by a fusion computing the whole group.
class FusionRewriter {
public:
  FusionRewriter(ir::Module &module, ir::Computation &entry)
      : module_(module), entry_(entry) {}

  /// Returns the members removed from the entry (no users left).
  std::vector<Instruction *> rewrite(const Group &group, ir::FusionKind kind,
                                     const std::vector<Instruction *> &order) {
    std::vector<Instruction *> operands = group.outsideOperands(order);
    std::string prefix =
        kind == ir::FusionKind::Input ? "fused_input" : "fused_loop";
    auto fused = std::make_unique<ir::Computation>(prefix);
    std::map<const Instruction *, Instruction *> inner;
    for (size_t i = 0; i < operands.size(); ++i)
      inner[operands[i]] = fused->addParameter(int64_t(i), operands[i]->shape(),
                                               "param_" + std::to_string(i));
    for (Instruction *member : order) {
      if (!group.contains(member))
        continue;
      if (member->opcode() == Opcode::Constant) {
        inner[member] = fused->addConstant(member->literal(), member->name());
      } else {
        std::vector<Instruction *> innerOperands;
        for (Instruction *operand : member->operands())
          innerOperands.push_back(inner.at(operand));
        inner[member] = fused->add(member->opcode(), member->shape(),
                                   std::move(innerOperands), member->attrs(),
                                   member->name());
      }
      inner[member]->setSourceNode(member->sourceNode());
    }
    Instruction *root = group.root();
    fused->setRoot(inner.at(root));
    ir::Computation *called =
        module_.addComputationBefore(std::move(fused), &entry_);

    ir::Attributes attrs;
    attrs.fusionKind = kind;
    Instruction *fusion =
        entry_.add(Opcode::Fusion, root->shape(), operands, attrs);
    fusion->setCalledComputation(called);
    fusion->setSourceNode(root->sourceNode());
    root->replaceAllUsesWith(fusion);
    if (entry_.root() == root)
      entry_.setRoot(fusion);
    std::string name = root->name();
    return removeDeadMembers(group, order, fusion, std::move(name));
  }

private:
  /// Removes members nothing reads any more, users before operands, then
  /// gives the fusion the root's name.
  std::vector<Instruction *>
  removeDeadMembers(const Group &group, const std::vector<Instruction *> &order,
                    Instruction *fusion, std::string name) {
    std::vector<Instruction *> removed;
    for (auto it = order.rbegin(); it != order.rend(); ++it) {
      Instruction *member = *it;
      if (!group.contains(member) || !member->users().empty() ||
          member == entry_.root())
        continue;
      removed.push_back(member);
      entry_.removeInstruction(member);
    }
    fusion->setName(std::move(name));
    return removed;
  }

  ir::Module &module_;
  ir::Computation &entry_;
};

class InstructionFusionPass final : public Pass {
public:
  std::string_view name() const override { return "fusion"; }
  Expected<bool> run(ir::Module &module) override {
    bool changed = false;
    for (ir::Computation *computation :
         transforms::runWholeComputations(module))
      changed |= fuse(module, computation);
    return changed;
  }

private:
  /// Fuses inside one computation that runs whole.
  static bool fuse(ir::Module &module, ir::Computation *entry) {
    if (!entry->root())
      return false;
    std::vector<Instruction *> order = entry->instructions();
    std::set<const Instruction *> removed;
    bool changed = false;
    for (auto it = order.rbegin(); it != order.rend(); ++it) {
      Instruction *consumer = *it;
      if (removed.count(consumer))
        continue;
      std::optional<ir::FusionKind> kind = rootKind(consumer);
      if (!kind)
        continue;
      // Root values change as fusions replace them, so look again each time.
      std::set<const Instruction *> rootValues;
      transforms::collectRootValues(entry->root(), rootValues);
      std::vector<Instruction *> live = liveOrder(order, removed);
      Group group = GroupBuilder(rootValues, live).grow(consumer);
      if (group.fusedCount() == 0)
        continue;
      for (Instruction *gone :
           FusionRewriter(module, *entry).rewrite(group, *kind, live))
        removed.insert(gone);
      removed.insert(consumer);
      changed = true;
    }
    if (changed)
      entry->sortTopologically();
    return changed;
  }

  static std::vector<Instruction *>
  liveOrder(const std::vector<Instruction *> &order,
            const std::set<const Instruction *> &removed) {
    std::vector<Instruction *> live;
    for (Instruction *instruction : order)
      if (!removed.count(instruction))
        live.push_back(instruction);
    return live;
  }
};
} // namespace

std::unique_ptr<Pass> createInstructionFusionPass() {
  return std::make_unique<InstructionFusionPass>();
}

} // namespace kiln
