//===- BitcastConvertEmitter.cpp - bitcast-convert as an element read -----===//
//
// Each result element is made from operand elements' bits, so
// bitcast-convert is generated per element and fuses like a reshape. With
// equal widths it retypes one element. Narrowing (f32 -> u8[..., 4]), the
// minor index k selects bits [k*w, (k+1)*w) of the wide element; widening
// (u8[..., 4] -> f32) ORs operand element k into those bits. Bits are
// numbered from the least significant, which is little-endian byte order
// whatever the target; the integer operations never depend on memory order.
// An f16/bf16 result is a float compute value like any other, so storing it
// quiets a signaling NaN (docs/hlo.md).
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

/// The result element's multi-dimensional index (delinearized when the
/// loop gives only the linear one).
std::vector<Value *> resultIndices(EmitterContext &ctx, const Instruction &inst,
                                   const ElementIndex &index) {
  if (!index.indices.empty() || inst.shape().rank() == 0)
    return index.indices;
  return ctx.delinearize(index.linear, inst.shape().dims());
}

/// The bits of the operand element at `indices`. f16 and bf16 compute as
/// float, whose conversion back quiets a signaling NaN, so an operand in
/// memory is read as its stored bits instead.
Expected<Value *> operandBits(EmitterContext &ctx, const Instruction &inst,
                              const std::vector<Value *> &indices) {
  DType from = inst.operand(0)->shape().dtype();
  if (from == DType::F16 || from == DType::BF16)
    if (std::optional<BufferRef> buffer = ctx.operandBuffer(inst, 0)) {
      Value *linear = ctx.linearIndex(indices, buffer->dims);
      return ctx.builder().CreateAlignedLoad(
          ctx.storageType(from), ctx.elementPointer(*buffer, linear),
          llvm::Align(ir::byteSize(from)));
    }
  Expected<Value *> value =
      ctx.elementOf(*inst.operand(0), {indices, nullptr, 1});
  if (!value)
    return value;
  return bitsOf(ctx, from, *value);
}

/// Narrowing: bits [k*w, (k+1)*w) of the wide operand element.
Expected<Value *> narrowElement(EmitterContext &ctx, const Instruction &inst,
                                std::vector<Value *> indices) {
  llvm::IRBuilder<> &b = ctx.builder();
  DType to = inst.shape().dtype();
  Value *minor = indices.back();
  indices.pop_back();
  Expected<Value *> wideBits = operandBits(ctx, inst, indices);
  if (!wideBits)
    return wideBits;
  Value *bits = *wideBits;
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
    Expected<Value *> part = operandBits(ctx, inst, indices);
    if (!part)
      return part;
    Value *placed = b.CreateShl(b.CreateZExt(*part, wideType),
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
  std::vector<Value *> indices = resultIndices(ctx, inst, index);
  if (widthBits(from) > widthBits(to))
    return narrowElement(ctx, inst, std::move(indices));
  if (widthBits(from) < widthBits(to))
    return widenElement(ctx, inst, std::move(indices));
  Expected<Value *> bits = operandBits(ctx, inst, indices);
  if (!bits)
    return bits;
  return valueOfBits(ctx, to, *bits);
}

} // namespace kiln::codegen
