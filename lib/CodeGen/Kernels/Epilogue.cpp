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
  if (isChannelPad(operand))
    return Leaf{&operand, operand.operand(0), LeafKind::Padded};
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

/// A pad of a fusion parameter by a scalar constant, at the edges of the
/// output features (the last dimension) only: every output pixel reads the
/// same pixel of the parameter, so lanes of consecutive features load
/// consecutive elements, some replaced by the pad value.
bool Epilogue::isChannelPad(const Instruction &operand) const {
  if (operand.opcode() != Opcode::Pad || !sameDims(operand, *contraction_))
    return false;
  const Instruction &source = *operand.operand(0);
  const Instruction &value = *operand.operand(1);
  if (source.opcode() != Opcode::Parameter ||
      value.opcode() != Opcode::Constant || value.shape().rank() != 0)
    return false;
  const std::vector<ir::PadDim> &padding = operand.attrs().padding;
  size_t featureDim = size_t(contraction_->shape().rank() - 1);
  if (padding.size() != featureDim + 1)
    return false;
  for (size_t d = 0; d < padding.size(); ++d) {
    const ir::PadDim &pad = padding[d];
    if (pad.interior != 0 || pad.low < 0 || pad.high < 0 ||
        (d != featureDim && (pad.low != 0 || pad.high != 0)))
      return false;
  }
  return true;
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
  for (const Leaf &leaf : leaves_) {
    key += fmt::format("L{}{}", int(leaf.kind), leaf.data->shape().toString());
    if (leaf.kind == LeafKind::Padded) // where the features start, the value
      key += fmt::format("@{}{}", leaf.use->attrs().padding.back().low,
                         name(leaf.use->operand(1)));
    key += ";";
  }
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
    case LeafKind::Padded: {
      Expected<Value *> padded =
          loadPadded(ctx, leaf, leaves[i], linear, feature, lanes, valid);
      if (!padded) {
        ctx.clearOverrides();
        return padded.takeError();
      }
      ctx.setOverride(*leaf.use, *padded);
      continue;
    }
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

/// The padded leaf's lanes: the parameter's elements at the output pixel
/// (`linear` less `feature`, over the output's features) for the features
/// it covers, the pad value elsewhere; lanes past `valid` are never read.
Expected<Value *> Epilogue::loadPadded(EmitterContext &ctx, const Leaf &leaf,
                                       Value *data, Value *linear,
                                       Value *feature, int64_t lanes,
                                       int64_t valid) const {
  llvm::IRBuilder<> &b = ctx.builder();
  ir::DType dtype = leaf.data->shape().dtype();
  int64_t outFeatures = contraction_->shape().dims().back();
  int64_t inFeatures = leaf.data->shape().dims().back();
  int64_t low = leaf.use->attrs().padding.back().low;
  Value *pixel = b.CreateUDiv(b.CreateNUWSub(linear, feature),
                              ctx.i64(outFeatures));
  // The parameter's feature under lane 0; negative in the low padding.
  Value *first = b.CreateSub(feature, ctx.i64(low));
  Value *at = b.CreateAdd(b.CreateNUWMul(pixel, ctx.i64(inFeatures)), first);
  std::vector<llvm::Constant *> steps, live;
  for (int64_t j = 0; j < lanes; ++j) {
    steps.push_back(b.getInt64(uint64_t(j)));
    live.push_back(b.getInt1(j < valid));
  }
  // Unsigned: a negative feature wraps above inFeatures.
  Value *source = b.CreateAdd(b.CreateVectorSplat(unsigned(lanes), first),
                              llvm::ConstantVector::get(steps));
  Value *inside = b.CreateICmpULT(
      source, b.CreateVectorSplat(unsigned(lanes), ctx.i64(inFeatures)));
  auto *type =
      llvm::FixedVectorType::get(ctx.storageType(dtype), unsigned(lanes));
  Value *loaded = b.CreateMaskedLoad(
      type, offsetPointer(ctx, dtype, data, at),
      llvm::Align(ir::byteSize(dtype)),
      b.CreateAnd(inside, llvm::ConstantVector::get(live)),
      llvm::Constant::getNullValue(type));
  ElementIndex index{{}, ctx.i64(0), unsigned(lanes)};
  Expected<Value *> padValue =
      generateElement(ctx, *leaf.use->operand(1), index);
  if (!padValue)
    return padValue.takeError();
  Value *fill = *padValue;
  if (!fill->getType()->isVectorTy())
    fill = b.CreateVectorSplat(unsigned(lanes), fill);
  return b.CreateSelect(inside, ctx.toCompute(dtype, loaded), fill);
}

} // namespace kiln::codegen::kernels
