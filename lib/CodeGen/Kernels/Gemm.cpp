//===- Gemm.cpp - The register-blocked GEMM every contraction runs on -----===//
#include "Gemm.h"
#include "InOrderMicroKernel.h"
#include "KernelSupport.h"
#include "PackedWeights.h"

#include <llvm/IR/Constants.h>
#include <llvm/IR/Intrinsics.h>

#include <algorithm>

namespace kiln::codegen::kernels {

using llvm::Value;

StridedRows::StridedRows(ir::DType dtype, Value *base, int64_t rowStride,
                         int64_t k, int64_t kStride)
    : dtype_(dtype), base_(base), rowStride_(rowStride) {
  segments = 1;
  segmentLength = k;
  this->kStride = kStride;
}

std::vector<Value *> StridedRows::rows(EmitterContext &ctx, Value *firstRow,
                                       int64_t count, Value *) const {
  llvm::IRBuilder<> &b = ctx.builder();
  Value *first = offsetPointer(ctx, dtype_, base_,
                               b.CreateNUWMul(firstRow, ctx.i64(rowStride_)));
  std::vector<Value *> pointers;
  for (int64_t r = 0; r < count; ++r)
    pointers.push_back(
        offsetPointer(ctx, dtype_, first, ctx.i64(r * rowStride_)));
  return pointers;
}

namespace {
/// Tasks of fewer rows would re-read the packed weights too often: each
/// task streams all of B over its rows.
constexpr int64_t kMinRowsPerTask = 24;
} // namespace

TaskSplit splitGemm(const GemmShape &shape, int64_t k, int64_t batches) {
  int64_t mr = shape.tile.mr;
  int64_t tiles = shape.m / mr;
  return splitUnits(tiles, 2 * mr * shape.n * k * batches,
                    (kMinRowsPerTask + mr - 1) / mr);
}

GemmRows gemmTaskRows(EmitterContext &ctx, const GemmShape &shape,
                      const TaskSplit &split, Value *firstTask,
                      Value *lastTask) {
  if (!split.split())
    return {};
  llvm::IRBuilder<> &b = ctx.builder();
  int64_t mr = shape.tile.mr;
  UnitRange tiles = taskUnits(ctx, split, shape.m / mr, firstTask, lastTask);
  return {b.CreateNUWMul(tiles.begin, ctx.i64(mr)),
          b.CreateNUWMul(tiles.end, ctx.i64(mr)),
          b.CreateICmpEQ(lastTask, ctx.i64(split.tasks), "with.tail")};
}

GemmTile gemmTileFor(EmitterContext &ctx, ir::DType dtype, int64_t m, int64_t n,
                     int64_t k) {
  return ctx.target().gemmTile(int64_t(ir::byteSize(dtype)), m, n, k);
}

namespace {

/// One register tile: `rows` rows by `validCols` columns spanning `panels`
/// consecutive panels.
struct TilePlan {
  int64_t rows = 0, validCols = 0, panels = 1;
};

class GemmEmitter {
public:
  GemmEmitter(EmitterContext &ctx, const GemmShape &shape,
              const GemmOperands &operands, const Epilogue &epilogue)
      : ctx_(ctx), b_(ctx.builder()), shape_(shape), ops_(operands),
        epilogue_(epilogue), lanes_(shape.tile.lanes), nr_(shape.tile.nr),
        k_(operands.a->segments * operands.a->segmentLength) {
    panelStride_ = shape.packedB ? k_ * nr_ : nr_;
    kRow_ = shape.packedB ? nr_ : shape.ldb;
    bytes_ = int64_t(ir::byteSize(shape.dtype));
  }

  Error emit();

private:
  Error emitRowBlocks(Value *firstRow, Value *endRow, int64_t fullPanels,
                      int64_t tailCols);
  Error emitTailRows(Value *row0, int64_t rows, int64_t fullPanels,
                     int64_t tailCols);
  Error emitTile(Value *row0, Value *panel0, const TilePlan &plan);
  Expected<std::vector<Value *>> emitK(const RowSource &a, Value *row0,
                                       Value *panel0, const TilePlan &plan,
                                       std::vector<Value *> acc);
  Expected<std::vector<Value *>> emitSegment(const RowSource &a, Value *row0,
                                             Value *panel0,
                                             const TilePlan &plan, Value *seg,
                                             std::vector<Value *> acc);
  /// One K step: the tile's B vectors at `kk` times each row's A value.
  void emitStep(Value *bSeg, Value *kk, const TilePlan &plan,
                llvm::function_ref<Value *(int64_t)> aBroadcast,
                std::vector<Value *> &acc);
  /// The tile's B vectors at `kOffset` from interleaved panels
  /// (GemmTile::interleavedPanels): each 16-column block is one load,
  /// de-interleaved by shuffles (AArch64 selects LD4).
  std::vector<Value *> loadInterleaved(Value *bSeg, Value *kOffset,
                                       const TilePlan &plan);
  Error storeTile(Value *row0, Value *panel0, const TilePlan &plan,
                  const std::vector<Value *> &acc);
  /// A skinny tile reads each packed weight once, so it is bound by how
  /// fast the weights stream in from L2/L3: prefetching a few KiB ahead
  /// measured 1.1-1.4x faster than the hardware prefetcher alone (GEMV,
  /// K = N = 512-2048).
  bool streamsWeights(const TilePlan &plan) const {
    return shape_.packedB && plan.rows <= 4;
  }
  void prefetch(Value *at) {
    int64_t rowBytes = kRow_ * bytes_;
    int64_t ahead = (kPrefetchBytes + rowBytes - 1) / rowBytes * kRow_;
    // Not inbounds: near the end it points past the weights (a prefetch
    // never faults).
    Value *address =
        b_.CreateGEP(ctx_.storageType(shape_.dtype), at, ctx_.i64(ahead));
    b_.CreateIntrinsic(
        llvm::Intrinsic::prefetch, {address->getType()},
        {address, b_.getInt32(0), b_.getInt32(3), b_.getInt32(1)});
  }
  static constexpr int64_t kCacheLine = 64, kPrefetchBytes = 4096;

  int64_t vectorsOf(const TilePlan &plan) const {
    return (plan.validCols + lanes_ - 1) / lanes_;
  }
  int64_t validLanes(const TilePlan &plan, int64_t q) const {
    return std::clamp<int64_t>(plan.validCols - q * lanes_, 0, lanes_);
  }

  EmitterContext &ctx_;
  llvm::IRBuilder<> &b_;
  const GemmShape &shape_;
  const GemmOperands &ops_;
  const Epilogue &epilogue_;
  int64_t lanes_, nr_, k_;
  int64_t panelStride_ = 0, kRow_ = 0, bytes_ = 4;
};

Error GemmEmitter::emit() {
  int64_t mr = shape_.tile.mr;
  int64_t fullPanels = shape_.n / nr_, tailCols = shape_.n % nr_;
  int64_t fullRows = shape_.m / mr * mr, tailRows = shape_.m % mr;
  const GemmRows &range = ops_.rows;
  Value *tailFirst = ctx_.i64(fullRows);
  if (range.tailFirst) {
    tailFirst = range.tailFirst;
    tailRows = range.tailRows;
  }
  auto tail = [&] {
    return emitTailRows(tailFirst, tailRows, fullPanels, tailCols);
  };
  if (!range.first) {
    if (fullRows > 0)
      if (Error e = emitRowBlocks(ctx_.i64(0), ctx_.i64(fullRows), fullPanels,
                                  tailCols))
        return e;
    return tailRows > 0 ? tail() : Error::success();
  }
  // One task's rows: the same tiles, in the same order, as without a split.
  if (fullRows > 0)
    if (Error e = emitIf(
            ctx_, b_.CreateICmpULT(range.first, range.end),
            [&] {
              return emitRowBlocks(range.first, range.end, fullPanels,
                                   tailCols);
            },
            "gemm.rows"))
      return e;
  if (tailRows > 0)
    return emitIf(ctx_, range.withTail, tail, "gemm.tail");
  return Error::success();
}

/// Full tiles: blocks of MC rows, then panels, then MR-row tiles, so a
/// block of A stays in L2 while every panel of B passes over it.
Error GemmEmitter::emitRowBlocks(Value *firstRow, Value *endRow,
                                 int64_t fullPanels, int64_t tailCols) {
  int64_t mr = shape_.tile.mr;
  int64_t mc = std::max(mr, shape_.tile.mc / mr * mr);
  return emitRangeLoop(
      ctx_, firstRow, endRow, mc,
      [&](Value *ic) -> Error {
        Value *end = b_.CreateNUWAdd(ic, ctx_.i64(mc));
        Value *icEnd =
            b_.CreateSelect(b_.CreateICmpULT(end, endRow), end, endRow);
        auto rowTiles = [&](Value *panel, TilePlan plan) {
          return emitRangeLoop(
              ctx_, ic, icEnd, mr,
              [&](Value *ir) { return emitTile(ir, panel, plan); }, "gemm.ir");
        };
        if (fullPanels > 0)
          if (Error e = emitRangeLoop(
                  ctx_, ctx_.i64(0), ctx_.i64(fullPanels), 1,
                  [&](Value *jp) {
                    return rowTiles(jp, {mr, nr_, 1});
                  },
                  "gemm.jp"))
            return e;
        if (tailCols > 0)
          return rowTiles(ctx_.i64(fullPanels), {mr, tailCols, 1});
        return Error::success();
      },
      "gemm.ic");
}

/// `rows` rows from `row0` (the last M % MR rows, all rows when M < MR, or
/// the end of a paired task): a short tile spanning several panels, so
/// there are as many accumulators as in a full tile (up to four streams of
/// B, which the prefetchers follow).
Error GemmEmitter::emitTailRows(Value *row0, int64_t rows,
                                int64_t fullPanels, int64_t tailCols) {
  int64_t vectors = nr_ / lanes_;
  int64_t group =
      std::clamp<int64_t>(shape_.tile.mr * vectors / (rows * vectors), 1, 4);
  group = std::min<int64_t>(group, std::max<int64_t>(fullPanels, 1));
  int64_t groups = fullPanels / group, rest = fullPanels % group;
  if (groups > 0)
    if (Error e = emitRangeLoop(
            ctx_, ctx_.i64(0), ctx_.i64(groups), 1,
            [&](Value *jg) {
              return emitTile(row0, b_.CreateNUWMul(jg, ctx_.i64(group)),
                              {rows, group * nr_, group});
            },
            "gemm.jg"))
      return e;
  if (rest > 0)
    if (Error e =
            emitTile(row0, ctx_.i64(groups * group), {rows, rest * nr_, rest}))
      return e;
  if (tailCols > 0)
    return emitTile(row0, ctx_.i64(fullPanels), {rows, tailCols, 1});
  return Error::success();
}

Error GemmEmitter::emitTile(Value *row0, Value *panel0, const TilePlan &plan) {
  llvm::Type *vector = llvm::FixedVectorType::get(
      ctx_.storageType(shape_.dtype), unsigned(lanes_));
  std::vector<Value *> acc(size_t(plan.rows * vectorsOf(plan)),
                           llvm::Constant::getNullValue(vector));
  RowSource::FastPath fast = ops_.a->fastPath(ctx_, row0, plan.rows);
  if (!fast.condition) {
    Expected<std::vector<Value *>> sums =
        emitK(*ops_.a, row0, panel0, plan, acc);
    if (!sums)
      return sums.takeError();
    return storeTile(row0, panel0, plan, *sums);
  }
  // Both paths compute the same sums in the same order; they meet before
  // the epilogue, which is emitted once.
  llvm::Function *function = b_.GetInsertBlock()->getParent();
  auto *fastBlock =
      llvm::BasicBlock::Create(ctx_.context(), "tile.fast", function);
  auto *slowBlock =
      llvm::BasicBlock::Create(ctx_.context(), "tile.edge", function);
  auto *join = llvm::BasicBlock::Create(ctx_.context(), "tile.join", function);
  b_.CreateCondBr(fast.condition, fastBlock, slowBlock);
  std::vector<std::pair<std::vector<Value *>, llvm::BasicBlock *>> arms;
  for (auto [block, rows] :
       {std::pair{fastBlock, fast.rows}, std::pair{slowBlock, ops_.a}}) {
    b_.SetInsertPoint(block);
    Expected<std::vector<Value *>> sums = emitK(*rows, row0, panel0, plan, acc);
    if (!sums)
      return sums.takeError();
    arms.push_back({*sums, b_.GetInsertBlock()});
    b_.CreateBr(join);
  }
  b_.SetInsertPoint(join);
  std::vector<Value *> sums;
  for (size_t i = 0; i < acc.size(); ++i) {
    llvm::PHINode *phi = b_.CreatePHI(acc[i]->getType(), 2);
    for (auto &[values, block] : arms)
      phi->addIncoming(values[i], block);
    sums.push_back(phi);
  }
  return storeTile(row0, panel0, plan, sums);
}

Expected<std::vector<Value *>> GemmEmitter::emitK(const RowSource &a,
                                                  Value *row0, Value *panel0,
                                                  const TilePlan &plan,
                                                  std::vector<Value *> acc) {
  if (a.segments == 1)
    return emitSegment(a, row0, panel0, plan, ctx_.i64(0), std::move(acc));
  return emitCarriedLoop(
      ctx_, ctx_.i64(0), ctx_.i64(a.segments), 1, std::move(acc),
      [&](Value *seg, const std::vector<Value *> &carried) {
        return emitSegment(a, row0, panel0, plan, seg, carried);
      },
      "gemm.tap");
}

/// The K loop over one segment: per step, the tile's B vectors are loaded
/// once and each of its rows' A element is broadcast against them.
Expected<std::vector<Value *>>
GemmEmitter::emitSegment(const RowSource &a, Value *row0, Value *panel0,
                         const TilePlan &plan, Value *seg,
                         std::vector<Value *> acc) {
  std::vector<Value *> rows = a.rows(ctx_, row0, plan.rows, seg);
  Value *segOffset =
      b_.CreateNUWAdd(b_.CreateNUWMul(panel0, ctx_.i64(panelStride_)),
                      b_.CreateNUWMul(seg, ctx_.i64(a.segmentLength * kRow_)));
  Value *bSeg = offsetPointer(ctx_, shape_.dtype, ops_.b, segOffset);
  llvm::Type *scalar = ctx_.storageType(shape_.dtype);
  // Cortex-A53: the K loop of a full tile is an assembly block with a
  // fixed schedule (InOrderMicroKernel.h); what it leaves runs below.
  int64_t start = inOrderMicroKernelSteps(shape_.tile, plan.rows,
                                          plan.validCols, shape_.packedB,
                                          a.kStride, a.segmentLength);
  if (start > 0) {
    acc = emitInOrderMicroKernel(ctx_, rows, bSeg, start, acc);
    if (start == a.segmentLength)
      return acc;
  }
  // In-order cores (TargetInfo::gemmTile): U K steps per iteration, each
  // row's U A elements in one vector load, each FMA taking its A value by
  // lane (AArch64's by-element FMLA). The remaining K % U steps run below.
  int64_t unroll = a.kStride == 1 ? shape_.tile.kUnroll : 1;
  int64_t unrolled =
      unroll > 1 ? start + (a.segmentLength - start) / unroll * unroll : start;
  if (unrolled > start) {
    llvm::Type *aVector = llvm::FixedVectorType::get(scalar, unsigned(unroll));
    Expected<std::vector<Value *>> sums = emitCarriedLoop(
        ctx_, ctx_.i64(start), ctx_.i64(unrolled), unroll, std::move(acc),
        [&](Value *kk, const std::vector<Value *> &carried)
            -> Expected<std::vector<Value *>> {
          std::vector<Value *> next = carried, av;
          for (int64_t r = 0; r < plan.rows; ++r)
            av.push_back(b_.CreateAlignedLoad(
                aVector, offsetPointer(ctx_, shape_.dtype, rows[size_t(r)], kk),
                llvm::Align(uint64_t(bytes_))));
          for (int64_t u = 0; u < unroll; ++u)
            emitStep(
                bSeg, b_.CreateNUWAdd(kk, ctx_.i64(u)), plan,
                [&](int64_t r) {
                  return b_.CreateShuffleVector(
                      av[size_t(r)],
                      llvm::SmallVector<int>(size_t(lanes_), int(u)));
                },
                next);
          return next;
        },
        "gemm.ku");
    if (!sums)
      return sums.takeError();
    acc = std::move(*sums);
    if (unrolled == a.segmentLength)
      return acc;
  }
  return emitCarriedLoop(
      ctx_, ctx_.i64(unrolled), ctx_.i64(a.segmentLength), 1, std::move(acc),
      [&](Value *kk, const std::vector<Value *> &carried)
          -> Expected<std::vector<Value *>> {
        std::vector<Value *> next = carried;
        Value *aOffset =
            a.kStride == 1 ? kk : b_.CreateNUWMul(kk, ctx_.i64(a.kStride));
        emitStep(
            bSeg, kk, plan,
            [&](int64_t r) {
              Value *element = b_.CreateAlignedLoad(
                  scalar,
                  offsetPointer(ctx_, shape_.dtype, rows[size_t(r)], aOffset),
                  llvm::Align(uint64_t(bytes_)));
              return ctx_.splat(element, unsigned(lanes_));
            },
            next);
        return next;
      },
      "gemm.k");
}

void GemmEmitter::emitStep(Value *bSeg, Value *kk, const TilePlan &plan,
                           llvm::function_ref<Value *(int64_t)> aBroadcast,
                           std::vector<Value *> &acc) {
  int64_t vectors = vectorsOf(plan), perPanel = nr_ / lanes_;
  uint64_t bAlign =
      shape_.packedB ? uint64_t(lanes_ * bytes_) : uint64_t(bytes_);
  Value *kOffset = b_.CreateNUWMul(kk, ctx_.i64(kRow_));
  std::vector<Value *> bv;
  if (shape_.packedB && shape_.tile.interleavedPanels)
    bv = loadInterleaved(bSeg, kOffset, plan);
  for (int64_t q = int64_t(bv.size()); q < vectors; ++q) {
    int64_t offset = q / perPanel * panelStride_ + q % perPanel * lanes_;
    Value *at = offsetPointer(ctx_, shape_.dtype, bSeg,
                              b_.CreateNUWAdd(kOffset, ctx_.i64(offset)));
    int64_t valid = shape_.packedB ? lanes_ : validLanes(plan, q);
    bv.push_back(loadLanes(ctx_, shape_.dtype, at, lanes_, valid, bAlign));
    if (streamsWeights(plan) && (q * lanes_ * bytes_) % kCacheLine == 0)
      prefetch(at);
  }
  for (int64_t r = 0; r < plan.rows; ++r) {
    Value *broadcast = aBroadcast(r);
    for (int64_t q = 0; q < vectors; ++q) {
      Value *&sum = acc[size_t(r * vectors + q)];
      sum = multiplyAdd(ctx_, sum, broadcast, bv[size_t(q)]);
    }
  }
}

std::vector<Value *> GemmEmitter::loadInterleaved(Value *bSeg, Value *kOffset,
                                                  const TilePlan &plan) {
  constexpr int64_t kBlock = 16;
  int64_t blockVectors = kBlock / lanes_, perPanel = nr_ / lanes_;
  auto *block = llvm::FixedVectorType::get(ctx_.storageType(shape_.dtype),
                                           unsigned(kBlock));
  std::vector<Value *> bv;
  Value *loaded = nullptr;
  for (int64_t q = 0; q < vectorsOf(plan); ++q) {
    if (q % blockVectors == 0) {
      int64_t offset = q / perPanel * panelStride_ + q % perPanel * lanes_;
      Value *at = offsetPointer(ctx_, shape_.dtype, bSeg,
                                b_.CreateNUWAdd(kOffset, ctx_.i64(offset)));
      loaded = b_.CreateAlignedLoad(block, at, llvm::Align(uint64_t(bytes_)));
      if (streamsWeights(plan))
        prefetch(at);
    }
    llvm::SmallVector<int> lanes;
    for (int64_t j = 0; j < lanes_; ++j)
      lanes.push_back(int(packedColumn(q % blockVectors * lanes_ + j, true)));
    bv.push_back(b_.CreateShuffleVector(loaded, lanes));
  }
  return bv;
}

Error GemmEmitter::storeTile(Value *row0, Value *panel0, const TilePlan &plan,
                             const std::vector<Value *> &acc) {
  int64_t vectors = vectorsOf(plan);
  Value *column0 = b_.CreateNUWMul(panel0, ctx_.i64(nr_));
  for (int64_t r = 0; r < plan.rows; ++r) {
    Value *row = b_.CreateNUWAdd(row0, ctx_.i64(r));
    Value *rowStart = b_.CreateNUWMul(row, ctx_.i64(shape_.ldc));
    Value *storedRow = b_.CreateNUWMul(
        row, ctx_.i64(shape_.cStride ? shape_.cStride : shape_.ldc));
    for (int64_t q = 0; q < vectors; ++q) {
      Value *column = b_.CreateNUWAdd(column0, ctx_.i64(q * lanes_));
      Value *at = b_.CreateNUWAdd(rowStart, column);
      int64_t valid = validLanes(plan, q);
      Expected<Value *> value =
          epilogue_.apply(ctx_, acc[size_t(r * vectors + q)],
                          b_.CreateNUWAdd(ops_.linearBase, at),
                          b_.CreateNUWAdd(ops_.featureBase, column), lanes_,
                          valid, ops_.leaves);
      if (!value)
        return value.takeError();
      storeLanes(ctx_, shape_.dtype,
                 offsetPointer(ctx_, shape_.dtype, ops_.c,
                               b_.CreateNUWAdd(storedRow, column)),
                 *value, valid, uint64_t(bytes_));
    }
  }
  return Error::success();
}

} // namespace

Error emitGemm(EmitterContext &ctx, const GemmShape &shape,
               const GemmOperands &operands, const Epilogue &epilogue) {
  return GemmEmitter(ctx, shape, operands, epilogue).emit();
}

} // namespace kiln::codegen::kernels
