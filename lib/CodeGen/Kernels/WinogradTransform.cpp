//===- WinogradTransform.cpp - The F(4x4, 3x3) transforms -----------------===//
#include "WinogradTransform.h"
#include "KernelSupport.h"

#include <llvm/IR/Constants.h>

namespace kiln::codegen::kernels::winograd {

using llvm::Value;

namespace {

// The matrices of F(4x4, 3x3), points 0, 1, -1, 2, -2 and infinity.
constexpr double kBT[kAlpha][kAlpha] = {
    {4, 0, -5, 0, 1, 0},  {0, -4, -4, 1, 1, 0}, {0, 4, -4, -1, 1, 0},
    {0, -2, -1, 2, 1, 0}, {0, 2, -1, -2, 1, 0}, {0, 4, 0, -5, 0, 1}};
constexpr double kG[kAlpha][kKernel] = {
    {1.0 / 4, 0, 0},
    {-1.0 / 6, -1.0 / 6, -1.0 / 6},
    {-1.0 / 6, 1.0 / 6, -1.0 / 6},
    {1.0 / 24, 1.0 / 12, 1.0 / 6},
    {1.0 / 24, -1.0 / 12, 1.0 / 6},
    {0, 0, 1}};
constexpr double kAT[kTile][kAlpha] = {{1, 1, 1, 1, 1, 0},
                                       {0, 1, -1, 2, -2, 0},
                                       {0, 1, 1, 4, 4, 0},
                                       {0, 1, -1, 8, -8, 1}};

/// sum_j row[j] * x[j] over the non-zero coefficients: adds and subtracts
/// for +-1, one multiply-add for the others (every coefficient is a small
/// integer, so each product is exact and only the sums round).
Value *combine(EmitterContext &ctx, const double *row, int64_t count,
               const std::vector<Value *> &x) {
  llvm::IRBuilder<> &b = ctx.builder();
  Value *sum = nullptr;
  for (int64_t j = 0; j < count; ++j) {
    double c = row[j];
    Value *v = x[size_t(j)];
    if (c == 0)
      continue;
    if (c == 1) {
      sum = sum ? b.CreateFAdd(sum, v) : v;
    } else if (c == -1) {
      sum = sum ? b.CreateFSub(sum, v) : b.CreateFNeg(v);
    } else {
      Value *scale = llvm::ConstantFP::get(v->getType(), c);
      sum = sum ? multiplyAdd(ctx, sum, scale, v) : b.CreateFMul(scale, v);
    }
  }
  return sum;
}

/// M x M^T for a 6 x 6 grid `x` and `matrix` M (rows x kAlpha): M applied
/// to each column of `x`, then to each row of the result.
std::vector<Value *> twoPass(EmitterContext &ctx, const double *matrix,
                             int64_t rows, const std::vector<Value *> &x) {
  // Columns: t[i][c] = sum_r matrix[i][r] * x[r][c].
  std::vector<Value *> t(size_t(rows * kAlpha));
  for (int64_t c = 0; c < kAlpha; ++c) {
    std::vector<Value *> column;
    for (int64_t r = 0; r < kAlpha; ++r)
      column.push_back(x[size_t(r * kAlpha + c)]);
    for (int64_t i = 0; i < rows; ++i)
      t[size_t(i * kAlpha + c)] = combine(ctx, matrix + i * kAlpha, kAlpha,
                                          column);
  }
  // Rows: out[i][j] = sum_c t[i][c] * matrix[j][c].
  std::vector<Value *> out(size_t(rows * rows));
  for (int64_t i = 0; i < rows; ++i) {
    std::vector<Value *> row(t.begin() + i * kAlpha,
                             t.begin() + (i + 1) * kAlpha);
    for (int64_t j = 0; j < rows; ++j)
      out[size_t(i * rows + j)] =
          combine(ctx, matrix + j * kAlpha, kAlpha, row);
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
  return twoPass(ctx, &kBT[0][0], kAlpha, d);
}

std::vector<Value *> transformOutput(EmitterContext &ctx,
                                     const std::vector<Value *> &m) {
  return twoPass(ctx, &kAT[0][0], kTile, m);
}

} // namespace kiln::codegen::kernels::winograd
