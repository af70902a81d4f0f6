//===- CommonSubexpressionElimination.cpp - The `cse` pass ----------------===//
//
// Merges instructions that compute the same value: same opcode, result
// shape, operands (after earlier merges), attributes, called computation,
// and for constants the same bytes. Every kiln opcode is deterministic, so
// two such instructions are interchangeable; the first in instruction order
// is kept and the later one's uses move to it before it is removed.
// Parameters are never merged: each is its own argument.
//
//===----------------------------------------------------------------------===//
#include "kiln/Transforms/Passes.h"

#include <functional>
#include <string_view>
#include <unordered_map>

namespace kiln {

namespace {
using ir::Instruction;
using ir::Opcode;

size_t combine(size_t seed, size_t value) {
  return seed ^ (value + 0x9e3779b97f4a7c15ULL + (seed << 6) + (seed >> 2));
}

/// A hash of what identifies the value; attributes are only compared, since
/// equal opcodes and operands already make collisions rare.
size_t valueHash(const Instruction &instruction) {
  size_t hash = std::hash<int>()(int(instruction.opcode()));
  hash = combine(hash, std::hash<std::string>()(instruction.shape().toString()));
  for (const Instruction *operand : instruction.operands())
    hash = combine(hash, std::hash<const void *>()(operand));
  if (instruction.opcode() == Opcode::Constant) {
    const std::vector<uint8_t> &bytes = instruction.literal().bytes();
    std::string_view view(reinterpret_cast<const char *>(bytes.data()),
                          bytes.size());
    hash = combine(hash, std::hash<std::string_view>()(view));
  }
  return hash;
}

bool sameValue(const Instruction &a, const Instruction &b) {
  if (a.opcode() != b.opcode() || a.shape() != b.shape() ||
      a.operands() != b.operands() || !(a.attrs() == b.attrs()) ||
      a.calledComputations() != b.calledComputations())
    return false;
  return a.opcode() != Opcode::Constant || a.literal() == b.literal();
}

bool eliminateInComputation(ir::Computation &computation) {
  bool changed = false;
  std::unordered_multimap<size_t, Instruction *> seen;
  // Instruction order puts operands first, so by the time an instruction
  // is hashed its operands are already the merged representatives.
  for (Instruction *instruction : computation.instructions()) {
    if (instruction->opcode() == Opcode::Parameter)
      continue;
    size_t hash = valueHash(*instruction);
    Instruction *representative = nullptr;
    auto [begin, end] = seen.equal_range(hash);
    for (auto it = begin; it != end && !representative; ++it)
      if (sameValue(*it->second, *instruction))
        representative = it->second;
    if (!representative) {
      seen.emplace(hash, instruction);
      continue;
    }
    instruction->replaceAllUsesWith(representative);
    computation.removeInstruction(instruction);
    changed = true;
  }
  return changed;
}

class CommonSubexpressionEliminationPass final : public Pass {
public:
  std::string_view name() const override { return "cse"; }
  Expected<bool> run(ir::Module &module) override {
    bool changed = false;
    for (ir::Computation *computation : module.computations())
      changed |= eliminateInComputation(*computation);
    return changed;
  }
};
} // namespace

std::unique_ptr<Pass> createCommonSubexpressionEliminationPass() {
  return std::make_unique<CommonSubexpressionEliminationPass>();
}

} // namespace kiln
