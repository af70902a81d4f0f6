//===- TransposeKernel.cpp - batched 2-D transposes in registers ---------===//
//
// Layout changes at a model's edges (NCHW inputs and outputs around NHWC
// convolutions) are transposes that, with size-1 dimensions dropped and
// runs of dimensions that stay together merged, swap two blocks:
// [batch, rows, cols] -> [batch, cols, rows]. Element by element, every
// load or every store is strided. This kernel moves L x L tiles instead: L
// vector loads of input rows, a butterfly of log2(L) shuffle stages that
// transposes the tile in registers, and L vector stores of output rows.
// Edge strips that do not fill a tile are copied element by element.
//
//===----------------------------------------------------------------------===//
#include "../Parallel.h"
#include "KernelSupport.h"
#include "Kernels.h"

#include <fmt/format.h>

#include <algorithm>
#include <numeric>

namespace kiln::codegen::kernels {

using ir::Instruction;
using llvm::Value;

namespace {

/// The transpose as [batch, rows, cols] -> [batch, cols, rows], if it is one.
struct Transpose2D {
  int64_t batch = 1, rows = 1, cols = 1;
};

std::optional<Transpose2D> asTranspose2D(const Instruction &transpose) {
  const std::vector<int64_t> &permutation = transpose.attrs().dimensions;
  const ir::Shape &in = transpose.operand(0)->shape();
  // Input dimensions of size > 1, ranked in input order.
  std::vector<int64_t> rank(size_t(in.rank()), -1);
  int64_t kept = 0;
  for (int64_t d = 0; d < in.rank(); ++d)
    if (in.dim(size_t(d)) > 1)
      rank[size_t(d)] = kept++;
  // Output order of those ranks, merged into groups that stay together.
  std::vector<std::pair<int64_t, int64_t>> groups; // (first rank, size)
  int64_t last = -2;
  for (int64_t d : permutation) {
    if (rank[size_t(d)] < 0)
      continue;
    int64_t size = in.dim(size_t(d));
    if (rank[size_t(d)] == last + 1 && !groups.empty())
      groups.back().second *= size;
    else
      groups.push_back({rank[size_t(d)], size});
    last = rank[size_t(d)];
  }
  // Output groups (B, A) of input (A, B), or (X, B, A) of input (X, A, B).
  auto firstRank = [&](size_t g) { return groups[g].first; };
  if (groups.size() == 2 && firstRank(0) > firstRank(1))
    return Transpose2D{1, groups[1].second, groups[0].second};
  if (groups.size() == 3 && firstRank(0) < firstRank(2) &&
      firstRank(2) < firstRank(1))
    return Transpose2D{groups[0].second, groups[2].second, groups[1].second};
  return std::nullopt;
}

/// Transposes the L x L tile held in `rows` (L vectors of L lanes): after
/// the stages, rows[j][i] is the old rows[i][j]. Stage d pairs rows r and
/// r + d (r & d == 0) and swaps the off-diagonal d x d blocks of each pair.
void transposeInRegisters(llvm::IRBuilder<> &b, std::vector<Value *> &rows) {
  int64_t lanes = int64_t(rows.size());
  for (int64_t d = 1; d < lanes; d *= 2) {
    std::vector<int> low, high;
    for (int64_t j = 0; j < lanes; ++j) {
      bool upper = (j & d) != 0;
      low.push_back(int(upper ? lanes + j - d : j));
      high.push_back(int(upper ? lanes + j : j + d));
    }
    for (int64_t r = 0; r < lanes; ++r) {
      if (r & d)
        continue;
      Value *a = rows[size_t(r)], *c = rows[size_t(r + d)];
      rows[size_t(r)] = b.CreateShuffleVector(a, c, low);
      rows[size_t(r + d)] = b.CreateShuffleVector(a, c, high);
    }
  }
}

class TransposeEmitter {
public:
  TransposeEmitter(EmitterContext &ctx, ir::DType dtype, const Transpose2D &t,
                   int64_t lanes)
      : ctx_(ctx), b_(ctx.builder()), dtype_(dtype), t_(t), lanes_(lanes) {}

  /// The units a split kernel's tasks cover: strips of L input rows (the
  /// last strip of a batch holds the rows the tiles leave), over batches.
  int64_t strips() const { return (t_.rows + lanes_ - 1) / lanes_; }
  int64_t units() const { return t_.batch * strips(); }

  /// The strips [units.begin, units.end): tiles, then the columns past the
  /// last full tile, element by element; the last strip of a batch, when
  /// it has fewer than L rows, element by element. Every element moves as
  /// in the whole kernel (it is a copy: any order gives the same bytes).
  Error emit(Value *out, Value *in, const UnitRange &units) {
    int64_t fullStrips = t_.rows / lanes_;
    int64_t fullCols = t_.cols / lanes_ * lanes_;
    return emitRangeLoop(
        ctx_, units.begin, units.end, 1,
        [&](Value *unit) -> Error {
          std::vector<Value *> batchStrip =
              ctx_.delinearize(unit, {t_.batch, strips()});
          Value *batch = batchStrip[0], *strip = batchStrip[1];
          Value *offset = b_.CreateNUWMul(batch, ctx_.i64(t_.rows * t_.cols));
          out_ = offsetPointer(ctx_, dtype_, out, offset);
          in_ = offsetPointer(ctx_, dtype_, in, offset);
          Value *r0 = b_.CreateNUWMul(strip, ctx_.i64(lanes_));
          Value *full = b_.CreateICmpULT(strip, ctx_.i64(fullStrips));
          Value *rowEnd = b_.CreateSelect(
              full, b_.CreateNUWAdd(r0, ctx_.i64(lanes_)), ctx_.i64(t_.rows));
          Value *colBegin = ctx_.i64(0);
          if (fullStrips > 0 && fullCols > 0) {
            if (Error e = emitIf(
                    ctx_, full, [&] { return emitTileRow(r0, fullCols); },
                    "tr.full"))
              return e;
            colBegin = b_.CreateSelect(full, ctx_.i64(fullCols), colBegin);
          }
          return emitElements(r0, rowEnd, colBegin, ctx_.i64(t_.cols));
        },
        "tr.strip");
  }

private:
  /// The tiles of the L rows from r0, over columns [0, fullCols).
  Error emitTileRow(Value *r0, int64_t fullCols) {
    uint64_t align = ir::byteSize(dtype_);
    return emitRangeLoop(
        ctx_, ctx_.i64(0), ctx_.i64(fullCols), lanes_,
        [&](Value *c0) -> Error {
          std::vector<Value *> rows;
          for (int64_t i = 0; i < lanes_; ++i)
            rows.push_back(loadLanes(
                ctx_, dtype_,
                at(in_, b_.CreateNUWAdd(r0, ctx_.i64(i)), c0, t_.cols), lanes_,
                lanes_, align));
          transposeInRegisters(b_, rows);
          for (int64_t j = 0; j < lanes_; ++j)
            storeLanes(ctx_, dtype_,
                       at(out_, b_.CreateNUWAdd(c0, ctx_.i64(j)), r0, t_.rows),
                       rows[size_t(j)], lanes_, align);
          return Error::success();
        },
        "tr.col");
  }

  /// Element by element, rows [rowBegin, rowEnd) x columns [colBegin,
  /// colEnd) (either may be empty).
  Error emitElements(Value *rowBegin, Value *rowEnd, Value *colBegin,
                     Value *colEnd) {
    llvm::Type *type = ctx_.storageType(dtype_);
    llvm::Align align(ir::byteSize(dtype_));
    return ctx_.emitLoop(
        rowBegin, rowEnd, 1,
        [&](Value *r) {
          return ctx_.emitLoop(
              colBegin, colEnd, 1,
              [&](Value *c) -> Error {
                Value *value =
                    b_.CreateAlignedLoad(type, at(in_, r, c, t_.cols), align);
                b_.CreateAlignedStore(value, at(out_, c, r, t_.rows), align);
                return Error::success();
              },
              "tr.ec");
        },
        "tr.er");
  }

  Value *at(Value *base, Value *row, Value *col, int64_t stride) {
    return offsetPointer(
        ctx_, dtype_, base,
        b_.CreateNUWAdd(b_.CreateNUWMul(row, ctx_.i64(stride)), col));
  }

  EmitterContext &ctx_;
  llvm::IRBuilder<> &b_;
  ir::DType dtype_;
  Transpose2D t_;
  int64_t lanes_;
  Value *out_ = nullptr, *in_ = nullptr;
};

} // namespace

Expected<bool> emitTransposeKernel(EmitterContext &ctx,
                                   const Instruction &transpose) {
  std::optional<BufferRef> input = ctx.operandBuffer(transpose, 0);
  std::optional<Transpose2D> t = asTranspose2D(transpose);
  ir::DType dtype = transpose.shape().dtype();
  if (!input || !t || dtype == ir::DType::Pred ||
      stridedOutput(ctx, transpose))
    return false;
  // Tiles of L x L elements, L a power of two up to 16 that fits a vector.
  int64_t lanes = 1;
  while (lanes * 2 <= 16 &&
         lanes * 2 * int64_t(ir::byteSize(dtype)) * 8 <= ctx.vectorBits())
    lanes *= 2;
  if (lanes < 4 || t->rows < lanes || t->cols < lanes)
    return false;
  TransposeEmitter emitter(ctx, dtype, *t, lanes);
  int64_t units = emitter.units();
  // Memory-bound: a strip costs the bytes it reads and writes.
  int64_t stripBytes = 2 * lanes * t->cols * int64_t(ir::byteSize(dtype));
  TaskSplit split =
      ctx.parallelPool() ? splitUnits(units, stripBytes) : TaskSplit{};
  std::string key =
      fmt::format("transpose {} b{} r{} c{} l{} t{}", ir::dtypeName(dtype),
                  t->batch, t->rows, t->cols, lanes, split.tasks);
  Expected<llvm::Function *> function = kernelFunction(
      ctx, key, 2,
      [&](llvm::Function &f) {
        UnitRange range =
            taskUnits(ctx, split, units, f.getArg(2), f.getArg(3));
        return emitter.emit(f.getArg(0), f.getArg(1), range);
      },
      1, /*taskRange=*/true);
  if (!function)
    return function.takeError();
  emitKernelCall(ctx, **function,
                 {ctx.outputBuffer(transpose).address, input->address}, split);
  return true;
}

} // namespace kiln::codegen::kernels
