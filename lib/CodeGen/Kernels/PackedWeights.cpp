//===- PackedWeights.cpp - Operand geometry and compile-time packing ------===//
#include "PackedWeights.h"

#include <llvm/IR/Constants.h>
#include <llvm/IR/GlobalVariable.h>

#include <cstring>

namespace kiln::codegen::kernels {

std::vector<int64_t> dimOffsets(const ir::Shape &shape,
                                llvm::ArrayRef<int64_t> dims) {
  std::vector<int64_t> strides(size_t(shape.rank()), 1);
  for (int64_t d = shape.rank() - 1; d > 0; --d)
    strides[size_t(d - 1)] = strides[size_t(d)] * shape.dim(size_t(d));
  std::vector<int64_t> offsets{0};
  for (int64_t d : dims) {
    std::vector<int64_t> next;
    next.reserve(offsets.size() * size_t(shape.dim(size_t(d))));
    for (int64_t base : offsets)
      for (int64_t i = 0; i < shape.dim(size_t(d)); ++i)
        next.push_back(base + i * strides[size_t(d)]);
    offsets = std::move(next);
  }
  return offsets;
}

DimProgression dimProgression(const ir::Shape &shape,
                              llvm::ArrayRef<int64_t> dims) {
  std::vector<int64_t> strides = shape.strides();
  DimProgression result;
  result.stride = 0;
  // From the fastest-varying dimension outwards, the offsets stay evenly
  // spaced exactly while each dimension's stride is the span of the ones
  // inside it; dimensions of size 1 add no offsets.
  std::optional<int64_t> span;
  for (size_t i = dims.size(); i-- > 0;) {
    int64_t size = shape.dim(size_t(dims[i]));
    int64_t stride = strides[size_t(dims[i])];
    result.count *= size; // distinct dimensions: at most the element count
    if (size == 1)
      continue;
    if (!span)
      result.stride = stride;
    else if (stride != *span)
      result.stride = std::nullopt;
    span = stride * size;
  }
  if (result.count < 2)
    result.stride = 0;
  return result;
}

const ir::Instruction *constantSource(EmitterContext &ctx,
                                      const ir::Instruction &value) {
  const ir::Instruction &source = ctx.underlying(value);
  return source.opcode() == ir::Opcode::Constant ? &source : nullptr;
}

llvm::Value *packedColumnValue(EmitterContext &ctx, llvm::Value *column,
                               bool interleaved) {
  if (!interleaved)
    return column;
  llvm::IRBuilder<> &b = ctx.builder();
  llvm::Value *inBlock = b.CreateAnd(column, ctx.i64(15));
  llvm::Value *blockStart = b.CreateSub(column, inBlock);
  llvm::Value *lane = b.CreateMul(b.CreateAnd(inBlock, ctx.i64(3)), ctx.i64(4));
  return b.CreateAdd(b.CreateAdd(blockStart, lane),
                     b.CreateLShr(inBlock, ctx.i64(2)));
}

namespace {

/// Packed weights as a read-only global, counted in the weights bytes.
llvm::GlobalVariable *emitPacked(EmitterContext &ctx,
                                 const std::vector<uint8_t> &packed,
                                 ir::DType dtype, const std::string &name) {
  size_t bytes = ir::byteSize(dtype);
  // Typed (float/double elements), so the packed layout reads in IR dumps.
  llvm::Constant *data = llvm::ConstantDataArray::getRaw(
      llvm::StringRef(reinterpret_cast<const char *>(packed.data()),
                      packed.size()),
      packed.size() / bytes, ctx.storageType(dtype));
  // Internal, not private: a local symbol with its size in the object, so
  // `--emit report` and `nm --size-sort` see every weight.
  auto *global = new llvm::GlobalVariable(
      ctx.module(), data->getType(), /*isConstant=*/true,
      llvm::GlobalValue::InternalLinkage, data, "packed." + name);
  global->setUnnamedAddr(llvm::GlobalValue::UnnamedAddr::Global);
  global->setAlignment(llvm::Align(64));
  ctx.addWeightsBytes(int64_t(packed.size()));
  return global;
}

} // namespace

llvm::GlobalVariable *packPanels(EmitterContext &ctx,
                                 const ir::Instruction &constant,
                                 const std::vector<int64_t> &batches,
                                 const std::vector<int64_t> &ks,
                                 const std::vector<int64_t> &ns, int64_t nr,
                                 bool interleaved) {
  size_t bytes = ir::byteSize(constant.shape().dtype());
  int64_t n = int64_t(ns.size()), k = int64_t(ks.size());
  int64_t panels = (n + nr - 1) / nr;
  std::string key = constant.name() + "/" + std::to_string(nr) + "/" +
                    std::to_string(k) + "x" + std::to_string(n) + "x" +
                    std::to_string(batches.size()) + "/" +
                    std::to_string(ks.size() > 1 ? ks[1] - ks[0] : 0) + "," +
                    std::to_string(ns.size() > 1 ? ns[1] - ns[0] : 0) +
                    (interleaved ? "/interleaved" : "");
  auto &cache = ctx.packedWeights();
  if (auto found = cache.find(key); found != cache.end())
    return found->second;
  const std::vector<uint8_t> &source = constant.literal().bytes();
  std::vector<uint8_t> packed(batches.size() * size_t(panels * k * nr) * bytes,
                              0);
  size_t row = 0;
  for (int64_t b : batches)
    for (int64_t p = 0; p < panels; ++p)
      for (int64_t kk = 0; kk < k; ++kk, row += size_t(nr) * bytes)
        for (int64_t c = 0; c < nr; ++c) {
          int64_t column = p * nr + c;
          if (column >= n)
            continue;
          size_t from = size_t(b + ks[size_t(kk)] + ns[size_t(column)]) * bytes;
          size_t to = row + size_t(packedColumn(c, interleaved)) * bytes;
          std::memcpy(&packed[to], &source[from], bytes);
        }
  llvm::GlobalVariable *global =
      emitPacked(ctx, packed, constant.shape().dtype(), constant.name());
  cache[key] = global;
  return global;
}

llvm::GlobalVariable *
packComputedPanels(EmitterContext &ctx, const std::string &key,
                   const std::string &name, ir::DType dtype, int64_t batches,
                   int64_t k, int64_t n, int64_t nr, bool interleaved,
                   llvm::function_ref<std::vector<double>()> compute) {
  auto &cache = ctx.packedWeights();
  if (auto found = cache.find(key); found != cache.end())
    return found->second;
  std::vector<double> values = compute();
  size_t bytes = ir::byteSize(dtype);
  int64_t panels = (n + nr - 1) / nr;
  std::vector<uint8_t> packed(size_t(batches * panels * k * nr) * bytes, 0);
  size_t row = 0;
  for (int64_t b = 0; b < batches; ++b)
    for (int64_t p = 0; p < panels; ++p)
      for (int64_t kk = 0; kk < k; ++kk, row += size_t(nr) * bytes)
        for (int64_t c = 0; c < nr; ++c) {
          int64_t column = p * nr + c;
          if (column >= n)
            continue;
          size_t out = row + size_t(packedColumn(c, interleaved)) * bytes;
          double value = values[size_t((b * k + kk) * n + column)];
          if (dtype == ir::DType::F64) {
            std::memcpy(&packed[out], &value, bytes);
          } else {
            float rounded = float(value);
            std::memcpy(&packed[out], &rounded, sizeof rounded);
          }
        }
  llvm::GlobalVariable *global = emitPacked(ctx, packed, dtype, name);
  cache[key] = global;
  return global;
}

} // namespace kiln::codegen::kernels
