//===- InOrderDepthwise.cpp - The A53 depthwise channel step in asm -------===//
//
// Register roles and the reason for a block: the header. The schedule per
// kernel row (llvm-mca-19, Cortex-A53): ~6 idle cycles before the group's
// first load (behind the previous row's last FMA), its loads one a cycle,
// the last paired with the row's first FMA, then the FMAs one a cycle with
// 2 idle cycles every 8 (an accumulator's next FMA waits for its last).
//
//===----------------------------------------------------------------------===//
#include "InOrderDepthwise.h"

#include <llvm/IR/InlineAsm.h>
#include <llvm/TargetParser/Triple.h>

#include <fmt/format.h>

#include <string>

namespace kiln::codegen::kernels {

using llvm::Value;

namespace {

constexpr int kAccumulator0 = 16;
constexpr int64_t kMaxColumns = 4, kMaxRows = 8;
constexpr int64_t kMaxOffset = 65520; // ldr q's unsigned offset: 16 x 4095
// Operand numbers: the accumulator outputs, the weights, the rows.
constexpr int kWeightsOperand = int(kInOrderDepthwiseColumns);
constexpr int kRow0Operand = kWeightsOperand + 1;

bool encodable(int64_t offset) {
  return offset % 16 == 0 && offset <= kMaxOffset;
}

std::string assembly(const InOrderDepthwiseShape &s) {
  std::string text;
  auto line = [&](const std::string &instruction) {
    text += instruction + "\n";
  };
  for (int64_t c = 0; c < kInOrderDepthwiseColumns; ++c)
    line(fmt::format("movi v{}.2d, #0", kAccumulator0 + c));
  int64_t pixels = kInOrderDepthwiseColumns + s.columns - 1;
  for (int64_t r = 0; r < s.rows; ++r) {
    for (int64_t k = 0; k < s.columns; ++k)
      line(fmt::format("ldr q{}, [${}, #{}]", k, kWeightsOperand,
                       (r * s.columns + k) * s.tapBytes));
    for (int64_t p = 0; p < pixels; ++p)
      line(fmt::format("ldr q{}, [${}, #{}]", s.columns + p, kRow0Operand + r,
                       p * s.pixelBytes));
    for (int64_t k = 0; k < s.columns; ++k)
      for (int64_t c = 0; c < kInOrderDepthwiseColumns; ++c)
        line(fmt::format("fmla v{}.4s, v{}.4s, v{}.4s", kAccumulator0 + c,
                         s.columns + c + k, k));
  }
  return text;
}

std::string constraints(const InOrderDepthwiseShape &s) {
  std::string text;
  for (int64_t c = 0; c < kInOrderDepthwiseColumns; ++c)
    text += fmt::format("={{v{}}},", kAccumulator0 + c);
  text += "r";
  for (int64_t r = 0; r < s.rows; ++r)
    text += ",r";
  int64_t registers = s.columns + kInOrderDepthwiseColumns + s.columns - 1;
  for (int64_t v = 0; v < registers; ++v)
    text += fmt::format(",~{{v{}}}", v);
  return text + ",~{memory}";
}

} // namespace

std::optional<InOrderDepthwiseShape>
inOrderDepthwiseShape(const TargetInfo &target, ir::DType dtype,
                      int64_t kernelRows, int64_t kernelColumns,
                      const ir::WindowDim &innermost, int64_t pixelElements,
                      int64_t tapElements) {
  if (!target.isAArch64 || target.cpu != "cortex-a53" || target.strictAlign ||
      !llvm::Triple(target.triple).isLittleEndian() ||
      dtype != ir::DType::F32 || target.lanes(4) != 4)
    return std::nullopt;
  if (innermost.stride != 1 || innermost.windowDilation != 1 ||
      innermost.baseDilation != 1 || kernelColumns < 1 ||
      kernelColumns > kMaxColumns || kernelRows < 1 || kernelRows > kMaxRows)
    return std::nullopt;
  InOrderDepthwiseShape shape{kernelRows, kernelColumns, pixelElements * 4,
                              tapElements * 4};
  int64_t lastPixel = kInOrderDepthwiseColumns + kernelColumns - 2;
  if (!encodable(lastPixel * shape.pixelBytes) || shape.pixelBytes == 0 ||
      !encodable((kernelRows * kernelColumns - 1) * shape.tapBytes))
    return std::nullopt;
  return shape;
}

std::vector<Value *> emitInOrderDepthwise(EmitterContext &ctx,
                                          const InOrderDepthwiseShape &shape,
                                          const std::vector<Value *> &rows,
                                          Value *weights) {
  llvm::IRBuilder<> &builder = ctx.builder();
  llvm::Type *vector = llvm::FixedVectorType::get(builder.getFloatTy(), 4);
  std::vector<llvm::Type *> results(size_t(kInOrderDepthwiseColumns), vector);
  auto *resultType = llvm::StructType::get(ctx.context(), results);
  std::vector<Value *> operands{weights};
  operands.insert(operands.end(), rows.begin(), rows.end());
  std::vector<llvm::Type *> types;
  for (Value *operand : operands)
    types.push_back(operand->getType());
  auto *asmType = llvm::FunctionType::get(resultType, types, false);
  auto *inlineAsm =
      llvm::InlineAsm::get(asmType, assembly(shape), constraints(shape),
                           /*hasSideEffects=*/false);
  Value *call =
      builder.CreateCall(asmType, inlineAsm, operands, "depthwise.a53");
  std::vector<Value *> sums;
  for (unsigned c = 0; c < unsigned(kInOrderDepthwiseColumns); ++c)
    sums.push_back(builder.CreateExtractValue(call, {c}));
  return sums;
}

} // namespace kiln::codegen::kernels
