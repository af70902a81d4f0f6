//===- TransformUtils.cpp - Helpers shared by the rewriting passes --------===//
#include "TransformUtils.h"

#include "kiln/IR/CallGraph.h"

#include "kiln/IR/Verifier.h"

#include <cassert>
#include <cstring>
#include <set>
#include <unordered_map>

namespace kiln::transforms {

using ir::DType;
using ir::Instruction;
using ir::Opcode;

Instruction *build(ir::Computation &computation, Opcode opcode,
                   std::vector<Instruction *> operands, ir::Attributes attrs,
                   const ir::Shape &declared, const std::string &name) {
  std::vector<ir::Shape> shapes;
  for (const Instruction *operand : operands)
    shapes.push_back(operand->shape());
  Expected<ir::Shape> shape = ir::inferShape(opcode, shapes, attrs, declared);
  if (!shape) {
    // Rules compute their attributes from verified instructions, so this is
    // a rule bug; in release builds the rewrite is skipped.
    assert(false && "a rewrite built an instruction that does not verify");
    (void)shape.takeError();
    return nullptr;
  }
  return computation.add(opcode, std::move(*shape), std::move(operands),
                         std::move(attrs), name);
}

namespace {
/// The little-endian bytes of one element equal to `value` in `dtype`, or
/// an empty vector when `value` has no spelling in it (-0.0 for integers).
std::vector<uint8_t> elementBits(DType dtype, SplatValue value) {
  size_t size = ir::byteSize(dtype);
  std::vector<uint8_t> bytes(size, 0);
  if (value == SplatValue::Zero)
    return bytes;
  if (value == SplatValue::NegativeZero) {
    if (!ir::isFloat(dtype))
      return {};
    bytes[size - 1] = 0x80; // only the sign bit
    return bytes;
  }
  // One: integers and pred are 1 in the lowest byte; floats by format.
  uint64_t bits = 1;
  switch (dtype) {
  case DType::F16:
    bits = 0x3C00;
    break;
  case DType::BF16:
    bits = 0x3F80;
    break;
  case DType::F32:
    bits = 0x3F800000;
    break;
  case DType::F64:
    bits = 0x3FF0000000000000;
    break;
  default:
    break;
  }
  std::memcpy(bytes.data(), &bits, size); // little-endian host, as Literal
  return bytes;
}
} // namespace

bool isSplatLiteral(const ir::Literal &literal, SplatValue value) {
  if (literal.shape().isTuple())
    return false;
  std::vector<uint8_t> element = elementBits(literal.shape().dtype(), value);
  if (element.empty())
    return false;
  const std::vector<uint8_t> &bytes = literal.bytes();
  for (size_t offset = 0; offset < bytes.size(); offset += element.size())
    if (std::memcmp(bytes.data() + offset, element.data(), element.size()))
      return false;
  return true;
}

bool isSplat(const Instruction *instruction, SplatValue value) {
  // Broadcasts and reshapes only repeat or rearrange elements.
  while (instruction->opcode() == Opcode::Broadcast ||
         instruction->opcode() == Opcode::Reshape)
    instruction = instruction->operand(0);
  return instruction->opcode() == Opcode::Constant &&
         isSplatLiteral(instruction->literal(), value);
}

std::vector<int64_t>
inversePermutation(const std::vector<int64_t> &permutation) {
  std::vector<int64_t> inverse(permutation.size());
  for (size_t i = 0; i < permutation.size(); ++i)
    inverse[size_t(permutation[i])] = int64_t(i);
  return inverse;
}

bool movesInnermostDimension(const Instruction &value) {
  if (value.opcode() != Opcode::Transpose)
    return false;
  const std::vector<int64_t> &permutation = value.attrs().dimensions;
  return !permutation.empty() &&
         permutation.back() != int64_t(permutation.size()) - 1;
}

std::vector<int64_t> composePermutations(const std::vector<int64_t> &inner,
                                         const std::vector<int64_t> &outer) {
  // Result dim i is the middle value's dim outer[i], which is x's dim
  // inner[outer[i]].
  std::vector<int64_t> result(outer.size());
  for (size_t i = 0; i < outer.size(); ++i)
    result[i] = inner[size_t(outer[i])];
  return result;
}

bool isIdentityPermutation(const std::vector<int64_t> &permutation) {
  for (size_t i = 0; i < permutation.size(); ++i)
    if (permutation[i] != int64_t(i))
      return false;
  return true;
}

std::vector<ir::Computation *> runWholeComputations(ir::Module &module) {
  std::vector<ir::Computation *> computations;
  Expected<ir::CallGraph> graph = ir::CallGraph::build(module);
  if (!graph) { // a broken call graph: the verifier reports it
    (void)graph.takeError();
    if (module.entry())
      computations.push_back(module.entry());
    return computations;
  }
  for (ir::Computation *computation : graph->postOrder()) {
    ir::CallContext context = graph->context(*computation);
    if (context == ir::CallContext::Entry ||
        context == ir::CallContext::Sequential)
      computations.push_back(computation);
  }
  return computations;
}

Instruction *copyComputationInto(ir::Computation &caller,
                                 const ir::Computation &callee,
                                 const std::vector<Instruction *> &arguments) {
  std::unordered_map<const Instruction *, Instruction *> copies;
  for (Instruction *original : callee.instructions()) {
    if (original->opcode() == Opcode::Parameter) {
      copies[original] = arguments.at(size_t(original->parameterNumber()));
      continue;
    }
    std::vector<Instruction *> operands;
    for (Instruction *operand : original->operands())
      operands.push_back(copies.at(operand));
    copies[original] = caller.addCopyOf(*original, std::move(operands));
  }
  return copies.at(callee.root());
}

bool removeUncalledComputations(ir::Module &module) {
  bool changed = false;
  // Removing a caller can orphan its callees, so repeat until stable.
  for (bool removed = true; removed;) {
    removed = false;
    std::set<const ir::Computation *> called;
    for (const ir::Computation *computation : module.computations())
      for (const Instruction *instruction : computation->instructions())
        for (const ir::Computation *callee : instruction->calledComputations())
          called.insert(callee);
    for (ir::Computation *computation : module.computations()) {
      if (computation == module.entry() || called.count(computation))
        continue;
      module.removeComputation(computation);
      removed = changed = true;
      break;
    }
  }
  return changed;
}

void collectRootValues(const ir::Instruction *root,
                       std::set<const ir::Instruction *> &out) {
  out.insert(root);
  if (root->opcode() == ir::Opcode::Tuple)
    for (const ir::Instruction *operand : root->operands())
      collectRootValues(operand, out);
}

} // namespace kiln::transforms
