//===- ConstantFolding.cpp - The `constant-folding` pass ------------------===//
//
// Replaces an instruction whose operands are all constants by a constant
// holding its value, computed by the reference evaluator: the folded value
// is exactly what the unoptimized module computes (the evaluator is the
// oracle CodeGen is tested against), NaNs and integer corner cases
// included. Folding runs in instruction order, so chains of constant
// arithmetic (weight dequantization, kernel transposes, shape arithmetic)
// collapse in one run. The folded-away instructions are left for `dce`.
//
// Broadcasts and iotas of constants are not folded themselves: a loop at
// run time is cheaper than their bytes in the object file, and a broadcast
// scalar stays recognizable for the simplifier and code generation. They
// count as known values for their users, though, so add(c, broadcast(k))
// folds. A result over kMaxMaterializedElements is not folded either when
// it is more than kMaxGrowth times the bytes it is computed from (a big pad
// of a small table, an op on two big broadcasts of scalars). Tuple-shaped
// results (sort, top-k) cannot be constants. rng is never folded, nor known
// to its users: like an iota its values are cheaper to generate than to
// store, and XLA runs it as an operation rather than folding it.
//
//===----------------------------------------------------------------------===//
#include "kiln/Analysis/CostAnalysis.h"
#include "kiln/Eval/Evaluator.h"
#include "kiln/Transforms/Passes.h"

#include <map>

namespace kiln {

namespace {
using ir::Instruction;
using ir::Opcode;

constexpr int64_t kMaxMaterializedElements = 4096;
constexpr int64_t kMaxGrowth = 4;
constexpr int64_t kMaxScratchElements = int64_t(1) << 24;

bool isBroadcastOfConstant(const Instruction &instruction) {
  return instruction.opcode() == Opcode::Broadcast &&
         instruction.operand(0)->opcode() == Opcode::Constant;
}

/// Whether `instruction` is a candidate at all (operands aside).
bool isFoldable(const Instruction &instruction) {
  Opcode opcode = instruction.opcode();
  if (opcode == Opcode::Parameter || opcode == Opcode::Constant ||
      opcode == Opcode::Iota || opcode == Opcode::Rng ||
      isBroadcastOfConstant(instruction) || instruction.shape().isTuple())
    return false;
  // The fold budget cannot bound a loop; callees are folded inside instead.
  // Applied callees (reduce's to_apply) are skipped too: folding them would
  // run the callee per element at compile time.
  if (!instruction.calledComputations().empty() ||
      (ir::calleeCount(opcode) > 0))
    return false;
  // Dead code is dce's business; folding it would only churn.
  return !instruction.users().empty() ||
         instruction.parent()->root() == &instruction;
}

/// Literals of the values known at compile time: constants directly,
/// broadcasts of constants and iotas evaluated on demand (and cached).
class KnownValues {
public:
  const ir::Literal *get(const Instruction &instruction) {
    if (instruction.opcode() == Opcode::Constant)
      return &instruction.literal();
    if (!isBroadcastOfConstant(instruction) &&
        instruction.opcode() != Opcode::Iota)
      return nullptr;
    if (instruction.shape().numElements() > kMaxScratchElements)
      return nullptr; // not worth the compile-time memory
    auto it = materialized_.find(&instruction);
    if (it != materialized_.end())
      return &it->second;
    std::vector<const ir::Literal *> operands;
    for (const Instruction *operand : instruction.operands())
      operands.push_back(&operand->literal());
    Expected<ir::Literal> value = eval::evaluateInstruction(instruction, operands);
    if (!value) {
      (void)value.takeError();
      return nullptr;
    }
    return &materialized_.emplace(&instruction, std::move(*value)).first->second;
  }

private:
  std::map<const Instruction *, ir::Literal> materialized_;
};

/// Bytes the value of `instruction` is computed from when it is known.
int64_t storedBytes(const Instruction &instruction) {
  if (instruction.opcode() == Opcode::Constant)
    return instruction.shape().byteSize();
  if (instruction.opcode() == Opcode::Broadcast)
    return instruction.operand(0)->shape().byteSize();
  return 0; // iota
}

bool worthMaterializing(const Instruction &instruction) {
  if (!analysis::affordableToFold(instruction))
    return false;
  const ir::Shape &shape = instruction.shape();
  if (shape.numElements() <= kMaxMaterializedElements)
    return true;
  int64_t sourceBytes = 0;
  for (const Instruction *operand : instruction.operands())
    sourceBytes += storedBytes(*operand);
  return shape.byteSize() <= kMaxGrowth * sourceBytes;
}

bool foldComputation(ir::Computation &computation) {
  bool changed = false;
  KnownValues known;
  for (Instruction *instruction : computation.instructions()) {
    if (!isFoldable(*instruction) || !worthMaterializing(*instruction))
      continue;
    std::vector<const ir::Literal *> literals;
    for (const Instruction *operand : instruction->operands())
      if (const ir::Literal *literal = known.get(*operand))
        literals.push_back(literal);
    if (literals.size() != instruction->operandCount())
      continue;
    Expected<ir::Literal> value =
        eval::evaluateInstruction(*instruction, literals);
    if (!value) { // Leave it to run time; the evaluator need not fold all.
      (void)value.takeError();
      continue;
    }
    // The constant takes over the folded instruction's name, so names in
    // the optimized module still point at the source graph.
    std::string name = instruction->name();
    Instruction *constant = computation.addConstant(std::move(*value));
    instruction->replaceAllUsesWith(constant);
    computation.removeInstruction(instruction);
    constant->setName(std::move(name));
    changed = true;
  }
  // Constants were appended after their users.
  if (changed)
    computation.sortTopologically();
  return changed;
}

class ConstantFoldingPass final : public Pass {
public:
  std::string_view name() const override { return "constant-folding"; }
  Expected<bool> run(ir::Module &module) override {
    bool changed = false;
    for (ir::Computation *computation : module.computations())
      changed |= foldComputation(*computation);
    return changed;
  }
};
} // namespace

std::unique_ptr<Pass> createConstantFoldingPass() {
  return std::make_unique<ConstantFoldingPass>();
}

} // namespace kiln
