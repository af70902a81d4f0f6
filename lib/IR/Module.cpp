//===- Module.cpp - A compilation unit of HLO computations ----------------===//
#include "kiln/IR/Module.h"

#include <algorithm>
#include <cassert>
#include <unordered_map>

namespace kiln::ir {

Computation *Module::addComputation(std::unique_ptr<Computation> computation) {
  computation->parent_ = this;
  computation->setName(uniqueName(computation->name()));
  for (auto &instruction : computation->instructions_)
    instruction->setName(uniqueName(instruction->name()));
  computations_.push_back(std::move(computation));
  return computations_.back().get();
}

Computation *
Module::addComputationBefore(std::unique_ptr<Computation> computation,
                             const Computation *before) {
  auto it = std::find_if(computations_.begin(), computations_.end(),
                         [&](const std::unique_ptr<Computation> &c) {
                           return c.get() == before;
                         });
  assert(it != computations_.end() && "'before' is not in this module");
  size_t position = size_t(it - computations_.begin());
  addComputation(std::move(computation));
  std::rotate(computations_.begin() + position, computations_.end() - 1,
              computations_.end());
  return computations_[position].get();
}

Computation *Module::addComputation(std::string name) {
  return addComputation(std::make_unique<Computation>(std::move(name)));
}

void Module::removeComputation(Computation *computation) {
  assert(computation != entry_ && "removing the entry computation");
  computations_.erase(
      std::remove_if(computations_.begin(), computations_.end(),
                     [&](const std::unique_ptr<Computation> &c) {
                       return c.get() == computation;
                     }),
      computations_.end());
}

std::vector<Computation *> Module::computations() const {
  std::vector<Computation *> result;
  for (const auto &computation : computations_)
    result.push_back(computation.get());
  return result;
}

Computation *Module::findComputation(std::string_view name) const {
  for (const auto &computation : computations_)
    if (computation->name() == name)
      return computation.get();
  return nullptr;
}

std::string Module::uniqueName(std::string_view base) {
  std::string name(base.empty() ? "v" : base);
  if (names_.insert(name).second)
    return name;
  // Names are never released, so every suffix below the one handed out
  // last for this base is still taken: resume there. Probing from 1 each
  // time made importing N same-named values (an unrolled loop body) cost
  // O(N^2) string compares.
  int64_t &next = nextSuffix_[name];
  for (int64_t n = std::max<int64_t>(next, 1);; ++n) {
    std::string candidate = name + "." + std::to_string(n);
    if (names_.insert(candidate).second) {
      next = n + 1;
      return candidate;
    }
  }
}

std::unique_ptr<Module> Module::clone() const {
  auto copy = std::make_unique<Module>(name_);
  std::unordered_map<const Computation *, Computation *> computationMap;
  for (const auto &computation : computations_) {
    auto newComputation = std::make_unique<Computation>(computation->name());
    std::unordered_map<const Instruction *, Instruction *> instructionMap;
    for (Instruction *old : computation->instructions()) {
      std::vector<Instruction *> operands;
      for (Instruction *operand : old->operands())
        operands.push_back(instructionMap.at(operand));
      Instruction *fresh = newComputation->add(old->opcode(), old->shape(),
                                               operands, old->attrs(),
                                               old->name());
      fresh->setLiteral(old->literal());
      fresh->setSourceNode(old->sourceNode());
      std::vector<Computation *> callees;
      for (Computation *callee : old->calledComputations())
        callees.push_back(computationMap.at(callee));
      fresh->setCalledComputations(std::move(callees));
      instructionMap[old] = fresh;
    }
    if (computation->root())
      newComputation->setRoot(instructionMap.at(computation->root()));
    Computation *added = copy->addComputation(std::move(newComputation));
    computationMap[computation.get()] = added;
    if (computation.get() == entry_)
      copy->setEntry(added);
  }
  return copy;
}

} // namespace kiln::ir
