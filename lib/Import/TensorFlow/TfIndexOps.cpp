//===- TfIndexOps.cpp - TensorFlow gather, scatter, top-k, resize ops -----===//
//
// The indexing half of the array family (tfArrayRules() includes these).
// Scatter-like ops (ScatterNd, SparseToDense) need constant indices and are
// resolved at import; resize weights are computed at import as TF.js does.
//
//===----------------------------------------------------------------------===//
#include "TensorFlow/TfOps.h"

#include "Common/ArrayLowering.h"
#include "Common/ResizeLowering.h"
#include "kiln/Import/LiteralUtil.h"

#include <fmt/format.h>

namespace kiln::import::tf {

using ir::DType;

std::span<const TfOpRule> tfIndexRules();

namespace {
DType typeAttr(TfNodeContext &ctx, std::string_view key, DType fallback) {
  if (!ctx.hasAttr(key))
    return fallback;
  return ctx.attrType(key).value_or(fallback);
}

int64_t rankOf(Value x) { return x ? x->shape().rank() : 0; }

std::optional<int64_t> scalarInput(TfNodeContext &ctx, size_t i,
                                   std::string_view what) {
  std::optional<std::vector<int64_t>> values = ctx.constantInts(i, what);
  if (!values)
    return std::nullopt;
  if (values->size() != 1) {
    ctx.fail(fmt::format("{} must be a scalar", what));
    return std::nullopt;
  }
  return values->front();
}

// --- Gather and scatter --------------------------------------------------------

void gatherWithAxis(TfNodeContext &ctx, int64_t axis, int64_t batchDims) {
  Value x = ctx.input(0), indices = ctx.input(1);
  std::optional<int64_t> a = normalizeAxis(axis, rankOf(x));
  if (batchDims < 0)
    batchDims += rankOf(indices);
  if (!a) {
    ctx.fail(fmt::format("gather axis {} is out of range for rank {}", axis,
                         rankOf(x)));
    return;
  }
  ctx.setOutput(0, gatherAxis(ctx.builder(), x, indices, *a, batchDims, false));
}

void lowerGatherV2(TfNodeContext &ctx) {
  if (std::optional<int64_t> axis = scalarInput(ctx, 2, "axis"))
    gatherWithAxis(ctx, *axis, ctx.attrInt("batch_dims", 0));
}

void lowerGather(TfNodeContext &ctx) { gatherWithAxis(ctx, 0, 0); }

void lowerGatherNd(TfNodeContext &ctx) {
  ctx.setOutput(0, gatherNd(ctx.builder(), ctx.input(0), ctx.input(1),
                            ctx.attrInt("batch_dims", 0), false));
}

const ir::Literal *constantLiteral(TfNodeContext &ctx, size_t i,
                                   std::string_view what) {
  const ir::Literal *literal = GraphBuilder::constantValue(ctx.input(i));
  if (!literal)
    ctx.fail(fmt::format("input {} ({}) must be a compile-time constant: kiln "
                         "resolves scatters at import",
                         i, what));
  return literal;
}

void lowerScatterNd(TfNodeContext &ctx) {
  GraphBuilder &b = ctx.builder();
  const ir::Literal *indices = constantLiteral(ctx, 0, "indices");
  std::optional<std::vector<int64_t>> shape = ctx.constantInts(2, "shape");
  Value updates = ctx.input(1);
  if (!indices || !shape)
    return;
  Value zeros = b.broadcastInDim(b.like(updates, 0), *shape, {});
  ctx.setOutput(0, scatterNd(b, zeros, *indices, updates, ScatterReduction::Add));
}

void lowerSparseToDense(TfNodeContext &ctx) {
  GraphBuilder &b = ctx.builder();
  const ir::Literal *indices = constantLiteral(ctx, 0, "sparse_indices");
  std::optional<std::vector<int64_t>> shape = ctx.constantInts(1, "output_shape");
  Value values = ctx.input(2), fallback = ctx.input(3);
  if (!indices || !shape)
    return;
  // Indices are a scalar, [N] (rank-1 output) or [N, rank]; rows are the
  // flat output positions.
  std::vector<int64_t> raw = literalToInts(*indices), rows;
  size_t width = indices->shape().rank() == 2 ? size_t(indices->shape().dim(1)) : 1;
  if (width != shape->size() || raw.size() % width) {
    ctx.fail("sparse_indices do not match output_shape's rank");
    return;
  }
  for (size_t n = 0; n < raw.size() / width; ++n) {
    int64_t row = 0;
    for (size_t c = 0; c < width; ++c) {
      int64_t v = raw[n * width + c];
      if (v < 0 || v >= (*shape)[c]) {
        ctx.fail(fmt::format("sparse index {} is out of bounds for dimension "
                             "{} of size {}",
                             v, c, (*shape)[c]));
        return;
      }
      row = row * (*shape)[c] + v;
    }
    if (ctx.attrBool("validate_indices", true) && !rows.empty() &&
        row <= rows.back()) {
      ctx.fail(fmt::format("sparse index {} is out of order or repeated "
                           "(validate_indices=true)",
                           n));
      return;
    }
    rows.push_back(row);
  }
  int64_t total = product(*shape), count = int64_t(rows.size());
  Value dense = b.broadcastInDim(b.reshape(fallback, {}), {total, 1}, {});
  Value updates = rankOf(values) == 0
                      ? b.broadcastInDim(values, {count, 1}, {})
                      : b.reshape(values, {count, 1});
  ctx.setOutput(0, b.reshape(scatterRows(b, dense, updates, rows,
                                         ScatterReduction::None),
                             *shape));
}

void lowerOneHot(TfNodeContext &ctx) {
  std::optional<int64_t> depth = scalarInput(ctx, 1, "depth");
  if (depth)
    ctx.setOutput(0, oneHot(ctx.builder(), ctx.input(0), *depth, ctx.input(2),
                            ctx.input(3), ctx.attrInt("axis", -1), false));
}

void lowerTopKV2(TfNodeContext &ctx) {
  Value x = ctx.input(0);
  std::optional<int64_t> k = scalarInput(ctx, 1, "k");
  if (!k)
    return;
  auto [values, indices] =
      topK(ctx.builder(), x, *k, rankOf(x) - 1, true,
           typeAttr(ctx, "index_type", DType::S32));
  ctx.setOutput(0, values);
  ctx.setOutput(1, indices);
}

void lowerMatrixBandPart(TfNodeContext &ctx) {
  std::optional<int64_t> lower = scalarInput(ctx, 1, "num_lower");
  std::optional<int64_t> upper = scalarInput(ctx, 2, "num_upper");
  if (lower && upper)
    ctx.setOutput(0, bandPart(ctx.builder(), ctx.input(0), *lower, *upper));
}

// --- Space, depth and batch -----------------------------------------------------

bool channelsLast(TfNodeContext &ctx) {
  std::string format = ctx.attrString("data_format", "NHWC");
  if (format != "NHWC" && format != "NCHW")
    ctx.fail(fmt::format("unsupported data_format '{}'", format));
  return format != "NCHW";
}

void lowerDepthToSpace(TfNodeContext &ctx) {
  bool last = channelsLast(ctx);
  ctx.setOutput(0, depthToSpace(ctx.builder(), ctx.input(0),
                                ctx.attrInt("block_size", 2), last, false));
}

void lowerSpaceToDepth(TfNodeContext &ctx) {
  bool last = channelsLast(ctx);
  ctx.setOutput(0, spaceToDepth(ctx.builder(), ctx.input(0),
                                ctx.attrInt("block_size", 2), last));
}

/// [B, s1..sM, rest] with blocks b1..bM -> [b1..bM, B, s1/b1..sM/bM, rest]
/// (SpaceToBatchND after padding) or the inverse arrangement.
Value blockShuffle(GraphBuilder &b, Value x, const std::vector<int64_t> &block,
                   bool toBatch) {
  std::vector<int64_t> d = dimsOf(x), split, perm, result;
  size_t m = block.size(), rest = d.size() - 1 - m;
  int64_t blocks = product(block);
  if (toBatch) { // [B, s1/b1, b1, ..., rest] -> [b..., B, s/b..., rest]
    split.push_back(d[0]);
    for (size_t i = 0; i < m; ++i) {
      split.push_back(d[1 + i] / block[i]);
      split.push_back(block[i]);
      perm.push_back(int64_t(2 + 2 * i));
    }
    perm.push_back(0);
    for (size_t i = 0; i < m; ++i)
      perm.push_back(int64_t(1 + 2 * i));
    result.push_back(d[0] * blocks);
    for (size_t i = 0; i < m; ++i)
      result.push_back(d[1 + i] / block[i]);
  } else { // [b..., B/prod(b), s..., rest] -> [B', s1, b1, ..., rest]
    split = block;
    split.push_back(d[0] / blocks);
    perm.push_back(int64_t(m));
    result.push_back(d[0] / blocks);
    for (size_t i = 0; i < m; ++i) {
      split.push_back(d[1 + i]);
      perm.push_back(int64_t(m + 1 + i));
      perm.push_back(int64_t(i));
      result.push_back(d[1 + i] * block[i]);
    }
  }
  for (size_t i = 0; i < rest; ++i) {
    split.push_back(d[1 + m + i]);
    perm.push_back(int64_t(split.size() - 1));
    result.push_back(d[1 + m + i]);
  }
  return b.reshape(b.transpose(b.reshape(x, split), perm), result);
}

bool blockInputs(TfNodeContext &ctx, const char *what, std::vector<int64_t> &block,
                 std::vector<int64_t> &low, std::vector<int64_t> &high) {
  std::optional<std::vector<int64_t>> shape = ctx.constantInts(1, "block_shape");
  std::optional<std::vector<int64_t>> pairs = ctx.constantInts(2, what);
  if (!shape || !pairs)
    return false;
  block = *shape;
  if (pairs->size() != 2 * block.size() ||
      rankOf(ctx.input(0)) < int64_t(block.size()) + 1) {
    ctx.fail(fmt::format("block_shape and {} do not fit the input", what));
    return false;
  }
  for (size_t i = 0; i < block.size(); ++i) {
    low.push_back((*pairs)[2 * i]);
    high.push_back((*pairs)[2 * i + 1]);
  }
  return true;
}

void lowerSpaceToBatchNd(TfNodeContext &ctx) {
  GraphBuilder &b = ctx.builder();
  std::vector<int64_t> block, low, high;
  if (!blockInputs(ctx, "paddings", block, low, high))
    return;
  Value x = ctx.input(0);
  std::vector<int64_t> allLow(size_t(rankOf(x)), 0), allHigh = allLow;
  std::copy(low.begin(), low.end(), allLow.begin() + 1);
  std::copy(high.begin(), high.end(), allHigh.begin() + 1);
  Value padded = padTensor(b, x, allLow, allHigh, PadMode::Constant, nullptr);
  std::vector<int64_t> d = dimsOf(padded);
  for (size_t i = 0; i < block.size(); ++i)
    if (block[i] < 1 || d[1 + i] % block[i]) {
      ctx.fail(fmt::format("padded dimension {} of size {} is not divisible "
                           "by block {}",
                           1 + i, d[1 + i], block[i]));
      return;
    }
  ctx.setOutput(0, blockShuffle(b, padded, block, true));
}

void lowerBatchToSpaceNd(TfNodeContext &ctx) {
  GraphBuilder &b = ctx.builder();
  std::vector<int64_t> block, low, high;
  if (!blockInputs(ctx, "crops", block, low, high))
    return;
  Value x = ctx.input(0);
  if (product(block) < 1 || x->shape().dim(0) % product(block)) {
    ctx.fail("the batch is not divisible by the block size");
    return;
  }
  Value spread = blockShuffle(b, x, block, false);
  std::vector<int64_t> allLow(size_t(rankOf(x)), 0), allHigh = allLow;
  for (size_t i = 0; i < block.size(); ++i) {
    allLow[1 + i] = -low[i];
    allHigh[1 + i] = -high[i];
  }
  ctx.setOutput(0, padTensor(b, spread, allLow, allHigh, PadMode::Constant,
                             nullptr));
}

// --- Resize ---------------------------------------------------------------

template <bool Bilinear> void lowerResize(TfNodeContext &ctx) {
  GraphBuilder &b = ctx.builder();
  Value x = ctx.input(0);
  std::optional<std::vector<int64_t>> size = ctx.constantInts(1, "size");
  if (!size)
    return;
  if (rankOf(x) != 4 || size->size() != 2) {
    ctx.fail("resize expects NHWC images and a size of two elements");
    return;
  }
  bool corners = ctx.attrBool("align_corners", false);
  bool halfPixel = ctx.attrBool("half_pixel_centers", false);
  if (corners && halfPixel) {
    ctx.fail("align_corners and half_pixel_centers cannot both be true");
    return;
  }
  // ResizeBilinear always yields float32, whatever the input type.
  if (Bilinear)
    x = b.convert(x, DType::F32);
  // Width first, then height: TF.js lerps along a row before between rows.
  for (int64_t axis : {2, 1}) {
    if (!checkResizeTables(b, (*size)[size_t(axis - 1)]))
      return;
    int64_t in = x ? x->shape().dim(size_t(axis)) : 0;
    x = resampleAxis(b, x, axis,
                     tfResizeAxis(in, (*size)[size_t(axis - 1)], Bilinear,
                                  corners, halfPixel));
  }
  ctx.setOutput(0, x);
}

const TfOpRule kRules[] = {
    {"GatherV2", lowerGatherV2},
    {"Gather", lowerGather},
    {"GatherNd", lowerGatherNd},
    {"ScatterNd", lowerScatterNd},
    {"SparseToDense", lowerSparseToDense},
    {"OneHot", lowerOneHot},
    {"TopKV2", lowerTopKV2},
    {"MatrixBandPart", lowerMatrixBandPart},
    {"DepthToSpace", lowerDepthToSpace},
    {"SpaceToDepth", lowerSpaceToDepth},
    {"SpaceToBatchND", lowerSpaceToBatchNd},
    {"BatchToSpaceND", lowerBatchToSpaceNd},
    {"ResizeBilinear", lowerResize<true>},
    {"ResizeNearestNeighbor", lowerResize<false>},
};
} // namespace

std::span<const TfOpRule> tfIndexRules() { return kRules; }

} // namespace kiln::import::tf
