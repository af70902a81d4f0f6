//===- DepthwiseKernel.cpp - depthwise convolution ------------------------===//
//
// One output feature per input feature (feature_group_count = channels,
// multiplier 1) has no reduction over features, so a GEMM would waste its
// tile. This kernel vectorizes along the channels instead: a register tile
// of T output columns by V channel vectors (V = 2 on out-of-order AArch64
// cores, else 1) accumulates every kernel tap (taps unrolled), loading V
// weight vectors per tap and V input vectors per pixel and tap. Padding
// taps read a row of zeros (a select per pixel and tap, hoisted out of the
// channel loop), so the loop has no branches.
//
//===----------------------------------------------------------------------===//
#include "../Parallel.h"
#include "ConvGeometry.h"
#include "Epilogue.h"
#include "InOrderDepthwise.h"
#include "KernelSupport.h"
#include "Kernels.h"
#include "PackedWeights.h"
#include "TaskPair.h"

#include <llvm/IR/Constants.h>

#include <fmt/format.h>

#include <algorithm>

namespace kiln::codegen::kernels {

using ir::Instruction;
using llvm::Value;

namespace {

/// Two channel vectors per step on the out-of-order AArch64 cores: a
/// pixel's two vectors are adjacent, so their stores pair into one `stp`.
/// LLVM's Neoverse-N1 model sends each 128-bit store's data through a vector
/// pipe the FMAs need (an `stp` of two takes as much as one `str`), which
/// held the loop to 75% of its FMA bound (docs/performance.md, depthwise).
/// Not on the in-order A53/A55: there the pairs also load as `ldp q`, which
/// their models charge 2 and 6 cycles of the load pipe for (llvm-mca: the
/// A53's loop 17% slower per FMA, the A55's 2.2x). x86 keeps one vector.
bool pairedChannelVectors(const TargetInfo &target) {
  return target.isAArch64 && !isInOrderAArch64(target.cpu);
}

class DepthwiseEmitter {
public:
  DepthwiseEmitter(EmitterContext &ctx, const ConvGeometry &g, ir::DType dtype,
                   const Epilogue &epilogue, int64_t tile, int64_t vectors)
      : ctx_(ctx), b_(ctx.builder()), g_(g), dtype_(dtype), epilogue_(epilogue),
        tile_(tile), vectors_(vectors),
        lanes_(ctx.target().lanes(int64_t(ir::byteSize(dtype)))),
        channels_(g.groups) {
    paddedChannels_ = (channels_ + lanes_ - 1) / lanes_ * lanes_;
    width_ = g.outSizes.back();
    rowSizes_.push_back(g.batch());
    rowSizes_.insert(rowSizes_.end(), g.outSizes.begin(), g.outSizes.end() - 1);
    int64_t kernelColumns = g.kernelSizes.back();
    if (tile_ == kInOrderDepthwiseColumns && vectors_ == 1)
      block_ = inOrderDepthwiseShape(
          ctx.target(), dtype, g.taps / kernelColumns, kernelColumns,
          g.window.back(), g.inStrides.back(), paddedChannels_);
  }

  int64_t paddedChannels() const { return paddedChannels_; }
  /// Output rows (all but the innermost spatial dimension, and the batch).
  int64_t rows() const { return g_.pixels / width_; }
  /// Tasks over whole output rows.
  TaskSplit split() const {
    return splitUnits(rows(), 2 * width_ * channels_ * g_.taps);
  }
  /// The kernel function's body: pointers, then the task range.
  Error emit(llvm::Function &f, const TaskSplit &split);

private:
  Error emitRowRange(const UnitRange &rows, int64_t fullColumns);
  Error emitBlockColumns(Value *row);
  Error emitTile(Value *row, Value *column0, int64_t columns,
                 bool interior = false, int64_t vectors = 0);
  Error emitChannelSteps(const std::vector<std::vector<Value *>> &inputs,
                         Value *linear0, int64_t columns, int64_t vectors);
  Error emitBlockChannels(const std::vector<Value *> &rows,
                          const std::vector<std::vector<Value *>> &inputs,
                          Value *linear0);
  Error storeColumns(const std::vector<Value *> &acc, Value *linear0,
                     const std::vector<Value *> &channels, int64_t valid,
                     int64_t columns);
  Error emitChannelLoop(const std::vector<std::vector<Value *>> &inputs,
                        Value *linear0, int64_t begin, int64_t end,
                        int64_t vectors, int64_t columns);
  Error emitChannels(const std::vector<std::vector<Value *>> &inputs,
                     Value *linear0, Value *channel, int64_t vectors,
                     int64_t valid, int64_t columns);

  EmitterContext &ctx_;
  llvm::IRBuilder<> &b_;
  const ConvGeometry &g_;
  ir::DType dtype_;
  const Epilogue &epilogue_;
  int64_t tile_, vectors_, lanes_, channels_, paddedChannels_ = 0, width_ = 0;
  std::vector<int64_t> rowSizes_;
  Value *out_ = nullptr, *in_ = nullptr, *weights_ = nullptr, *zero_ = nullptr;
  std::vector<Value *> leaves_;
  std::optional<InOrderDepthwiseShape> block_;
};

Error DepthwiseEmitter::emit(llvm::Function &f, const TaskSplit &split) {
  out_ = f.getArg(0);
  in_ = f.getArg(1);
  weights_ = f.getArg(2);
  unsigned pointers = f.arg_size() - 2;
  for (unsigned i = 3; i < pointers; ++i)
    leaves_.push_back(f.getArg(i));
  zero_ = zeroRow(ctx_, dtype_, channels_);
  int64_t fullColumns = width_ / tile_ * tile_;
  // Every row is computed the same way whichever task it falls in; rows
  // of different tasks share nothing.
  UnitRange range{ctx_.i64(0), ctx_.i64(rows())};
  if (split.split())
    range = taskUnits(ctx_, split, rows(), f.getArg(pointers),
                      f.getArg(pointers + 1));
  auto rowLoop = [&] { return emitRowRange(range, fullColumns); };
  if (!split.split())
    return rowLoop();
  return emitIf(ctx_, b_.CreateICmpULT(range.begin, range.end), rowLoop,
                "dw.rows");
}

Error DepthwiseEmitter::emitRowRange(const UnitRange &rows,
                                     int64_t fullColumns) {
  return emitRangeLoop(
      ctx_, rows.begin, rows.end, 1,
      [&](Value *row) -> Error {
        if (block_)
          return emitBlockColumns(row);
        if (fullColumns > 0)
          if (Error e = emitRangeLoop(
                  ctx_, ctx_.i64(0), ctx_.i64(fullColumns), tile_,
                  [&](Value *column) { return emitTile(row, column, tile_); },
                  "dw.col"))
            return e;
        if (width_ > fullColumns)
          return emitTile(row, ctx_.i64(fullColumns), width_ - fullColumns);
        return Error::success();
      },
      "dw.row");
}

/// A row's columns where the assembly block runs: the padLow leading
/// columns (whose windows start left of the input) as one tile, then the
/// 8-column tiles, those whose windows lie inside the input's columns
/// marked interior, then the tail.
Error DepthwiseEmitter::emitBlockColumns(Value *row) {
  const ir::WindowDim &window = g_.window.back();
  // Negative padding crops: then the tiles start at column 0.
  int64_t lead = std::clamp<int64_t>(window.padLow, 0, width_);
  int64_t tiles = (width_ - lead) / tile_;
  // Tile i's windows read input columns lead - padLow + tile_ i up to
  // that + tile_ + kernel columns - 2.
  int64_t span = tile_ + g_.kernelSizes.back() - 1;
  int64_t room = g_.inSizes.back() - (lead - window.padLow) - span;
  int64_t interior = room < 0 ? 0 : std::min(tiles, room / tile_ + 1);
  // The narrow IR tiles beside the block's take more channel vectors, up to
  // the block's 8 accumulators: one column's 9 FMAs are one dependent chain
  // (90 cycles on the A53 model), four vectors four chains side by side.
  auto narrowVectors = [&](int64_t columns) {
    return std::clamp<int64_t>(tile_ / columns, 1, 4);
  };
  if (lead > 0)
    if (Error e = emitTile(row, ctx_.i64(0), lead, false, narrowVectors(lead)))
      return e;
  auto tileLoop = [&](int64_t begin, int64_t end, bool inside) -> Error {
    if (end <= begin)
      return Error::success();
    return emitRangeLoop(
        ctx_, ctx_.i64(lead + begin * tile_), ctx_.i64(lead + end * tile_),
        tile_,
        [&](Value *column) { return emitTile(row, column, tile_, inside); },
        "dw.col");
  };
  if (Error e = tileLoop(0, interior, true))
    return e;
  if (Error e = tileLoop(interior, tiles, false))
    return e;
  int64_t done = lead + tiles * tile_;
  if (width_ > done)
    return emitTile(row, ctx_.i64(done), width_ - done, false,
                    narrowVectors(width_ - done));
  return Error::success();
}

/// Pointers to channel 0 of the input pixel each (tap, column) reads. An
/// `interior` tile (emitBlockColumns) also takes each kernel row's first
/// pixel: where every kernel row is inside the input, the assembly block
/// computes the full channel vectors.
Error DepthwiseEmitter::emitTile(Value *row, Value *column0, int64_t columns,
                                 bool interior, int64_t vectors) {
  if (vectors == 0)
    vectors = vectors_;
  std::vector<Value *> outer = ctx_.delinearize(row, rowSizes_);
  size_t last = g_.outSizes.size() - 1;
  std::vector<std::vector<Value *>> inputs(size_t(g_.taps));
  std::vector<Value *> kernelRows;
  Value *rowsInside = b_.getTrue();
  for (int64_t t = 0; t < g_.taps; ++t) {
    std::vector<int64_t> tap(g_.kernelSizes.size());
    for (size_t s = g_.kernelSizes.size(), rest = size_t(t); s-- > 0;) {
      tap[s] = int64_t(rest) % g_.kernelSizes[s];
      rest /= size_t(g_.kernelSizes[s]);
    }
    Value *offset = b_.CreateMul(outer[0], ctx_.i64(g_.inBatchStride));
    Value *valid = b_.getTrue();
    for (size_t s = 0; s < last; ++s) {
      InputPosition at = inputPosition(ctx_, g_.window[s], g_.inSizes[s],
                                       outer[s + 1], ctx_.i64(tap[s]));
      valid = b_.CreateAnd(valid, at.valid);
      offset = b_.CreateAdd(offset,
                            b_.CreateMul(at.index, ctx_.i64(g_.inStrides[s])));
    }
    if (interior && tap[last] == 0) {
      Value *first = b_.CreateSub(column0, ctx_.i64(g_.window[last].padLow));
      kernelRows.push_back(b_.CreateGEP(
          ctx_.storageType(dtype_), in_,
          b_.CreateAdd(offset,
                       b_.CreateMul(first, ctx_.i64(g_.inStrides[last])))));
      rowsInside = b_.CreateAnd(rowsInside, valid);
    }
    for (int64_t c = 0; c < columns; ++c) {
      InputPosition at = inputPosition(ctx_, g_.window[last], g_.inSizes[last],
                                       b_.CreateNUWAdd(column0, ctx_.i64(c)),
                                       ctx_.i64(tap[last]));
      Value *address = b_.CreateGEP(
          ctx_.storageType(dtype_), in_,
          b_.CreateAdd(offset,
                       b_.CreateMul(at.index, ctx_.i64(g_.inStrides[last]))));
      inputs[size_t(t)].push_back(
          b_.CreateSelect(b_.CreateAnd(valid, at.valid), address, zero_));
    }
  }
  Value *linear0 = b_.CreateNUWMul(
      b_.CreateNUWAdd(b_.CreateNUWMul(row, ctx_.i64(width_)), column0),
      ctx_.i64(channels_));
  if (!interior)
    return emitChannelSteps(inputs, linear0, columns, vectors);
  if (Error e = emitIf(
          ctx_, rowsInside,
          [&] { return emitBlockChannels(kernelRows, inputs, linear0); },
          "dw.block"))
    return e;
  return emitIf(
      ctx_, b_.CreateNot(rowsInside),
      [&] { return emitChannelSteps(inputs, linear0, columns, vectors); },
      "dw.edge");
}

/// The assembly block on each full channel vector, then the partial one in
/// IR (inputs: every pointer is the pixel's own here).
Error DepthwiseEmitter::emitBlockChannels(
    const std::vector<Value *> &rows,
    const std::vector<std::vector<Value *>> &inputs, Value *linear0) {
  int64_t fullChannels = channels_ / lanes_ * lanes_;
  if (fullChannels > 0)
    if (Error e = emitRangeLoop(
            ctx_, ctx_.i64(0), ctx_.i64(fullChannels), lanes_,
            [&](Value *channel) {
              std::vector<Value *> at;
              for (Value *first : rows)
                at.push_back(offsetPointer(ctx_, dtype_, first, channel));
              std::vector<Value *> acc = emitInOrderDepthwise(
                  ctx_, *block_, at,
                  offsetPointer(ctx_, dtype_, weights_, channel));
              return storeColumns(acc, linear0, {channel}, lanes_, tile_);
            },
            "dw.ch"))
      return e;
  if (channels_ > fullChannels)
    return emitChannels(inputs, linear0, ctx_.i64(fullChannels), 1,
                        channels_ - fullChannels, tile_);
  return Error::success();
}

/// Steps of `vectors` channel vectors, then one vector at a time, then the
/// partial vector.
Error DepthwiseEmitter::emitChannelSteps(
    const std::vector<std::vector<Value *>> &inputs, Value *linear0,
    int64_t columns, int64_t vectors) {
  int64_t groupChannels = channels_ / (vectors * lanes_) * vectors * lanes_;
  int64_t fullChannels = channels_ / lanes_ * lanes_;
  if (Error e =
          emitChannelLoop(inputs, linear0, 0, groupChannels, vectors, columns))
    return e;
  if (Error e = emitChannelLoop(inputs, linear0, groupChannels, fullChannels, 1,
                                columns))
    return e;
  if (channels_ > fullChannels)
    return emitChannels(inputs, linear0, ctx_.i64(fullChannels), 1,
                        channels_ - fullChannels, columns);
  return Error::success();
}

/// Channels [begin, end) in steps of `vectors` full channel vectors.
Error DepthwiseEmitter::emitChannelLoop(
    const std::vector<std::vector<Value *>> &inputs, Value *linear0,
    int64_t begin, int64_t end, int64_t vectors, int64_t columns) {
  int64_t step = vectors * lanes_;
  if (end <= begin)
    return Error::success();
  return emitRangeLoop(
      ctx_, ctx_.i64(begin), ctx_.i64(end), step,
      [&](Value *channel) {
        return emitChannels(inputs, linear0, channel, vectors, lanes_, columns);
      },
      "dw.ch");
}

/// One step of `vectors` channel vectors from `channel` (the last one with
/// `valid` lanes) for `columns` output columns. A column's V vectors are
/// adjacent in memory, so their loads and stores pair (ldp/stp on AArch64).
Error DepthwiseEmitter::emitChannels(
    const std::vector<std::vector<Value *>> &inputs, Value *linear0,
    Value *channel, int64_t vectors, int64_t valid, int64_t columns) {
  uint64_t bytes = ir::byteSize(dtype_);
  llvm::Type *vector =
      llvm::FixedVectorType::get(ctx_.storageType(dtype_), unsigned(lanes_));
  auto lanesOf = [&](int64_t v) { return v + 1 == vectors ? valid : lanes_; };
  std::vector<Value *> channels;
  for (int64_t v = 0; v < vectors; ++v)
    channels.push_back(b_.CreateNUWAdd(channel, ctx_.i64(v * lanes_)));
  std::vector<Value *> acc(size_t(columns * vectors),
                           llvm::Constant::getNullValue(vector));
  for (int64_t t = 0; t < g_.taps; ++t) {
    std::vector<Value *> w;
    for (int64_t v = 0; v < vectors; ++v)
      w.push_back(loadLanes(
          ctx_, dtype_,
          offsetPointer(ctx_, dtype_, weights_,
                        b_.CreateNUWAdd(channels[size_t(v)],
                                        ctx_.i64(t * paddedChannels_))),
          lanes_, lanes_, uint64_t(lanes_) * bytes));
    for (int64_t c = 0; c < columns; ++c)
      for (int64_t v = 0; v < vectors; ++v) {
        Value *x =
            loadLanes(ctx_, dtype_,
                      offsetPointer(ctx_, dtype_, inputs[size_t(t)][size_t(c)],
                                    channels[size_t(v)]),
                      lanes_, lanesOf(v), bytes);
        Value *&sum = acc[size_t(c * vectors + v)];
        sum = multiplyAdd(ctx_, sum, x, w[size_t(v)]);
      }
  }
  return storeColumns(acc, linear0, channels, valid, columns);
}

/// Applies the epilogue to the accumulators (acc[c * V + v]: column c,
/// vector v of `channels`, the last with `valid` lanes) and stores them.
Error DepthwiseEmitter::storeColumns(const std::vector<Value *> &acc,
                                     Value *linear0,
                                     const std::vector<Value *> &channels,
                                     int64_t valid, int64_t columns) {
  uint64_t bytes = ir::byteSize(dtype_);
  int64_t vectors = int64_t(channels.size());
  auto lanesOf = [&](int64_t v) { return v + 1 == vectors ? valid : lanes_; };
  for (int64_t c = 0; c < columns; ++c)
    for (int64_t v = 0; v < vectors; ++v) {
      Value *at =
          b_.CreateNUWAdd(b_.CreateNUWAdd(linear0, ctx_.i64(c * channels_)),
                          channels[size_t(v)]);
      Expected<Value *> value =
          epilogue_.apply(ctx_, acc[size_t(c * vectors + v)], at,
                          channels[size_t(v)], lanes_, lanesOf(v), leaves_);
      if (!value)
        return value.takeError();
      storeLanes(ctx_, dtype_, offsetPointer(ctx_, dtype_, out_, at), *value,
                 lanesOf(v), bytes);
    }
  return Error::success();
}

} // namespace

Expected<bool> emitDepthwiseKernel(EmitterContext &ctx, const Instruction &conv,
                                   const Instruction *fusion) {
  std::optional<ConvGeometry> geometry = convGeometry(conv);
  if (!hasKernelDtype(conv) || !geometry || geometry->inPerGroup != 1 ||
      geometry->outPerGroup != 1 || geometry->pixels == 0 ||
      stridedOutput(ctx, fusion ? *fusion : conv))
    return false;
  const ConvGeometry &g = *geometry;
  const Instruction *weights = constantSource(ctx, *conv.operand(1));
  std::optional<BufferRef> input = ctx.operandBuffer(conv, 0);
  if (!weights || !input)
    return false;
  std::optional<Epilogue> epilogue =
      fusion ? Epilogue::analyze(*fusion, conv) : Epilogue();
  if (!epilogue)
    return false;
  ir::DType dtype = conv.shape().dtype();
  // V channel vectors by T columns: V T accumulators, V T inputs and V
  // weights in registers.
  int64_t vectors = pairedChannelVectors(ctx.target()) ? 2 : 1;
  int64_t tile = std::clamp<int64_t>(
      (ctx.target().vectorRegisters - 2 * vectors) / (3 * vectors), 1, 8);
  DepthwiseEmitter emitter(ctx, g, dtype, *epilogue, tile, vectors);

  const auto &dn = conv.attrs().conv;
  const ir::Shape &kernelShape = conv.operand(1)->shape();
  std::vector<int64_t> taps(dn.kernelSpatial.begin(), dn.kernelSpatial.end());
  Value *packed = packPanels(ctx, *weights, {0}, dimOffsets(kernelShape, taps),
                             dimOffsets(kernelShape, {dn.kernelOutputFeature}),
                             emitter.paddedChannels());
  std::vector<Value *> args{ctx.outputBuffer(fusion ? *fusion : conv).address,
                            input->address, packed};
  for (Value *leaf : epilogue->leafPointers(ctx))
    args.push_back(leaf);
  const Instruction &computed = fusion ? *fusion : conv;
  TaskPair *pair = depthwiseOfPair(ctx, computed);
  TaskSplit split = pair ? pair->split : emitter.split();
  std::string key = fmt::format(
      "depthwise {} px{} c{} bs{} {} t{}x{} tasks{}x{} | {}",
      ir::dtypeName(dtype), g.pixels, g.groups, g.inBatchStride, windowKey(g),
      tile, vectors, split.tasks, split.unitsPerTask, epilogue->key());
  Expected<llvm::Function *> function = kernelFunction(
      ctx, key, args.size(),
      [&](llvm::Function &f) { return emitter.emit(f, split); },
      /*writtenArgs=*/1, /*taskRange=*/true);
  if (!function)
    return function.takeError();
  if (pair)
    deferDepthwiseCall(ctx, *pair, {*function, args});
  else
    emitKernelCall(ctx, **function, args, split);

  KernelRecord record;
  record.kernel = "depthwise";
  record.m = g.pixels;
  record.n = g.groups;
  record.k = g.taps;
  record.mr = tile;
  record.nr = vectors * ctx.target().lanes(int64_t(ir::byteSize(dtype)));
  record.packedWeights = true;
  record.tasks = split.tasks;
  record.epilogue = epilogue->describe();
  recordKernel(ctx, std::move(record), computed, **function);
  return true;
}

} // namespace kiln::codegen::kernels
