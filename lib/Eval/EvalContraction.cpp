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
  Index contractSizes;
  for (int64_t d : dn.lhsContracting)
    contractSizes.push_back(lhs.shape().dim(size_t(d)));
  Literal out(inst.shape());
  return visitDType(out.shape().dtype(), [&](auto tag) -> Expected<Literal> {
    constexpr DType kType = decltype(tag)::value;
    using C = ComputeT<kType>;
    using Acc = typename Accumulator<C>::Acc;
    Index li(size_t(lhs.shape().rank())), ri(size_t(rhs.shape().rank()));
    int64_t to = 0;
    forEachIndex(out.shape().dims(), [&](const Index &index) {
      size_t pos = 0;
      for (size_t i = 0; i < dn.lhsBatch.size(); ++i, ++pos) {
        li[size_t(dn.lhsBatch[i])] = index[pos];
        ri[size_t(dn.rhsBatch[i])] = index[pos];
      }
      for (int64_t d : lhsFree)
        li[size_t(d)] = index[pos++];
      for (int64_t d : rhsFree)
        ri[size_t(d)] = index[pos++];
      Acc acc = Acc(0);
      forEachIndex(contractSizes, [&](const Index &c) {
        for (size_t k = 0; k < c.size(); ++k) {
          li[size_t(dn.lhsContracting[k])] = c[k];
          ri[size_t(dn.rhsContracting[k])] = c[k];
        }
        acc = Accumulator<C>::mulAdd(
            acc, load<kType>(lhs, linearIndex(li, lhs.shape().dims())),
            load<kType>(rhs, linearIndex(ri, rhs.shape().dims())));
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
