//===- ShapeInferenceCompute.cpp - Shape rules for compute opcodes --------===//
//
// reduce, reduce-window, arg-max/min, dot, convolution, sort and top-k.
// Contractions keep their operands' dtype: kiln has no mixed-precision dot or
// convolution (an importer inserts converts instead), which keeps the
// evaluator and emitter free of accumulation-type rules.
//
//===----------------------------------------------------------------------===//
#include "ShapeInferenceRules.h"

#include <fmt/format.h>
#include <set>

namespace kiln::ir::detail {

namespace {

struct ReducerRule {
  ReducerKind kind;
  bool allowsPred, allowsInt, allowsFloat;
};

// and/or are logical or bitwise, so they need pred or integers; add/mul on
// pred is rejected like elementwise add/multiply.
constexpr ReducerRule kReducerRules[] = {
    {ReducerKind::Add, false, true, true},
    {ReducerKind::Mul, false, true, true},
    {ReducerKind::Max, true, true, true},
    {ReducerKind::Min, true, true, true},
    {ReducerKind::And, true, true, false},
    {ReducerKind::Or, true, true, false},
};

/// Checks the reduced operand, its scalar init value and the reducer.
Error checkReducer(const InferenceInput &in) {
  if (Error e = requireArray(in, 0))
    return e;
  if (Error e = requireScalar(in, 1, "init value"))
    return e;
  if (Error e = requireSameDType(in, 0, 1))
    return e;
  DType type = in.operands[0].dtype();
  for (const ReducerRule &rule : kReducerRules) {
    if (rule.kind != in.attrs.reducer)
      continue;
    bool ok = type == DType::Pred ? rule.allowsPred
              : isFloat(type)     ? rule.allowsFloat
                                  : rule.allowsInt;
    if (!ok)
      return makeError("reducer {} does not apply to dtype {}",
                       reducerKindName(rule.kind), dtypeName(type));
    return Error::success();
  }
  return makeError("unknown reducer (value {})", int(in.attrs.reducer));
}

/// The dimensions of `shape` without those in `removed` (validated).
std::vector<int64_t> dimsWithout(const Shape &shape,
                                 const std::vector<int64_t> &removed) {
  std::set<int64_t> drop(removed.begin(), removed.end());
  std::vector<int64_t> dims;
  for (int64_t i = 0; i < shape.rank(); ++i)
    if (!drop.count(i))
      dims.push_back(shape.dim(size_t(i)));
  return dims;
}

} // namespace

Expected<Shape> inferReduce(const InferenceInput &in) {
  if (!in.called.empty())
    return inferAppliedReduce(in);
  if (in.operands.size() != 2)
    return makeError("reduce with a reducer kind takes one input and one "
                     "init value but has {} operands (several inputs need "
                     "to_apply)",
                     in.operands.size());
  if (Error e = checkReducer(in))
    return e;
  const Shape &operand = in.operands[0];
  if (Error e = requireUniqueDims(in.attrs.dimensions, operand.rank(),
                                  "reduce dimension"))
    return e;
  return Shape(operand.dtype(), dimsWithout(operand, in.attrs.dimensions));
}

Expected<std::vector<int64_t>>
windowedDims(const Shape &operand, const std::vector<WindowDim> &window) {
  if (int64_t(window.size()) != operand.rank())
    return makeError("window has {} dimensions but the operand has rank {}",
                     window.size(), operand.rank());
  std::vector<int64_t> dims;
  for (size_t i = 0; i < window.size(); ++i) {
    Expected<int64_t> size = windowOutputSize(operand.dim(i), window[i], i);
    if (!size)
      return size.takeError();
    dims.push_back(*size);
  }
  return dims;
}

Expected<Shape> inferReduceWindow(const InferenceInput &in) {
  if (!in.called.empty())
    return inferAppliedReduceWindow(in);
  if (in.operands.size() != 2)
    return makeError("reduce-window with a reducer kind takes one input and "
                     "one init value but has {} operands (several inputs "
                     "need to_apply)",
                     in.operands.size());
  if (Error e = checkReducer(in))
    return e;
  const Shape &operand = in.operands[0];
  Expected<std::vector<int64_t>> dims = windowedDims(operand, in.attrs.window);
  if (!dims)
    return dims.takeError();
  return Shape(operand.dtype(), std::move(*dims));
}

/// The index dtype comes from the declared result shape.
Expected<Shape> inferArgMinMax(const InferenceInput &in) {
  if (Error e = requireArray(in, 0))
    return e;
  const Shape &operand = in.operands[0];
  Expected<int64_t> dim = requireSingleDim(in.attrs.dimensions, operand.rank(),
                                           "reduced dimension");
  if (!dim)
    return dim.takeError();
  if (in.declared.isTuple() || !isInteger(in.declared.dtype()))
    return makeError("result must be an integer index array but is declared "
                     "{}",
                     in.declared.toString());
  return Shape(in.declared.dtype(), dimsWithout(operand, {*dim}));
}

namespace {

/// Checks dot's dimension lists against the operand ranks.
Error checkDotDimensionLists(const DotDimensionNumbers &d, const Shape &lhs,
                             const Shape &rhs) {
  if (d.lhsBatch.size() != d.rhsBatch.size())
    return makeError("lhs has {} batch dimensions but rhs has {}",
                     d.lhsBatch.size(), d.rhsBatch.size());
  if (d.lhsContracting.size() != d.rhsContracting.size())
    return makeError("lhs has {} contracting dimensions but rhs has {}",
                     d.lhsContracting.size(), d.rhsContracting.size());
  std::vector<int64_t> lhsAll = d.lhsBatch, rhsAll = d.rhsBatch;
  lhsAll.insert(lhsAll.end(), d.lhsContracting.begin(), d.lhsContracting.end());
  rhsAll.insert(rhsAll.end(), d.rhsContracting.begin(), d.rhsContracting.end());
  if (Error e = requireUniqueDims(lhsAll, lhs.rank(),
                                  "lhs batch/contracting dimension"))
    return e;
  return requireUniqueDims(rhsAll, rhs.rank(),
                           "rhs batch/contracting dimension");
}

} // namespace

Expected<Shape> inferDot(const InferenceInput &in) {
  for (size_t i = 0; i < 2; ++i)
    if (Error e = requireArray(in, i))
      return e;
  if (Error e = requireSameDType(in, 0, 1))
    return e;
  const Shape &lhs = in.operands[0], &rhs = in.operands[1];
  if (Error e = requireAcceptedDType(in, 0))
    return e;
  const DotDimensionNumbers &d = in.attrs.dot;
  if (Error e = checkDotDimensionLists(d, lhs, rhs))
    return e;
  for (size_t i = 0; i < d.lhsBatch.size(); ++i)
    if (lhs.dim(size_t(d.lhsBatch[i])) != rhs.dim(size_t(d.rhsBatch[i])))
      return makeError("lhs batch dimension {} has size {} but rhs batch "
                       "dimension {} has size {}",
                       d.lhsBatch[i], lhs.dim(size_t(d.lhsBatch[i])),
                       d.rhsBatch[i], rhs.dim(size_t(d.rhsBatch[i])));
  for (size_t i = 0; i < d.lhsContracting.size(); ++i) {
    int64_t l = d.lhsContracting[i], r = d.rhsContracting[i];
    if (lhs.dim(size_t(l)) != rhs.dim(size_t(r)))
      return makeError("lhs contracting dimension {} has size {} but rhs "
                       "contracting dimension {} has size {}",
                       l, lhs.dim(size_t(l)), r, rhs.dim(size_t(r)));
  }
  // Result: batch dims (lhs order), lhs free dims, rhs free dims.
  std::vector<int64_t> dims;
  for (int64_t b : d.lhsBatch)
    dims.push_back(lhs.dim(size_t(b)));
  std::vector<int64_t> lhsUsed = d.lhsBatch, rhsUsed = d.rhsBatch;
  lhsUsed.insert(lhsUsed.end(), d.lhsContracting.begin(),
                 d.lhsContracting.end());
  rhsUsed.insert(rhsUsed.end(), d.rhsContracting.begin(),
                 d.rhsContracting.end());
  for (int64_t s : dimsWithout(lhs, lhsUsed))
    dims.push_back(s);
  for (int64_t s : dimsWithout(rhs, rhsUsed))
    dims.push_back(s);
  return Shape(lhs.dtype(), std::move(dims));
}

namespace {

/// Checks that the roles of one convolution operand are a permutation of
/// its dimensions.
Error checkConvRoles(std::string_view operand, int64_t a, int64_t b,
                     const std::vector<int64_t> &spatial, int64_t rank) {
  std::vector<int64_t> all = {a, b};
  all.insert(all.end(), spatial.begin(), spatial.end());
  if (int64_t(all.size()) != rank)
    return makeError("{} dimension labels name {} dimensions but the {} has "
                     "rank {}",
                     operand, all.size(), operand, rank);
  return requireUniqueDims(all, rank,
                           fmt::format("{} dimension label", operand));
}

Error checkConvGroups(const InferenceInput &in) {
  const ConvolutionDimensionNumbers &c = in.attrs.conv;
  const Shape &input = in.operands[0], &kernel = in.operands[1];
  int64_t fgc = in.attrs.featureGroupCount, bgc = in.attrs.batchGroupCount;
  if (fgc < 1 || bgc < 1)
    return makeError("feature_group_count {} and batch_group_count {} must be "
                     ">= 1",
                     fgc, bgc);
  if (fgc > 1 && bgc > 1)
    return makeError("feature_group_count {} and batch_group_count {} cannot "
                     "both exceed 1",
                     fgc, bgc);
  int64_t inFeatures = input.dim(size_t(c.inputFeature));
  int64_t kernelIn = kernel.dim(size_t(c.kernelInputFeature));
  int64_t kernelOut = kernel.dim(size_t(c.kernelOutputFeature));
  int64_t batch = input.dim(size_t(c.inputBatch));
  if (inFeatures % fgc != 0)
    return makeError("input feature size {} is not divisible by "
                     "feature_group_count {}",
                     inFeatures, fgc);
  if (inFeatures / fgc != kernelIn)
    return makeError("input feature size {} / feature_group_count {} must "
                     "equal the kernel input feature size {}",
                     inFeatures, fgc, kernelIn);
  if (kernelOut % fgc != 0 || kernelOut % bgc != 0)
    return makeError("kernel output feature size {} must be divisible by "
                     "feature_group_count {} and batch_group_count {}",
                     kernelOut, fgc, bgc);
  if (batch % bgc != 0)
    return makeError("input batch size {} is not divisible by "
                     "batch_group_count {}",
                     batch, bgc);
  return Error::success();
}

} // namespace

Expected<Shape> inferConvolution(const InferenceInput &in) {
  for (size_t i = 0; i < 2; ++i)
    if (Error e = requireArray(in, i))
      return e;
  if (Error e = requireSameDType(in, 0, 1))
    return e;
  const Shape &input = in.operands[0], &kernel = in.operands[1];
  if (Error e = requireAcceptedDType(in, 0))
    return e;
  const ConvolutionDimensionNumbers &c = in.attrs.conv;
  size_t spatial = in.attrs.window.size();
  int64_t rank = int64_t(spatial) + 2;
  if (input.rank() != rank || kernel.rank() != rank)
    return makeError("window has {} spatial dimensions, so input and kernel "
                     "must have rank {} but have ranks {} and {}",
                     spatial, rank, input.rank(), kernel.rank());
  if (Error e = checkConvRoles("input", c.inputBatch, c.inputFeature,
                               c.inputSpatial, rank))
    return e;
  if (Error e = checkConvRoles("kernel", c.kernelInputFeature,
                               c.kernelOutputFeature, c.kernelSpatial, rank))
    return e;
  if (Error e = checkConvRoles("output", c.outputBatch, c.outputFeature,
                               c.outputSpatial, rank))
    return e;
  if (Error e = checkConvGroups(in))
    return e;
  std::vector<int64_t> dims(size_t(rank), 0);
  dims[size_t(c.outputBatch)] =
      input.dim(size_t(c.inputBatch)) / in.attrs.batchGroupCount;
  dims[size_t(c.outputFeature)] = kernel.dim(size_t(c.kernelOutputFeature));
  for (size_t i = 0; i < spatial; ++i) {
    int64_t kernelSize = kernel.dim(size_t(c.kernelSpatial[i]));
    if (in.attrs.window[i].size != kernelSize)
      return makeError("window dimension {} has size {} but kernel spatial "
                       "dimension {} has size {}",
                       i, in.attrs.window[i].size, c.kernelSpatial[i],
                       kernelSize);
    Expected<int64_t> size = windowOutputSize(
        input.dim(size_t(c.inputSpatial[i])), in.attrs.window[i], i);
    if (!size)
      return size.takeError();
    dims[size_t(c.outputSpatial[i])] = *size;
  }
  return Shape(input.dtype(), std::move(dims));
}

/// Operands of any dtypes with the dimensions of operand 0, sorted together.
/// Without a comparator operand 0 holds the keys and the others are
/// permuted alongside.
Expected<Shape> inferSort(const InferenceInput &in) {
  for (size_t i = 0; i < in.operands.size(); ++i)
    if (Error e = requireArray(in, i))
      return e;
  const Shape &keys = in.operands[0];
  Expected<int64_t> dim =
      requireSingleDim(in.attrs.dimensions, keys.rank(), "sort dimension");
  if (!dim)
    return dim.takeError();
  for (size_t i = 1; i < in.operands.size(); ++i)
    if (in.operands[i].dims() != keys.dims())
      return makeError("operand {} has dimensions {} but the keys (operand 0) "
                       "have {}",
                       i, formatDims(in.operands[i].dims()),
                       formatDims(keys.dims()));
  if (!in.called.empty())
    if (Error e = checkSortComparator(in))
      return e;
  if (in.operands.size() == 1)
    return keys;
  return Shape::tuple(in.operands);
}

Expected<Shape> inferTopK(const InferenceInput &in) {
  if (Error e = requireArray(in, 0))
    return e;
  const Shape &operand = in.operands[0];
  if (operand.rank() < 1)
    return makeError("operand must have rank >= 1 but is a scalar");
  int64_t last = operand.dim(size_t(operand.rank() - 1));
  if (in.attrs.k < 0 || in.attrs.k > last)
    return makeError("k = {} must be in [0, {}] (the size of the last "
                     "dimension)",
                     in.attrs.k, last);
  std::vector<int64_t> dims = operand.dims();
  dims.back() = in.attrs.k;
  return Shape::tuple({Shape(operand.dtype(), dims), Shape(DType::S32, dims)});
}

} // namespace kiln::ir::detail
