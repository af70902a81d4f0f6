//===- ContractionEmitter.cpp - dot and convolution -----------------------===//
//
// The generic dot and convolution: what runs when no kernel of
// lib/CodeGen/Kernels applies (integer and half types, layouts the kernels
// do not read, run-time weights of a convolution). Every output element
// sums its products in row-major order of the contracted dimensions, starting
// from zero, so results match a naive reference bit for bit where the
// arithmetic is exact and within rounding otherwise.
//
// dot has a row kernel for the common layout (one rhs free dimension, the
// last): out[b, i, :] += lhs[b, i, k] * rhs[b, k, :], whose inner loop walks
// rhs and out contiguously with explicit target-width vectors and a scalar
// tail. The general case is a plain loop nest over output elements.
//
//===----------------------------------------------------------------------===//
#include "ComputeHelpers.h"
#include "Emitters.h"
#include "Kernels/Kernels.h"

#include <llvm/IR/Constants.h>
#include <llvm/IR/Intrinsics.h>

#include <algorithm>

namespace kiln::codegen {

using ir::DType;
using ir::Instruction;
using llvm::ArrayRef;
using llvm::Value;

namespace {

bool contains(ArrayRef<int64_t> dims, int64_t d) {
  return std::find(dims.begin(), dims.end(), d) != dims.end();
}

/// The roles of one dot operand's dimensions.
struct DotSide {
  std::vector<int64_t> batch, contracting, free;
};

DotSide dotSide(const ir::Shape &shape, const std::vector<int64_t> &batch,
                const std::vector<int64_t> &contracting) {
  DotSide side{batch, contracting, {}};
  for (int64_t d = 0; d < shape.rank(); ++d)
    if (!contains(batch, d) && !contains(contracting, d))
      side.free.push_back(d);
  return side;
}

/// Operand index of one side from output indices (batch, lhs free, rhs
/// free, in that order) and contracted indices.
std::vector<Value *> sideIndex(const DotSide &side, int64_t rank,
                               ArrayRef<Value *> batch, ArrayRef<Value *> free,
                               ArrayRef<Value *> contracted) {
  std::vector<Value *> index(size_t(rank), nullptr);
  for (size_t i = 0; i < side.batch.size(); ++i)
    index[size_t(side.batch[i])] = batch[i];
  for (size_t i = 0; i < side.free.size(); ++i)
    index[size_t(side.free[i])] = free[i];
  for (size_t i = 0; i < side.contracting.size(); ++i)
    index[size_t(side.contracting[i])] = contracted[i];
  return index;
}

struct DotPlan {
  DotSide lhs, rhs;
  std::vector<int64_t> contractSizes;
  int64_t lhsRank = 0, rhsRank = 0;
};

DotPlan planDot(const Instruction &instruction) {
  const auto &dn = instruction.attrs().dot;
  const ir::Shape &l = instruction.operand(0)->shape();
  const ir::Shape &r = instruction.operand(1)->shape();
  DotPlan plan{dotSide(l, dn.lhsBatch, dn.lhsContracting),
               dotSide(r, dn.rhsBatch, dn.rhsContracting),
               {},
               l.rank(),
               r.rank()};
  for (int64_t d : dn.lhsContracting)
    plan.contractSizes.push_back(l.dim(size_t(d)));
  return plan;
}

/// acc + a * b in dtype's compute type: one fused, singly rounded step on
/// targets with FMA (EmitterContext::fusedMultiplyAdd), else two.
Expected<Value *> multiplyAdd(EmitterContext &ctx, const Instruction &inst,
                              DType dtype, Value *acc, Value *a, Value *b) {
  if (ctx.fusedMultiplyAdd(acc->getType()) && ir::isFloat(dtype) &&
      dtype != DType::F16 && dtype != DType::BF16)
    return ctx.builder().CreateIntrinsic(llvm::Intrinsic::fma, {acc->getType()},
                                         {a, b, acc});
  Value *product = emitElementwiseOp(ctx, ir::Opcode::Multiply, dtype, {a, b});
  Value *sum =
      product ? emitElementwiseOp(ctx, ir::Opcode::Add, dtype, {acc, product})
              : nullptr;
  if (!sum)
    return EmitterContext::unsupported(inst, "multiply-add for this dtype");
  return sum;
}

/// General dot: one register accumulator per output element.
Error emitDotGeneric(EmitterContext &ctx, const Instruction &instruction,
                     const DotPlan &plan) {
  DType dtype = instruction.shape().dtype();
  Value *zero = llvm::Constant::getNullValue(ctx.computeType(dtype));
  size_t nb = plan.lhs.batch.size(), nl = plan.lhs.free.size();
  return emitAccumulation(
      ctx, instruction, zero, plan.contractSizes, "k",
      [&](ArrayRef<Value *> o, ArrayRef<Value *> k,
          Value *acc) -> Expected<Value *> {
        ArrayRef<Value *> batch = o.take_front(nb);
        ArrayRef<Value *> lfree = o.slice(nb, nl),
                          rfree = o.drop_front(nb + nl);
        Expected<Value *> x = ctx.operandElement(
            instruction, 0, sideIndex(plan.lhs, plan.lhsRank, batch, lfree, k));
        if (!x)
          return x.takeError();
        Expected<Value *> y = ctx.operandElement(
            instruction, 1, sideIndex(plan.rhs, plan.rhsRank, batch, rfree, k));
        if (!y)
          return y.takeError();
        return multiplyAdd(ctx, instruction, dtype, acc, *x, *y);
      });
}

/// Whether the row kernel applies: the rhs's only free dim is its last, both
/// operands sit in memory, and the output type accumulates exactly in its
/// own storage (not f16/bf16, which would round every partial sum).
bool rowKernelApplies(EmitterContext &ctx, const Instruction &instruction,
                      const DotPlan &plan) {
  DType dtype = instruction.shape().dtype();
  if (dtype == DType::F16 || dtype == DType::BF16 || dtype == DType::Pred)
    return false;
  if (plan.rhs.free.size() != 1 || plan.rhs.free[0] != plan.rhsRank - 1)
    return false;
  return ctx.operandBuffer(instruction, 0) && ctx.operandBuffer(instruction, 1);
}

/// The row kernel: zero out[b, i, :], then for each contracted k add
/// lhs[b, i, k] * rhs[b, k, :] to it, walking rhs and out contiguously.
Error emitDotRows(EmitterContext &ctx, const Instruction &instruction,
                  const DotPlan &plan) {
  DType dtype = instruction.shape().dtype();
  const auto &outDims = instruction.shape().dims();
  BufferRef out = ctx.outputBuffer(instruction);
  BufferRef lhs = *ctx.operandBuffer(instruction, 0);
  BufferRef rhs = *ctx.operandBuffer(instruction, 1);
  int64_t n = rhs.dims.back();
  std::vector<int64_t> outerDims(outDims.begin(), outDims.end() - 1);
  size_t nb = plan.lhs.batch.size();
  auto &b = ctx.builder();
  return ctx.emitLoopNest(outerDims, [&](ArrayRef<Value *> o) -> Error {
    ArrayRef<Value *> batch = o.take_front(nb), lfree = o.drop_front(nb);
    std::vector<Value *> rowIndex(o.begin(), o.end());
    rowIndex.push_back(ctx.i64(0));
    Value *outBase = ctx.linearIndex(rowIndex, outDims);
    if (Error e = emitVectorRow(ctx, dtype, n, [&](Value *j, unsigned lanes) {
          Value *zero =
              llvm::Constant::getNullValue(ctx.computeType(dtype, lanes));
          ctx.storeElement(out, b.CreateAdd(outBase, j), zero);
          return Error::success();
        }))
      return e;
    return ctx.emitLoopNest(
        plan.contractSizes,
        [&](ArrayRef<Value *> k) -> Error {
          Value *a = ctx.loadElement(
              lhs, ctx.linearIndex(
                       sideIndex(plan.lhs, plan.lhsRank, batch, lfree, k),
                       lhs.dims));
          Value *rhsBase = ctx.linearIndex(
              sideIndex(plan.rhs, plan.rhsRank, batch, {ctx.i64(0)}, k),
              rhs.dims);
          return emitVectorRow(ctx, dtype, n, [&](Value *j, unsigned lanes) {
            Value *x = lanes > 1 ? b.CreateVectorSplat(lanes, a) : a;
            Value *y = ctx.loadElement(rhs, b.CreateAdd(rhsBase, j), lanes);
            Value *at = b.CreateAdd(outBase, j);
            Expected<Value *> next = multiplyAdd(
                ctx, instruction, dtype, ctx.loadElement(out, at, lanes), x, y);
            if (!next)
              return next.takeError();
            ctx.storeElement(out, at, *next);
            return Error::success();
          });
        },
        "k");
  });
}

} // namespace

Error emitDot(EmitterContext &ctx, const Instruction &instruction) {
  Expected<bool> kernel = kernels::emitDotKernel(ctx, instruction, nullptr);
  if (!kernel)
    return kernel.takeError();
  if (*kernel)
    return Error::success();
  DotPlan plan = planDot(instruction);
  if (rowKernelApplies(ctx, instruction, plan))
    return emitDotRows(ctx, instruction, plan);
  return emitDotGeneric(ctx, instruction, plan);
}

namespace {

/// The per-output-element constants of a convolution.
struct ConvPlan {
  const ir::ConvolutionDimensionNumbers *dn = nullptr;
  std::vector<int64_t> kernelSizes; // kernel spatial sizes, then Cin/groups
  int64_t inRank = 0, kernelRank = 0;
  int64_t inputFeaturesPerGroup = 0;  // kernel input feature size
  int64_t outputsPerFeatureGroup = 0; // O / feature_group_count
  int64_t outputsPerBatchGroup = 0;   // O / batch_group_count
  int64_t batchPerGroup = 0;          // N / batch_group_count
};

ConvPlan planConv(const Instruction &instruction) {
  const auto &attrs = instruction.attrs();
  const ir::Shape &in = instruction.operand(0)->shape();
  const ir::Shape &kernel = instruction.operand(1)->shape();
  ConvPlan plan;
  plan.dn = &attrs.conv;
  for (int64_t d : attrs.conv.kernelSpatial)
    plan.kernelSizes.push_back(kernel.dim(size_t(d)));
  plan.inputFeaturesPerGroup =
      kernel.dim(size_t(attrs.conv.kernelInputFeature));
  plan.kernelSizes.push_back(plan.inputFeaturesPerGroup);
  plan.inRank = in.rank();
  plan.kernelRank = kernel.rank();
  int64_t outputs = kernel.dim(size_t(attrs.conv.kernelOutputFeature));
  plan.outputsPerFeatureGroup = outputs / attrs.featureGroupCount;
  plan.outputsPerBatchGroup = outputs / attrs.batchGroupCount;
  plan.batchPerGroup =
      in.dim(size_t(attrs.conv.inputBatch)) / attrs.batchGroupCount;
  return plan;
}

/// Input and kernel indices of one tap, and whether the tap reads the input
/// (false on padding and on lhs-dilation holes, which contribute nothing).
struct ConvTap {
  std::vector<Value *> input, kernel;
  Value *valid = nullptr;
};

ConvTap convTap(EmitterContext &ctx, const Instruction &instruction,
                const ConvPlan &plan, ArrayRef<Value *> o,
                ArrayRef<Value *> t) {
  auto &b = ctx.builder();
  const auto &dn = *plan.dn;
  const ir::Shape &in = instruction.operand(0)->shape();
  ConvTap tap{std::vector<Value *>(size_t(plan.inRank)),
              std::vector<Value *>(size_t(plan.kernelRank)), b.getTrue()};
  Value *fo = o[size_t(dn.outputFeature)];
  Value *featureGroup = b.CreateUDiv(fo, ctx.i64(plan.outputsPerFeatureGroup));
  Value *batchGroup = b.CreateUDiv(fo, ctx.i64(plan.outputsPerBatchGroup));
  Value *ci = t.back();
  tap.input[size_t(dn.inputBatch)] =
      b.CreateAdd(b.CreateMul(batchGroup, ctx.i64(plan.batchPerGroup)),
                  o[size_t(dn.outputBatch)]);
  tap.input[size_t(dn.inputFeature)] = b.CreateAdd(
      b.CreateMul(featureGroup, ctx.i64(plan.inputFeaturesPerGroup)), ci);
  tap.kernel[size_t(dn.kernelInputFeature)] = ci;
  tap.kernel[size_t(dn.kernelOutputFeature)] = fo;
  for (size_t s = 0; s < dn.inputSpatial.size(); ++s) {
    const ir::WindowDim &w = instruction.attrs().window[s];
    int64_t size = in.dim(size_t(dn.inputSpatial[s]));
    int64_t dilatedSize = (size - 1) * w.baseDilation + 1;
    Value *pos =
        b.CreateSub(b.CreateAdd(b.CreateMul(o[size_t(dn.outputSpatial[s])],
                                            ctx.i64(w.stride)),
                                b.CreateMul(t[s], ctx.i64(w.windowDilation))),
                    ctx.i64(w.padLow));
    Value *inside = b.CreateAnd(b.CreateICmpSGE(pos, ctx.i64(0)),
                                b.CreateICmpSLT(pos, ctx.i64(dilatedSize)));
    Value *safe = clampI64(ctx, pos, 0, dilatedSize - 1);
    if (w.baseDilation != 1) {
      Value *hole = b.CreateICmpNE(b.CreateURem(safe, ctx.i64(w.baseDilation)),
                                   ctx.i64(0));
      inside = b.CreateAnd(inside, b.CreateNot(hole));
      safe = b.CreateUDiv(safe, ctx.i64(w.baseDilation));
    }
    tap.valid = b.CreateAnd(tap.valid, inside);
    tap.input[size_t(dn.inputSpatial[s])] = safe;
    tap.kernel[size_t(dn.kernelSpatial[s])] = t[s];
  }
  return tap;
}

/// Whether the feature-row kernel applies: output features are the last
/// output dim and the kernel's output features its last dim (NHWC/HWIO and
/// the like), no batch groups, both operands in memory, and partial sums
/// exact in the output's storage (not f16/bf16/pred).
bool convRowsApply(EmitterContext &ctx, const Instruction &instruction) {
  const auto &dn = instruction.attrs().conv;
  DType dtype = instruction.shape().dtype();
  if (dtype == DType::F16 || dtype == DType::BF16 || dtype == DType::Pred)
    return false;
  if (dn.outputFeature != instruction.shape().rank() - 1 ||
      dn.kernelOutputFeature != instruction.operand(1)->shape().rank() - 1 ||
      instruction.attrs().batchGroupCount != 1)
    return false;
  return ctx.operandBuffer(instruction, 0) && ctx.operandBuffer(instruction, 1);
}

/// The feature-row kernel: for each output position and feature group, add
/// x * kernel[tap, ci, group's features] to the contiguous output feature
/// row with target-width vectors, skipping padding taps. Each output element
/// sums the same taps in the same order as the generic path.
Error emitConvRows(EmitterContext &ctx, const Instruction &instruction,
                   const ConvPlan &plan) {
  DType dtype = instruction.shape().dtype();
  const auto &outDims = instruction.shape().dims();
  BufferRef out = ctx.outputBuffer(instruction);
  BufferRef in = *ctx.operandBuffer(instruction, 0);
  BufferRef kernel = *ctx.operandBuffer(instruction, 1);
  int64_t features = outDims.back(), perGroup = plan.outputsPerFeatureGroup;
  std::vector<int64_t> positions(outDims.begin(), outDims.end() - 1);
  auto &b = ctx.builder();
  return ctx.emitLoopNest(positions, [&](ArrayRef<Value *> p) -> Error {
    std::vector<Value *> o(p.begin(), p.end());
    o.push_back(ctx.i64(0));
    Value *outBase = ctx.linearIndex(o, outDims);
    if (Error e =
            emitVectorRow(ctx, dtype, features, [&](Value *j, unsigned lanes) {
              ctx.storeElement(
                  out, b.CreateAdd(outBase, j),
                  llvm::Constant::getNullValue(ctx.computeType(dtype, lanes)));
              return Error::success();
            }))
      return e;
    return ctx.emitLoop(
        0, instruction.attrs().featureGroupCount, 1,
        [&](Value *g) {
          Value *first = b.CreateMul(g, ctx.i64(perGroup));
          o.back() = first;
          return ctx.emitLoopNest(
              plan.kernelSizes,
              [&](ArrayRef<Value *> t) -> Error {
                ConvTap tap = convTap(ctx, instruction, plan, o, t);
                Value *x =
                    ctx.loadElement(in, ctx.linearIndex(tap.input, in.dims));
                Value *kernelBase = ctx.linearIndex(tap.kernel, kernel.dims);
                Value *rowBase = b.CreateAdd(outBase, first);
                llvm::Function *function = b.GetInsertBlock()->getParent();
                auto *then = llvm::BasicBlock::Create(ctx.context(),
                                                      "tap.valid", function);
                auto *next = llvm::BasicBlock::Create(ctx.context(), "tap.next",
                                                      function);
                b.CreateCondBr(tap.valid, then, next);
                b.SetInsertPoint(then);
                if (Error e = emitVectorRow(
                        ctx, dtype, perGroup,
                        [&](Value *j, unsigned lanes) -> Error {
                          Value *at = b.CreateAdd(rowBase, j);
                          Value *w = ctx.loadElement(
                              kernel, b.CreateAdd(kernelBase, j), lanes);
                          Value *xs =
                              lanes > 1 ? b.CreateVectorSplat(lanes, x) : x;
                          Expected<Value *> sum = multiplyAdd(
                              ctx, instruction, dtype,
                              ctx.loadElement(out, at, lanes), xs, w);
                          if (!sum)
                            return sum.takeError();
                          ctx.storeElement(out, at, *sum);
                          return Error::success();
                        }))
                  return e;
                b.CreateBr(next);
                b.SetInsertPoint(next);
                return Error::success();
              },
              "t");
        },
        "g");
  });
}

} // namespace

Error emitConvolution(EmitterContext &ctx, const Instruction &instruction) {
  if (instruction.attrs().window.size() !=
      instruction.attrs().conv.inputSpatial.size())
    return EmitterContext::unsupported(instruction, "window rank mismatch");
  ConvPlan plan = planConv(instruction);
  // An empty input or kernel contributes no taps: the sums are all zero
  // (and there is no element a clamped index could safely load).
  if (instruction.operand(0)->shape().numElements() == 0 ||
      instruction.operand(1)->shape().numElements() == 0) {
    BufferRef out = ctx.outputBuffer(instruction);
    return ctx.emitElementLoop(
        out, false, [&](const ElementIndex &) -> Expected<Value *> {
          return llvm::Constant::getNullValue(
              ctx.computeType(instruction.shape().dtype()));
        });
  }
  Expected<bool> kernel =
      kernels::emitConvolutionKernel(ctx, instruction, nullptr);
  if (!kernel)
    return kernel.takeError();
  if (*kernel)
    return Error::success();
  if (convRowsApply(ctx, instruction))
    return emitConvRows(ctx, instruction, plan);
  DType dtype = instruction.shape().dtype();
  Value *zero = llvm::Constant::getNullValue(ctx.computeType(dtype));
  return emitAccumulation(
      ctx, instruction, zero, plan.kernelSizes, "t",
      [&](ArrayRef<Value *> o, ArrayRef<Value *> t,
          Value *acc) -> Expected<Value *> {
        ConvTap tap = convTap(ctx, instruction, plan, o, t);
        Expected<Value *> x = ctx.operandElement(instruction, 0, tap.input);
        if (!x)
          return x.takeError();
        Expected<Value *> w = ctx.operandElement(instruction, 1, tap.kernel);
        if (!w)
          return w.takeError();
        Expected<Value *> next =
            multiplyAdd(ctx, instruction, dtype, acc, *x, *w);
        if (!next)
          return next.takeError();
        // Skipped taps leave the sum alone (0 * inf must not make NaN).
        return ctx.builder().CreateSelect(tap.valid, *next, acc);
      });
}

} // namespace kiln::codegen
