//===- Instruction.h - One HLO instruction ----------------------*- C++ -*-===//
//
// An instruction is an SSA value: an opcode, a static result shape, operands
// (other instructions of the same computation) and opcode-specific
// attributes. Instructions are owned by their Computation and keep their
// users up to date as operands change.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_IR_INSTRUCTION_H
#define KILN_IR_INSTRUCTION_H

#include "kiln/IR/Attributes.h"
#include "kiln/IR/Literal.h"
#include "kiln/IR/Opcode.h"
#include "kiln/IR/Shape.h"

#include <memory>
#include <string>
#include <vector>

namespace kiln::ir {

class Computation;

class Instruction {
public:
  Instruction(Opcode opcode, Shape shape, std::vector<Instruction *> operands,
              Attributes attrs = {});
  ~Instruction();
  Instruction(const Instruction &) = delete;
  Instruction &operator=(const Instruction &) = delete;

  Opcode opcode() const { return opcode_; }
  const Shape &shape() const { return shape_; }
  void setShape(Shape shape) { shape_ = std::move(shape); }
  const std::string &name() const { return name_; }
  /// Renames without checking uniqueness; use Computation::addInstruction
  /// or Module::uniqueName to get a fresh name.
  void setName(std::string name) { name_ = std::move(name); }

  const std::vector<Instruction *> &operands() const { return operands_; }
  Instruction *operand(size_t i) const { return operands_[i]; }
  size_t operandCount() const { return operands_.size(); }
  /// Replaces operand `i`, keeping both instructions' user lists right.
  void setOperand(size_t i, Instruction *newOperand);
  /// Replaces every use of `from` among the operands by `to`.
  void replaceOperand(Instruction *from, Instruction *to);

  /// Distinct instructions that use this one, in first-use order.
  const std::vector<Instruction *> &users() const { return users_; }
  /// Makes every user of this instruction use `replacement` instead.
  void replaceAllUsesWith(Instruction *replacement);

  const Attributes &attrs() const { return attrs_; }
  Attributes &attrs() { return attrs_; }

  /// The value of a constant.
  const Literal &literal() const { return literal_; }
  void setLiteral(Literal literal) { literal_ = std::move(literal); }

  /// The parameter number of a parameter.
  int64_t parameterNumber() const { return attrs_.index; }

  /// The computations this instruction calls, in the slot order of its
  /// opcode (calleeSlotName in Opcode.h): a fusion's fused computation; a
  /// while's condition, then body; a conditional's branches; a call's
  /// callee.
  const std::vector<Computation *> &calledComputations() const {
    return called_;
  }
  void setCalledComputations(std::vector<Computation *> called) {
    called_ = std::move(called);
  }
  /// The first called computation (the only one of a fusion or a call), or
  /// nullptr when it calls none.
  Computation *calledComputation() const {
    return called_.empty() ? nullptr : called_.front();
  }
  /// Makes `called` the only callee (none when null).
  void setCalledComputation(Computation *called) {
    called_.clear();
    if (called)
      called_.push_back(called);
  }

  Computation *parent() const { return parent_; }

  /// The source-model node (TensorFlow or ONNX node name) this instruction
  /// was lowered from, for reports and graph pictures; empty when unknown
  /// (HLO text input, or made by a pass from nothing in particular).
  const std::string &sourceNode() const { return sourceNode_; }
  void setSourceNode(std::string node) { sourceNode_ = std::move(node); }

private:
  friend class Computation;
  void addUser(Instruction *user);
  void removeUser(Instruction *user);
  void dropAllOperands();

  Opcode opcode_;
  Shape shape_;
  std::string name_;
  std::vector<Instruction *> operands_;
  std::vector<Instruction *> users_;
  Attributes attrs_;
  Literal literal_;
  std::vector<Computation *> called_;
  Computation *parent_ = nullptr;
  std::string sourceNode_;
};

} // namespace kiln::ir

#endif // KILN_IR_INSTRUCTION_H
