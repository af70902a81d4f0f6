//===- TransposeSinking.cpp - Moving transposes below elementwise ops -----===//
//
// Importers wrap every NCHW convolution and pool in transposes to the
// layout CodeGen prefers (NCHW -> NHWC before, NHWC -> NCHW after). Between
// two such ops sit elementwise ops (bias add, activation) on the NCHW
// value, so the "back" transpose of one op and the "to" transpose of the
// next never touch. Sinking the transpose below each elementwise op (an
// elementwise op commutes with any permutation of its operands' elements)
// makes them meet, and the transpose rules then cancel the pair.
//
// Concatenates move the same way (concatenating transposes along dimension
// d is transposing the concatenation along permutation[d]): NCHW models pad
// channels for a residual by concatenating zeros on dimension 1, which
// would otherwise keep a transpose pair alive around every residual block.
//
//===----------------------------------------------------------------------===//
#include "SimplifierRules.h"
#include "TransformUtils.h"

namespace kiln::transforms {

namespace {
using ir::Instruction;
using ir::Opcode;

/// The permutation of the first transpose operand of `op` that transposes
/// a computed value, or nullptr. Transposes of constants and broadcasts are
/// not followed: they are what sinking leaves on the other operands, and
/// following them would sink back and forth forever.
const std::vector<int64_t> *transposePermutation(const Instruction &op) {
  for (const Instruction *operand : op.operands()) {
    if (operand->opcode() != Opcode::Transpose)
      continue;
    Opcode source = operand->operand(0)->opcode();
    if (source != Opcode::Constant && source != Opcode::Broadcast)
      return &operand->attrs().dimensions;
  }
  return nullptr;
}

/// Whether transpose `operand` may move below its users: it is its user's
/// alone, or every user is elementwise, so each user sinks its own copy and
/// the copies meet again below (a leaky ReLU's compare, multiply and select
/// all read one transposed value); the original then dies.
bool sinkable(const Instruction &operand,
              const std::vector<int64_t> &permutation) {
  if (operand.opcode() != Opcode::Transpose ||
      operand.attrs().dimensions != permutation)
    return false;
  if (operand.users().size() == 1)
    return true;
  for (const Instruction *user : operand.users())
    if (!ir::isElementwise(user->opcode()) || user->shape().isTuple())
      return false;
  return true;
}

/// The value v with transpose(v, permutation) == operand, or nullptr when
/// that would cost a new transpose at run time (or duplicate one).
Instruction *untransposed(Instruction &op, Instruction *operand,
                          const std::vector<int64_t> &permutation) {
  switch (operand->opcode()) {
  case Opcode::Transpose:
    // Another user could keep the transpose alive next to the new one.
    if (!sinkable(*operand, permutation))
      return nullptr;
    return operand->operand(0);
  case Opcode::Constant: { // constant folding transposes the literal
    ir::Attributes attrs;
    attrs.dimensions = inversePermutation(permutation);
    return build(*op.parent(), Opcode::Transpose, {operand}, std::move(attrs),
                 {}, operand->name());
  }
  case Opcode::Broadcast:
    return transposeBroadcast(*operand, inversePermutation(permutation),
                              operand->name());
  default:
    return nullptr;
  }
}
} // namespace

Instruction *sinkTranspose(Instruction &op) {
  const ir::Shape &shape = op.shape();
  bool concatenate = op.opcode() == Opcode::Concatenate;
  if ((!ir::isElementwise(op.opcode()) && !concatenate) || shape.isTuple() ||
      shape.rank() < 2)
    return nullptr;
  const std::vector<int64_t> *found = transposePermutation(op);
  if (!found)
    return nullptr;
  std::vector<int64_t> permutation = *found; // `op` may gain users below
  // Check every operand before building anything, so a rule that does not
  // apply leaves no half-built instructions behind.
  for (Instruction *operand : op.operands()) {
    Opcode opcode = operand->opcode();
    bool scalarBound = !concatenate && operand->shape().rank() == 0; // clamp
    bool movable = opcode == Opcode::Constant || opcode == Opcode::Broadcast ||
                   sinkable(*operand, permutation);
    if (!scalarBound && !movable)
      return nullptr;
  }
  std::vector<Instruction *> operands;
  for (Instruction *operand : op.operands()) {
    Instruction *moved = operand->shape().rank() == 0
                             ? operand
                             : untransposed(op, operand, permutation);
    if (!moved)
      return nullptr;
    operands.push_back(moved);
  }
  // The new op has the untransposed dims; its dtype is op's (convert and
  // compare change it).
  std::vector<int64_t> dims(size_t(shape.rank()));
  for (size_t i = 0; i < permutation.size(); ++i)
    dims[size_t(permutation[i])] = shape.dim(i);
  ir::Attributes movedAttrs = op.attrs();
  if (concatenate)
    movedAttrs.dimensions = {permutation[size_t(op.attrs().dimensions.at(0))]};
  Instruction *moved =
      build(*op.parent(), op.opcode(), std::move(operands), movedAttrs,
            ir::Shape(shape.dtype(), std::move(dims)), op.name());
  if (!moved)
    return nullptr;
  ir::Attributes attrs;
  attrs.dimensions = std::move(permutation);
  return build(*op.parent(), Opcode::Transpose, {moved}, std::move(attrs), {},
               op.name());
}

} // namespace kiln::transforms
