//===- Printer.cpp - HLO text output --------------------------------------===//
//
// The canonical text form (docs/hlo.md). Constants may hold millions of
// elements, so literals are written with std::to_chars into one growing
// string: linear time, no per-element allocation.
//
//===----------------------------------------------------------------------===//
#include "kiln/IR/Printer.h"

#include "HloSyntax.h"
#include "kiln/Support/Float16.h"

#include <bit>
#include <charconv>
#include <cmath>
#include <cstring>
#include <fmt/format.h>
#include <limits>

namespace kiln::ir {

using syntax::AttrKey;

namespace {

/// Appends `value` in the shortest form that reads back to the same value.
template <typename T> void appendNumber(std::string &out, T value) {
  char buffer[64];
  auto result = std::to_chars(buffer, buffer + sizeof buffer, value);
  out.append(buffer, result.ptr);
}

/// The bit pattern `nan` parses to, per float width (positive quiet NaN).
template <typename Bits> constexpr Bits canonicalNan();
template <> constexpr uint64_t canonicalNan<uint64_t>() {
  return 0x7ff8000000000000ull;
}
template <> constexpr uint32_t canonicalNan<uint32_t>() { return 0x7fc00000u; }

/// nan, -nan, or nan(0xBITS) for any other payload, so every bit survives.
template <typename Bits>
void appendNan(std::string &out, Bits bits, Bits canonical) {
  Bits signBit = Bits(Bits(1) << (sizeof(Bits) * 8 - 1));
  if (bits == canonical) {
    out += "nan";
  } else if (bits == Bits(canonical | signBit)) {
    out += "-nan";
  } else {
    out += "nan(0x";
    char buffer[32];
    auto result = std::to_chars(buffer, buffer + sizeof buffer, bits, 16);
    out.append(buffer, result.ptr);
    out += ")";
  }
}

template <typename F> void appendFloat(std::string &out, F value) {
  if (std::isinf(value))
    out += value < 0 ? "-inf" : "inf";
  else
    appendNumber(out, value);
}

/// Appends element `i` of `literal`.
void appendElement(std::string &out, const Literal &literal, int64_t i) {
  const uint8_t *base = literal.bytes().data();
  auto load = [&](auto zero) {
    decltype(zero) value;
    std::memcpy(&value, base + size_t(i) * sizeof value, sizeof value);
    return value;
  };
  switch (literal.shape().dtype()) {
  case DType::Pred:
    out += load(uint8_t()) ? "true" : "false";
    return;
  case DType::S8: return appendNumber(out, load(int8_t()));
  case DType::S16: return appendNumber(out, load(int16_t()));
  case DType::S32: return appendNumber(out, load(int32_t()));
  case DType::S64: return appendNumber(out, load(int64_t()));
  case DType::U8: return appendNumber(out, load(uint8_t()));
  case DType::U16: return appendNumber(out, load(uint16_t()));
  case DType::U32: return appendNumber(out, load(uint32_t()));
  case DType::U64: return appendNumber(out, load(uint64_t()));
  case DType::F16: {
    uint16_t bits = load(uint16_t());
    if ((bits & 0x7fff) > 0x7c00)
      return appendNan<uint16_t>(out, bits, 0x7e00);
    return appendFloat(out, halfToFloat(bits));
  }
  case DType::BF16: {
    uint16_t bits = load(uint16_t());
    if ((bits & 0x7fff) > 0x7f80)
      return appendNan<uint16_t>(out, bits, 0x7fc0);
    return appendFloat(out, bfloat16ToFloat(bits));
  }
  case DType::F32: {
    float value = load(float());
    if (std::isnan(value))
      return appendNan(out, std::bit_cast<uint32_t>(value),
                       canonicalNan<uint32_t>());
    return appendFloat(out, value);
  }
  case DType::F64: {
    double value = load(double());
    if (std::isnan(value))
      return appendNan(out, std::bit_cast<uint64_t>(value),
                       canonicalNan<uint64_t>());
    return appendFloat(out, value);
  }
  case DType::Tuple:
    break;
  }
  out += "?";
}

/// Nested braces, one level per dimension, walked with an explicit index
/// stack so a rank in the thousands cannot overflow the C++ stack.
/// Levels that hold braces get inner spaces: "{ {1, 2}, {3, 4} }".
void appendArray(std::string &out, const Literal &literal) {
  const std::vector<int64_t> &dims = literal.shape().dims();
  size_t rank = dims.size();
  auto open = [&](size_t level) {
    out += (level + 1 < rank && dims[level] > 0) ? "{ " : "{";
  };
  auto close = [&](size_t level) {
    out += (level + 1 < rank && dims[level] > 0) ? " }" : "}";
  };
  std::vector<int64_t> index;
  index.reserve(rank);
  int64_t flat = 0;
  open(0);
  index.push_back(0);
  while (!index.empty()) {
    size_t level = index.size() - 1;
    if (index[level] == dims[level]) {
      close(level);
      index.pop_back();
      if (!index.empty())
        ++index.back();
      continue;
    }
    if (index[level] > 0)
      out += ", ";
    if (level + 1 == rank) {
      appendElement(out, literal, flat++);
      ++index[level];
    } else {
      open(level + 1);
      index.push_back(0);
    }
  }
}

void appendLiteral(std::string &out, const Literal &literal) {
  const Shape &shape = literal.shape();
  // Malformed literals (wrong byte count) print a marker instead of reading
  // out of bounds; the verifier reports them.
  if (shape.isTuple() ||
      int64_t(literal.bytes().size()) != shape.byteSize()) {
    out += "<invalid literal>";
    return;
  }
  if (shape.rank() == 0)
    appendElement(out, literal, 0);
  else
    appendArray(out, literal);
}

std::string formatIntList(const std::vector<int64_t> &values) {
  return fmt::format("{{{}}}", fmt::join(values, ","));
}

/// The name of callee `slot`, or "?" in malformed IR (printing never fails).
std::string calleeName(const Instruction &instruction, size_t slot) {
  const std::vector<Computation *> &callees = instruction.calledComputations();
  return slot < callees.size() && callees[slot] ? callees[slot]->name()
                                                : std::string("?");
}

/// Whether `spec` appears in the text: Optional attributes only when not
/// at their default; a conditional's branches in the form its selector
/// takes (true/false for pred[], a list for an s32[] index).
bool isPrinted(const syntax::AttrSpec &spec, const Instruction &instruction) {
  if (instruction.opcode() == Opcode::Conditional) {
    bool byPredicate = instruction.operandCount() > 0 &&
                       instruction.operand(0)->shape() == Shape(DType::Pred, {});
    return (spec.key == AttrKey::BranchComputations) != byPredicate;
  }
  if ((instruction.opcode() == Opcode::Reduce ||
       instruction.opcode() == Opcode::ReduceWindow) &&
      (spec.key == AttrKey::Reducer || spec.key == AttrKey::ToApply))
    return (spec.key == AttrKey::ToApply) ==
           !instruction.calledComputations().empty();
  if (instruction.opcode() == Opcode::Sort &&
      (spec.key == AttrKey::Descending || spec.key == AttrKey::ToApply))
    return (spec.key == AttrKey::ToApply) ==
           !instruction.calledComputations().empty();
  return spec.presence != syntax::Presence::Optional ||
         !syntax::isDefaultAttr(spec.key, instruction.attrs());
}

std::string formatAttr(AttrKey key, const Instruction &instruction) {
  const Attributes &a = instruction.attrs();
  switch (key) {
  case AttrKey::IotaDimension:
    return a.dimensions.empty() ? "?" : std::to_string(a.dimensions[0]);
  case AttrKey::Dimensions: return formatIntList(a.dimensions);
  case AttrKey::Slice: return syntax::formatSlice(a.slice);
  case AttrKey::DynamicSliceSizes: return formatIntList(a.sizes);
  case AttrKey::Padding: return syntax::formatPadding(a.padding);
  case AttrKey::Window: return syntax::formatWindow(a.window);
  case AttrKey::DimLabels: return syntax::formatDimLabels(a.conv);
  case AttrKey::FeatureGroupCount: return std::to_string(a.featureGroupCount);
  case AttrKey::BatchGroupCount: return std::to_string(a.batchGroupCount);
  case AttrKey::LhsBatchDims: return formatIntList(a.dot.lhsBatch);
  case AttrKey::LhsContractingDims: return formatIntList(a.dot.lhsContracting);
  case AttrKey::RhsBatchDims: return formatIntList(a.dot.rhsBatch);
  case AttrKey::RhsContractingDims: return formatIntList(a.dot.rhsContracting);
  case AttrKey::OffsetDims: return formatIntList(a.gather.offsetDims);
  case AttrKey::CollapsedSliceDims:
    return formatIntList(a.gather.collapsedSliceDims);
  case AttrKey::StartIndexMap: return formatIntList(a.gather.startIndexMap);
  case AttrKey::IndexVectorDim:
    return std::to_string(instruction.opcode() == Opcode::Scatter
                              ? a.scatter.indexVectorDim
                              : a.gather.indexVectorDim);
  case AttrKey::SliceSizes: return formatIntList(a.sizes);
  case AttrKey::Direction:
    return std::string(comparisonDirectionName(a.direction));
  case AttrKey::ComparisonType:
    return std::string(comparisonTypeName(a.comparisonType));
  case AttrKey::Index: return std::to_string(a.index);
  case AttrKey::Kind: return std::string(fusionKindName(a.fusionKind));
  case AttrKey::Calls:
  case AttrKey::Condition:
  case AttrKey::Body:
  case AttrKey::ToApply:
  case AttrKey::TrueComputation:
  case AttrKey::FalseComputation:
  case AttrKey::Select:
  case AttrKey::Scatter:
    return calleeName(instruction, syntax::calleeSlot(key));
  case AttrKey::BranchComputations: {
    std::vector<std::string> names;
    for (size_t i = 0; i < instruction.calledComputations().size(); ++i)
      names.push_back(calleeName(instruction, i));
    return fmt::format("{{{}}}", fmt::join(names, ", "));
  }
  case AttrKey::Reducer: return std::string(reducerKindName(a.reducer));
  case AttrKey::K: return std::to_string(a.k);
  case AttrKey::Largest: return a.largest ? "true" : "false";
  case AttrKey::Descending: return a.descending ? "true" : "false";
  case AttrKey::ExponentBits: return std::to_string(a.exponentBits);
  case AttrKey::MantissaBits: return std::to_string(a.mantissaBits);
  case AttrKey::Distribution:
    return std::string(rngDistributionName(a.distribution));
  case AttrKey::Seed: return std::to_string(a.seed);
  case AttrKey::UpdateWindowDims:
    return formatIntList(a.scatter.updateWindowDims);
  case AttrKey::InsertedWindowDims:
    return formatIntList(a.scatter.insertedWindowDims);
  case AttrKey::ScatterDimsToOperandDims:
    return formatIntList(a.scatter.scatterDimsToOperandDims);
  case AttrKey::InputBatchingDims:
    return formatIntList(a.scatter.inputBatchingDims);
  case AttrKey::ScatterIndicesBatchingDims:
    return formatIntList(a.scatter.scatterIndicesBatchingDims);
  case AttrKey::IndicesAreSorted:
    return a.scatter.indicesAreSorted ? "true" : "false";
  case AttrKey::UniqueIndices:
    return a.scatter.uniqueIndices ? "true" : "false";
  }
  return "?";
}

void appendInstruction(std::string &out, const Instruction &instruction) {
  out += instruction.name();
  out += " = ";
  out += instruction.shape().toString();
  out += ' ';
  out += opcodeName(instruction.opcode());
  out += '(';
  if (instruction.opcode() == Opcode::Parameter) {
    appendNumber(out, instruction.parameterNumber());
  } else if (instruction.opcode() == Opcode::Constant) {
    appendLiteral(out, instruction.literal());
  } else {
    for (size_t i = 0; i < instruction.operandCount(); ++i) {
      if (i)
        out += ", ";
      out += instruction.operand(i)->name();
    }
  }
  out += ')';
  for (const syntax::AttrSpec &spec : syntax::opcodeAttributes(instruction.opcode())) {
    if (!isPrinted(spec, instruction))
      continue;
    out += ", ";
    out += syntax::attrName(spec.key);
    out += '=';
    out += formatAttr(spec.key, instruction);
  }
}

void appendComputation(std::string &out, const Computation &computation) {
  const Module *module = computation.parent();
  if (module && module->entry() == &computation)
    out += "ENTRY ";
  out += computation.name();
  out += " {\n";
  for (const Instruction *instruction : computation.instructions()) {
    out += instruction == computation.root() ? "  ROOT " : "  ";
    appendInstruction(out, *instruction);
    out += '\n';
  }
  out += "}\n";
}

} // namespace

std::string printModule(const Module &module) {
  std::string out = "HloModule " + module.name();
  if (module.entry())
    out += ", entry=" + module.entry()->name();
  out += '\n';
  for (const Computation *computation : module.computations()) {
    out += '\n';
    appendComputation(out, *computation);
  }
  return out;
}

std::string printComputation(const Computation &computation) {
  std::string out;
  appendComputation(out, computation);
  return out;
}

std::string printInstruction(const Instruction &instruction) {
  std::string out;
  appendInstruction(out, instruction);
  return out;
}

std::string printLiteral(const Literal &literal) {
  std::string out;
  appendLiteral(out, literal);
  return out;
}

} // namespace kiln::ir
