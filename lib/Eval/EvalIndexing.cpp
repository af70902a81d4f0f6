//===- EvalIndexing.cpp - gather, sort and top-k --------------------------===//
//
// gather follows XLA's definition literally: each result index splits into
// batch dims (which pick a start-index vector from `indices`) and offset dims
// (which walk the slice); starts are clamped so the slice stays in bounds.
// sort and top-k order a permutation with std::stable_sort so ties keep
// their original order, NaN above every number.
//
//===----------------------------------------------------------------------===//
#include "EvalInternal.h"
#include "EvalScalarOps.h"

#include <algorithm>
#include <numeric>

namespace kiln::eval::detail {

using ir::Opcode;
using Index = std::vector<int64_t>;

namespace {

bool contains(const Index &values, int64_t value) {
  return std::find(values.begin(), values.end(), value) != values.end();
}

/// The parts of a gather that do not depend on the result index.
struct GatherPlan {
  Index batchDims;        // result dims that are not offset dims
  Index offsetOperandDims; // operand dims that are not collapsed
  Index indicesDims;      // indices dims with a trailing 1 when implicit
};

Expected<GatherPlan> planGather(const Instruction &inst, const Literal &in,
                                const Literal &indices) {
  const auto &gather = inst.attrs().gather;
  const Index &sizes = inst.attrs().sizes;
  GatherPlan plan;
  for (int64_t d = 0; d < inst.shape().rank(); ++d)
    if (!contains(gather.offsetDims, d))
      plan.batchDims.push_back(d);
  for (int64_t d = 0; d < in.shape().rank(); ++d)
    if (!contains(gather.collapsedSliceDims, d))
      plan.offsetOperandDims.push_back(d);
  plan.indicesDims = indices.shape().dims();
  if (gather.indexVectorDim == indices.shape().rank())
    plan.indicesDims.push_back(1);
  int64_t vectorDim = gather.indexVectorDim;
  bool valid = int64_t(sizes.size()) == in.shape().rank() &&
               plan.offsetOperandDims.size() == gather.offsetDims.size() &&
               vectorDim >= 0 && vectorDim < int64_t(plan.indicesDims.size()) &&
               plan.indicesDims[size_t(vectorDim)] ==
                   int64_t(gather.startIndexMap.size()) &&
               plan.batchDims.size() + 1 == plan.indicesDims.size();
  for (int64_t d : gather.startIndexMap)
    valid = valid && d >= 0 && d < in.shape().rank();
  for (size_t d = 0; valid && d < sizes.size(); ++d)
    valid = sizes[d] >= 0 && sizes[d] <= in.shape().dim(d);
  for (size_t j = 0; valid && j < gather.offsetDims.size(); ++j)
    valid = gather.offsetDims[j] >= 0 &&
            gather.offsetDims[j] < inst.shape().rank() &&
            inst.shape().dim(size_t(gather.offsetDims[j])) <=
                sizes[size_t(plan.offsetOperandDims[j])];
  for (size_t i = 0, batch = 0; valid && i < plan.indicesDims.size(); ++i)
    if (int64_t(i) != vectorDim)
      valid = inst.shape().dim(size_t(plan.batchDims[batch++])) ==
              plan.indicesDims[i];
  if (!valid)
    return instructionError(inst, "inconsistent gather dimension numbers");
  return plan;
}

/// The clamped operand start for the batch position of result `index`.
Expected<Index> gatherStart(const Instruction &inst, const GatherPlan &plan,
                            const Literal &in, const Literal &indices,
                            const Index &index) {
  const auto &gather = inst.attrs().gather;
  size_t vectorDim = size_t(gather.indexVectorDim);
  Index where(plan.indicesDims.size());
  for (size_t i = 0, batch = 0; i < where.size(); ++i)
    if (i != vectorDim)
      where[i] = index[size_t(plan.batchDims[batch++])];
  Index start(size_t(in.shape().rank()), 0);
  for (size_t k = 0; k < gather.startIndexMap.size(); ++k) {
    where[vectorDim] = int64_t(k);
    Expected<int64_t> value =
        loadIndex(indices, linearIndex(where, plan.indicesDims));
    if (!value)
      return instructionError(inst, value.errorMessage());
    size_t dim = size_t(gather.startIndexMap[k]);
    int64_t limit = in.shape().dim(dim) - inst.attrs().sizes[dim];
    start[dim] = std::clamp<int64_t>(*value, 0, std::max<int64_t>(limit, 0));
  }
  return start;
}

} // namespace

Expected<Literal> evalGather(const Instruction &inst, const Operands &ops) {
  const Literal &in = *ops[0], &indices = *ops[1];
  if (Error e = expectDType(inst, in, inst.shape().dtype()))
    return e;
  Expected<GatherPlan> plan = planGather(inst, in, indices);
  if (!plan)
    return plan.takeError();
  const auto &offsetDims = inst.attrs().gather.offsetDims;
  Literal out(inst.shape());
  int64_t to = 0;
  Error error = Error::success();
  forEachIndex(inst.shape().dims(), [&](const Index &index) {
    if (error)
      return;
    Expected<Index> start = gatherStart(inst, *plan, in, indices, index);
    if (!start) {
      error = start.takeError();
      return;
    }
    Index from = *start;
    for (size_t j = 0; j < offsetDims.size(); ++j)
      from[size_t(plan->offsetOperandDims[j])] +=
          index[size_t(offsetDims[j])];
    copyElement(out, to++, in, linearIndex(from, in.shape().dims()));
  });
  if (error)
    return error;
  return out;
}

namespace {

/// Stable order of positions 0..n-1 of a row of `keys` (element offsets
/// `first + i * stride`): ascending with NaN last, or its reverse.
Expected<Index> orderRow(const Literal &keys, int64_t first, int64_t stride,
                         int64_t n, bool descending) {
  return visitDType(keys.shape().dtype(), [&](auto tag) -> Expected<Index> {
    constexpr DType kType = decltype(tag)::value;
    using C = ComputeT<kType>;
    std::vector<C> row(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i)
      row[size_t(i)] = load<kType>(keys, first + i * stride);
    Index order(static_cast<size_t>(n));
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
      C x = row[size_t(a)], y = row[size_t(b)];
      return descending ? lessNanLast(y, x) : lessNanLast(x, y);
    });
    return order;
  });
}

/// Calls fn(first, stride, n) once per row along `axis` of `dims`.
template <typename F> void forEachRow(const Index &dims, size_t axis, F &&fn) {
  Index outer = dims;
  outer[axis] = 1;
  int64_t stride = 1;
  for (size_t d = axis + 1; d < dims.size(); ++d)
    stride *= dims[d];
  forEachIndex(outer, [&](const Index &index) {
    fn(linearIndex(index, dims), stride, dims[axis]);
  });
}

Expected<std::vector<Literal>> evalSort(const Instruction &inst,
                                        const Operands &ops) {
  const auto &dims = ops[0]->shape().dims();
  if (inst.attrs().dimensions.size() != 1 ||
      inst.attrs().dimensions[0] < 0 ||
      inst.attrs().dimensions[0] >= int64_t(dims.size()))
    return instructionError(inst, "sort needs one dimension of its operands");
  for (const Literal *operand : ops)
    if (operand->shape().dims() != dims)
      return instructionError(inst, "sort operands differ in shape");
  std::vector<Literal> results;
  for (const Literal *operand : ops)
    results.emplace_back(operand->shape());
  const ir::Computation *comparator = inst.calledComputation();
  Error error = Error::success();
  forEachRow(dims, size_t(inst.attrs().dimensions[0]),
             [&](int64_t first, int64_t stride, int64_t n) {
               if (error)
                 return;
               Expected<Index> order =
                   comparator ? orderRowByComparator(*comparator, ops, first,
                                                     stride, n)
                              : orderRow(*ops[0], first, stride, n,
                                         inst.attrs().descending);
               if (!order) {
                 error = order.takeError();
                 return;
               }
               for (size_t k = 0; k < ops.size(); ++k)
                 for (int64_t i = 0; i < n; ++i)
                   copyElement(results[k], first + i * stride, *ops[k],
                               first + (*order)[size_t(i)] * stride);
             });
  if (error)
    return error;
  return results;
}

/// top-k along the last dimension: (values, s32 indices).
Expected<std::vector<Literal>> evalTopK(const Instruction &inst,
                                        const Literal &in) {
  Index dims = in.shape().dims();
  int64_t k = inst.attrs().k;
  if (dims.empty() || k < 0 || k > dims.back())
    return instructionError(inst, "k must be within the last dimension");
  Index outDims = dims;
  outDims.back() = k;
  Literal values(Shape(in.shape().dtype(), outDims));
  Literal indices(Shape(DType::S32, outDims));
  Error error = Error::success();
  int64_t row = 0;
  forEachRow(dims, dims.size() - 1, [&](int64_t first, int64_t, int64_t n) {
    Expected<Index> order =
        orderRow(in, first, 1, n, /*descending=*/inst.attrs().largest);
    if (!order) {
      if (!error)
        error = order.takeError();
      return;
    }
    for (int64_t i = 0; i < k; ++i) {
      int64_t from = (*order)[size_t(i)];
      copyElement(values, row * k + i, in, first + from);
      store<DType::S32>(indices, row * k + i, int32_t(from));
    }
    ++row;
  });
  if (error)
    return error;
  std::vector<Literal> results;
  results.push_back(std::move(values));
  results.push_back(std::move(indices));
  return results;
}

} // namespace

Expected<std::vector<Literal>> evalOrdering(const Instruction &inst,
                                            const Operands &ops) {
  if (ops.empty())
    return instructionError(inst, "needs an operand");
  if (inst.opcode() == Opcode::Sort)
    return evalSort(inst, ops);
  if (inst.opcode() == Opcode::TopK)
    return evalTopK(inst, *ops[0]);
  return instructionError(inst, "not an ordering opcode");
}

} // namespace kiln::eval::detail
