//===- DynamicLowering.cpp - Ops on run-time sized values -----------------===//
#include "Common/DynamicLowering.h"

#include "Common/ArrayLowering.h"

#include <fmt/format.h>

#include <algorithm>

namespace kiln::import {

using ir::DType;
using ir::Opcode;

namespace {
Value s32(GraphBuilder &b, int64_t value) {
  return b.scalar(DType::S32, double(value));
}

/// `value` (scalar) broadcast to `dims`.
Value broadcastScalar(GraphBuilder &b, Value value,
                      const std::vector<int64_t> &dims) {
  return b.broadcastInDim(b.reshape(value, {}), dims, {});
}

/// The forms of small integer input `v` or nullopt after recording that
/// `what` must be known at compile time or derived from run-time sizes.
std::optional<std::vector<SizeForm>> requireForms(GraphBuilder &b, Value v,
                                                  std::string_view what) {
  std::optional<std::vector<SizeForm>> forms = formsOf(b, v);
  if (!forms && b.ok())
    b.fail(fmt::format("{} must be a compile-time constant or computed from "
                       "run-time sizes (Shape of a NonMaxSuppression or Where "
                       "result), but it is computed from tensor data",
                       what));
  return forms;
}
} // namespace

// --- Reading the table -------------------------------------------------------

std::optional<std::vector<SizeForm>> formsOf(GraphBuilder &b, Value v) {
  if (!v)
    return std::nullopt;
  if (const std::vector<SizeForm> *forms = b.dynamic().forms(v))
    return *forms;
  std::optional<std::vector<int64_t>> values = GraphBuilder::constantInts(v);
  if (!values)
    return std::nullopt;
  std::vector<SizeForm> forms;
  for (int64_t value : *values)
    forms.push_back(SizeForm::of(value));
  return forms;
}

SizeForm extentForm(GraphBuilder &b, Value v, int64_t d) {
  if (const DynamicDim *dim = b.dynamic().dim(v, d))
    return dim->form;
  return SizeForm::of(v->shape().dim(size_t(d)));
}

Value extentOf(GraphBuilder &b, Value v, int64_t d) {
  if (const DynamicDim *dim = b.dynamic().dim(v, d))
    return dim->size;
  return s32(b, v->shape().dim(size_t(d)));
}

Value elementAsS32(GraphBuilder &b, Value v, int64_t i) {
  Value flat = b.reshape(v, {v->shape().numElements()});
  return b.convert(b.reshape(b.sliceDim(flat, 0, i, i + 1), {}), DType::S32);
}

void copyDynamicDims(GraphBuilder &b, Value from, Value to) {
  if (!from || !to || from == to)
    return;
  std::vector<std::optional<DynamicDim>> dims = b.dynamic().dims(from);
  for (size_t d = 0; d < dims.size(); ++d)
    if (dims[d])
      b.dynamic().setDim(to, int64_t(d), *dims[d]);
}

// --- Padding -----------------------------------------------------------------

Value maskPadding(GraphBuilder &b, Value x, Value fill) {
  std::vector<std::optional<DynamicDim>> dims = b.dynamic().dims(x);
  if (dims.empty() || !x)
    return x;
  Value inside = nullptr;
  for (size_t d = 0; d < dims.size(); ++d) {
    if (!dims[d])
      continue;
    Value index = iota(b, DType::S32, dimsOf(x), int64_t(d));
    Value below = b.compare(ir::ComparisonDirection::LT, index, dims[d]->size);
    inside = inside ? b.binary(Opcode::And, inside, below) : below;
  }
  Value masked = b.select(inside, x, b.convert(fill, x->shape().dtype()));
  copyDynamicDims(b, x, masked);
  return masked;
}

// --- Lowerings -------------------------------------------------------------

Value shapeVector(GraphBuilder &b, Value x, DType dtype) {
  int64_t rank = int64_t(x->shape().rank());
  if (rank == 0)
    return b.ints(dtype, {});
  std::vector<Value> pieces;
  std::vector<SizeForm> forms;
  for (int64_t d = 0; d < rank; ++d) {
    pieces.push_back(b.reshape(b.convert(extentOf(b, x, d), dtype), {1}));
    forms.push_back(extentForm(b, x, d));
  }
  Value shape = b.concatenate(pieces, 0);
  if (shape)
    b.dynamic().setForms(shape, std::move(forms));
  return shape;
}

Value fillDims(GraphBuilder &b, Value dims, Value value) {
  std::optional<std::vector<SizeForm>> forms = requireForms(b, dims, "dims");
  if (!forms)
    return nullptr;
  std::vector<int64_t> bounds;
  for (const SizeForm &form : *forms) {
    int64_t bound = b.dynamic().upperBound(form);
    if (bound < 0)
      return b.fail(fmt::format("a dimension is at most {}: negative", bound));
    bounds.push_back(bound);
  }
  Value filled = broadcastScalar(b, value, bounds);
  for (size_t d = 0; filled && d < forms->size(); ++d)
    if (!(*forms)[d].isConstant())
      b.dynamic().setDim(filled, int64_t(d),
                         {elementAsS32(b, dims, int64_t(d)), (*forms)[d]});
  return filled;
}

Value rangeToLimit(GraphBuilder &b, DType dtype, int64_t start, Value limit,
                   int64_t delta, const std::string &origin) {
  std::optional<std::vector<SizeForm>> limits = requireForms(b, limit, "limit");
  if (!limits)
    return nullptr;
  if (limits->size() != 1)
    return b.fail("limit must be a scalar");
  if (delta <= 0)
    return b.fail(fmt::format("a run-time sized range needs a positive delta, "
                              "not {}",
                              delta));
  DynamicShapes &table = b.dynamic();
  SizeForm span = limits->front() - SizeForm::of(start);
  // n = ceil(span / delta), at least 0: exact as a form only for delta 1 and
  // a span that cannot be negative.
  auto ceilDiv = [&](int64_t v) { return v <= 0 ? 0 : (v + delta - 1) / delta; };
  SizeForm count = delta == 1 && table.lowerBound(span) >= 0
                       ? span
                       : table.newSymbol(ceilDiv(table.lowerBound(span)),
                                         ceilDiv(table.upperBound(span)), origin);
  int64_t bound = std::max<int64_t>(0, table.upperBound(count));
  Value values = rangeConstant(b, dtype, double(start), double(delta), bound);
  Value runtimeSpan = b.binary(Opcode::Maximum,
                               b.binary(Opcode::Subtract,
                                        elementAsS32(b, limit, 0), s32(b, start)),
                               s32(b, 0));
  Value size = b.binary(Opcode::Divide,
                        b.binary(Opcode::Add, runtimeSpan, s32(b, delta - 1)),
                        s32(b, delta));
  if (values)
    table.setDim(values, 0, {size, count});
  return values;
}

Value sliceSizes(GraphBuilder &b, Value x, const std::vector<int64_t> &begin,
                 Value size, const std::string &origin) {
  std::optional<std::vector<SizeForm>> sizes = requireForms(b, size, "size");
  if (!sizes)
    return nullptr;
  int64_t rank = int64_t(x->shape().rank());
  if (int64_t(sizes->size()) != rank || int64_t(begin.size()) != rank)
    return b.fail(fmt::format("begin and size must have {} elements", rank));
  DynamicShapes &table = b.dynamic();
  std::vector<ir::SliceDim> ranges;
  std::vector<std::optional<DynamicDim>> resultDims(static_cast<size_t>(rank));
  for (int64_t d = 0; d < rank; ++d) {
    int64_t available = x->shape().dim(size_t(d)) - begin[size_t(d)];
    if (begin[size_t(d)] < 0 || available < 0)
      return b.fail(fmt::format("begin {} is out of range for dimension {} "
                                "of extent {}",
                                begin[size_t(d)], d, x->shape().dim(size_t(d))));
    const SizeForm &form = (*sizes)[size_t(d)];
    Value rest = b.binary(Opcode::Subtract, extentOf(b, x, d),
                          s32(b, begin[size_t(d)]));
    int64_t extent = available;
    if (form.isConstant() && form.constant >= 0) {
      extent = std::min(form.constant, available);
    } else if (form.isConstant()) { // -1: to the end
      resultDims[size_t(d)] =
          DynamicDim{rest, extentForm(b, x, d) - SizeForm::of(begin[size_t(d)])};
    } else if (table.lowerBound(form) >= 0) {
      extent = std::min(table.upperBound(form), available);
      resultDims[size_t(d)] = DynamicDim{elementAsS32(b, size, d), form};
    } else { // may be -1 at run time
      Value given = elementAsS32(b, size, d);
      Value toEnd = b.compare(ir::ComparisonDirection::LT, given, s32(b, 0));
      resultDims[size_t(d)] = DynamicDim{
          b.select(toEnd, rest, given), table.newSymbol(0, available, origin)};
    }
    ranges.push_back({begin[size_t(d)], begin[size_t(d)] + extent, 1});
  }
  Value sliced = b.slice(x, ranges);
  for (int64_t d = 0; sliced && d < rank; ++d)
    if (resultDims[size_t(d)])
      table.setDim(sliced, d, *resultDims[size_t(d)]);
  return sliced;
}

Value padBy(GraphBuilder &b, Value x, Value paddings, Value value) {
  std::optional<std::vector<SizeForm>> pads =
      requireForms(b, paddings, "paddings");
  if (!pads)
    return nullptr;
  int64_t rank = int64_t(x->shape().rank());
  if (int64_t(pads->size()) != 2 * rank)
    return b.fail(fmt::format("paddings must have shape [{}, 2]", rank));
  DynamicShapes &table = b.dynamic();
  std::vector<int64_t> outDims, bigDims;
  std::vector<Value> starts;
  std::vector<SizeForm> extents;
  for (int64_t d = 0; d < rank; ++d) {
    const SizeForm &low = (*pads)[size_t(2 * d)];
    const SizeForm &high = (*pads)[size_t(2 * d + 1)];
    if (table.lowerBound(low) < 0 || table.lowerBound(high) < 0)
      return b.fail("run-time paddings must not be negative");
    SizeForm extent = extentForm(b, x, d) + low + high;
    int64_t bound = table.upperBound(extent);
    outDims.push_back(bound);
    bigDims.push_back(
        std::max(bound, table.upperBound(low) + x->shape().dim(size_t(d))));
    starts.push_back(elementAsS32(b, paddings, 2 * d));
    extents.push_back(extent);
  }
  Value masked = maskPadding(b, x, value);
  std::vector<Value> operands = {broadcastScalar(b, b.convert(value, x->shape().dtype()), bigDims), masked};
  operands.insert(operands.end(), starts.begin(), starts.end());
  Value placed = b.add(Opcode::DynamicUpdateSlice, std::move(operands));
  std::vector<ir::SliceDim> ranges;
  for (int64_t bound : outDims)
    ranges.push_back({0, bound, 1});
  Value padded = b.slice(placed, ranges);
  for (int64_t d = 0; padded && d < rank; ++d) {
    if (extents[size_t(d)].isConstant())
      continue;
    Value size = b.binary(
        Opcode::Add, extentOf(b, x, d),
        b.binary(Opcode::Add, starts[size_t(d)],
                 elementAsS32(b, paddings, 2 * d + 1)));
    table.setDim(padded, d, {size, extents[size_t(d)]});
  }
  return padded;
}

Value concatDynamic(GraphBuilder &b, const std::vector<Value> &parts,
                    int64_t axis) {
  if (parts.empty() || !parts[0])
    return nullptr;
  std::vector<int64_t> dims = dimsOf(parts[0]);
  int64_t total = 0;
  SizeForm form = SizeForm::of(0);
  for (Value part : parts) {
    if (!part)
      return nullptr;
    total += part->shape().dim(size_t(axis));
    form = form + extentForm(b, part, axis);
  }
  dims[size_t(axis)] = total;
  Value joined = broadcastScalar(
      b, b.scalar(parts[0]->shape().dtype(), 0), dims);
  Value offset = s32(b, 0);
  for (Value part : parts) {
    std::vector<Value> operands = {joined, part};
    for (int64_t d = 0; d < int64_t(dims.size()); ++d)
      operands.push_back(d == axis ? offset : s32(b, 0));
    joined = b.add(Opcode::DynamicUpdateSlice, std::move(operands));
    offset = b.binary(Opcode::Add, offset, extentOf(b, part, axis));
  }
  if (!joined)
    return nullptr;
  copyDynamicDims(b, parts[0], joined);
  b.dynamic().setDim(joined, axis, {offset, form});
  return joined;
}

} // namespace kiln::import
