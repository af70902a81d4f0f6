//===- MultiOutputFusion.cpp - The `multi-output-fusion` pass -------------===//
//
// After `fusion`, an expensive value (an exp, a divide, ... or a loop
// fusion containing one) that several consumers read stays materialized:
// duplicating it would compute it more than once. When every consumer is
// a loop fusion or an elementwise op of the producer's dimensions and
// dtype that reads it at its own index, this pass merges the producer and
// all those consumers into one kLoop fusion with a tuple of outputs: one
// loop computes the producer once per element (the per-fusion value cache
// shares it), never stores it, and writes every consumer's result. The
// producer becomes an output too only when the entry returns it.
//
// A consumer that depends on another through an instruction outside the
// group would make the merged fusion read its own output, so such groups
// are left alone. The consumers are replaced by get-tuple-element of the
// new fusion, which takes the name of the first consumer.
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

bool isLoopFusion(const Instruction *value) {
  return value->opcode() == Opcode::Fusion &&
         value->attrs().fusionKind == ir::FusionKind::Loop &&
         !value->shape().isTuple();
}

/// An elementwise op outside any fusion, computed per element.
bool isPlainElementwise(const Instruction *value) {
  return ir::isElementwise(value->opcode()) && !value->shape().isTuple();
}

/// Whether `value` is worth sharing: computing it twice costs more than
/// storing it once.
bool isExpensiveValue(const Instruction *value) {
  if (isPlainElementwise(value))
    return ir::isExpensive(value->opcode());
  if (!isLoopFusion(value))
    return false;
  for (const Instruction *inner : value->calledComputation()->instructions())
    if (ir::isExpensive(inner->opcode()))
      return true;
  return false;
}

/// Whether `consumer` reads `producer` only at its own element index, so
/// one loop over the consumer's elements meets each producer element once.
bool readsAtOwnIndex(const Instruction *consumer, const Instruction *producer) {
  const ir::Shape &shape = producer->shape();
  if (consumer->shape().dims() != shape.dims())
    return false;
  if (isPlainElementwise(consumer))
    return true;
  if (!isLoopFusion(consumer))
    return false;
  const ir::Computation *called = consumer->calledComputation();
  for (size_t i = 0; i < consumer->operandCount(); ++i) {
    if (consumer->operand(i) != producer)
      continue;
    for (const Instruction *user : called->parameter(int64_t(i))->users())
      if (!ir::isElementwise(user->opcode()) ||
          user->shape().dims() != shape.dims())
        return false;
  }
  return true;
}

/// Whether `target` is an operand of `from`, transitively, not looking
/// above `floor` (instructions stored before it cannot depend on it).
bool dependsOn(const Instruction *from, const Instruction *target,
               const std::map<const Instruction *, size_t> &position,
               size_t floor) {
  std::vector<const Instruction *> work(from->operands().begin(),
                                        from->operands().end());
  std::set<const Instruction *> seen;
  while (!work.empty()) {
    const Instruction *value = work.back();
    work.pop_back();
    if (value == target)
      return true;
    if (!seen.insert(value).second || position.at(value) <= floor)
      continue;
    work.insert(work.end(), value->operands().begin(), value->operands().end());
  }
  return false;
}

/// Copies instructions into the merged computation, mapping outside values
/// to its parameters (added on first use).
class Merger {
public:
  explicit Merger(ir::Computation &merged) : merged_(merged) {}

  /// The merged counterpart of an outside value.
  Instruction *outside(Instruction *value) {
    auto it = outer_.find(value);
    if (it != outer_.end())
      return it->second;
    Instruction *parameter =
        merged_.addParameter(int64_t(operands_.size()), value->shape(),
                             "param_" + std::to_string(operands_.size()));
    operands_.push_back(value);
    outer_[value] = parameter;
    return parameter;
  }

  /// Copies `value` (a loop fusion's body or a plain op), reading
  /// `bound[v]` instead of outside value v. Returns its merged result.
  Instruction *copy(Instruction *value,
                    const std::map<const Instruction *, Instruction *> &bound) {
    auto operandOf = [&](Instruction *operand) {
      auto it = bound.find(operand);
      return it != bound.end() ? it->second : outside(operand);
    };
    if (!isLoopFusion(value)) {
      std::vector<Instruction *> operands;
      for (Instruction *operand : value->operands())
        operands.push_back(operandOf(operand));
      Instruction *copy =
          merged_.add(value->opcode(), value->shape(), std::move(operands),
                      value->attrs(), value->name());
      copy->setSourceNode(value->sourceNode());
      return copy;
    }
    std::map<const Instruction *, Instruction *> inner;
    for (Instruction *body : value->calledComputation()->instructions()) {
      if (body->opcode() == Opcode::Parameter) {
        inner[body] =
            operandOf(value->operand(size_t(body->parameterNumber())));
        continue;
      }
      if (body->opcode() == Opcode::Constant) {
        inner[body] = merged_.addConstant(body->literal(), body->name());
      } else {
        std::vector<Instruction *> operands;
        for (Instruction *operand : body->operands())
          operands.push_back(inner.at(operand));
        inner[body] =
            merged_.add(body->opcode(), body->shape(), std::move(operands),
                        body->attrs(), body->name());
      }
      inner[body]->setSourceNode(body->sourceNode());
    }
    return inner.at(value->calledComputation()->root());
  }

  const std::vector<Instruction *> &operands() const { return operands_; }

private:
  ir::Computation &merged_;
  std::vector<Instruction *> operands_;
  std::map<const Instruction *, Instruction *> outer_;
};

class MultiOutputFusionPass final : public Pass {
public:
  std::string_view name() const override { return "multi-output-fusion"; }
  Expected<bool> run(ir::Module &module) override {
    bool changed = false;
    for (ir::Computation *computation :
         transforms::runWholeComputations(module))
      changed |= mergeIn(module, computation);
    if (changed)
      transforms::removeUncalledComputations(module); // the merged bodies
    return changed;
  }

private:
  /// Merges inside one computation that runs whole.
  static bool mergeIn(ir::Module &module, ir::Computation *entry) {
    if (!entry->root())
      return false;
    bool changed = false;
    for (bool merged = true; merged;) {
      merged = false;
      std::vector<Instruction *> order = entry->instructions();
      std::map<const Instruction *, size_t> position;
      for (size_t i = 0; i < order.size(); ++i)
        position[order[i]] = i;
      for (Instruction *producer : order) {
        std::vector<Instruction *> consumers =
            mergeableConsumers(producer, position);
        if (consumers.empty())
          continue;
        merge(module, *entry, producer, consumers);
        merged = changed = true;
        break; // positions changed: look again
      }
    }
    if (changed)
      entry->sortTopologically();
    return changed;
  }

  static std::vector<Instruction *>
  mergeableConsumers(Instruction *producer,
                     const std::map<const Instruction *, size_t> &position) {
    if (producer->users().size() < 2 || !isExpensiveValue(producer))
      return {};
    std::vector<Instruction *> consumers = producer->users();
    for (Instruction *consumer : consumers)
      if (!readsAtOwnIndex(consumer, producer) ||
          consumer->shape().dtype() != consumers[0]->shape().dtype())
        return {};
    size_t floor = position.at(producer);
    for (Instruction *a : consumers)
      for (Instruction *b : consumers)
        if (a != b && dependsOn(a, b, position, floor))
          return {};
    std::sort(consumers.begin(), consumers.end(),
              [&](const Instruction *a, const Instruction *b) {
                return position.at(a) < position.at(b);
              });
    return consumers;
  }

  static void merge(ir::Module &module, ir::Computation &entry,
                    Instruction *producer,
                    std::vector<Instruction *> consumers) {
    std::set<const Instruction *> rootValues;
    transforms::collectRootValues(entry.root(), rootValues);
    bool producerIsOutput = rootValues.count(producer) != 0;
    std::string fusionName = consumers[0]->name() + ".multi";

    auto merged = std::make_unique<ir::Computation>("fused_multi");
    Merger merger(*merged);
    std::map<const Instruction *, Instruction *> bound;
    bound[producer] = merger.copy(producer, {});
    std::vector<Instruction *> outputs;
    std::vector<ir::Shape> shapes;
    for (Instruction *consumer : consumers) {
      outputs.push_back(merger.copy(consumer, bound));
      shapes.push_back(consumer->shape());
    }
    if (producerIsOutput) {
      outputs.push_back(bound.at(producer));
      shapes.push_back(producer->shape());
    }
    merged->setRoot(merged->add(Opcode::Tuple, ir::Shape::tuple(shapes),
                                outputs, {}, "outputs"));
    ir::Computation *called =
        module.addComputationBefore(std::move(merged), &entry);

    ir::Attributes attrs;
    attrs.fusionKind = ir::FusionKind::Loop;
    Instruction *fusion = entry.add(Opcode::Fusion, ir::Shape::tuple(shapes),
                                    merger.operands(), attrs);
    fusion->setCalledComputation(called);
    std::vector<Instruction *> replaced(consumers);
    if (producerIsOutput)
      replaced.push_back(producer);
    for (size_t i = 0; i < replaced.size(); ++i) {
      ir::Attributes element;
      element.index = int64_t(i);
      Instruction *value =
          entry.add(Opcode::GetTupleElement, shapes[i], {fusion}, element);
      Instruction *old = replaced[i];
      std::string name = old->name();
      old->replaceAllUsesWith(value);
      if (entry.root() == old)
        entry.setRoot(value);
      entry.removeInstruction(old);
      value->setName(std::move(name));
    }
    if (!producerIsOutput)
      entry.removeInstruction(producer);
    fusion->setName(module.uniqueName(fusionName));
  }
};
} // namespace

std::unique_ptr<Pass> createMultiOutputFusionPass() {
  return std::make_unique<MultiOutputFusionPass>();
}

} // namespace kiln
