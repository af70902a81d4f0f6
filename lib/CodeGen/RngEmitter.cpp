//===- RngEmitter.cpp - rng: counter-based random values per element ------===//
//
// Element i of an rng result depends only on (seed, i), so rng is generated
// element by element like iota, fuses into its users and vectorizes over
// consecutive linear indices. The arithmetic is the evaluator's
// (lib/Eval/EvalRng.cpp) operation for operation, from the constants of
// kiln/Support/CounterRandom.h: no fast-math flags, so no operation is
// contracted into an FMA and uniform values agree bit for bit; normal values
// use kiln's own log and cos (Math.h), a few ulps from libm's.
//
//===----------------------------------------------------------------------===//
#include "Emitters.h"
#include "Math.h"

#include "kiln/Support/CounterRandom.h"

#include <llvm/IR/Constants.h>
#include <llvm/IR/Intrinsics.h>

#include <numbers>

namespace kiln::codegen {

using ir::DType;
using ir::Instruction;
using llvm::Value;

namespace {

/// i64 (or <lanes x i64>) constant.
Value *wide(EmitterContext &ctx, unsigned lanes, uint64_t value) {
  return ctx.splat(ctx.builder().getInt64(value), lanes);
}

/// The linear indices of the `index.lanes` elements being produced.
Value *elementCounters(EmitterContext &ctx, const Instruction &inst,
                       const ElementIndex &index) {
  Value *first = ctx.linearOf(index, inst.shape().dims());
  if (index.lanes == 1)
    return first;
  std::vector<llvm::Constant *> steps;
  for (unsigned i = 0; i < index.lanes; ++i)
    steps.push_back(ctx.builder().getInt64(i));
  return ctx.builder().CreateAdd(ctx.splat(first, index.lanes),
                                 llvm::ConstantVector::get(steps));
}

/// random::counterBits in IR.
Value *counterBits(EmitterContext &ctx, uint64_t seed, Value *counter,
                   unsigned lanes) {
  llvm::IRBuilder<> &b = ctx.builder();
  auto mixStep = [&](Value *z, unsigned shift, uint64_t multiplier) {
    Value *mixed = b.CreateXor(z, b.CreateLShr(z, wide(ctx, lanes, shift)));
    return b.CreateMul(mixed, wide(ctx, lanes, multiplier));
  };
  Value *state =
      b.CreateAdd(wide(ctx, lanes, seed),
                  b.CreateMul(b.CreateAdd(counter, wide(ctx, lanes, 1)),
                              wide(ctx, lanes, random::kStateIncrement)));
  Value *z = mixStep(state, random::kMixShift1, random::kMixMultiplier1);
  z = mixStep(z, random::kMixShift2, random::kMixMultiplier2);
  return b.CreateXor(z, b.CreateLShr(z, wide(ctx, lanes, random::kMixShift3)));
}

/// random::unitFloat / unitDouble in IR: the top bits, converted exactly,
/// times a power of two. `type`: float or double (or vectors of them).
Value *unitValue(EmitterContext &ctx, Value *bits, llvm::Type *type,
                 unsigned lanes) {
  llvm::IRBuilder<> &b = ctx.builder();
  bool isDouble = type->getScalarType()->isDoubleTy();
  unsigned unitBits =
      isDouble ? random::kUnitBitsDouble : random::kUnitBitsFloat;
  // Below 2^53, so the signed conversion (cheaper on x86) is exact. The
  // float's 24 bits convert from i32: on 32-bit ARM an i64 conversion is a
  // run-time library call (__aeabi_l2f), an i32 one an instruction.
  Value *top = b.CreateLShr(bits, wide(ctx, lanes, 64 - unitBits));
  if (unitBits < 32) {
    llvm::Type *i32 = b.getInt32Ty();
    top = b.CreateTrunc(top, lanes == 1 ? i32 : llvm::FixedVectorType::get(i32, lanes));
  }
  Value *whole = b.CreateSIToFP(top, type);
  return b.CreateFMul(
      whole, llvm::ConstantFP::get(type, std::ldexp(1.0, -int(unitBits))));
}

Value *floatConstant(llvm::Type *type, double value) {
  return llvm::ConstantFP::get(type, value);
}

/// a + (b - a) * u.
Value *uniformValue(EmitterContext &ctx, const Instruction &inst,
                    Value *counters, Value *a, Value *b, unsigned lanes) {
  llvm::IRBuilder<> &ir = ctx.builder();
  Value *bits = counterBits(ctx, uint64_t(inst.attrs().seed), counters, lanes);
  Value *u = unitValue(ctx, bits, a->getType(), lanes);
  return ir.CreateFAdd(a, ir.CreateFMul(ir.CreateFSub(b, a), u));
}

/// mu + sigma * sqrt(-2 log(1 - u1)) * cos(2 pi u2), u1 from counter 2i and
/// u2 from 2i + 1.
Value *normalValue(EmitterContext &ctx, const Instruction &inst,
                   Value *counters, Value *mu, Value *sigma, unsigned lanes) {
  llvm::IRBuilder<> &ir = ctx.builder();
  llvm::Type *type = mu->getType();
  uint64_t seed = uint64_t(inst.attrs().seed);
  Value *twice = ir.CreateMul(counters, wide(ctx, lanes, 2));
  Value *u1 = unitValue(ctx, counterBits(ctx, seed, twice, lanes), type, lanes);
  Value *u2 = unitValue(
      ctx,
      counterBits(ctx, seed, ir.CreateAdd(twice, wide(ctx, lanes, 1)), lanes),
      type, lanes);
  Value *logTerm = math::log(ctx, ir.CreateFSub(floatConstant(type, 1.0), u1));
  Value *radius = ir.CreateUnaryIntrinsic(
      llvm::Intrinsic::sqrt, ir.CreateFMul(floatConstant(type, -2.0), logTerm));
  Value *angle = ir.CreateFMul(floatConstant(type, 2 * std::numbers::pi), u2);
  Value *z = ir.CreateFMul(radius, math::cos(ctx, angle));
  return ir.CreateFAdd(mu, ir.CreateFMul(sigma, z));
}

} // namespace

Expected<Value *> generateRng(EmitterContext &ctx, const Instruction &inst,
                              const ElementIndex &index) {
  DType dtype = inst.shape().dtype();
  if (!ir::isFloat(dtype))
    return EmitterContext::unsupported(inst, "rng needs a float dtype");
  Expected<Value *> first = ctx.elementOf(*inst.operand(0), {{}, nullptr, 1});
  if (!first)
    return first;
  Expected<Value *> second = ctx.elementOf(*inst.operand(1), {{}, nullptr, 1});
  if (!second)
    return second;
  Value *a = ctx.splat(*first, index.lanes);
  Value *b = ctx.splat(*second, index.lanes);
  Value *counters = elementCounters(ctx, inst, index);
  Value *result = inst.attrs().distribution == ir::RngDistribution::Normal
                      ? normalValue(ctx, inst, counters, a, b, index.lanes)
                      : uniformValue(ctx, inst, counters, a, b, index.lanes);
  // f16/bf16 compute in f32; round to the stored precision so users in a
  // fusion see the value the evaluator stores.
  if (dtype == DType::F16 || dtype == DType::BF16)
    result = ctx.toCompute(dtype, ctx.toStorage(dtype, result));
  return result;
}

} // namespace kiln::codegen
