//===- EvalLayout.cpp - Data movement: broadcast, slice, pad, ... ---------===//
//
// Every opcode here moves elements without arithmetic, so it works on raw
// bytes for every dtype: iterate over the result's index space, compute the
// operand index each result element comes from, copy.
//
//===----------------------------------------------------------------------===//
#include "EvalInternal.h"

#include <algorithm>

namespace kiln::eval::detail {

using ir::Opcode;
using Index = std::vector<int64_t>;

namespace {

/// For every result index, `source(resultIndex, operandIndex)` fills in the
/// operand index to copy and returns true, or returns false to take the
/// only element of `fill` (pad values).
template <typename F>
void copyFromSource(Literal &out, const Literal &in, const Literal *fill,
                    F &&source) {
  const Index &inDims = in.shape().dims();
  Index from(inDims.size());
  int64_t to = 0;
  forEachIndex(out.shape().dims(), [&](const Index &index) {
    if (source(index, from))
      copyElement(out, to, in, linearIndex(from, inDims));
    else
      copyElement(out, to, *fill, 0);
    ++to;
  });
}

Error sameDType(const Instruction &inst, const Literal &operand) {
  return expectDType(inst, operand, inst.shape().dtype());
}

Expected<Literal> evalBroadcast(const Instruction &inst, const Literal &in) {
  const Index &map = inst.attrs().dimensions;
  const Shape &shape = inst.shape();
  if (int64_t(map.size()) != in.shape().rank())
    return instructionError(inst, "dimensions must list one result dimension "
                                  "per operand dimension");
  for (size_t i = 0; i < map.size(); ++i)
    if (map[i] < 0 || map[i] >= shape.rank() ||
        (in.shape().dim(i) != shape.dim(size_t(map[i])) &&
         in.shape().dim(i) != 1))
      return instructionError(inst, "operand dimension does not match the "
                                    "result dimension it maps to");
  Literal out(shape);
  copyFromSource(out, in, nullptr, [&](const Index &index, Index &from) {
    for (size_t i = 0; i < map.size(); ++i)
      from[i] = in.shape().dim(i) == 1 ? 0 : index[size_t(map[i])];
    return true;
  });
  return out;
}

Expected<Literal> evalTranspose(const Instruction &inst, const Literal &in) {
  const Index &perm = inst.attrs().dimensions;
  Index sorted = perm;
  std::sort(sorted.begin(), sorted.end());
  for (size_t i = 0; i < sorted.size(); ++i)
    if (sorted[i] != int64_t(i))
      return instructionError(inst, "dimensions must be a permutation");
  if (int64_t(perm.size()) != in.shape().rank())
    return instructionError(inst, "permutation rank differs from operand");
  Literal out(inst.shape());
  copyFromSource(out, in, nullptr, [&](const Index &index, Index &from) {
    for (size_t i = 0; i < perm.size(); ++i)
      from[size_t(perm[i])] = index[i];
    return true;
  });
  return out;
}

Expected<Literal> evalSlice(const Instruction &inst, const Literal &in) {
  const auto &slice = inst.attrs().slice;
  const Shape &shape = inst.shape();
  if (int64_t(slice.size()) != in.shape().rank() ||
      shape.rank() != in.shape().rank())
    return instructionError(inst, "slice needs one start:limit:stride per "
                                  "operand dimension");
  for (size_t d = 0; d < slice.size(); ++d) {
    int64_t last = slice[d].start + (shape.dim(d) - 1) * slice[d].stride;
    if (shape.dim(d) > 0 && (slice[d].start < 0 || slice[d].stride < 1 ||
                             last >= in.shape().dim(d)))
      return instructionError(inst, "slice reads outside the operand");
  }
  Literal out(shape);
  copyFromSource(out, in, nullptr, [&](const Index &index, Index &from) {
    for (size_t d = 0; d < slice.size(); ++d)
      from[d] = slice[d].start + index[d] * slice[d].stride;
    return true;
  });
  return out;
}

Expected<Literal> evalReverse(const Instruction &inst, const Literal &in) {
  std::vector<bool> reversed(size_t(in.shape().rank()), false);
  for (int64_t d : inst.attrs().dimensions) {
    if (d < 0 || d >= in.shape().rank())
      return instructionError(inst, "reversed dimension out of range");
    reversed[size_t(d)] = true;
  }
  Literal out(inst.shape());
  copyFromSource(out, in, nullptr, [&](const Index &index, Index &from) {
    for (size_t d = 0; d < index.size(); ++d)
      from[d] = reversed[d] ? in.shape().dim(d) - 1 - index[d] : index[d];
    return true;
  });
  return out;
}

/// pad: edge padding may be negative (it crops); interior padding puts
/// `interior` pad values between neighbours.
Expected<Literal> evalPad(const Instruction &inst, const Operands &ops) {
  const Literal &in = *ops[0], &value = *ops[1];
  const auto &padding = inst.attrs().padding;
  const Shape &shape = inst.shape();
  if (int64_t(padding.size()) != in.shape().rank() || value.numElements() != 1)
    return instructionError(inst, "pad needs a scalar value and one "
                                  "low_high_interior per dimension");
  if (Error e = sameDType(inst, value))
    return e;
  for (size_t d = 0; d < padding.size(); ++d) {
    int64_t n = in.shape().dim(d);
    int64_t size = padding[d].low + padding[d].high + n +
                   std::max<int64_t>(n - 1, 0) * padding[d].interior;
    if (size != shape.dim(d) || padding[d].interior < 0)
      return instructionError(inst, "padding does not give the result shape");
  }
  Literal out(shape);
  copyFromSource(out, in, &value, [&](const Index &index, Index &from) {
    for (size_t d = 0; d < padding.size(); ++d) {
      int64_t offset = index[d] - padding[d].low;
      int64_t step = padding[d].interior + 1;
      if (offset < 0 || offset % step != 0 ||
          offset / step >= in.shape().dim(d))
        return false;
      from[d] = offset / step;
    }
    return true;
  });
  return out;
}

Expected<Literal> evalConcatenate(const Instruction &inst,
                                  const Operands &ops) {
  if (inst.attrs().dimensions.size() != 1 || ops.empty())
    return instructionError(inst, "concatenate needs one dimension");
  size_t axis = size_t(inst.attrs().dimensions[0]);
  const Shape &shape = inst.shape();
  if (axis >= size_t(shape.rank()))
    return instructionError(inst, "concatenate dimension out of range");
  int64_t total = 0;
  for (const Literal *operand : ops) {
    Index dims = operand->shape().dims();
    if (int64_t(dims.size()) != shape.rank())
      return instructionError(inst, "operand ranks differ");
    total += dims[axis];
    dims[axis] = shape.dim(axis);
    if (dims != shape.dims() || operand->shape().dtype() != shape.dtype())
      return instructionError(inst, "operand shapes differ off the axis");
  }
  if (total != shape.dim(axis))
    return instructionError(inst, "operand sizes do not add up to the result");
  Literal out(shape);
  int64_t to = 0;
  forEachIndex(shape.dims(), [&](const Index &index) {
    Index from = index;
    size_t which = 0;
    while (from[axis] >= ops[which]->shape().dim(axis))
      from[axis] -= ops[which++]->shape().dim(axis);
    copyElement(out, to++, *ops[which],
                linearIndex(from, ops[which]->shape().dims()));
  });
  return out;
}

/// Start indices from scalar operands `first..` (XLA's current form) or
/// from one rank-1 operand (its older form).
Expected<Index> readStartIndices(const Instruction &inst, const Operands &ops,
                                 size_t first, int64_t rank) {
  std::vector<std::pair<const Literal *, int64_t>> sources;
  bool scalars = ops.size() == first + size_t(rank);
  for (size_t i = first; scalars && i < ops.size(); ++i)
    scalars = ops[i]->shape().rank() == 0;
  if (scalars) {
    for (size_t i = first; i < ops.size(); ++i)
      sources.push_back({ops[i], 0});
  } else if (ops.size() == first + 1 && ops[first]->shape().rank() == 1 &&
             ops[first]->numElements() == rank) {
    for (int64_t i = 0; i < rank; ++i)
      sources.push_back({ops[first], i});
  } else {
    return instructionError(inst, "needs one scalar start index per "
                                  "operand dimension");
  }
  Index starts;
  for (auto [literal, i] : sources) {
    Expected<int64_t> start = loadIndex(*literal, i);
    if (!start)
      return instructionError(inst, start.errorMessage());
    starts.push_back(*start);
  }
  return starts;
}

/// XLA clamps each start so that the window [start, start+size) fits.
Error clampStarts(const Instruction &inst, Index &starts, const Index &dims,
                  const Index &sizes) {
  for (size_t d = 0; d < starts.size(); ++d) {
    if (sizes[d] > dims[d] || sizes[d] < 0)
      return instructionError(inst, "slice is larger than the operand");
    starts[d] = std::clamp<int64_t>(starts[d], 0, dims[d] - sizes[d]);
  }
  return Error::success();
}

Expected<Literal> evalDynamicSlice(const Instruction &inst,
                                   const Operands &ops) {
  const Literal &in = *ops[0];
  const Shape &shape = inst.shape();
  Expected<Index> starts = readStartIndices(inst, ops, 1, in.shape().rank());
  if (!starts)
    return starts.takeError();
  if (shape.rank() != in.shape().rank())
    return instructionError(inst, "result rank differs from the operand");
  if (Error e = clampStarts(inst, *starts, in.shape().dims(), shape.dims()))
    return e;
  Literal out(shape);
  copyFromSource(out, in, nullptr, [&](const Index &index, Index &from) {
    for (size_t d = 0; d < index.size(); ++d)
      from[d] = (*starts)[d] + index[d];
    return true;
  });
  return out;
}

Expected<Literal> evalDynamicUpdateSlice(const Instruction &inst,
                                         const Operands &ops) {
  if (ops.size() < 2)
    return instructionError(inst, "needs an operand and an update");
  const Literal &in = *ops[0], &update = *ops[1];
  if (Error e = sameDType(inst, update))
    return e;
  Expected<Index> starts = readStartIndices(inst, ops, 2, in.shape().rank());
  if (!starts)
    return starts.takeError();
  if (update.shape().rank() != in.shape().rank())
    return instructionError(inst, "update rank differs from the operand");
  if (Error e = clampStarts(inst, *starts, in.shape().dims(),
                            update.shape().dims()))
    return e;
  Literal out = in;
  int64_t from = 0;
  forEachIndex(update.shape().dims(), [&](const Index &index) {
    Index to = index;
    for (size_t d = 0; d < to.size(); ++d)
      to[d] += (*starts)[d];
    copyElement(out, linearIndex(to, in.shape().dims()), update, from++);
  });
  return out;
}

Expected<Literal> evalReshape(const Instruction &inst, const Literal &in) {
  if (in.numElements() != inst.shape().numElements())
    return instructionError(inst, "reshape changes the element count");
  return Literal(inst.shape(), in.bytes());
}

} // namespace

/// iota: each element is its own index along `dimensions[0]`.
static Expected<Literal> evalIota(const Instruction &inst) {
  const Shape &shape = inst.shape();
  if (inst.attrs().dimensions.size() != 1 ||
      inst.attrs().dimensions[0] >= shape.rank() ||
      inst.attrs().dimensions[0] < 0)
    return instructionError(inst, "iota needs one dimension of the result");
  size_t axis = size_t(inst.attrs().dimensions[0]);
  Literal out(shape);
  int64_t to = 0;
  Error error = Error::success();
  forEachIndex(shape.dims(), [&](const Index &index) {
    if (!error)
      error = storeInt64(out, to++, index[axis]);
  });
  if (error)
    return error;
  return out;
}

Expected<Literal> evalLayout(const Instruction &inst, const Operands &ops) {
  if (inst.shape().isTuple())
    return instructionError(inst, "result must be an array");
  if (inst.opcode() == Opcode::Iota)
    return evalIota(inst);
  if (ops.empty())
    return instructionError(inst, "needs an operand");
  if (inst.opcode() == Opcode::BitcastConvert) // retypes: dtypes differ
    return evalBitcastConvert(inst, *ops[0]);
  if (inst.opcode() != Opcode::Gather)
    if (Error e = sameDType(inst, *ops[0]))
      return e;
  switch (inst.opcode()) {
  case Opcode::Broadcast: return evalBroadcast(inst, *ops[0]);
  case Opcode::Reshape: return evalReshape(inst, *ops[0]);
  case Opcode::Transpose: return evalTranspose(inst, *ops[0]);
  case Opcode::Slice: return evalSlice(inst, *ops[0]);
  case Opcode::DynamicSlice: return evalDynamicSlice(inst, ops);
  case Opcode::DynamicUpdateSlice: return evalDynamicUpdateSlice(inst, ops);
  case Opcode::Concatenate: return evalConcatenate(inst, ops);
  case Opcode::Pad: return evalPad(inst, ops);
  case Opcode::Reverse: return evalReverse(inst, *ops[0]);
  case Opcode::Gather: return evalGather(inst, ops);
  default: break;
  }
  return instructionError(inst, "not a data-movement opcode");
}

} // namespace kiln::eval::detail
