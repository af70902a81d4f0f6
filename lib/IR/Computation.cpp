//===- Computation.cpp - A function of HLO instructions -------------------===//
#include "kiln/IR/Computation.h"

#include "kiln/IR/Module.h"

#include <algorithm>
#include <cassert>
#include <unordered_map>
#include <unordered_set>

namespace kiln::ir {

Computation::~Computation() {
  // Destroy users before their operands so user lists never dangle.
  while (!instructions_.empty())
    instructions_.pop_back();
}

Instruction *
Computation::addInstruction(std::unique_ptr<Instruction> instruction) {
  instruction->parent_ = this;
  if (parent_) {
    std::string base = instruction->name().empty()
                           ? std::string(opcodeName(instruction->opcode()))
                           : instruction->name();
    instruction->setName(parent_->uniqueName(base));
  } else if (instruction->name().empty()) {
    instruction->setName(std::string(opcodeName(instruction->opcode())) + "." +
                         std::to_string(instructions_.size()));
  }
  instructions_.push_back(std::move(instruction));
  return instructions_.back().get();
}

Instruction *Computation::add(Opcode opcode, Shape shape,
                              std::vector<Instruction *> operands,
                              Attributes attrs, std::string name) {
  auto instruction = std::make_unique<Instruction>(
      opcode, std::move(shape), std::move(operands), std::move(attrs));
  instruction->setName(std::move(name));
  return addInstruction(std::move(instruction));
}

Instruction *Computation::addCopyOf(const Instruction &original,
                                    std::vector<Instruction *> operands) {
  Instruction *copy = add(original.opcode(), original.shape(),
                          std::move(operands), original.attrs(),
                          original.name());
  copy->setLiteral(original.literal());
  copy->setSourceNode(original.sourceNode());
  copy->setCalledComputations(original.calledComputations());
  return copy;
}

Instruction *Computation::addParameter(int64_t number, Shape shape,
                                       std::string name) {
  Attributes attrs;
  attrs.index = number;
  return add(Opcode::Parameter, std::move(shape), {}, std::move(attrs),
             std::move(name));
}

Instruction *Computation::addConstant(Literal value, std::string name) {
  Shape shape = value.shape();
  Instruction *constant =
      add(Opcode::Constant, std::move(shape), {}, {}, std::move(name));
  constant->setLiteral(std::move(value));
  return constant;
}

void Computation::removeInstruction(Instruction *instruction) {
  assert(instruction->users().empty() && "removing an instruction in use");
  assert(instruction != root_ && "removing the root");
  auto it = std::find_if(
      instructions_.begin(), instructions_.end(),
      [&](const std::unique_ptr<Instruction> &i) { return i.get() == instruction; });
  assert(it != instructions_.end() && "instruction not in this computation");
  instructions_.erase(it);
}

bool Computation::removeDeadInstructions() {
  std::vector<Instruction *> live = postOrder();
  std::unordered_set<Instruction *> liveSet(live.begin(), live.end());
  bool changed = false;
  // Walk backwards so users go before their operands.
  for (size_t i = instructions_.size(); i-- > 0;) {
    Instruction *instruction = instructions_[i].get();
    if (liveSet.count(instruction) ||
        instruction->opcode() == Opcode::Parameter)
      continue;
    // Users come after their operands, so by the time the backward walk
    // reaches a dead instruction its dead users are already gone.
    if (!instruction->users().empty())
      continue;
    instructions_.erase(instructions_.begin() + i);
    changed = true;
  }
  return changed;
}

std::vector<Instruction *> Computation::instructions() const {
  std::vector<Instruction *> result;
  result.reserve(instructions_.size());
  for (const auto &instruction : instructions_)
    result.push_back(instruction.get());
  return result;
}

std::vector<Instruction *> Computation::parameters() const {
  std::vector<Instruction *> result;
  for (const auto &instruction : instructions_)
    if (instruction->opcode() == Opcode::Parameter)
      result.push_back(instruction.get());
  std::stable_sort(result.begin(), result.end(),
                   [](Instruction *a, Instruction *b) {
                     return a->parameterNumber() < b->parameterNumber();
                   });
  return result;
}

Instruction *Computation::parameter(int64_t number) const {
  for (const auto &instruction : instructions_)
    if (instruction->opcode() == Opcode::Parameter &&
        instruction->parameterNumber() == number)
      return instruction.get();
  return nullptr;
}

std::vector<Instruction *> Computation::postOrder() const {
  std::vector<Instruction *> order;
  std::unordered_set<Instruction *> visited;
  // Iterative DFS: deep graphs (thousands of ops) must not overflow the stack.
  auto visit = [&](Instruction *start) {
    std::vector<std::pair<Instruction *, size_t>> stack;
    if (!visited.insert(start).second)
      return;
    stack.push_back({start, 0});
    while (!stack.empty()) {
      auto &[node, next] = stack.back();
      if (next < node->operandCount()) {
        Instruction *operand = node->operand(next++);
        if (visited.insert(operand).second)
          stack.push_back({operand, 0});
        continue;
      }
      order.push_back(node);
      stack.pop_back();
    }
  };
  for (Instruction *parameter : parameters())
    visit(parameter);
  if (root_)
    visit(root_);
  return order;
}

void Computation::sortTopologically() {
  std::vector<Instruction *> order = postOrder();
  std::unordered_set<Instruction *> placed(order.begin(), order.end());
  // Unreachable instructions follow, each after its operands, keeping their
  // relative order where dependencies allow.
  bool progress = true;
  while (order.size() < instructions_.size() && progress) {
    progress = false;
    for (const auto &instruction : instructions_) {
      if (placed.count(instruction.get()))
        continue;
      bool ready = std::all_of(
          instruction->operands().begin(), instruction->operands().end(),
          [&](Instruction *operand) { return placed.count(operand) > 0; });
      if (ready) {
        order.push_back(instruction.get());
        placed.insert(instruction.get());
        progress = true;
      }
    }
  }
  assert(order.size() == instructions_.size() && "cycle among instructions");
  std::unordered_map<Instruction *, std::unique_ptr<Instruction>> owned;
  for (auto &instruction : instructions_)
    owned.emplace(instruction.get(), std::move(instruction));
  instructions_.clear();
  for (Instruction *instruction : order)
    instructions_.push_back(std::move(owned[instruction]));
}

} // namespace kiln::ir
