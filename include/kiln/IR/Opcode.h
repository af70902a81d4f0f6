//===- Opcode.h - HLO opcodes and their static properties -------*- C++ -*-===//
#ifndef KILN_IR_OPCODE_H
#define KILN_IR_OPCODE_H

#include "kiln/IR/DType.h"

#include <optional>
#include <string_view>

namespace kiln::ir {

enum class Opcode {
#define KILN_OPCODE(Enumerator, Spelling, Arity, Kind, ...) Enumerator,
#include "kiln/IR/Opcodes.def"
};

enum class OpcodeKind {
  Leaf,
  ElementwiseUnary,
  ElementwiseBinary,
  ElementwiseTernary,
  Layout,
  Reduction,
  Contraction,
  Indexing,
  Structural
};

/// Sets of element types, as bits: the Accepts column of Opcodes.def.
enum class DTypeClasses : unsigned {
  Pred = 1,
  Signed = 2,
  Unsigned = 4,
  Float = 8,
  Int = Signed | Unsigned,
  PredOrInt = Pred | Int,
  SignedOrFloat = Signed | Float,
  Numeric = Int | Float,
  Any = Pred | Numeric,
};

/// The result dtype of an opcode: the Result column of Opcodes.def.
enum class ResultDType {
  Operand,  ///< the value operand's (operand 0; select and clamp: operand 1)
  Pred,     ///< always pred (compare, is-finite)
  Declared, ///< the instruction's declared dtype (convert, iota, arg-max)
  Computed, ///< built by the opcode's shape rule (tuples)
};

/// How a fused instance of an opcode is computed: the InFusion column.
enum class InFusion {
  Generated,   ///< element by element from operand elements
  Read,        ///< no arithmetic: read where it lives, or an alias
  Materialized ///< whole, into a buffer of its own
};

/// How expensive one element of the op is to compute, for fusion's
/// duplication rule and cost analysis: the Cost column of Opcodes.def.
enum class CostClass {
  /// Index arithmetic or data movement: parameter, constant, iota,
  /// broadcast, reshape, transpose, slice, pad, concatenate, reverse, tuple,
  /// get-tuple-element, copy.
  Free,
  /// About one instruction: add, multiply, compare, select, max, min,
  /// convert, abs, negate, floor, the bitwise ops and shifts, gather and
  /// dynamic-slice (a load of the start indices, then of the element), ...
  Cheap,
  /// A libm-style function or a long-latency instruction: exp, log, tanh,
  /// logistic, erf, sin, cos, power, divide, remainder, sqrt, rsqrt, atan2.
  Expensive,
  /// Not one element's work, or not generated per element: reductions,
  /// contractions, sort, top-k, dynamic-update-slice, fusion.
  Heavy
};

/// Every opcode in declaration order.
inline constexpr Opcode kAllOpcodes[] = {
#define KILN_OPCODE(Enumerator, Spelling, Arity, Kind, ...) Opcode::Enumerator,
#include "kiln/IR/Opcodes.def"
};

/// Whether `opcode` is one of kAllOpcodes (a corrupted instruction may hold
/// any value; the property functions below assert this).
bool isKnownOpcode(Opcode opcode);

std::string_view opcodeName(Opcode opcode);
std::optional<Opcode> parseOpcodeName(std::string_view name);
/// Fixed operand count, or -1 for variadic opcodes.
int opcodeArity(Opcode opcode);
OpcodeKind opcodeKind(Opcode opcode);
bool isElementwise(Opcode opcode);
/// Dtype classes of the value operands.
DTypeClasses acceptedDTypes(Opcode opcode);
ResultDType resultDType(Opcode opcode);
InFusion inFusion(Opcode opcode);
CostClass costClass(Opcode opcode);
/// CostClass::Expensive: computing it twice (a duplicated fusion producer)
/// costs more than storing it once and reading it back.
bool isExpensive(Opcode opcode);
/// Whether code generation computes `opcode` element by element inside a
/// fusion, or does not compute it at all (InFusion Generated or Read:
/// elementwise ops, iota, constant, parameter, the index-only data movement
/// ops, tuple and get-tuple-element). Other fused instructions (reduce, dot,
/// sort, ...) are materialized: buffer assignment gives them arena bytes of
/// their own, live only while their fusion runs, except the contraction of
/// an output fusion (analysis::outputFusionContraction).
bool isElementalInFusion(Opcode opcode);

/// How many computations an instruction of `opcode` calls
/// (Instruction::calledComputations): 0 for most opcodes; 1 for fusion,
/// call and scatter (its scalar combiner, inlined per element); 2 for while
/// (condition, then body) and select-and-scatter (select, then scatter); -1 for conditional, which calls one per branch (at
/// least one), reduce and reduce-window (a to_apply, or none with a reducer
/// kind) and sort (its comparator, or none with descending=).
int calleeCount(Opcode opcode);

/// Whether `opcode` runs its callees as whole computations, one call at a
/// time, with buffers of their own (while, conditional, call), rather than
/// fused into the caller's kernel (fusion, scatter's combiner).
bool callsSequentially(Opcode opcode);

/// Whether `opcode` applies its callee (a computation of scalars) to
/// elements: reduce and reduce-window with to_apply, map, scatter's
/// combiner, sort's comparator, select-and-scatter's select and scatter. The caller's emitter inlines the callee's
/// scalar instructions per element; it gets no buffers or kernels of its own.
bool appliesPerElement(Opcode opcode);

/// Whether `dtype` is in `classes` (never for tuples).
bool isInClasses(DType dtype, DTypeClasses classes);
/// "floating-point", "pred or integer", ... ("array" for Any), for messages
/// such as "expected floating-point operands".
std::string_view dtypeClassesName(DTypeClasses classes);

/// Comparison of `compare`.
enum class ComparisonDirection { EQ, NE, LT, LE, GT, GE };
std::string_view comparisonDirectionName(ComparisonDirection direction);
std::optional<ComparisonDirection> parseComparisonDirection(std::string_view);

/// How `compare` orders its operands (XLA's comparison type, `type=`).
/// Float is IEEE's partial order (NaN is unordered); TotalOrder is IEEE's
/// totalOrder, -NaN < -Inf < ... < -0 < +0 < ... < +Inf < +NaN; Signed and
/// Unsigned compare integers (pred is unsigned). ByDType (nothing written)
/// means the dtype's usual one: Float, Signed or Unsigned.
enum class ComparisonType { ByDType, Float, TotalOrder, Signed, Unsigned };
/// The spelling (`FLOAT`, `TOTALORDER`, `SIGNED`, `UNSIGNED`; empty for
/// ByDType, which is never written).
std::string_view comparisonTypeName(ComparisonType type);
std::optional<ComparisonType> parseComparisonType(std::string_view name);
/// The type ByDType stands for on operands of `dtype`.
ComparisonType defaultComparisonType(DType dtype);
/// `type` with ByDType replaced by the dtype's default.
ComparisonType effectiveComparisonType(ComparisonType type, DType dtype);
/// Whether `type` may compare operands of `dtype` (ByDType always may).
bool comparisonTypeFits(ComparisonType type, DType dtype);

/// The binary operation a reduce or reduce-window combines elements with.
enum class ReducerKind { Add, Mul, Max, Min, And, Or };
std::string_view reducerKindName(ReducerKind kind);
std::optional<ReducerKind> parseReducerKind(std::string_view name);

/// The distribution `rng` draws from: uniform in [a, b), or normal with
/// mean a and standard deviation b.
enum class RngDistribution { Uniform, Normal };
std::string_view rngDistributionName(RngDistribution distribution);
std::optional<RngDistribution> parseRngDistribution(std::string_view name);

/// What a fusion computation computes (informational for code generation).
enum class FusionKind { Loop, Input, Output };
std::string_view fusionKindName(FusionKind kind);
std::optional<FusionKind> parseFusionKind(std::string_view name);

} // namespace kiln::ir

#endif // KILN_IR_OPCODE_H
