//===- EvalContraction.cpp - dot and convolution --------------------------===//
//
// Floating-point contractions accumulate in f64 and round once, so the oracle
// is at least as accurate as anything it is compared against; integer ones
// wrap. Convolution follows XLA: dim_labels name each operand's dimensions,
// windows have stride, padding, base (lhs) and window (rhs) dilation, and
// feature_group_count / batch_group_count split features / batches into
// groups that each see their own slice of the kernel's output features.
//
//===----------------------------------------------------------------------===//
#include "EvalInternal.h"
#include "EvalScalarOps.h"

#include <algorithm>

namespace kiln::eval::detail {

using ir::Opcode;
using Index = std::vector<int64_t>;

namespace {

Index complement(const Index &used, int64_t rank) {
  Index rest;
  for (int64_t d = 0; d < rank; ++d)
    if (std::find(used.begin(), used.end(), d) == used.end())
      rest.push_back(d);
  return rest;
}

bool allInRange(const Index &dims, int64_t rank) {
  for (int64_t d : dims)
    if (d < 0 || d >= rank)
      return false;
  return true;
}

Error checkDot(const Instruction &inst, const Literal &lhs,
               const Literal &rhs) {
  const auto &dn = inst.attrs().dot;
  const Shape &l = lhs.shape(), &r = rhs.shape();
  bool valid = dn.lhsBatch.size() == dn.rhsBatch.size() &&
               dn.lhsContracting.size() == dn.rhsContracting.size() &&
               allInRange(dn.lhsBatch, l.rank()) &&
               allInRange(dn.rhsBatch, r.rank()) &&
               allInRange(dn.lhsContracting, l.rank()) &&
               allInRange(dn.rhsContracting, r.rank());
  for (size_t i = 0; valid && i < dn.lhsBatch.size(); ++i)
    valid = l.dim(size_t(dn.lhsBatch[i])) == r.dim(size_t(dn.rhsBatch[i]));
  for (size_t i = 0; valid && i < dn.lhsContracting.size(); ++i)
    valid = l.dim(size_t(dn.lhsContracting[i])) ==
            r.dim(size_t(dn.rhsContracting[i]));
  if (!valid)
    return instructionError(inst, "inconsistent dot dimension numbers");
  Index expected;
  for (int64_t d : dn.lhsBatch)
    expected.push_back(l.dim(size_t(d)));
  Index lhsUsed = dn.lhsBatch, rhsUsed = dn.rhsBatch;
  lhsUsed.insert(lhsUsed.end(), dn.lhsContracting.begin(),
                 dn.lhsContracting.end());
  rhsUsed.insert(rhsUsed.end(), dn.rhsContracting.begin(),
                 dn.rhsContracting.end());
  for (int64_t d : complement(lhsUsed, l.rank()))
    expected.push_back(l.dim(size_t(d)));
  for (int64_t d : complement(rhsUsed, r.rank()))
    expected.push_back(r.dim(size_t(d)));
  if (expected != inst.shape().dims())
    return instructionError(inst, "result shape does not match the dot");
  return Error::success();
}

/// Element offset of `index`'s entries placed at dimensions `dims`.
int64_t offsetOf(const Index &dims, const Index &strides, const Index &index,
                 size_t first) {
  int64_t offset = 0;
  for (size_t i = 0; i < dims.size(); ++i)
    offset += index[first + i] * strides[size_t(dims[i])];
  return offset;
}

// Offsets are computed with row-major strides, and the innermost loop runs
// over the last contracting dimension, so the oracle stays fast enough to run
// every real model under the sanitizers. Contracting indices are summed in
// row-major order.
Expected<Literal> evalDot(const Instruction &inst, const Literal &lhs,
                          const Literal &rhs) {
  if (Error e = checkDot(inst, lhs, rhs))
    return e;
  const auto &dn = inst.attrs().dot;
  Index lhsUsed = dn.lhsBatch, rhsUsed = dn.rhsBatch;
  lhsUsed.insert(lhsUsed.end(), dn.lhsContracting.begin(),
                 dn.lhsContracting.end());
  rhsUsed.insert(rhsUsed.end(), dn.rhsContracting.begin(),
                 dn.rhsContracting.end());
  Index lhsFree = complement(lhsUsed, lhs.shape().rank());
  Index rhsFree = complement(rhsUsed, rhs.shape().rank());
  Index lhsStrides = rowMajorStrides(lhs.shape().dims());
  Index rhsStrides = rowMajorStrides(rhs.shape().dims());
  // The contracting dimensions but the last are walked index by index; the
  // last is the inner loop (length 1 when nothing contracts).
  Index lhsOuterContracting = dn.lhsContracting;
  Index rhsOuterContracting = dn.rhsContracting;
  int64_t innerSize = 1, lhsInnerStride = 0, rhsInnerStride = 0;
  if (!lhsOuterContracting.empty()) {
    innerSize = lhs.shape().dim(size_t(lhsOuterContracting.back()));
    lhsInnerStride = lhsStrides[size_t(lhsOuterContracting.back())];
    rhsInnerStride = rhsStrides[size_t(rhsOuterContracting.back())];
    lhsOuterContracting.pop_back();
    rhsOuterContracting.pop_back();
  }
  Index outerSizes;
  for (int64_t d : lhsOuterContracting)
    outerSizes.push_back(lhs.shape().dim(size_t(d)));
  Literal out(inst.shape());
  return visitDType(out.shape().dtype(), [&](auto tag) -> Expected<Literal> {
    constexpr DType kType = decltype(tag)::value;
    using Traits = DTypeTraits<kType>;
    using C = ComputeT<kType>;
    using Acc = typename Accumulator<C>::Acc;
    const auto *lhsData = lhs.data<typename Traits::Storage>();
    const auto *rhsData = rhs.data<typename Traits::Storage>();
    size_t batchRank = dn.lhsBatch.size();
    int64_t to = 0;
    forEachIndex(out.shape().dims(), [&](const Index &index) {
      // The result's dimensions: batch, then lhs free, then rhs free.
      int64_t lhsBase = offsetOf(dn.lhsBatch, lhsStrides, index, 0) +
                        offsetOf(lhsFree, lhsStrides, index, batchRank);
      int64_t rhsBase =
          offsetOf(dn.rhsBatch, rhsStrides, index, 0) +
          offsetOf(rhsFree, rhsStrides, index, batchRank + lhsFree.size());
      Acc acc = Acc(0);
      if (innerSize > 0) // else the operands may hold no data to point into
        forEachIndex(outerSizes, [&](const Index &c) {
          int64_t lhsAt =
              lhsBase + offsetOf(lhsOuterContracting, lhsStrides, c, 0);
          int64_t rhsAt =
              rhsBase + offsetOf(rhsOuterContracting, rhsStrides, c, 0);
          acc = stridedMulAdd<kType>(acc, lhsData + lhsAt, lhsInnerStride,
                                     rhsData + rhsAt, rhsInnerStride,
                                     innerSize);
        });
      store<kType>(out, to++, Accumulator<C>::finish(acc));
    });
    return std::move(out);
  });
}

} // namespace

Expected<Literal> evalContraction(const Instruction &inst,
                                  const Operands &ops) {
  if (inst.shape().isTuple())
    return instructionError(inst, "result must be an array");
  for (const Literal *operand : ops)
    if (Error e = expectDType(inst, *operand, inst.shape().dtype()))
      return e;
  if (inst.opcode() == Opcode::Dot)
    return evalDot(inst, *ops[0], *ops[1]);
  if (inst.opcode() == Opcode::Convolution)
    return evalConvolution(inst, *ops[0], *ops[1]);
  return instructionError(inst, "not a contraction opcode");
}

} // namespace kiln::eval::detail
