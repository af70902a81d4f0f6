//===- FuzzPipeline.cpp - libFuzzer target: HLO text through the pipeline -===//
//
// Parse, verify, run the default optimization pipeline, then evaluate the
// optimized module with zero arguments. Evaluation only runs for small
// modules (kMaxBytes of results in all, kMaxInstructions), so each input
// stays fast; code generation is not run here (LLVM dominates its time).
//
//===----------------------------------------------------------------------===//

#include "FuzzSupport.h"

#include "kiln/Driver/Optimize.h"
#include "kiln/Eval/Evaluator.h"
#include "kiln/IR/Computation.h"
#include "kiln/IR/Literal.h"
#include "kiln/IR/Parser.h"
#include "kiln/IR/Verifier.h"

#include <cstdio>
#include <cstdlib>

namespace {
constexpr int64_t kMaxBytes = 1 << 20;
constexpr size_t kMaxInstructions = 256;

bool smallEnoughToEvaluate(const kiln::ir::Module &module) {
  int64_t bytes = 0;
  size_t count = 0;
  for (const kiln::ir::Computation *computation : module.computations()) {
    count += computation->instructionCount();
    for (const kiln::ir::Instruction *instruction :
         computation->instructions()) {
      // Zero arguments are built for parameters; tuples have no byte size.
      if (instruction->shape().isTuple()) {
        if (instruction->opcode() == kiln::ir::Opcode::Parameter)
          return false;
        continue;
      }
      bytes += instruction->shape().byteSize();
      if (bytes > kMaxBytes)
        return false;
    }
  }
  return count <= kMaxInstructions;
}
} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  auto module =
      kiln::ir::parseModule(kiln::fuzz::asText(data, size), "fuzz.hlo");
  if (!module)
    return 0;
  if (kiln::ir::verifyModule(**module) || !smallEnoughToEvaluate(**module))
    return 0;
  auto optimized = kiln::driver::optimizedCopy(**module);
  if (!optimized) {
    std::fprintf(stderr,
                 "kiln fuzz: the pipeline rejected a verified module:\n%s\n",
                 optimized.errorMessage().c_str());
    std::abort();
  }
  std::vector<kiln::ir::Literal> args;
  for (const kiln::ir::Instruction *parameter :
       (*optimized)->entry()->parameters())
    args.emplace_back(parameter->shape());
  (void)kiln::eval::evaluateModule(**optimized, args);
  return 0;
}
