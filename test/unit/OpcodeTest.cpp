//===- OpcodeTest.cpp - The property columns of Opcodes.def ---------------===//
//
// The expectations are written out by hand from the opcodes' semantics
// (docs/hlo.md) and from what each consumer needs, not read back from the
// table: which opcodes a fusion computes element by element, cost classes,
// and the dtypes shape inference accepts.
//
//===----------------------------------------------------------------------===//
#include "kiln/IR/Opcode.h"
#include "kiln/IR/Verifier.h"

#include <catch2/catch.hpp>
#include <set>

using namespace kiln;
using namespace kiln::ir;

TEST_CASE("elemental in fusion: elementwise, leaves, index-only movement, "
          "gather, tuples",
          "[opcode]") {
  // Everything a fused loop computes from operand elements, or reads or
  // aliases without computing; the rest gets a buffer of its own.
  const std::set<Opcode> elemental = {
      Opcode::Parameter,       Opcode::Constant,    Opcode::Iota,
      Opcode::Broadcast,       Opcode::Reshape,     Opcode::Transpose,
      Opcode::Slice,           Opcode::Concatenate, Opcode::Pad,
      Opcode::Reverse,         Opcode::Gather,      Opcode::Tuple,
      Opcode::GetTupleElement, Opcode::Rng,         Opcode::BitcastConvert,
      Opcode::Map,             Opcode::DynamicSlice};
  for (Opcode opcode : kAllOpcodes) {
    INFO(opcodeName(opcode));
    CHECK(isElementalInFusion(opcode) ==
          (isElementwise(opcode) || elemental.count(opcode) == 1));
  }
  for (Opcode opcode : {Opcode::Reduce, Opcode::Dot,
                        Opcode::DynamicUpdateSlice, Opcode::Sort,
                        Opcode::Fusion})
    CHECK(inFusion(opcode) == InFusion::Materialized);
  // Only parameters, constants and the tuple aliases compute nothing.
  for (Opcode opcode : {Opcode::Parameter, Opcode::Constant, Opcode::Tuple,
                        Opcode::GetTupleElement})
    CHECK(inFusion(opcode) == InFusion::Read);
}

TEST_CASE("cost classes", "[opcode]") {
  for (Opcode opcode :
       {Opcode::Parameter, Opcode::Constant, Opcode::Iota, Opcode::Broadcast,
        Opcode::Reshape, Opcode::Transpose, Opcode::Slice, Opcode::Pad,
        Opcode::Concatenate, Opcode::Reverse, Opcode::Tuple,
        Opcode::GetTupleElement, Opcode::Copy})
    CHECK(costClass(opcode) == CostClass::Free);
  for (Opcode opcode :
       {Opcode::Add, Opcode::Multiply, Opcode::Compare, Opcode::Select,
        Opcode::Maximum, Opcode::Minimum, Opcode::Convert, Opcode::Abs,
        Opcode::Negate, Opcode::Floor, Opcode::And, Opcode::ShiftLeft,
        Opcode::Clamp, Opcode::Gather, Opcode::DynamicSlice})
    CHECK(costClass(opcode) == CostClass::Cheap);
  for (Opcode opcode :
       {Opcode::Exp, Opcode::Log, Opcode::Tanh, Opcode::Logistic, Opcode::Erf,
        Opcode::Sin, Opcode::Cos, Opcode::Power, Opcode::Divide,
        Opcode::Remainder, Opcode::Sqrt, Opcode::Rsqrt, Opcode::Atan2})
    CHECK(costClass(opcode) == CostClass::Expensive);
  for (Opcode opcode :
       {Opcode::Reduce, Opcode::ReduceWindow, Opcode::ArgMax, Opcode::Dot,
        Opcode::Convolution, Opcode::Sort, Opcode::TopK,
        Opcode::DynamicUpdateSlice, Opcode::Fusion})
    CHECK(costClass(opcode) == CostClass::Heavy);
  // Whatever a fusion cannot generate per element is Heavy: duplicating it
  // into several fusions would recompute it whole.
  for (Opcode opcode : kAllOpcodes) {
    INFO(opcodeName(opcode));
    if (!isElementalInFusion(opcode))
      CHECK(costClass(opcode) == CostClass::Heavy);
  }
}

namespace {
/// Shape inference of a unary or binary elementwise op on f32[2] operands
/// of dtype `dtype`.
Expected<Shape> inferOn(Opcode opcode, DType dtype) {
  std::vector<Shape> operands(size_t(opcodeArity(opcode)), Shape(dtype, {2}));
  return inferShape(opcode, operands, Attributes(), Shape(dtype, {2}), nullptr);
}
} // namespace

TEST_CASE("elementwise dtype rules follow the Accepts column", "[opcode]") {
  struct Row {
    Opcode opcode;
    std::set<DType> rejected; // among pred, s32, u8, f32
    std::string_view message; // for the first rejected dtype
  };
  const Row rows[] = {
      {Opcode::Exp,
       {DType::Pred, DType::S32, DType::U8},
       "expected floating-point operands but found pred"},
      {Opcode::Abs, {DType::Pred}, "expected numeric operands but found pred"},
      {Opcode::Sign,
       {DType::Pred, DType::U8},
       "expected signed integer or floating-point operands but found pred"},
      {Opcode::Not,
       {DType::F32},
       "expected pred or integer operands but found f32"},
      {Opcode::Add, {DType::Pred}, "expected numeric operands but found pred"},
      {Opcode::Maximum, {}, ""},
      {Opcode::Xor,
       {DType::F32},
       "expected pred or integer operands but found f32"},
      {Opcode::ShiftLeft,
       {DType::Pred, DType::F32},
       "expected integer operands but found pred"},
      {Opcode::Atan2,
       {DType::Pred, DType::S32, DType::U8},
       "expected floating-point operands but found pred"},
  };
  for (const Row &row : rows) {
    bool first = true;
    for (DType dtype : {DType::Pred, DType::S32, DType::U8, DType::F32}) {
      INFO(opcodeName(row.opcode) << " on " << dtypeName(dtype));
      Expected<Shape> shape = inferOn(row.opcode, dtype);
      bool rejected = row.rejected.count(dtype) == 1;
      CHECK(bool(shape) == !rejected);
      if (!shape) {
        if (first)
          CHECK_THAT(shape.errorMessage(),
                     Catch::Contains(std::string(row.message)));
        first = false;
        (void)shape.takeError();
      }
    }
  }
  // The Result column: compare and is-finite give pred, the rest keep the
  // operand dtype.
  Expected<Shape> finite = inferOn(Opcode::IsFinite, DType::F32);
  REQUIRE(finite);
  CHECK(finite->dtype() == DType::Pred);
  Expected<Shape> sum = inferOn(Opcode::Add, DType::U8);
  REQUIRE(sum);
  CHECK(sum->dtype() == DType::U8);
}

TEST_CASE("an opcode outside Opcodes.def is reported, not looked up",
          "[opcode]") {
  CHECK_FALSE(isKnownOpcode(Opcode(std::size(kAllOpcodes))));
  Expected<Shape> shape =
      inferShape(Opcode(200), {}, Attributes(), Shape(DType::F32, {}), nullptr);
  REQUIRE_FALSE(shape);
  CHECK_THAT(shape.errorMessage(), Catch::Contains("unknown opcode"));
}
