//===- WinogradTransform.cpp - The F(4x4, 3x3) transforms -----------------===//
#include "WinogradTransform.h"
#include "KernelSupport.h"

#include <llvm/IR/Constants.h>

namespace kiln::codegen::kernels::winograd {

using llvm::Value;

namespace {

// G of F(4x4, 3x3), points 0, 1, -1, 2, -2 and infinity. B^T and A^T are
// applied by inputPass and outputPass below, one row each:
//   B^T = [4  0 -5  0  1  0]    A^T = [1  1  1  1  1  0]
//         [0 -4 -4  1  1  0]          [0  1 -1  2 -2  0]
//         [0  4 -4 -1  1  0]          [0  1  1  4  4  0]
//         [0 -2 -1  2  1  0]          [0  1 -1  8 -8  1]
//         [0  2 -1 -2  1  0]
//         [0  4  0 -5  0  1]
constexpr double kG[kAlpha][kKernel] = {
    {1.0 / 4, 0, 0},
    {-1.0 / 6, -1.0 / 6, -1.0 / 6},
    {-1.0 / 6, 1.0 / 6, -1.0 / 6},
    {1.0 / 24, 1.0 / 12, 1.0 / 6},
    {1.0 / 24, -1.0 / 12, 1.0 / 6},
    {0, 0, 1}};

Value *scaled(EmitterContext &ctx, double c, Value *x, Value *plus) {
  return multiplyAdd(ctx, plus, llvm::ConstantFP::get(x->getType(), c), x);
}

/// B^T x for six vectors: the rows share their sums and differences (14
/// operations instead of 22 for the rows one by one). Every coefficient is
/// a small integer, so only the sums round.
std::vector<Value *> inputPass(EmitterContext &ctx,
                               const std::vector<Value *> &x) {
  llvm::IRBuilder<> &b = ctx.builder();
  Value *sum34 = b.CreateFAdd(x[3], x[4]), *diff43 = b.CreateFSub(x[4], x[3]);
  Value *sum12 = b.CreateFAdd(x[1], x[2]), *diff12 = b.CreateFSub(x[1], x[2]);
  Value *diff13 = b.CreateFSub(x[1], x[3]), *diff42 = b.CreateFSub(x[4], x[2]);
  return {scaled(ctx, -5, x[2], scaled(ctx, 4, x[0], x[4])),
          scaled(ctx, -4, sum12, sum34),
          scaled(ctx, 4, diff12, diff43),
          scaled(ctx, -2, diff13, diff42),
          scaled(ctx, 2, diff13, diff42),
          scaled(ctx, -5, x[3], scaled(ctx, 4, x[1], x[5]))};
}

/// A^T x for six vectors (10 operations instead of 17).
std::vector<Value *> outputPass(EmitterContext &ctx,
                                const std::vector<Value *> &x) {
  llvm::IRBuilder<> &b = ctx.builder();
  Value *sum12 = b.CreateFAdd(x[1], x[2]), *diff12 = b.CreateFSub(x[1], x[2]);
  Value *sum34 = b.CreateFAdd(x[3], x[4]), *diff34 = b.CreateFSub(x[3], x[4]);
  return {b.CreateFAdd(b.CreateFAdd(x[0], sum12), sum34),
          scaled(ctx, 2, diff34, diff12), scaled(ctx, 4, sum34, sum12),
          b.CreateFAdd(scaled(ctx, 8, diff34, diff12), x[5])};
}

using Pass = std::vector<Value *> (*)(EmitterContext &,
                                      const std::vector<Value *> &);

/// P x P^T for a 6 x 6 grid `x` and a 1-D transform P of `rows` outputs:
/// P on each column of `x`, then on each row of the result.
std::vector<Value *> twoPass(EmitterContext &ctx, Pass pass, int64_t rows,
                             const std::vector<Value *> &x) {
  std::vector<Value *> t(size_t(rows * kAlpha)); // t[i][c]
  for (int64_t c = 0; c < kAlpha; ++c) {
    std::vector<Value *> column;
    for (int64_t r = 0; r < kAlpha; ++r)
      column.push_back(x[size_t(r * kAlpha + c)]);
    std::vector<Value *> done = pass(ctx, column);
    for (int64_t i = 0; i < rows; ++i)
      t[size_t(i * kAlpha + c)] = done[size_t(i)];
  }
  std::vector<Value *> out;
  for (int64_t i = 0; i < rows; ++i) {
    std::vector<Value *> done = pass(
        ctx, std::vector<Value *>(t.begin() + i * kAlpha,
                                  t.begin() + (i + 1) * kAlpha));
    out.insert(out.end(), done.begin(), done.end());
  }
  return out;
}

} // namespace

std::array<double, kPositions> transformKernel(const std::array<double, 9> &g) {
  double gg[kAlpha][kKernel] = {}; // G g
  for (int i = 0; i < kAlpha; ++i)
    for (int j = 0; j < kKernel; ++j)
      for (int k = 0; k < kKernel; ++k)
        gg[i][j] += kG[i][k] * g[size_t(k * kKernel + j)];
  std::array<double, kPositions> u{}; // (G g) G^T
  for (int i = 0; i < kAlpha; ++i)
    for (int j = 0; j < kAlpha; ++j)
      for (int k = 0; k < kKernel; ++k)
        u[size_t(i * kAlpha + j)] += gg[i][k] * kG[j][k];
  return u;
}

std::vector<Value *> transformInput(EmitterContext &ctx,
                                    const std::vector<Value *> &d) {
  return twoPass(ctx, inputPass, kAlpha, d);
}

std::vector<Value *> transformOutput(EmitterContext &ctx,
                                     const std::vector<Value *> &m) {
  return twoPass(ctx, outputPass, kTile, m);
}

} // namespace kiln::codegen::kernels::winograd
