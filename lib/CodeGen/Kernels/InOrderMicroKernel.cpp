//===- InOrderMicroKernel.cpp - The A53 GEMM K loop in assembly -----------===//
//
// The schedule (register roles in the header) was tuned against
// llvm-mca-19's Cortex-A53 model, whose rules decide it:
//   - an instruction may not complete before the one issued just before it,
//     so a 4-cycle load right after a 10-cycle FMA waits ~6 cycles, an LD4
//     (8 cycles) only 1, and a load or add right after a load not at all;
//   - the load/store pipe takes one load per cycle (an LD4 holds it for 5),
//     an FMA and a load or add issue in the same cycle when the load or add
//     comes first.
// Hence: B as one LD4 per K step (1 idle cycle), A and the pointer updates
// in two groups per 8 K steps, each led by a load, adds paired with loads.
//
//===----------------------------------------------------------------------===//
#include "InOrderMicroKernel.h"

#include <llvm/IR/InlineAsm.h>

#include <fmt/format.h>

namespace kiln::codegen::kernels {

using llvm::Value;

namespace {

constexpr int64_t kSteps = 8;        // K steps per iteration
constexpr int64_t kVectors = 4;      // B vectors per K step
constexpr int64_t kRowBytes = 64;    // one packed B row: 16 floats
constexpr int kBPointer0 = 9;        // x9..x16: B pointer of K step s
constexpr const char *kAOffset = "x17";
constexpr const char *kCount = "x8";
// Operand numbers: 16 accumulator outputs, then the inputs.
constexpr int kRowOperand0 = 16, kBOperand = 20, kCountOperand = 21;

std::string bPointer(int64_t step) {
  return fmt::format("x{}", kBPointer0 + step % kSteps);
}

std::string rowOperand(int64_t r) {
  return fmt::format("${}", kRowOperand0 + r);
}

/// Loads K step `step`'s B row into register set step % 2.
std::string loadB(int64_t step) {
  int first = int(step % 2) * 4;
  return fmt::format("ld4 {{v{}.4s, v{}.4s, v{}.4s, v{}.4s}}, [{}]", first,
                     first + 1, first + 2, first + 3, bPointer(step));
}

/// Loads the A vectors of K steps 4g..4g+3 (set g % 2) at offset x17.
std::string loadA(int64_t group, int64_t r) {
  return fmt::format("ldr q{}, [{}, {}]", 8 + 4 * (group % 2) + r,
                     rowOperand(r), kAOffset);
}

std::string advanceB(int64_t step) {
  return fmt::format("add {0}, {0}, #{1}", bPointer(step),
                     kSteps * kRowBytes);
}

/// Interleaves loads and ALU instructions, a load first: the pairs issue
/// together and none waits for the other.
void appendPaired(std::vector<std::string> &out,
                  const std::vector<std::string> &loads,
                  const std::vector<std::string> &alu) {
  for (size_t i = 0; i < std::max(loads.size(), alu.size()); ++i) {
    if (i < loads.size())
      out.push_back(loads[i]);
    if (i < alu.size())
      out.push_back(alu[i]);
  }
}

/// One iteration's 8 K steps; `last` leaves out what loads the next one.
std::vector<std::string> iteration(bool last) {
  std::vector<std::string> out;
  for (int64_t s = 0; s < kSteps; ++s) {
    int bSet = int(s % 2) * 4, aSet = 8 + int(s / 4 % 2) * 4;
    for (int64_t r = 0; r < kInOrderRows; ++r)
      for (int64_t q = 0; q < kVectors; ++q) {
        out.push_back(fmt::format("fmla v{}.4s, v{}.4s, v{}.s[{}]",
                                  16 + 4 * r + q, bSet + q, aSet + r, s % 4));
        if (r != 0 || q != 0)
          continue;
        // After the step's first FMA: the next step's B into the other set.
        if (!last || s + 1 < kSteps)
          out.push_back(loadB(s + 1));
        if (s == 1) {
          // A for steps 4-7; B pointers 0-2 are done with for this
          // iteration (step 7 loads the next one's step 0 through x9).
          std::vector<std::string> loads, alu{advanceB(0), advanceB(1),
                                              advanceB(2)};
          for (int64_t row = 0; row < kInOrderRows; ++row)
            loads.push_back(loadA(1, row));
          alu.push_back(fmt::format("add {0}, {0}, #16", kAOffset));
          appendPaired(out, loads, alu);
        }
      }
  }
  if (last)
    return out;
  std::vector<std::string> loads, alu;
  for (int64_t row = 0; row < kInOrderRows; ++row)
    loads.push_back(loadA(2, row));
  for (int64_t s = 3; s < kSteps; ++s)
    alu.push_back(advanceB(s));
  alu.push_back(fmt::format("add {0}, {0}, #16", kAOffset));
  alu.push_back(fmt::format("subs {0}, {0}, #1", kCount));
  appendPaired(out, loads, alu);
  out.push_back("b.ne 1b");
  return out;
}

std::string assembly() {
  std::vector<std::string> out;
  for (int64_t s = 0; s < kSteps; ++s)
    out.push_back(s == 0 ? fmt::format("mov {}, ${}", bPointer(0), kBOperand)
                         : fmt::format("add {}, ${}, #{}", bPointer(s),
                                       kBOperand, s * kRowBytes));
  out.push_back(loadB(0));
  for (int64_t r = 0; r < kInOrderRows; ++r)
    out.push_back(fmt::format("ldr q{}, [{}]", 8 + r, rowOperand(r)));
  out.push_back(fmt::format("mov {}, #16", kAOffset));
  out.push_back(fmt::format("subs {0}, ${1}, #1", kCount, kCountOperand));
  out.push_back("b.eq 2f");
  out.push_back("1:");
  for (std::string &line : iteration(false))
    out.push_back(std::move(line));
  out.push_back("2:");
  for (std::string &line : iteration(true))
    out.push_back(std::move(line));
  std::string text;
  for (const std::string &line : out)
    text += line + "\n";
  return text;
}

std::string constraints() {
  std::string text;
  for (int v = 16; v < 32; ++v)
    text += fmt::format("={{v{}}},", v);
  text += "r,r,r,r,r,r";
  for (int v = 16; v < 32; ++v)
    text += fmt::format(",{{v{}}}", v);
  for (int x = 8; x <= 17; ++x)
    text += fmt::format(",~{{x{}}}", x);
  for (int v = 0; v < 16; ++v)
    text += fmt::format(",~{{v{}}}", v);
  return text + ",~{cc},~{memory}";
}

} // namespace

int64_t inOrderMicroKernelSteps(const GemmTile &tile, int64_t rows,
                                int64_t columns, bool packedB, int64_t kStride,
                                int64_t length) {
  if (tile.asmKSteps != kSteps || !tile.interleavedPanels || !packedB ||
      kStride != 1 || rows != kInOrderRows || columns != kInOrderColumns ||
      tile.nr != kInOrderColumns)
    return 0;
  return length / kSteps * kSteps;
}

std::vector<Value *>
emitInOrderMicroKernel(EmitterContext &ctx, const std::vector<Value *> &rows,
                       Value *b, int64_t steps,
                       const std::vector<Value *> &acc) {
  llvm::IRBuilder<> &builder = ctx.builder();
  llvm::Type *vector = acc.front()->getType();
  std::vector<llvm::Type *> results(acc.size(), vector);
  auto *resultType = llvm::StructType::get(ctx.context(), results);
  std::vector<Value *> operands(rows.begin(), rows.end());
  operands.push_back(b);
  operands.push_back(ctx.i64(steps / kSteps));
  std::vector<llvm::Type *> types;
  for (Value *operand : operands)
    types.push_back(operand->getType());
  for (Value *sum : acc) {
    operands.push_back(sum);
    types.push_back(vector);
  }
  auto *asmType = llvm::FunctionType::get(resultType, types, false);
  auto *inlineAsm = llvm::InlineAsm::get(asmType, assembly(), constraints(),
                                         /*hasSideEffects=*/false);
  Value *call = builder.CreateCall(asmType, inlineAsm, operands, "gemm.a53");
  std::vector<Value *> sums;
  for (unsigned i = 0; i < acc.size(); ++i)
    sums.push_back(builder.CreateExtractValue(call, {i}));
  return sums;
}

} // namespace kiln::codegen::kernels
