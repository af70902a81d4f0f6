//===- Instruction.cpp - One HLO instruction ------------------------------===//
#include "kiln/IR/Instruction.h"

#include "kiln/IR/Computation.h"

#include <algorithm>
#include <cassert>

namespace kiln::ir {

Instruction::Instruction(Opcode opcode, Shape shape,
                         std::vector<Instruction *> operands, Attributes attrs)
    : opcode_(opcode), shape_(std::move(shape)), operands_(std::move(operands)),
      attrs_(std::move(attrs)) {
  for (Instruction *operand : operands_) {
    assert(operand && "null operand");
    operand->addUser(this);
  }
}

Instruction::~Instruction() { dropAllOperands(); }

void Instruction::dropAllOperands() {
  // Clear first: removeUser keeps a user that still lists the operand, so
  // an operand used twice (divide(x, x)) would otherwise keep a dangling
  // user after this instruction is destroyed.
  std::vector<Instruction *> operands = std::move(operands_);
  operands_.clear();
  for (Instruction *operand : operands)
    operand->removeUser(this);
}

void Instruction::addUser(Instruction *user) {
  if (std::find(users_.begin(), users_.end(), user) == users_.end())
    users_.push_back(user);
}

void Instruction::removeUser(Instruction *user) {
  // A user may still reference this instruction through another operand.
  if (std::count(user->operands_.begin(), user->operands_.end(), this) > 1)
    return;
  users_.erase(std::remove(users_.begin(), users_.end(), user), users_.end());
}

void Instruction::setOperand(size_t i, Instruction *newOperand) {
  assert(i < operands_.size() && newOperand && "bad operand replacement");
  Instruction *old = operands_[i];
  if (old == newOperand)
    return;
  old->removeUser(this);
  operands_[i] = newOperand;
  newOperand->addUser(this);
}

void Instruction::replaceOperand(Instruction *from, Instruction *to) {
  for (size_t i = 0; i < operands_.size(); ++i)
    if (operands_[i] == from)
      setOperand(i, to);
}

void Instruction::replaceAllUsesWith(Instruction *replacement) {
  assert(replacement != this && "replacing an instruction with itself");
  // setOperand edits users_, so iterate over a copy.
  std::vector<Instruction *> users = users_;
  for (Instruction *user : users)
    user->replaceOperand(this, replacement);
  if (parent_ && parent_->root() == this)
    parent_->setRoot(replacement);
}

} // namespace kiln::ir
