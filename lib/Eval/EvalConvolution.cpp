//===- EvalConvolution.cpp - XLA convolution ------------------------------===//
//
// out[b, f, o...] = sum over input features i of the group and kernel taps k
//   lhs[batch(b, f), groupFeature(f) + i, pos(o, k)...] * rhs[i, f, k...]
// where pos(o, k) = o*stride + k*window_dilation - pad_low in the input
// dilated by base_dilation (taps on holes or padding contribute nothing).
// feature_group_count G: output feature f belongs to group f / (OF/G), which
// reads input features [group*IF/G, (group+1)*IF/G). batch_group_count B:
// f belongs to batch group f / (OF/B), which reads input batch
// group*(N/B) + b.
//
//===----------------------------------------------------------------------===//
#include "EvalInternal.h"
#include "EvalScalarOps.h"

#include <algorithm>

namespace kiln::eval::detail {

using Index = std::vector<int64_t>;

namespace {

/// Sizes derived once per convolution.
struct ConvPlan {
  int64_t groupInputFeatures = 0;  // kernel input features (IF / G)
  int64_t outPerFeatureGroup = 1;  // OF / G
  int64_t outPerBatchGroup = 1;    // OF / B
  int64_t outBatch = 0;            // N / B
  Index kernelSpatialSizes;
};

bool isPermutation(Index dims) {
  std::sort(dims.begin(), dims.end());
  for (size_t i = 0; i < dims.size(); ++i)
    if (dims[i] != int64_t(i))
      return false;
  return true;
}

Error checkLabels(const Instruction &inst, const Literal &lhs,
                  const Literal &rhs) {
  const auto &dn = inst.attrs().conv;
  size_t spatial = dn.inputSpatial.size();
  Index in = dn.inputSpatial, kernel = dn.kernelSpatial,
        out = dn.outputSpatial;
  in.insert(in.end(), {dn.inputBatch, dn.inputFeature});
  kernel.insert(kernel.end(), {dn.kernelInputFeature, dn.kernelOutputFeature});
  out.insert(out.end(), {dn.outputBatch, dn.outputFeature});
  bool valid = dn.kernelSpatial.size() == spatial &&
               dn.outputSpatial.size() == spatial &&
               inst.attrs().window.size() == spatial &&
               lhs.shape().rank() == int64_t(spatial + 2) &&
               rhs.shape().rank() == int64_t(spatial + 2) &&
               inst.shape().rank() == int64_t(spatial + 2) &&
               isPermutation(in) && isPermutation(kernel) &&
               isPermutation(out);
  if (!valid)
    return instructionError(inst, "dim_labels, window and operand ranks "
                                  "disagree");
  return Error::success();
}

Expected<ConvPlan> planConvolution(const Instruction &inst, const Literal &lhs,
                                   const Literal &rhs) {
  if (Error e = checkLabels(inst, lhs, rhs))
    return e;
  const auto &dn = inst.attrs().conv;
  const Shape &l = lhs.shape(), &r = rhs.shape(), &o = inst.shape();
  int64_t groups = inst.attrs().featureGroupCount;
  int64_t batchGroups = inst.attrs().batchGroupCount;
  int64_t inFeatures = l.dim(size_t(dn.inputFeature));
  int64_t outFeatures = r.dim(size_t(dn.kernelOutputFeature));
  int64_t batch = l.dim(size_t(dn.inputBatch));
  ConvPlan plan;
  plan.groupInputFeatures = r.dim(size_t(dn.kernelInputFeature));
  if (groups < 1 || batchGroups < 1 || outFeatures % groups != 0 ||
      outFeatures % batchGroups != 0 || batch % batchGroups != 0 ||
      plan.groupInputFeatures * groups != inFeatures)
    return instructionError(inst, "feature/batch group counts do not divide "
                                  "the operand dimensions");
  plan.outPerFeatureGroup = outFeatures / groups;
  plan.outPerBatchGroup = outFeatures / batchGroups;
  plan.outBatch = batch / batchGroups;
  bool valid = o.dim(size_t(dn.outputBatch)) == plan.outBatch &&
               o.dim(size_t(dn.outputFeature)) == outFeatures;
  for (size_t i = 0; valid && i < dn.inputSpatial.size(); ++i) {
    const ir::WindowDim &w = inst.attrs().window[i];
    int64_t size = r.dim(size_t(dn.kernelSpatial[i]));
    plan.kernelSpatialSizes.push_back(size);
    int64_t span = size == 0 ? 0 : (size - 1) * w.windowDilation + 1;
    int64_t padded = paddedSize(l.dim(size_t(dn.inputSpatial[i])), w);
    int64_t expected = padded < span ? 0 : (padded - span) / w.stride + 1;
    valid = w.size == size && w.stride >= 1 && w.baseDilation >= 1 &&
            w.windowDilation >= 1 &&
            o.dim(size_t(dn.outputSpatial[i])) == expected;
  }
  if (!valid)
    return instructionError(inst, "result shape does not match the "
                                  "convolution's window and operands");
  return plan;
}

/// Where the taps of one output position read: the offset of the input
/// element relative to the start of its batch and feature group, and of the
/// kernel element relative to its output feature. Taps on padding or on a
/// base-dilation hole read nothing and are left out.
void tapReads(const Index &outIndex, const ConvPlan &plan,
              const Instruction &inst, const Index &lhsDims,
              const Index &lhsStrides, const Index &rhsStrides,
              std::vector<std::pair<int64_t, int64_t>> &reads) {
  const auto &dn = inst.attrs().conv;
  reads.clear();
  if (plan.groupInputFeatures == 0) // no tap reads anything
    return;
  forEachIndex(plan.kernelSpatialSizes, [&](const Index &tap) {
    int64_t lhsAt = 0, rhsAt = 0;
    for (size_t s = 0; s < tap.size(); ++s) {
      size_t dim = size_t(dn.inputSpatial[s]);
      int64_t from = windowSource(outIndex[size_t(dn.outputSpatial[s])],
                                  tap[s], lhsDims[dim], inst.attrs().window[s]);
      if (from < 0)
        return;
      lhsAt += from * lhsStrides[dim];
      rhsAt += tap[s] * rhsStrides[size_t(dn.kernelSpatial[s])];
    }
    reads.push_back({lhsAt, rhsAt});
  });
}

} // namespace

// Offsets come from row-major strides. The taps' reads are found once per
// output position and reused for every output feature, and the innermost
// loop runs over the group's input features, so the oracle stays fast enough
// to run every real model under the sanitizers. Products are summed tap by
// tap, input features in order within a tap.
Expected<Literal> evalConvolution(const Instruction &inst, const Literal &lhs,
                                  const Literal &rhs) {
  Expected<ConvPlan> planned = planConvolution(inst, lhs, rhs);
  if (!planned)
    return planned.takeError();
  const ConvPlan &plan = *planned;
  const auto &dn = inst.attrs().conv;
  const Index &lhsDims = lhs.shape().dims();
  Index lhsStrides = rowMajorStrides(lhsDims);
  Index rhsStrides = rowMajorStrides(rhs.shape().dims());
  int64_t lhsFeatureStride = lhsStrides[size_t(dn.inputFeature)];
  int64_t rhsFeatureStride = rhsStrides[size_t(dn.kernelInputFeature)];
  Literal out(inst.shape());
  Index outStrides = rowMajorStrides(out.shape().dims());
  int64_t outFeatures = out.shape().dim(size_t(dn.outputFeature));
  Index positions = out.shape().dims(); // the result without its features
  positions[size_t(dn.outputFeature)] = outFeatures == 0 ? 0 : 1;
  return visitDType(out.shape().dtype(), [&](auto tag) -> Expected<Literal> {
    constexpr DType kType = decltype(tag)::value;
    using Traits = DTypeTraits<kType>;
    using C = ComputeT<kType>;
    using Acc = typename Accumulator<C>::Acc;
    const auto *lhsData = lhs.data<typename Traits::Storage>();
    const auto *rhsData = rhs.data<typename Traits::Storage>();
    std::vector<std::pair<int64_t, int64_t>> reads; // lhs, rhs offsets
    forEachIndex(positions, [&](const Index &index) {
      tapReads(index, plan, inst, lhsDims, lhsStrides, rhsStrides, reads);
      int64_t outAt = linearIndex(index, out.shape().dims());
      for (int64_t feature = 0; feature < outFeatures; ++feature) {
        int64_t group = feature / plan.outPerFeatureGroup;
        int64_t batch = feature / plan.outPerBatchGroup * plan.outBatch +
                        index[size_t(dn.outputBatch)];
        int64_t lhsGroup = batch * lhsStrides[size_t(dn.inputBatch)] +
                           group * plan.groupInputFeatures * lhsFeatureStride;
        int64_t rhsFeature =
            feature * rhsStrides[size_t(dn.kernelOutputFeature)];
        Acc acc = Acc(0);
        for (auto [lhsAt, rhsAt] : reads)
          acc = stridedMulAdd<kType>(acc, lhsData + (lhsGroup + lhsAt),
                                     lhsFeatureStride,
                                     rhsData + (rhsFeature + rhsAt),
                                     rhsFeatureStride, plan.groupInputFeatures);
        store<kType>(out,
                     outAt + feature * outStrides[size_t(dn.outputFeature)],
                     Accumulator<C>::finish(acc));
      }
    });
    return std::move(out);
  });
}

} // namespace kiln::eval::detail
