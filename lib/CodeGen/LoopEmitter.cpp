//===- LoopEmitter.cpp - Counted loops, indices and storage conversions ---===//
//
// Loops are emitted rotated (body first, test at the bottom) because every
// trip count is static and known non-zero when a loop is emitted at all.
// f16/bf16 conversions are integer bit manipulations in IR (branch-free, so
// they vectorize) rather than fpext/fptrunc, which become libcalls on CPUs
// without native half support.
//
//===----------------------------------------------------------------------===//
#include "EmitterContext.h"

#include <llvm/IR/Constants.h>

namespace kiln::codegen {

using ir::DType;
using llvm::Value;

Error EmitterContext::emitLoop(int64_t begin, int64_t end, int64_t step,
                               llvm::function_ref<Error(Value *)> body,
                               llvm::StringRef name) {
  if (begin >= end)
    return Error::success();
  llvm::Function *function = builder_.GetInsertBlock()->getParent();
  llvm::BasicBlock *preheader = builder_.GetInsertBlock();
  llvm::BasicBlock *loop =
      llvm::BasicBlock::Create(context(), name + ".loop", function);
  llvm::BasicBlock *exit =
      llvm::BasicBlock::Create(context(), name + ".exit", function);
  builder_.CreateBr(loop);
  builder_.SetInsertPoint(loop);
  llvm::PHINode *induction = builder_.CreatePHI(builder_.getInt64Ty(), 2, name);
  induction->addIncoming(i64(begin), preheader);
  if (Error e = body(induction))
    return e;
  Value *next = builder_.CreateNUWAdd(induction, i64(step), name + ".next");
  induction->addIncoming(next, builder_.GetInsertBlock());
  Value *more = builder_.CreateICmpSLT(next, i64(end));
  builder_.CreateCondBr(more, loop, exit);
  builder_.SetInsertPoint(exit);
  return Error::success();
}

Error EmitterContext::emitLoop(Value *begin, Value *end, int64_t step,
                               llvm::function_ref<Error(Value *)> body,
                               llvm::StringRef name) {
  auto *first = llvm::dyn_cast<llvm::ConstantInt>(begin);
  auto *last = llvm::dyn_cast<llvm::ConstantInt>(end);
  if (first && last)
    return emitLoop(first->getSExtValue(), last->getSExtValue(), step, body,
                    name);
  llvm::Function *function = builder_.GetInsertBlock()->getParent();
  llvm::BasicBlock *loop =
      llvm::BasicBlock::Create(context(), name + ".loop", function);
  llvm::BasicBlock *exit =
      llvm::BasicBlock::Create(context(), name + ".exit", function);
  llvm::BasicBlock *preheader = builder_.GetInsertBlock();
  builder_.CreateCondBr(builder_.CreateICmpSLT(begin, end), loop, exit);
  builder_.SetInsertPoint(loop);
  llvm::PHINode *induction = builder_.CreatePHI(builder_.getInt64Ty(), 2, name);
  induction->addIncoming(begin, preheader);
  if (Error e = body(induction))
    return e;
  Value *next = builder_.CreateNUWAdd(induction, i64(step), name + ".next");
  induction->addIncoming(next, builder_.GetInsertBlock());
  builder_.CreateCondBr(builder_.CreateICmpSLT(next, end), loop, exit);
  builder_.SetInsertPoint(exit);
  return Error::success();
}

Error EmitterContext::emitLoopNest(llvm::ArrayRef<int64_t> dims, LoopBody body,
                                   llvm::StringRef name) {
  for (int64_t d : dims)
    if (d == 0)
      return Error::success();
  std::vector<Value *> indices;
  // Recursion over dimensions: each level opens one loop.
  std::function<Error(size_t)> level = [&](size_t d) -> Error {
    if (d == dims.size())
      return body(indices);
    return emitLoop(0, dims[d], 1, [&](Value *iv) -> Error {
      indices.push_back(iv);
      Error e = level(d + 1);
      indices.pop_back();
      return e;
    }, (name + llvm::Twine(d)).str());
  };
  return level(0);
}

Value *EmitterContext::linearIndex(llvm::ArrayRef<Value *> indices,
                                   llvm::ArrayRef<int64_t> dims) {
  assert(indices.size() == dims.size() && "index rank mismatch");
  Value *linear = i64(0);
  int64_t stride = 1;
  for (size_t d = dims.size(); d-- > 0;) {
    Value *term = stride == 1 ? indices[d]
                              : builder_.CreateNUWMul(indices[d], i64(stride));
    linear = d + 1 == dims.size() ? term : builder_.CreateNUWAdd(linear, term);
    stride *= dims[d];
  }
  return linear;
}

/// Whether a linear index below the product of `dims` may be divided in
/// 32 bits: on targets with 32-bit pointers, where an i64 division is a
/// run-time library call (__aeabi_uldivmod on ARM) in the middle of a loop.
/// dims[0] <= 0 means the outermost extent is not known: no bound.
static bool dividesIn32Bits(const llvm::Module &module,
                            llvm::ArrayRef<int64_t> dims) {
  if (module.getDataLayout().getPointerSizeInBits() > 32 || dims.empty() ||
      dims.front() <= 0)
    return false;
  // Below 2^31: room for a tile's rows past the end (kernels' tails).
  int64_t bound = 1;
  for (int64_t dim : dims) {
    if (dim > (int64_t(1) << 31) / bound)
      return false;
    bound *= dim;
  }
  return true;
}

std::vector<Value *> EmitterContext::delinearize(Value *linear,
                                                 llvm::ArrayRef<int64_t> dims) {
  bool narrow = dividesIn32Bits(module_, dims);
  // `linear` may be a vector of indices: narrow and widen lane-wise.
  Value *x = narrow ? builder_.CreateTrunc(
                          linear, linear->getType()->getWithNewBitWidth(32))
                    : linear;
  auto constant = [&](int64_t value) {
    return llvm::ConstantInt::get(x->getType(), value);
  };
  std::vector<Value *> indices(dims.size());
  int64_t stride = 1;
  for (size_t d = dims.size(); d-- > 0;) {
    Value *q = stride == 1 ? x : builder_.CreateUDiv(x, constant(stride));
    indices[d] = d == 0 ? q : builder_.CreateURem(q, constant(dims[d]));
    if (narrow)
      indices[d] = builder_.CreateZExt(indices[d], linear->getType());
    stride *= dims[d];
  }
  return indices;
}

int64_t EmitterContext::linearUnits(int64_t elements) {
  return (elements + kLinearUnit - 1) / kLinearUnit;
}

int64_t EmitterContext::rowUnits(llvm::ArrayRef<int64_t> dims) {
  int64_t units = 1;
  for (size_t d = 0; d + 1 < dims.size(); ++d)
    units *= dims[d];
  return dims.size() == 1 ? dims[0] : units;
}

Error EmitterContext::emitRowsLoop(llvm::ArrayRef<int64_t> dims,
                                   const UnitRange &units, LoopBody body,
                                   llvm::StringRef name) {
  assert(!dims.empty() && "rows of a scalar");
  if (dims.size() == 1)
    return emitLoop(
        units.begin, units.end, 1, [&](Value *i) { return body({i}); }, name);
  llvm::ArrayRef<int64_t> outer = dims.drop_back();
  return emitLoop(
      units.begin, units.end, 1,
      [&](Value *row) -> Error {
        std::vector<Value *> indices = delinearize(row, outer);
        indices.push_back(nullptr);
        return emitLoop(
            0, dims.back(), 1,
            [&](Value *j) -> Error {
              indices.back() = j;
              return body(indices);
            },
            (name + "c").str());
      },
      (name + "r").str());
}

/// The element range [begin, end) of the linear-loop units `units`.
static UnitRange unitElements(EmitterContext &ctx, const UnitRange &units,
                              int64_t count) {
  llvm::IRBuilder<> &b = ctx.builder();
  Value *unit = ctx.i64(EmitterContext::kLinearUnit);
  Value *end = b.CreateNUWMul(units.end, unit);
  Value *all = ctx.i64(count);
  return {b.CreateNUWMul(units.begin, unit),
          b.CreateSelect(b.CreateICmpULT(end, all), end, all)};
}

static Value *minI64(llvm::IRBuilder<> &b, Value *x, Value *y) {
  return b.CreateSelect(b.CreateICmpSLT(x, y), x, y);
}

static Value *maxI64(llvm::IRBuilder<> &b, Value *x, Value *y) {
  return b.CreateSelect(b.CreateICmpSGT(x, y), x, y);
}

Error EmitterContext::emitElementLoop(
    const BufferRef &output, bool vectorizable,
    llvm::function_ref<Expected<Value *>(const ElementIndex &)> generator,
    const UnitRange *units) {
  int64_t count = output.numElements();
  auto store = [&](ElementIndex index) -> Error {
    Expected<Value *> value = generator(index);
    if (!value)
      return value.takeError();
    storeElement(output, index.linear, *value);
    return Error::success();
  };
  if (!vectorizable) {
    auto element = [&](llvm::ArrayRef<Value *> indices) {
      ElementIndex index{{indices.begin(), indices.end()},
                         linearIndex(indices, output.dims), 1};
      return store(std::move(index));
    };
    if (units)
      return emitRowsLoop(output.dims, *units, element);
    return emitLoopNest(output.dims, element);
  }
  unsigned lanes = vectorLanes(output.dtype);
  int64_t vectorEnd = lanes > 1 ? count - count % lanes : 0;
  auto vector = [&](Value *i) { return store(ElementIndex{{}, i, lanes}); };
  auto scalar = [&](Value *i) { return store(ElementIndex{{}, i, 1}); };
  if (units) {
    // A unit starts on a multiple of kLinearUnit, so of `lanes`: every
    // element gets the vector or scalar code it gets in the whole loop.
    UnitRange range = unitElements(*this, *units, count);
    Value *split = i64(vectorEnd);
    if (Error e = emitLoop(range.begin, minI64(builder_, range.end, split),
                           lanes, vector, "v"))
      return e;
    return emitLoop(maxI64(builder_, range.begin, split), range.end, 1, scalar,
                    "t");
  }
  if (Error e = emitLoop(0, vectorEnd, lanes, vector, "v"))
    return e;
  return emitLoop(vectorEnd, count, 1, scalar, "t");
}

unsigned EmitterContext::rowLanes(const BufferRef &output) const {
  if (output.dims.empty())
    return 1;
  unsigned lanes = vectorLanes(output.dtype);
  while (lanes > 1 && output.dims.back() < int64_t(lanes))
    lanes /= 2;
  return lanes;
}

Error EmitterContext::emitRowRuns(
    int64_t row, unsigned lanes,
    llvm::function_ref<Error(Value *, unsigned)> run) {
  int64_t vectorEnd = row - row % int64_t(lanes);
  if (Error e = emitLoop(0, vectorEnd, lanes,
                         [&](Value *j) { return run(j, lanes); }, "v"))
    return e;
  return emitLoop(vectorEnd, row, 1, [&](Value *j) { return run(j, 1); }, "t");
}

Error EmitterContext::emitRowLoop(
    const BufferRef &output, unsigned lanes,
    llvm::function_ref<Expected<Value *>(const ElementIndex &)> generator,
    const UnitRange *units) {
  std::vector<int64_t> outer(output.dims.begin(), output.dims.end() - 1);
  int64_t row = output.dims.back();
  auto rowBody = [&](llvm::ArrayRef<Value *> prefix) -> Error {
    return emitRowRuns(row, lanes, [&](Value *j, unsigned width) -> Error {
      std::vector<Value *> indices(prefix.begin(), prefix.end());
      indices.push_back(j);
      ElementIndex index{indices, linearIndex(indices, output.dims), width};
      Expected<Value *> value = generator(index);
      if (!value)
        return value.takeError();
      storeElement(output, index.linear, *value);
      return Error::success();
    });
  };
  if (!units)
    return emitLoopNest(outer, rowBody);
  return emitLoop(
      units->begin, units->end, 1,
      [&](Value *r) { return rowBody(delinearize(r, outer)); }, "r");
}

// --- Storage conversions ----------------------------------------------------

/// Splat-aware integer constant of the same shape as `like`.
static Value *intLike(llvm::IRBuilder<> &b, Value *like, uint64_t value) {
  return llvm::ConstantInt::get(like->getType(), value);
}

static llvm::Type *withLanes(llvm::Type *scalar, Value *like) {
  if (auto *vec = llvm::dyn_cast<llvm::FixedVectorType>(like->getType()))
    return llvm::FixedVectorType::get(scalar, vec->getNumElements());
  return scalar;
}

/// IEEE half bits -> float (exact), after F. Giesen's half_to_float.
static Value *halfToFloat(llvm::IRBuilder<> &b, Value *bits16) {
  llvm::Type *i32 = withLanes(b.getInt32Ty(), bits16);
  llvm::Type *f32 = withLanes(b.getFloatTy(), bits16);
  Value *h = b.CreateZExt(bits16, i32);
  Value *o = b.CreateShl(b.CreateAnd(h, intLike(b, h, 0x7fff)), intLike(b, h, 13));
  Value *exp = b.CreateAnd(o, intLike(b, h, 0x7c00u << 13));
  o = b.CreateAdd(o, intLike(b, h, (127 - 15) << 23));
  Value *isSpecial = b.CreateICmpEQ(exp, intLike(b, h, 0x7c00u << 13));
  Value *isSmall = b.CreateICmpEQ(exp, intLike(b, h, 0));
  Value *special = b.CreateAdd(o, intLike(b, h, (128 - 16) << 23));
  // Zero/subnormal: renormalize through a float subtraction of 2^-14.
  Value *small = b.CreateFSub(
      b.CreateBitCast(b.CreateAdd(o, intLike(b, h, 1 << 23)), f32),
      llvm::ConstantFP::get(f32, 6.103515625e-05));
  Value *result = b.CreateSelect(isSpecial, special, o);
  result = b.CreateSelect(isSmall, b.CreateBitCast(small, i32), result);
  Value *sign = b.CreateShl(b.CreateAnd(h, intLike(b, h, 0x8000)), intLike(b, h, 16));
  return b.CreateBitCast(b.CreateOr(result, sign), f32);
}

/// float -> IEEE half bits, round to nearest even (Giesen's
/// float_to_half_fast3_rtne made branch-free).
static Value *floatToHalf(llvm::IRBuilder<> &b, Value *value) {
  llvm::Type *i32 = withLanes(b.getInt32Ty(), value);
  llvm::Type *i16 = withLanes(b.getInt16Ty(), value);
  llvm::Type *f32 = withLanes(b.getFloatTy(), value);
  Value *u = b.CreateBitCast(value, i32);
  Value *sign = b.CreateAnd(u, intLike(b, u, 0x80000000u));
  Value *a = b.CreateXor(u, sign);
  // Inf or NaN (or too large: rounds to inf).
  Value *isHuge = b.CreateICmpUGE(a, intLike(b, u, (127 + 16) << 23));
  Value *isNan = b.CreateICmpUGT(a, intLike(b, u, 255u << 23));
  // NaN stays quiet with the top of its payload, as the evaluator's
  // floatToHalf keeps it (bitcast-convert makes payloads visible).
  Value *payload =
      b.CreateAnd(b.CreateLShr(a, intLike(b, u, 13)), intLike(b, u, 0x3ff));
  Value *quietNan = b.CreateOr(payload, intLike(b, u, 0x7e00));
  Value *huge = b.CreateSelect(isNan, quietNan, intLike(b, u, 0x7c00));
  // Subnormal or zero: align mantissa with a magic float add (RNE).
  const uint32_t magic = ((127 - 15) + (23 - 10) + 1) << 23;
  Value *isSmall = b.CreateICmpULT(a, intLike(b, u, 113u << 23));
  Value *sum = b.CreateFAdd(b.CreateBitCast(a, f32),
                            b.CreateBitCast(intLike(b, u, magic), f32));
  Value *small = b.CreateSub(b.CreateBitCast(sum, i32), intLike(b, u, magic));
  // Normal: rebias exponent and round to nearest even.
  Value *odd = b.CreateAnd(b.CreateLShr(a, intLike(b, u, 13)), intLike(b, u, 1));
  Value *normal = b.CreateAdd(a, intLike(b, u, uint32_t((15 - 127) << 23) + 0xfff));
  normal = b.CreateLShr(b.CreateAdd(normal, odd), intLike(b, u, 13));
  Value *result = b.CreateSelect(isSmall, small, normal);
  result = b.CreateSelect(isHuge, huge, result);
  result = b.CreateOr(result, b.CreateLShr(sign, intLike(b, u, 16)));
  return b.CreateTrunc(result, i16);
}

/// float -> bfloat16 bits, round to nearest even; NaN stays a quiet NaN.
static Value *floatToBfloat(llvm::IRBuilder<> &b, Value *value) {
  llvm::Type *i32 = withLanes(b.getInt32Ty(), value);
  llvm::Type *i16 = withLanes(b.getInt16Ty(), value);
  Value *u = b.CreateBitCast(value, i32);
  Value *lsb = b.CreateAnd(b.CreateLShr(u, intLike(b, u, 16)), intLike(b, u, 1));
  Value *rounded = b.CreateAdd(b.CreateAdd(u, intLike(b, u, 0x7fff)), lsb);
  Value *quiet = b.CreateOr(u, intLike(b, u, 0x00400000));
  Value *isNan = b.CreateFCmpUNO(value, value);
  Value *bits = b.CreateSelect(isNan, quiet, rounded);
  return b.CreateTrunc(b.CreateLShr(bits, intLike(b, u, 16)), i16);
}

Value *EmitterContext::toCompute(DType dtype, Value *stored) {
  llvm::IRBuilder<> &b = builder_;
  switch (dtype) {
  case DType::Pred:
    return b.CreateICmpNE(stored, llvm::Constant::getNullValue(stored->getType()));
  case DType::F16:
    return halfToFloat(b, stored);
  case DType::BF16: {
    Value *wide = b.CreateZExt(stored, withLanes(b.getInt32Ty(), stored));
    return b.CreateBitCast(b.CreateShl(wide, intLike(b, wide, 16)),
                           withLanes(b.getFloatTy(), stored));
  }
  default:
    return stored;
  }
}

Value *EmitterContext::toStorage(DType dtype, Value *computed) {
  llvm::IRBuilder<> &b = builder_;
  switch (dtype) {
  case DType::Pred:
    return b.CreateZExt(computed, withLanes(b.getInt8Ty(), computed));
  case DType::F16:
    return floatToHalf(b, computed);
  case DType::BF16:
    return floatToBfloat(b, computed);
  default:
    return computed;
  }
}

} // namespace kiln::codegen
