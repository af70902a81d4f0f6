//===- PassTestUtils.h - Shared helpers of the optimization pass tests ----===//
//
// Parse HLO text, run a pass by name, and compare a module before and after
// optimization through the reference evaluator on seeded inputs that mix in
// NaN, infinities, signed zeros and integer extremes. Results must agree
// bit for bit (any NaN matches any NaN: NaN payloads are not part of kiln's
// semantics).
//
//===----------------------------------------------------------------------===//
#ifndef KILN_TEST_UNIT_PASSTESTUTILS_H
#define KILN_TEST_UNIT_PASSTESTUTILS_H

#include "kiln/Eval/Evaluator.h"
#include "kiln/IR/Parser.h"
#include "kiln/IR/Printer.h"
#include "kiln/Support/Float16.h"
#include "kiln/Transforms/Pass.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>

namespace kiln::passtest {

inline std::unique_ptr<ir::Module> parse(const std::string &text) {
  auto module = ir::parseModule(text, "test.hlo");
  INFO(text);
  REQUIRE(module);
  return std::move(*module);
}

/// Runs the registered pass `name`; returns whether it changed the module.
inline bool runPass(const std::string &name, ir::Module &module) {
  PassManager manager;
  auto pass = createPass(name);
  REQUIRE(pass);
  bool changed = false;
  manager.addPass(std::move(*pass));
  manager.setAfterPassHook(
      [&](std::string_view, const ir::Module &, bool c) { changed = c; });
  Error error = manager.run(module);
  INFO((error ? error.message() : std::string()));
  REQUIRE(!error);
  return changed;
}

inline size_t countOpcode(const ir::Module &module, ir::Opcode opcode) {
  size_t count = 0;
  for (const ir::Computation *computation : module.computations())
    for (const ir::Instruction *instruction : computation->instructions())
      count += instruction->opcode() == opcode;
  return count;
}

/// A seeded literal of `shape`: random values with a third of them special.
inline ir::Literal randomLiteral(const ir::Shape &shape, std::mt19937 &rng) {
  ir::Literal literal(shape);
  std::uniform_real_distribution<double> uniform(-3, 3);
  std::uniform_int_distribution<int> pick(0, 8);
  const double specials[] = {std::nan(""), INFINITY, -INFINITY, 0.0, -0.0, 1.0};
  size_t size = ir::byteSize(shape.dtype());
  for (int64_t i = 0; i < shape.numElements(); ++i) {
    int choice = pick(rng);
    double value = choice < 6 && choice % 2 == 0 ? specials[choice] : uniform(rng);
    uint8_t *out = literal.bytes().data() + size_t(i) * size;
    switch (shape.dtype()) {
    case ir::DType::F32: {
      float f = float(value);
      std::memcpy(out, &f, 4);
      break;
    }
    case ir::DType::F64:
      std::memcpy(out, &value, 8);
      break;
    case ir::DType::F16: {
      uint16_t bits = floatToHalf(float(value));
      std::memcpy(out, &bits, 2);
      break;
    }
    case ir::DType::S32: {
      const int32_t ints[] = {std::numeric_limits<int32_t>::min(), -1, 0,
                              std::numeric_limits<int32_t>::max()};
      int32_t v = choice < 4 ? ints[choice] : int32_t(std::lround(value * 10));
      std::memcpy(out, &v, 4);
      break;
    }
    case ir::DType::Pred:
      *out = choice % 2;
      break;
    default:
      FAIL("randomLiteral: unsupported dtype " << ir::dtypeName(shape.dtype()));
    }
  }
  return literal;
}

inline bool isNanAt(const ir::Literal &literal, int64_t i) {
  const uint8_t *p = literal.bytes().data() + size_t(i) * ir::byteSize(literal.shape().dtype());
  switch (literal.shape().dtype()) {
  case ir::DType::F32: {
    float f;
    std::memcpy(&f, p, 4);
    return std::isnan(f);
  }
  case ir::DType::F64: {
    double d;
    std::memcpy(&d, p, 8);
    return std::isnan(d);
  }
  case ir::DType::F16: {
    uint16_t bits;
    std::memcpy(&bits, p, 2);
    return std::isnan(halfToFloat(bits));
  }
  default:
    return false;
  }
}

/// Bitwise equality, any NaN matching any NaN.
inline bool sameBits(const ir::Literal &a, const ir::Literal &b) {
  if (a.shape() != b.shape())
    return false;
  size_t size = ir::byteSize(a.shape().dtype());
  for (int64_t i = 0; i < a.numElements(); ++i) {
    if (isNanAt(a, i) && isNanAt(b, i))
      continue;
    if (std::memcmp(a.bytes().data() + size_t(i) * size,
                    b.bytes().data() + size_t(i) * size, size))
      return false;
  }
  return true;
}

/// Evaluates `before` and `after` on `trials` seeded random inputs and
/// requires identical results.
inline void requireSameResults(const ir::Module &before,
                               const ir::Module &after, unsigned seed,
                               int trials = 4) {
  std::mt19937 rng(seed);
  for (int trial = 0; trial < trials; ++trial) {
    std::vector<ir::Literal> args;
    for (const ir::Instruction *parameter : before.entry()->parameters())
      args.push_back(randomLiteral(parameter->shape(), rng));
    auto expected = eval::evaluateModule(before, args);
    auto actual = eval::evaluateModule(after, args);
    REQUIRE(expected);
    REQUIRE(actual);
    REQUIRE(expected->size() == actual->size());
    for (size_t i = 0; i < expected->size(); ++i) {
      INFO("result " << i << "\nbefore:\n"
                     << ir::printModule(before) << "after:\n"
                     << ir::printModule(after));
      REQUIRE(sameBits((*expected)[i], (*actual)[i]));
    }
  }
}

} // namespace kiln::passtest

#endif // KILN_TEST_UNIT_PASSTESTUTILS_H
