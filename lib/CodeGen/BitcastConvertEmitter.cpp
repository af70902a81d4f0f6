//===- BitcastConvertEmitter.cpp - bitcast-convert as an element read -----===//
//
// Each result element is made from operand elements' bits, so
// bitcast-convert is generated per element and fuses like a reshape. With
// equal widths it retypes one element. Narrowing (f32 -> u8[..., 4]), the
// minor index k selects bits [k*w, (k+1)*w) of the wide element; widening
// (u8[..., 4] -> f32) ORs operand element k into those bits. Bits are
// numbered from the least significant, which is little-endian byte order
// whatever the target; the integer operations never depend on memory order.
//
//===----------------------------------------------------------------------===//
#include "Emitters.h"

namespace kiln::codegen {

using ir::DType;
using ir::Instruction;
using llvm::Value;

namespace {

unsigned widthBits(DType dtype) { return unsigned(ir::byteSize(dtype)) * 8; }

/// A compute value's bits as an integer of the dtype's width.
Value *bitsOf(EmitterContext &ctx, DType dtype, Value *value) {
  Value *stored = ctx.toStorage(dtype, value); // f16/bf16: i16 bits
  return ctx.builder().CreateBitCast(stored,
                                     ctx.builder().getIntNTy(widthBits(dtype)));
}

/// The compute value whose bits are the integer `bits` of dtype's width.
Value *valueOfBits(EmitterContext &ctx, DType dtype, Value *bits) {
  Value *stored = ctx.builder().CreateBitCast(bits, ctx.storageType(dtype));
  return ctx.toCompute(dtype, stored);
}

/// The operand index of the elements result element `index` reads: the
/// same index with the minor dimension dropped (narrowing) or kept.
std::vector<Value *> outerIndices(EmitterContext &ctx, const Instruction &inst,
                                  const ElementIndex &index) {
  if (!index.indices.empty() || inst.shape().rank() == 0)
    return index.indices;
  return ctx.delinearize(index.linear, inst.shape().dims());
}

/// Narrowing: bits [k*w, (k+1)*w) of the wide operand element.
Expected<Value *> narrowElement(EmitterContext &ctx, const Instruction &inst,
                                std::vector<Value *> indices) {
  llvm::IRBuilder<> &b = ctx.builder();
  DType from = inst.operand(0)->shape().dtype(), to = inst.shape().dtype();
  Value *minor = indices.back();
  indices.pop_back();
  Expected<Value *> wideValue =
      ctx.elementOf(*inst.operand(0), {indices, nullptr, 1});
  if (!wideValue)
    return wideValue;
  Value *bits = bitsOf(ctx, from, *wideValue);
  llvm::Type *wideType = bits->getType();
  Value *shift = b.CreateMul(b.CreateZExtOrTrunc(minor, wideType),
                             llvm::ConstantInt::get(wideType, widthBits(to)));
  Value *part =
      b.CreateTrunc(b.CreateLShr(bits, shift), b.getIntNTy(widthBits(to)));
  return valueOfBits(ctx, to, part);
}

/// Widening: operand elements 0..ratio-1 of the minor dimension, element k
/// in bits [k*w, (k+1)*w).
Expected<Value *> widenElement(EmitterContext &ctx, const Instruction &inst,
                               std::vector<Value *> indices) {
  llvm::IRBuilder<> &b = ctx.builder();
  DType from = inst.operand(0)->shape().dtype(), to = inst.shape().dtype();
  llvm::Type *wideType = b.getIntNTy(widthBits(to));
  unsigned ratio = widthBits(to) / widthBits(from);
  Value *bits = llvm::ConstantInt::get(wideType, 0);
  indices.push_back(nullptr);
  for (unsigned k = 0; k < ratio; ++k) {
    indices.back() = ctx.i64(k);
    Expected<Value *> part =
        ctx.elementOf(*inst.operand(0), {indices, nullptr, 1});
    if (!part)
      return part;
    Value *placed =
        b.CreateShl(b.CreateZExt(bitsOf(ctx, from, *part), wideType),
                    uint64_t(k) * widthBits(from));
    bits = b.CreateOr(bits, placed);
  }
  return valueOfBits(ctx, to, bits);
}

} // namespace

Expected<Value *> generateBitcastConvert(EmitterContext &ctx,
                                         const Instruction &inst,
                                         const ElementIndex &index) {
  if (index.lanes != 1)
    return EmitterContext::unsupported(inst, "bitcast-convert in vectors");
  DType from = inst.operand(0)->shape().dtype(), to = inst.shape().dtype();
  if (from == DType::Pred || to == DType::Pred)
    return EmitterContext::unsupported(inst, "bitcast-convert of pred");
  std::vector<Value *> indices = outerIndices(ctx, inst, index);
  if (widthBits(from) > widthBits(to))
    return narrowElement(ctx, inst, std::move(indices));
  if (widthBits(from) < widthBits(to))
    return widenElement(ctx, inst, std::move(indices));
  Expected<Value *> value =
      ctx.elementOf(*inst.operand(0), {indices, nullptr, 1});
  if (!value)
    return value;
  return valueOfBits(ctx, to, bitsOf(ctx, from, *value));
}

} // namespace kiln::codegen
