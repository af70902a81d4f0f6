//===- Computation.h - A function of HLO instructions -----------*- C++ -*-===//
//
// A computation owns its instructions in a topological order (every operand
// before its users), has parameters numbered 0..n-1 and one root whose value
// it returns. A tuple root returns several values.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_IR_COMPUTATION_H
#define KILN_IR_COMPUTATION_H

#include "kiln/IR/Instruction.h"

#include <memory>
#include <string>
#include <vector>

namespace kiln::ir {

class Module;

class Computation {
public:
  explicit Computation(std::string name) : name_(std::move(name)) {}
  ~Computation();
  Computation(const Computation &) = delete;
  Computation &operator=(const Computation &) = delete;

  const std::string &name() const { return name_; }
  void setName(std::string name) { name_ = std::move(name); }
  Module *parent() const { return parent_; }

  /// Appends `instruction`, whose operands must already be in this
  /// computation. An empty or clashing name is replaced by a fresh one
  /// when the computation belongs to a module.
  Instruction *addInstruction(std::unique_ptr<Instruction> instruction);
  /// Convenience: creates and appends an instruction.
  Instruction *add(Opcode opcode, Shape shape,
                   std::vector<Instruction *> operands, Attributes attrs = {},
                   std::string name = "");
  /// Appends a copy of `original` (opcode, shape, attributes, name, literal,
  /// source node and callees) reading `operands`, which must already be in
  /// this computation.
  Instruction *addCopyOf(const Instruction &original,
                         std::vector<Instruction *> operands);
  /// Adds `parameter(number)` of the given shape.
  Instruction *addParameter(int64_t number, Shape shape, std::string name = "");
  /// Adds a constant holding `value`.
  Instruction *addConstant(Literal value, std::string name = "");

  /// Removes an instruction that has no users and is not the root.
  void removeInstruction(Instruction *instruction);
  /// Removes every instruction the root does not depend on, except
  /// parameters. Returns whether anything was removed.
  bool removeDeadInstructions();

  /// Instructions in their stored order.
  std::vector<Instruction *> instructions() const;
  size_t instructionCount() const { return instructions_.size(); }
  /// Parameters sorted by parameter number.
  std::vector<Instruction *> parameters() const;
  Instruction *parameter(int64_t number) const;

  Instruction *root() const { return root_; }
  void setRoot(Instruction *root) { root_ = root; }

  /// Instructions reachable from the root (and every parameter), operands
  /// before users, in a deterministic order.
  std::vector<Instruction *> postOrder() const;
  /// Re-sorts the stored instructions into postOrder() followed by
  /// anything unreachable, so passes may append out of order.
  void sortTopologically();

private:
  friend class Module;
  std::string name_;
  std::vector<std::unique_ptr<Instruction>> instructions_;
  Instruction *root_ = nullptr;
  Module *parent_ = nullptr;
};

} // namespace kiln::ir

#endif // KILN_IR_COMPUTATION_H
