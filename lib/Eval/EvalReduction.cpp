//===- EvalReduction.cpp - reduce, reduce-window, arg-max, arg-min --------===//
//
// Reductions accumulate in the compute type (f32 for f16/bf16) in row-major
// operand order, starting from the init value, and round once at the end.
// reduce-window is "pad the operand with the init value (edges and base
// dilation holes), then reduce every window starting from the init value".
//
//===----------------------------------------------------------------------===//
#include "EvalInternal.h"
#include "EvalScalarOps.h"

#include <cmath>

namespace kiln::eval::detail {

using ir::Opcode;
using ir::ReducerKind;
using Index = std::vector<int64_t>;

namespace {

template <typename C> using Combiner = C (*)(C, C);

template <typename Op, typename C> Combiner<C> combinerOf() {
  if constexpr (Op::template supports<C>)
    return &Op::template apply<C>;
  else
    return nullptr;
}

/// The combiner of `kind` for compute type C, or null when C has none
/// (and/or on floats).
template <typename C> Combiner<C> combinerFor(ReducerKind kind) {
  const std::pair<ReducerKind, Combiner<C>> table[] = {
      {ReducerKind::Add, combinerOf<AddOp, C>()},
      {ReducerKind::Mul, combinerOf<MultiplyOp, C>()},
      {ReducerKind::Max, combinerOf<MaximumOp, C>()},
      {ReducerKind::Min, combinerOf<MinimumOp, C>()},
      {ReducerKind::And, combinerOf<AndOp, C>()},
      {ReducerKind::Or, combinerOf<OrOp, C>()},
  };
  for (const auto &[entryKind, combiner] : table)
    if (entryKind == kind)
      return combiner;
  return nullptr;
}

Error checkInit(const Instruction &inst, const Operands &ops) {
  if (ops[1]->numElements() != 1 || ops[1]->shape().rank() != 0)
    return instructionError(inst, "init value must be a scalar");
  for (const Literal *operand : ops)
    if (Error e = expectDType(inst, *operand, inst.shape().dtype()))
      return e;
  return Error::success();
}

Expected<Literal> evalReduce(const Instruction &inst, const Operands &ops) {
  const Literal &in = *ops[0];
  const Index &dims = in.shape().dims();
  std::vector<bool> reduced(dims.size(), false);
  for (int64_t d : inst.attrs().dimensions) {
    if (d < 0 || d >= int64_t(dims.size()))
      return instructionError(inst, "reduced dimension out of range");
    reduced[size_t(d)] = true;
  }
  Index kept;
  for (size_t d = 0; d < dims.size(); ++d)
    if (!reduced[d])
      kept.push_back(dims[d]);
  if (kept != inst.shape().dims())
    return instructionError(inst, "result shape does not drop the reduced "
                                  "dimensions");
  Literal out(inst.shape());
  return visitDType(in.shape().dtype(), [&](auto tag) -> Expected<Literal> {
    constexpr DType kType = decltype(tag)::value;
    using C = ComputeT<kType>;
    Combiner<C> combine = combinerFor<C>(inst.attrs().reducer);
    if (!combine)
      return unsupportedType(inst, kType);
    std::vector<C> acc(size_t(out.numElements()), load<kType>(*ops[1], 0));
    int64_t from = 0;
    Index target;
    forEachIndex(dims, [&](const Index &index) {
      target.clear();
      for (size_t d = 0; d < dims.size(); ++d)
        if (!reduced[d])
          target.push_back(index[d]);
      size_t slot = size_t(linearIndex(target, kept)); // vector<bool>-safe
      acc[slot] = combine(acc[slot], load<kType>(in, from++));
    });
    for (size_t i = 0; i < acc.size(); ++i)
      store<kType>(out, int64_t(i), acc[i]);
    return std::move(out);
  });
}

Error checkWindow(const Instruction &inst, const Literal &in) {
  const auto &window = inst.attrs().window;
  const Shape &shape = inst.shape();
  if (int64_t(window.size()) != in.shape().rank() ||
      shape.rank() != in.shape().rank())
    return instructionError(inst, "window needs one entry per dimension");
  for (size_t d = 0; d < window.size(); ++d) {
    const ir::WindowDim &w = window[d];
    if (w.size < 0 || w.stride < 1 || w.baseDilation < 1 ||
        w.windowDilation < 1)
      return instructionError(inst, "window sizes, strides and dilations "
                                    "must be positive");
    int64_t span = w.size == 0 ? 0 : (w.size - 1) * w.windowDilation + 1;
    int64_t padded = paddedSize(in.shape().dim(d), w);
    int64_t expected = padded < span ? 0 : (padded - span) / w.stride + 1;
    if (expected != shape.dim(d))
      return instructionError(
          inst, fmt::format("window gives size {} in dimension {} but the "
                            "result has {}",
                            expected, d, shape.dim(d)));
  }
  return Error::success();
}

Expected<Literal> evalReduceWindow(const Instruction &inst,
                                   const Operands &ops) {
  const Literal &in = *ops[0];
  if (Error e = checkWindow(inst, in))
    return e;
  const auto &window = inst.attrs().window;
  Index windowDims;
  for (const ir::WindowDim &w : window)
    windowDims.push_back(w.size);
  Literal out(inst.shape());
  return visitDType(in.shape().dtype(), [&](auto tag) -> Expected<Literal> {
    constexpr DType kType = decltype(tag)::value;
    using C = ComputeT<kType>;
    Combiner<C> combine = combinerFor<C>(inst.attrs().reducer);
    if (!combine)
      return unsupportedType(inst, kType);
    C init = load<kType>(*ops[1], 0);
    int64_t to = 0;
    Index from(window.size());
    forEachIndex(out.shape().dims(), [&](const Index &index) {
      C acc = init;
      forEachIndex(windowDims, [&](const Index &tap) {
        bool inside = true;
        for (size_t d = 0; d < window.size(); ++d) {
          from[d] = windowSource(index[d], tap[d], in.shape().dim(d), window[d]);
          inside = inside && from[d] >= 0;
        }
        acc = combine(acc, inside ? load<kType>(in, linearIndex(
                                                        from, in.shape().dims()))
                                  : init);
      });
      store<kType>(out, to++, acc);
    });
    return std::move(out);
  });
}

/// arg-max/arg-min along dimensions[0]: first occurrence wins ties, and the
/// first NaN wins outright (numpy's rule).
template <DType kType>
int64_t argBest(const Literal &in, int64_t first, int64_t stride, int64_t n,
                bool wantMax) {
  using C = ComputeT<kType>;
  int64_t best = 0;
  for (int64_t i = 1; i < n; ++i) {
    C current = load<kType>(in, first + best * stride);
    C candidate = load<kType>(in, first + i * stride);
    if constexpr (kIsFloat<C>) {
      if (std::isnan(current))
        break;
      if (std::isnan(candidate)) {
        best = i;
        break;
      }
    }
    if (wantMax ? current < candidate : candidate < current)
      best = i;
  }
  return best;
}

Expected<Literal> evalArgBest(const Instruction &inst, const Literal &in) {
  const Index &dims = in.shape().dims();
  const Index &axes = inst.attrs().dimensions;
  if (axes.size() != 1 || axes[0] < 0 || axes[0] >= int64_t(dims.size()))
    return instructionError(inst, "needs one dimension of the operand");
  size_t axis = size_t(axes[0]);
  Index kept = dims;
  kept.erase(kept.begin() + int64_t(axis));
  if (kept != inst.shape().dims() || !ir::isInteger(inst.shape().dtype()))
    return instructionError(inst, "result must be an integer array without "
                                  "the reduced dimension");
  int64_t stride = 1;
  for (size_t d = axis + 1; d < dims.size(); ++d)
    stride *= dims[d];
  bool wantMax = inst.opcode() == Opcode::ArgMax;
  Literal out(inst.shape());
  int64_t to = 0;
  Error error = visitDType(in.shape().dtype(), [&](auto tag) -> Error {
    constexpr DType kType = decltype(tag)::value;
    Error status = Error::success();
    forEachIndex(kept, [&](const Index &index) {
      Index at = index;
      at.insert(at.begin() + int64_t(axis), 0);
      int64_t best = argBest<kType>(in, linearIndex(at, dims), stride,
                                    dims[axis], wantMax);
      if (!status)
        status = storeInt64(out, to++, best);
    });
    return status;
  });
  if (error)
    return error;
  return out;
}

} // namespace

Expected<Literal> evalReduction(const Instruction &inst, const Operands &ops) {
  if (inst.shape().isTuple() || ops.empty())
    return instructionError(inst, "result must be an array");
  switch (inst.opcode()) {
  case Opcode::Reduce:
    if (!inst.calledComputations().empty() || ops.size() != 2)
      return instructionError(inst, "a reduce with to_apply is evaluated "
                                    "with its computation, not alone");
    if (Error e = checkInit(inst, ops))
      return e;
    return evalReduce(inst, ops);
  case Opcode::ReduceWindow:
    if (!inst.calledComputations().empty() || ops.size() != 2)
      return instructionError(inst, "a reduce-window with to_apply is "
                                    "evaluated with its computation, not "
                                    "alone");
    if (Error e = checkInit(inst, ops))
      return e;
    return evalReduceWindow(inst, ops);
  case Opcode::ArgMax:
  case Opcode::ArgMin: return evalArgBest(inst, *ops[0]);
  default: break;
  }
  return instructionError(inst, "not a reduction opcode");
}

} // namespace kiln::eval::detail
