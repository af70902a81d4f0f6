//===- Opcode.cpp - HLO opcodes and their static properties ---------------===//
#include "kiln/IR/Opcode.h"

#include <array>

namespace kiln::ir {

namespace {
struct OpcodeInfo {
  std::string_view name;
  int arity;
  OpcodeKind kind;
};

constexpr OpcodeInfo kOpcodeTable[] = {
#define KILN_OPCODE(Enumerator, Spelling, Arity, Kind)                         \
  {Spelling, Arity, OpcodeKind::Kind},
#include "kiln/IR/Opcodes.def"
};

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
constexpr std::array<std::string_view, 6> kReducerNames = {"add", "mul", "max",
                                                           "min", "and", "or"};
constexpr std::array<std::string_view, 3> kFusionNames = {"kLoop", "kInput",
                                                          "kOutput"};
} // namespace

std::string_view opcodeName(Opcode opcode) {
  return kOpcodeTable[size_t(opcode)].name;
}

std::optional<Opcode> parseOpcodeName(std::string_view name) {
  for (Opcode opcode : kAllOpcodes)
    if (opcodeName(opcode) == name)
      return opcode;
  return std::nullopt;
}

int opcodeArity(Opcode opcode) { return kOpcodeTable[size_t(opcode)].arity; }

OpcodeKind opcodeKind(Opcode opcode) {
  return kOpcodeTable[size_t(opcode)].kind;
}

bool isElementwise(Opcode opcode) {
  OpcodeKind kind = opcodeKind(opcode);
  return kind == OpcodeKind::ElementwiseUnary ||
         kind == OpcodeKind::ElementwiseBinary ||
         kind == OpcodeKind::ElementwiseTernary;
}

std::string_view comparisonDirectionName(ComparisonDirection direction) {
  return kDirectionNames[size_t(direction)];
}
std::optional<ComparisonDirection>
parseComparisonDirection(std::string_view name) {
  return lookup<ComparisonDirection>(kDirectionNames, name);
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

} // namespace kiln::ir
