//===- ReducerMatchTest.cpp - Recognising binary reducer computations -----===//
#include "kiln/IR/Computation.h"
#include "kiln/IR/ReducerMatch.h"

#include <catch2/catch.hpp>

using namespace kiln;
using namespace kiln::ir;

namespace {

/// `ROOT r = T[] opcode(p_lhs, p_rhs)` over two scalar parameters of `type`.
std::unique_ptr<Computation> binaryComputation(Opcode opcode, DType type,
                                               bool swapOperands = false) {
  auto computation = std::make_unique<Computation>("reducer");
  Shape scalar(type, {});
  Instruction *a = computation->addParameter(0, scalar, "a");
  Instruction *b = computation->addParameter(1, scalar, "b");
  Instruction *root = computation->add(
      opcode, scalar, swapOperands ? std::vector{b, a} : std::vector{a, b});
  computation->setRoot(root);
  return computation;
}

} // namespace

TEST_CASE("binary reducers map to their ReducerKind in either operand order",
          "[reducer-match]") {
  const std::pair<Opcode, ReducerKind> kinds[] = {
      {Opcode::Add, ReducerKind::Add},     {Opcode::Multiply, ReducerKind::Mul},
      {Opcode::Maximum, ReducerKind::Max}, {Opcode::Minimum, ReducerKind::Min},
      {Opcode::And, ReducerKind::And},     {Opcode::Or, ReducerKind::Or}};
  for (auto [opcode, kind] : kinds) {
    DType type = opcode == Opcode::And || opcode == Opcode::Or ? DType::Pred
                                                               : DType::F32;
    for (bool swap : {false, true}) {
      ReducerMatch match = matchBinaryReducer(*binaryComputation(opcode, type, swap));
      REQUIRE(match.kind);
      CHECK(*match.kind == kind);
    }
  }
}

TEST_CASE("other computations are not reducers, and say why",
          "[reducer-match]") {
  ReducerMatch subtract =
      matchBinaryReducer(*binaryComputation(Opcode::Subtract, DType::F32));
  CHECK_FALSE(subtract.kind);
  CHECK(subtract.mismatch == "its root is 'subtract', not add, multiply, "
                             "maximum, minimum, and or or");

  // a + a ignores the second parameter.
  auto doubled = std::make_unique<Computation>("doubled");
  Shape scalar(DType::F32, {});
  Instruction *a = doubled->addParameter(0, scalar, "a");
  doubled->addParameter(1, scalar, "b");
  doubled->setRoot(doubled->add(Opcode::Add, scalar, {a, a}));
  CHECK(matchBinaryReducer(*doubled).mismatch ==
        "its root 'add' does not combine the two parameters");

  // Arrays are not scalars.
  auto arrays = std::make_unique<Computation>("arrays");
  Shape vector(DType::F32, {2});
  Instruction *x = arrays->addParameter(0, vector, "x");
  Instruction *y = arrays->addParameter(1, vector, "y");
  arrays->setRoot(arrays->add(Opcode::Add, vector, {x, y}));
  CHECK(matchBinaryReducer(*arrays).mismatch ==
        "its parameters are f32[2] and f32[2], not two scalars of one type");

  // Parameter numbers with a gap (the verifier never sees a reducer the
  // parser folds into reducer=, so the matcher checks them).
  auto gap = std::make_unique<Computation>("gap");
  Instruction *g0 = gap->addParameter(0, scalar, "g0");
  Instruction *g2 = gap->addParameter(2, scalar, "g2");
  gap->setRoot(gap->add(Opcode::Add, scalar, {g0, g2}));
  CHECK(matchBinaryReducer(*gap).mismatch ==
        "its parameters are numbered 0 and 2, not 0 and 1");

  // One parameter.
  auto unary = std::make_unique<Computation>("unary");
  Instruction *p = unary->addParameter(0, scalar, "p");
  unary->setRoot(unary->add(Opcode::Negate, scalar, {p}));
  CHECK(matchBinaryReducer(*unary).mismatch == "it has 1 parameter, not 2");
}
