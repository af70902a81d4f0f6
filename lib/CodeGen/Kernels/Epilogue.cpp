//===- Epilogue.cpp - Fused elementwise chains applied in registers -------===//
#include "Epilogue.h"
#include "KernelSupport.h"

#include "../Emitters.h"

#include <fmt/format.h>

#include <set>

namespace kiln::codegen::kernels {

using ir::Instruction;
using ir::Opcode;
using llvm::Value;

namespace {

bool sameDims(const Instruction &a, const Instruction &b) {
  return a.shape().dims() == b.shape().dims();
}

/// Scalar constants (or broadcasts of one) become immediates in the chain.
bool isImmediate(const Instruction &operand) {
  if (operand.opcode() == Opcode::Constant)
    return operand.shape().numElements() == 1;
  return operand.opcode() == Opcode::Broadcast &&
         operand.operand(0)->shape().rank() == 0 &&
         operand.operand(0)->opcode() == Opcode::Constant;
}

bool holdsData(const Instruction &value) {
  return value.opcode() == Opcode::Parameter ||
         value.opcode() == Opcode::Constant;
}

} // namespace

std::optional<Epilogue::Leaf>
Epilogue::classifyLeaf(const Instruction &operand) const {
  int64_t featureDim = contraction_->shape().rank() - 1;
  if (operand.opcode() == Opcode::Parameter && sameDims(operand, *contraction_))
    return Leaf{&operand, &operand, LeafKind::Full};
  if (operand.opcode() != Opcode::Broadcast)
    return std::nullopt;
  const Instruction &source = *operand.operand(0);
  if (!holdsData(source))
    return std::nullopt;
  if (source.shape().rank() == 0)
    return Leaf{&operand, &source, LeafKind::Scalar};
  if (source.shape().rank() == 1 &&
      operand.attrs().dimensions == std::vector<int64_t>{featureDim})
    return Leaf{&operand, &source, LeafKind::PerChannel};
  return std::nullopt;
}

std::optional<Epilogue> Epilogue::analyze(const Instruction &fusion,
                                          const Instruction &contraction) {
  Epilogue epilogue;
  epilogue.contraction_ = &contraction;
  epilogue.fusion_ = &fusion;
  const ir::Computation &body = *fusion.calledComputation();
  const Instruction *root = body.root();
  if (root->shape().isTuple() || !sameDims(*root, contraction) ||
      root->shape().dtype() != contraction.shape().dtype())
    return std::nullopt;
  std::set<const Instruction *> chain{&contraction}, leafUses;
  for (const Instruction *inst : body.instructions()) {
    bool fed = false;
    for (const Instruction *operand : inst->operands())
      fed |= chain.count(operand) > 0;
    if (!fed)
      continue;
    if (!ir::isElementwise(inst->opcode()) || !sameDims(*inst, contraction))
      return std::nullopt;
    for (const Instruction *operand : inst->operands()) {
      if (chain.count(operand) || isImmediate(*operand) ||
          leafUses.count(operand))
        continue;
      std::optional<Leaf> leaf = epilogue.classifyLeaf(*operand);
      if (!leaf)
        return std::nullopt;
      leafUses.insert(operand);
      epilogue.leaves_.push_back(*leaf);
    }
    chain.insert(inst);
    epilogue.chain_.push_back(inst);
  }
  if (epilogue.chain_.empty() || epilogue.chain_.back() != root)
    return std::nullopt;
  return epilogue;
}

std::vector<Value *> Epilogue::leafPointers(EmitterContext &ctx) const {
  std::vector<Value *> pointers;
  for (const Leaf &leaf : leaves_)
    pointers.push_back(ctx.bufferAddress({leaf.data, -1}));
  return pointers;
}

std::string Epilogue::key() const {
  if (chain_.empty())
    return "none";
  // Positions stand for instructions, so equal chains over different
  // weights share a key.
  std::map<const Instruction *, size_t> position{{contraction_, 0}};
  for (const Leaf &leaf : leaves_)
    position.emplace(leaf.use, position.size());
  std::string key;
  auto name = [&](const Instruction *operand) -> std::string {
    auto found = position.find(operand);
    if (found != position.end())
      return fmt::format("v{}", found->second);
    // An immediate: its bits are part of the function.
    const Instruction *constant =
        operand->opcode() == Opcode::Broadcast ? operand->operand(0) : operand;
    std::string bits;
    for (uint8_t byte : constant->literal().bytes())
      bits += fmt::format("{:02x}", byte);
    return "#" + bits;
  };
  for (const Leaf &leaf : leaves_)
    key += fmt::format("L{}{};", int(leaf.kind), leaf.data->shape().toString());
  for (const Instruction *inst : chain_) {
    key += fmt::format("{}{}", ir::opcodeName(inst->opcode()),
                       inst->shape().toString());
    if (inst->opcode() == Opcode::Compare)
      key += fmt::format("{}{}",
                         ir::comparisonDirectionName(inst->attrs().direction),
                         ir::comparisonTypeName(inst->attrs().comparisonType));
    if (inst->opcode() == Opcode::ReducePrecision)
      key += fmt::format("e{}m{}", inst->attrs().exponentBits,
                         inst->attrs().mantissaBits);
    for (const Instruction *operand : inst->operands())
      key += "," + name(operand);
    position.emplace(inst, position.size());
    key += ";";
  }
  return key;
}

std::string Epilogue::describe() const {
  std::string text;
  for (const Instruction *inst : chain_)
    text +=
        (text.empty() ? "" : ",") + std::string(ir::opcodeName(inst->opcode()));
  return text;
}

Expected<Value *> Epilogue::apply(EmitterContext &ctx, Value *acc,
                                  Value *linear, Value *feature, int64_t lanes,
                                  int64_t valid,
                                  llvm::ArrayRef<Value *> leaves) const {
  if (chain_.empty())
    return acc;
  ir::DType dtype = contraction_->shape().dtype();
  uint64_t align = ir::byteSize(dtype);
  ctx.setOverride(*contraction_, acc);
  for (size_t i = 0; i < leaves_.size(); ++i) {
    const Leaf &leaf = leaves_[i];
    ir::DType leafType = leaf.data->shape().dtype();
    Value *value = nullptr;
    switch (leaf.kind) {
    case LeafKind::PerChannel:
      value = loadLanes(ctx, leafType,
                        offsetPointer(ctx, leafType, leaves[i], feature), lanes,
                        valid, align);
      break;
    case LeafKind::Full:
      value = loadLanes(ctx, leafType,
                        offsetPointer(ctx, leafType, leaves[i], linear), lanes,
                        valid, align);
      break;
    case LeafKind::Scalar:
      value = ctx.splat(
          ctx.builder().CreateAlignedLoad(ctx.storageType(leafType), leaves[i],
                                          llvm::Align(ir::byteSize(leafType))),
          unsigned(lanes));
      break;
    }
    ctx.setOverride(*leaf.use, ctx.toCompute(leafType, value));
  }
  ElementIndex index{{}, ctx.i64(0), unsigned(lanes)};
  Value *result = nullptr;
  for (const Instruction *inst : chain_) {
    Expected<Value *> value = generateElement(ctx, *inst, index);
    if (!value) {
      ctx.clearOverrides();
      return value.takeError();
    }
    ctx.setOverride(*inst, *value);
    result = *value;
  }
  ctx.clearOverrides();
  return result;
}

} // namespace kiln::codegen::kernels
