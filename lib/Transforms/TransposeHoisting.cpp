//===- TransposeHoisting.cpp - Expensive math after a widening transpose --===//
//
// Transpose sinking (TransposeSinking.cpp) moves transposes below
// elementwise ops so that NCHW<->NHWC pairs meet and cancel. A transpose
// that meets nothing stays below the ops it passed, and they run in the
// layout before it. When that layout's rows are narrow (a segmentation
// head's 2 classes in NHWC, [1,320,320,2]) and the transpose's are wide
// ([1,2,320,320]), an expensive op there computes on vectors of 2 lanes
// where 16 would fit. After the simplifier's fixed point, so that nothing
// sinks it back, this pass moves such an op after the transpose:
//
//   transpose(op(x, s...), P) -> op(transpose(x, P), s'...)
//
// when the op is expensive (ir::isExpensive: the per-element cost that
// vector width multiplies), the transpose is its only user and moves the
// innermost dimension, the op's rows hold fewer than kNarrowRow elements and
// the transpose's at least that many, and every other operand is a scalar
// broadcast (broadcast again to the new shape). The op computes the same
// function of the same elements, so results are bit-identical.
//
//===----------------------------------------------------------------------===//
#include "kiln/Transforms/Passes.h"

#include "TransformUtils.h"

namespace kiln {

namespace {
using ir::Instruction;
using ir::Opcode;

/// Rows narrower than this leave most lanes of a vector register idle.
constexpr int64_t kNarrowRow = 8;

bool isScalarBroadcast(const Instruction &value) {
  return value.opcode() == Opcode::Broadcast &&
         value.operand(0)->shape().rank() == 0;
}

/// The one operand of `op` that is not a scalar broadcast, or nullptr.
Instruction *onlyArrayOperand(Instruction &op) {
  Instruction *array = nullptr;
  for (Instruction *operand : op.operands()) {
    if (isScalarBroadcast(*operand))
      continue;
    if (array)
      return nullptr;
    array = operand;
  }
  return array;
}

bool widensNarrowRows(const Instruction &transpose, const Instruction &op) {
  const ir::Shape &before = op.shape(), &after = transpose.shape();
  return before.rank() > 0 && before.dims().back() < kNarrowRow &&
         after.dims().back() >= kNarrowRow;
}

/// op(transpose(x), s'...) for transpose(op(x, s...)), or nullptr when the
/// pattern does not apply.
Instruction *hoist(Instruction &transpose) {
  Instruction &op = *transpose.operand(0);
  if (!transforms::movesInnermostDimension(transpose) || op.users().size() != 1 ||
      !ir::isElementwise(op.opcode()) || !ir::isExpensive(op.opcode()) ||
      !widensNarrowRows(transpose, op))
    return nullptr;
  Instruction *x = onlyArrayOperand(op);
  if (!x)
    return nullptr;
  ir::Computation &computation = *transpose.parent();
  Instruction *moved =
      transforms::build(computation, Opcode::Transpose, {x}, transpose.attrs(),
                        {}, transpose.name());
  if (!moved)
    return nullptr;
  std::vector<Instruction *> operands;
  for (Instruction *operand : op.operands()) {
    if (operand == x) {
      operands.push_back(moved);
      continue;
    }
    ir::Attributes scalar; // dimensions={}: the scalar repeated
    operands.push_back(transforms::build(computation, Opcode::Broadcast,
                                         {operand->operand(0)}, scalar,
                                         transpose.shape(), operand->name()));
    if (!operands.back())
      return nullptr;
  }
  return transforms::build(computation, op.opcode(), operands, op.attrs(),
                           transpose.shape(), op.name());
}

class TransposeHoistingPass final : public Pass {
public:
  std::string_view name() const override { return "transpose-hoisting"; }
  Expected<bool> run(ir::Module &module) override {
    bool changed = false;
    for (ir::Computation *computation :
         transforms::runWholeComputations(module))
      changed |= hoistIn(*computation);
    return changed;
  }

private:
  /// Hoists the transposes of one computation that runs whole.
  static bool hoistIn(ir::Computation &entry) {
    bool changed = false;
    for (Instruction *instruction : entry.instructions()) {
      if (instruction->opcode() != Opcode::Transpose)
        continue;
      if (Instruction *replacement = hoist(*instruction)) {
        instruction->replaceAllUsesWith(replacement);
        changed = true;
      }
    }
    if (changed) {
      entry.sortTopologically(); // the new instructions were appended
      entry.removeDeadInstructions();
    }
    return changed;
  }
};
} // namespace

std::unique_ptr<Pass> createTransposeHoistingPass() {
  return std::make_unique<TransposeHoistingPass>();
}

} // namespace kiln
