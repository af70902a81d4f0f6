//===- Opcode.cpp - HLO opcodes and their static properties ---------------===//
#include "kiln/IR/Opcode.h"

#include <array>
#include <cassert>
#include <iterator>

namespace kiln::ir {

namespace {
struct OpcodeInfo {
  std::string_view name;
  int arity;
  OpcodeKind kind;
  DTypeClasses accepts;
  ResultDType result;
  InFusion inFusion;
  CostClass cost;
};

constexpr OpcodeInfo kOpcodeTable[] = {
#define KILN_OPCODE(Enumerator, Spelling, Arity, Kind, Accepts, Result,        \
                    InFusionColumn, Cost)                                      \
  {Spelling,                                                                   \
   Arity,                                                                      \
   OpcodeKind::Kind,                                                           \
   DTypeClasses::Accepts,                                                      \
   ResultDType::Result,                                                        \
   InFusion::InFusionColumn,                                                   \
   CostClass::Cost},
#include "kiln/IR/Opcodes.def"
};

const OpcodeInfo &info(Opcode opcode) {
  assert(isKnownOpcode(opcode) && "opcode outside Opcodes.def");
  return kOpcodeTable[size_t(opcode)];
}

/// Names of the DTypeClasses sets rows use, for error messages.
struct ClassesName {
  DTypeClasses classes;
  std::string_view name;
};
constexpr ClassesName kClassesNames[] = {
    {DTypeClasses::Pred, "pred"},
    {DTypeClasses::Float, "floating-point"},
    {DTypeClasses::Int, "integer"},
    {DTypeClasses::PredOrInt, "pred or integer"},
    {DTypeClasses::SignedOrFloat, "signed integer or floating-point"},
    {DTypeClasses::Numeric, "numeric"},
    {DTypeClasses::Any, "array"},
};

/// The one class `dtype` belongs to (no bit for tuples).
unsigned classBit(DType dtype) {
  if (dtype == DType::Pred)
    return unsigned(DTypeClasses::Pred);
  if (isSignedInt(dtype))
    return unsigned(DTypeClasses::Signed);
  if (isUnsignedInt(dtype))
    return unsigned(DTypeClasses::Unsigned);
  return isFloat(dtype) ? unsigned(DTypeClasses::Float) : 0u;
}

/// Looks `name` up in a table of spellings indexed by enumerator.
template <typename Enum, size_t N>
std::optional<Enum> lookup(const std::array<std::string_view, N> &names,
                           std::string_view name) {
  for (size_t i = 0; i < N; ++i)
    if (names[i] == name)
      return Enum(i);
  return std::nullopt;
}

constexpr std::array<std::string_view, 6> kDirectionNames = {"EQ", "NE", "LT",
                                                             "LE", "GT", "GE"};
// ByDType is never written, so its empty spelling never matches a word.
constexpr std::array<std::string_view, 5> kComparisonTypeNames = {
    "", "FLOAT", "TOTALORDER", "SIGNED", "UNSIGNED"};
constexpr std::array<std::string_view, 6> kReducerNames = {"add", "mul", "max",
                                                           "min", "and", "or"};
constexpr std::array<std::string_view, 3> kFusionNames = {"kLoop", "kInput",
                                                          "kOutput"};
constexpr std::array<std::string_view, 2> kDistributionNames = {"rng_uniform",
                                                                "rng_normal"};
} // namespace

bool isKnownOpcode(Opcode opcode) {
  return size_t(opcode) < std::size(kOpcodeTable);
}

std::string_view opcodeName(Opcode opcode) { return info(opcode).name; }

std::optional<Opcode> parseOpcodeName(std::string_view name) {
  for (Opcode opcode : kAllOpcodes)
    if (opcodeName(opcode) == name)
      return opcode;
  return std::nullopt;
}

int opcodeArity(Opcode opcode) { return info(opcode).arity; }

OpcodeKind opcodeKind(Opcode opcode) { return info(opcode).kind; }

bool isElementwise(Opcode opcode) {
  OpcodeKind kind = opcodeKind(opcode);
  return kind == OpcodeKind::ElementwiseUnary ||
         kind == OpcodeKind::ElementwiseBinary ||
         kind == OpcodeKind::ElementwiseTernary;
}

DTypeClasses acceptedDTypes(Opcode opcode) { return info(opcode).accepts; }

ResultDType resultDType(Opcode opcode) { return info(opcode).result; }

InFusion inFusion(Opcode opcode) { return info(opcode).inFusion; }

CostClass costClass(Opcode opcode) { return info(opcode).cost; }

bool isExpensive(Opcode opcode) {
  return costClass(opcode) == CostClass::Expensive;
}

bool isElementalInFusion(Opcode opcode) {
  return inFusion(opcode) != InFusion::Materialized;
}

int calleeCount(Opcode opcode) {
  switch (opcode) {
  case Opcode::Fusion:
  case Opcode::Call:
  case Opcode::Map:
  case Opcode::Scatter: // the combiner
    return 1;
  case Opcode::While:
  case Opcode::SelectAndScatter: // select, then scatter
    return 2;
  case Opcode::Conditional:
  case Opcode::Reduce: // to_apply, or none with a reducer kind
  case Opcode::ReduceWindow:
  case Opcode::Sort: // a comparator, or none with descending=
    return -1;
  default:
    return 0;
  }
}

bool callsSequentially(Opcode opcode) {
  return opcode == Opcode::While || opcode == Opcode::Conditional ||
         opcode == Opcode::Call;
}

bool appliesPerElement(Opcode opcode) {
  return opcode == Opcode::Reduce || opcode == Opcode::ReduceWindow ||
         opcode == Opcode::Map || opcode == Opcode::Scatter ||
         opcode == Opcode::Sort || opcode == Opcode::SelectAndScatter;
}

bool isInClasses(DType dtype, DTypeClasses classes) {
  return (classBit(dtype) & unsigned(classes)) != 0;
}

std::string_view dtypeClassesName(DTypeClasses classes) {
  for (const ClassesName &row : kClassesNames)
    if (row.classes == classes)
      return row.name;
  return "unknown";
}

std::string_view comparisonDirectionName(ComparisonDirection direction) {
  return kDirectionNames[size_t(direction)];
}
std::optional<ComparisonDirection>
parseComparisonDirection(std::string_view name) {
  return lookup<ComparisonDirection>(kDirectionNames, name);
}

std::string_view comparisonTypeName(ComparisonType type) {
  return kComparisonTypeNames[size_t(type)];
}
std::optional<ComparisonType> parseComparisonType(std::string_view name) {
  if (name.empty())
    return std::nullopt;
  return lookup<ComparisonType>(kComparisonTypeNames, name);
}

ComparisonType defaultComparisonType(DType dtype) {
  if (isFloat(dtype))
    return ComparisonType::Float;
  return isSignedInt(dtype) ? ComparisonType::Signed
                            : ComparisonType::Unsigned;
}

ComparisonType effectiveComparisonType(ComparisonType type, DType dtype) {
  return type == ComparisonType::ByDType ? defaultComparisonType(dtype) : type;
}

bool comparisonTypeFits(ComparisonType type, DType dtype) {
  switch (type) {
  case ComparisonType::ByDType: return true;
  case ComparisonType::Float:
  case ComparisonType::TotalOrder: return isFloat(dtype);
  case ComparisonType::Signed: return isSignedInt(dtype);
  case ComparisonType::Unsigned:
    return isUnsignedInt(dtype) || dtype == DType::Pred;
  }
  return false;
}

std::string_view reducerKindName(ReducerKind kind) {
  return kReducerNames[size_t(kind)];
}
std::optional<ReducerKind> parseReducerKind(std::string_view name) {
  return lookup<ReducerKind>(kReducerNames, name);
}

std::string_view fusionKindName(FusionKind kind) {
  return kFusionNames[size_t(kind)];
}
std::optional<FusionKind> parseFusionKind(std::string_view name) {
  return lookup<FusionKind>(kFusionNames, name);
}

std::string_view rngDistributionName(RngDistribution distribution) {
  return kDistributionNames[size_t(distribution)];
}
std::optional<RngDistribution> parseRngDistribution(std::string_view name) {
  return lookup<RngDistribution>(kDistributionNames, name);
}

} // namespace kiln::ir
