//===- ParseAttributes.cpp - HLO text input: opcode attributes ------------===//
//
// Which attributes an opcode takes comes from the table in HloSyntax.cpp, the
// same one the printer uses, so the two cannot drift apart.
//
//===----------------------------------------------------------------------===//
#include "HloParser.h"

#include <fmt/format.h>
#include <utility>

namespace kiln::ir {

using syntax::AttrKey;

namespace {

/// "dimensions, reducer": the attribute names an opcode accepts.
std::string attrNameList(std::span<const syntax::AttrSpec> specs) {
  std::string text;
  for (const syntax::AttrSpec &spec : specs)
    text += fmt::format("{}{}", text.empty() ? "" : ", ", syntax::attrName(spec.key));
  return text;
}

/// Decodes one operand's dim_labels ("b01f"): the positions of the two role
/// letters and of the spatial digits 0..n-1. Returns an error text or "".
std::string decodeLabels(std::string_view labels, char first, char second,
                         int64_t &firstIndex, int64_t &secondIndex,
                         std::vector<int64_t> &spatial) {
  firstIndex = secondIndex = -1;
  size_t digits = 0;
  for (char c : labels)
    digits += (c >= '0' && c <= '9');
  spatial.assign(digits, -1);
  for (size_t i = 0; i < labels.size(); ++i) {
    char c = labels[i];
    int64_t *slot = c == first    ? &firstIndex
                    : c == second ? &secondIndex
                    : (c >= '0' && c <= '9' && size_t(c - '0') < digits)
                        ? &spatial[size_t(c - '0')]
                        : nullptr;
    if (!slot)
      return fmt::format("unexpected label '{}' in '{}'", c, labels);
    if (*slot >= 0)
      return fmt::format("label '{}' appears twice in '{}'", c, labels);
    *slot = int64_t(i);
  }
  if (firstIndex < 0 || secondIndex < 0)
    return fmt::format("'{}' needs both '{}' and '{}'", labels, first, second);
  return "";
}

} // namespace

/// `(, name=value)*` after the operands: XLA's generic attributes (any
/// opcode), XLA's extra spellings for this opcode, then the opcode's own
/// attributes from the HloSyntax table.
bool HloParser::parseAttributes(Opcode opcode, const Token &opcodeToken,
                                BodyState &body,
                                const std::vector<Instruction *> &operands,
                                InstructionParts &parts) {
  std::span<const syntax::AttrSpec> specs = syntax::opcodeAttributes(opcode);
  std::vector<std::optional<size_t>> seen(specs.size());
  std::string_view op = opcodeName(opcode);
  Attributes &attrs = parts.attrs;
  while (consume(TokenKind::Comma)) {
    if (!at(TokenKind::Word))
      return expected("an attribute name");
    Token name = tok_;
    bool handled = false;
    if (!parseGenericAttribute(name, body, parts, handled) ||
        (!handled && !parseXlaOpAttribute(opcode, name, handled)))
      return false;
    if (handled)
      continue;
    // A to_apply that is one reducer kind becomes reducer=; any other is
    // kept (parseReducerCallee).
    bool reducerCallee = name.text == "to_apply" &&
                         (opcode == Opcode::Reduce ||
                          opcode == Opcode::ReduceWindow);
    std::optional<AttrKey> key = syntax::parseAttrName(name.text);
    if (!key)
      return error(name.offset, fmt::format("unknown attribute '{}'", name.text));
    size_t slot = 0;
    while (slot < specs.size() && specs[slot].key != *key)
      ++slot;
    if (slot == specs.size()) {
      if (specs.empty())
        return error(name.offset,
                     fmt::format("'{}' takes no attributes but found '{}'", op,
                                 name.text));
      return error(name.offset,
                   fmt::format("attribute '{}' is not valid for '{}' "
                               "(expected {})",
                               name.text, op, attrNameList(specs)));
    }
    if (seen[slot])
      return error(name.offset,
                   fmt::format("duplicated attribute '{}' (first at {})",
                               name.text, where(*seen[slot])));
    seen[slot] = name.offset;
    advance();
    if (!expect(TokenKind::Equal, "'='"))
      return false;
    bool sortComparator = opcode == Opcode::Sort && *key == AttrKey::ToApply;
    if (!(reducerCallee ? parseReducerCallee(attrs, operands, parts.called)
          : sortComparator ? parseSortComparator(attrs, operands, parts.called)
                           : parseAttrValue(*key, attrs, parts.called)))
      return false;
  }
  // index_vector_dim is one spelling for gather and scatter; the value
  // parses into gather's field and moves to scatter's here.
  if (opcode == Opcode::Scatter)
    attrs.scatter.indexVectorDim =
        std::exchange(attrs.gather.indexVectorDim, 0);
  for (size_t i = 0; i < specs.size(); ++i)
    if (!seen[i] && specs[i].presence == syntax::Presence::Required)
      return error(opcodeToken.offset,
                   fmt::format("'{}' requires attribute '{}'", op,
                               syntax::attrName(specs[i].key)));
  if (opcode == Opcode::Conditional &&
      !checkConditionalForm(opcodeToken, seen, specs))
    return false;
  if ((opcode == Opcode::Reduce || opcode == Opcode::ReduceWindow) &&
      !checkReduceForm(opcode, opcodeToken, seen, specs))
    return false;
  if (opcode == Opcode::Sort && !checkSortForm(opcodeToken, seen, specs))
    return false;
  if (syntax::takesSingleDimension(opcode) && attrs.dimensions.size() != 1)
    return error(opcodeToken.offset,
                 fmt::format("'{}' takes exactly one dimension but "
                             "dimensions has {}",
                             op, attrs.dimensions.size()));
  return true;
}

bool HloParser::parseAttrValue(AttrKey key, Attributes &a,
                               std::vector<Computation *> &called) {
  if (key == AttrKey::BranchComputations)
    return parseCalleeList(called);
  if (syntax::isCalleeAttr(key)) {
    size_t slot = syntax::calleeSlot(key);
    if (called.size() <= slot)
      called.resize(slot + 1, nullptr);
    return parseCallee(called[slot]);
  }
  switch (key) {
  case AttrKey::IotaDimension:
    a.dimensions.resize(1);
    return parseInt("dimension", a.dimensions[0]);
  case AttrKey::Dimensions: return parseIntList("dimension", a.dimensions);
  case AttrKey::Slice: return parseSliceValue(a.slice);
  case AttrKey::DynamicSliceSizes: return parseIntList("size", a.sizes);
  case AttrKey::Padding: return parsePaddingValue(a.padding);
  case AttrKey::Window: return parseWindowValue(a.window);
  case AttrKey::DimLabels: return parseDimLabels(a.conv);
  case AttrKey::FeatureGroupCount:
    return parseInt("group count", a.featureGroupCount);
  case AttrKey::BatchGroupCount:
    return parseInt("group count", a.batchGroupCount);
  case AttrKey::LhsBatchDims: return parseIntList("dimension", a.dot.lhsBatch);
  case AttrKey::LhsContractingDims:
    return parseIntList("dimension", a.dot.lhsContracting);
  case AttrKey::RhsBatchDims: return parseIntList("dimension", a.dot.rhsBatch);
  case AttrKey::RhsContractingDims:
    return parseIntList("dimension", a.dot.rhsContracting);
  case AttrKey::OffsetDims:
    return parseIntList("dimension", a.gather.offsetDims);
  case AttrKey::CollapsedSliceDims:
    return parseIntList("dimension", a.gather.collapsedSliceDims);
  case AttrKey::StartIndexMap:
    return parseIntList("dimension", a.gather.startIndexMap);
  case AttrKey::IndexVectorDim:
    return parseInt("dimension", a.gather.indexVectorDim);
  case AttrKey::SliceSizes: return parseIntList("size", a.sizes);
  case AttrKey::Index: return parseInt("index", a.index);
  case AttrKey::K: return parseInt("integer", a.k);
  case AttrKey::Largest: return parseBool(a.largest);
  case AttrKey::Descending: return parseBool(a.descending);
  case AttrKey::Calls:
  case AttrKey::Condition:
  case AttrKey::Body:
  case AttrKey::ToApply:
  case AttrKey::TrueComputation:
  case AttrKey::FalseComputation:
  case AttrKey::BranchComputations:
  case AttrKey::Select:
  case AttrKey::Scatter:
    break; // callees, above
  case AttrKey::ExponentBits: return parseInt("bit count", a.exponentBits);
  case AttrKey::MantissaBits: return parseInt("bit count", a.mantissaBits);
  case AttrKey::Seed: return parseInt("seed", a.seed);
  case AttrKey::UpdateWindowDims:
    return parseIntList("dimension", a.scatter.updateWindowDims);
  case AttrKey::InsertedWindowDims:
    return parseIntList("dimension", a.scatter.insertedWindowDims);
  case AttrKey::ScatterDimsToOperandDims:
    return parseIntList("dimension", a.scatter.scatterDimsToOperandDims);
  case AttrKey::InputBatchingDims:
    return parseIntList("dimension", a.scatter.inputBatchingDims);
  case AttrKey::ScatterIndicesBatchingDims:
    return parseIntList("dimension", a.scatter.scatterIndicesBatchingDims);
  case AttrKey::IndicesAreSorted:
    return parseBool(a.scatter.indicesAreSorted);
  case AttrKey::UniqueIndices:
    return parseBool(a.scatter.uniqueIndices);
  case AttrKey::Direction:
  case AttrKey::ComparisonType:
  case AttrKey::Kind:
  case AttrKey::Reducer:
  case AttrKey::Distribution:
    return parseEnumValue(key, a);
  }
  return expected("an attribute value");
}

bool HloParser::parseEnumValue(AttrKey key, Attributes &a) {
  if (!at(TokenKind::Word))
    return expected("a value");
  std::string_view word = tok_.text;
  // Stores the word's enumerator in `field`; whether `parse` knew it.
  auto read = [word](auto parse, auto &field) {
    auto value = parse(word);
    field = value.value_or(field);
    return value.has_value();
  };
  bool ok;
  std::string_view what, choices;
  switch (key) {
  case AttrKey::Direction:
    ok = read(parseComparisonDirection, a.direction);
    what = "comparison direction";
    choices = "EQ, NE, LT, LE, GT, GE";
    break;
  case AttrKey::ComparisonType:
    ok = read(parseComparisonType, a.comparisonType);
    what = "comparison type";
    choices = "FLOAT, TOTALORDER, SIGNED, UNSIGNED";
    break;
  case AttrKey::Reducer:
    ok = read(parseReducerKind, a.reducer);
    what = "reducer";
    choices = "add, mul, max, min, and, or";
    break;
  case AttrKey::Distribution:
    ok = read(parseRngDistribution, a.distribution);
    what = "rng distribution";
    choices = "rng_uniform, rng_normal";
    break;
  default:
    ok = read(parseFusionKind, a.fusionKind);
    what = "fusion kind";
    choices = "kLoop, kInput, kOutput";
    break;
  }
  if (!ok)
    return error(tok_.offset, fmt::format("unknown {} {} (expected {})", what,
                                          describeToken(tok_), choices));
  advance();
  return true;
}

bool HloParser::parseCallee(Computation *&called) {
  Token name;
  if (!parseName("computation name", name))
    return false;
  auto it = computations_.find(name.text);
  if (it == computations_.end())
    return error(name.offset,
                 fmt::format("unknown computation '{}' (a called computation "
                             "must be defined before its caller)",
                             name.text));
  if (it->second.computation == current_)
    return error(name.offset,
                 fmt::format("computation '{}' cannot call itself", name.text));
  called = it->second.computation;
  return true;
}

/// `{%a, %b, ...}`: a conditional's branches, in index order.
bool HloParser::parseCalleeList(std::vector<Computation *> &called) {
  if (!expect(TokenKind::LBrace, "'{'"))
    return false;
  called.clear();
  do {
    Computation *callee = nullptr;
    if (!parseCallee(callee))
      return false;
    called.push_back(callee);
  } while (consume(TokenKind::Comma));
  return expect(TokenKind::RBrace, "',' or '}'");
}

/// A conditional names its branches one way: true_computation and
/// false_computation together, or branch_computations alone.
bool HloParser::checkConditionalForm(
    const Token &opcodeToken, const std::vector<std::optional<size_t>> &seen,
    std::span<const syntax::AttrSpec> specs) {
  auto given = [&](AttrKey key) {
    for (size_t i = 0; i < specs.size(); ++i)
      if (specs[i].key == key)
        return seen[i].has_value();
    return false;
  };
  bool pair = given(AttrKey::TrueComputation) || given(AttrKey::FalseComputation);
  bool list = given(AttrKey::BranchComputations);
  if (pair && list)
    return error(opcodeToken.offset,
                 "'conditional' takes either true_computation and "
                 "false_computation or branch_computations, not both");
  if (list)
    return true;
  if (!given(AttrKey::TrueComputation) || !given(AttrKey::FalseComputation))
    return error(opcodeToken.offset,
                 "'conditional' requires true_computation and "
                 "false_computation (pred[] selector) or branch_computations "
                 "(s32[] index)");
  return true;
}

/// reduce and reduce-window combine with either a reducer kind or a
/// to_apply computation.
bool HloParser::checkReduceForm(Opcode opcode, const Token &opcodeToken,
                                const std::vector<std::optional<size_t>> &seen,
                                std::span<const syntax::AttrSpec> specs) {
  size_t given = 0;
  for (size_t i = 0; i < specs.size(); ++i)
    if ((specs[i].key == AttrKey::Reducer || specs[i].key == AttrKey::ToApply) &&
        seen[i])
      ++given;
  if (given == 1)
    return true;
  std::string_view op = opcodeName(opcode);
  if (given == 0)
    return error(opcodeToken.offset,
                 fmt::format("'{}' requires attribute 'reducer' or "
                             "'to_apply'",
                             op));
  return error(opcodeToken.offset,
               fmt::format("'{}' takes either 'reducer' or 'to_apply', "
                           "not both",
                           op));
}

bool HloParser::checkSortForm(const Token &opcodeToken,
                              const std::vector<std::optional<size_t>> &seen,
                              std::span<const syntax::AttrSpec> specs) {
  size_t given = 0;
  for (size_t i = 0; i < specs.size(); ++i)
    if ((specs[i].key == AttrKey::Descending ||
         specs[i].key == AttrKey::ToApply) &&
        seen[i])
      ++given;
  if (given < 2)
    return true;
  return error(opcodeToken.offset,
               "'sort' takes either 'descending' or a 'to_apply' comparator, "
               "not both");
}

bool HloParser::parseSliceValue(std::vector<SliceDim> &slice) {
  if (!expect(TokenKind::LBrace, "'{'"))
    return false;
  slice.clear();
  if (consume(TokenKind::RBrace))
    return true;
  do {
    SliceDim dim;
    if (!expect(TokenKind::LBracket, "'['") ||
        !parseInt("slice start", dim.start) ||
        !expect(TokenKind::Colon, "':'") ||
        !parseInt("slice limit", dim.limit))
      return false;
    if (consume(TokenKind::Colon) && !parseInt("slice stride", dim.stride))
      return false;
    if (!expect(TokenKind::RBracket, "':' or ']'"))
      return false;
    slice.push_back(dim);
  } while (consume(TokenKind::Comma));
  return expect(TokenKind::RBrace, "',' or '}'");
}

bool HloParser::splitInts(const Token &word, char separator,
                          std::string_view what, std::vector<int64_t> &values) {
  values.clear();
  size_t start = 0;
  while (true) {
    size_t end = word.text.find(separator, start);
    if (end == std::string_view::npos)
      end = word.text.size();
    int64_t value;
    if (!parseIntText(word.text.substr(start, end - start), word.offset + start,
                      what, value))
      return false;
    values.push_back(value);
    if (end == word.text.size())
      return true;
    start = end + 1;
  }
}

bool HloParser::splitGroups(const Token &word, size_t groupSize,
                            std::string_view pattern,
                            std::vector<int64_t> &values) {
  values.clear();
  size_t start = 0;
  while (start <= word.text.size()) {
    size_t end = std::min(word.text.find('x', start), word.text.size());
    Token part{TokenKind::Word, word.text.substr(start, end - start),
               word.offset + start};
    std::vector<int64_t> group;
    if (!splitInts(part, '_', "padding amount", group))
      return false;
    // XLA omits the interior amount when it is 0 everywhere ("1_2").
    if (groupSize == 3 && group.size() == 2)
      group.push_back(0);
    if (group.size() != groupSize)
      return error(part.offset, fmt::format("padding '{}' should be {}",
                                            part.text, pattern));
    values.insert(values.end(), group.begin(), group.end());
    start = end + 1;
  }
  return true;
}

bool HloParser::parsePaddingValue(std::vector<PadDim> &padding) {
  padding.clear();
  if (consume(TokenKind::LBrace)) // A rank-0 pad has no dimensions: "{}".
    return expect(TokenKind::RBrace, "'}'");
  if (!at(TokenKind::Word))
    return expected("a padding like 0_0_0x1_2_1");
  std::vector<int64_t> values;
  if (!splitGroups(tok_, 3, "low_high_interior or low_high", values))
    return false;
  for (size_t i = 0; i < values.size(); i += 3)
    padding.push_back({values[i], values[i + 1], values[i + 2]});
  advance();
  return true;
}

bool HloParser::parseWindowValue(std::vector<WindowDim> &window) {
  if (!expect(TokenKind::LBrace, "'{'"))
    return false;
  window.clear();
  unsigned seenFields = 0;
  size_t start = tok_.offset;
  while (!consume(TokenKind::RBrace))
    if (!parseWindowField(window, seenFields))
      return false;
  if (!window.empty() && !(seenFields & 1u))
    return error(start, "window needs a 'size' field");
  return true;
}

/// One "name=AxB" field of a window. Fields may come in any order; the
/// first one fixes the number of dimensions, which the others must match.
bool HloParser::parseWindowField(std::vector<WindowDim> &window,
                                 unsigned &seenFields) {
  enum Field { Size, Stride, Pad, LhsDilate, RhsDilate };
  static constexpr std::string_view kFields[] = {"size", "stride", "pad",
                                                 "lhs_dilate", "rhs_dilate"};
  if (!at(TokenKind::Word))
    return expected("a window field or '}'");
  Token name = tok_;
  size_t field = 0;
  while (field < std::size(kFields) && kFields[field] != name.text)
    ++field;
  if (field == std::size(kFields))
    return error(name.offset, fmt::format("unknown window field '{}' (expected "
                                          "size, stride, pad, lhs_dilate, "
                                          "rhs_dilate)",
                                          name.text));
  if (seenFields & (1u << field))
    return error(name.offset,
                 fmt::format("duplicated window field '{}'", name.text));
  seenFields |= 1u << field;
  advance();
  if (!expect(TokenKind::Equal, "'='"))
    return false;
  if (!at(TokenKind::Word))
    return expected("a window value like 2x2");
  Token value = tok_;
  std::vector<int64_t> numbers; // for pad: low, high per dimension
  bool ok = field == Pad ? splitGroups(value, 2, "low_high", numbers)
                         : splitInts(value, 'x', "window value", numbers);
  if (!ok)
    return false;
  size_t count = field == Pad ? numbers.size() / 2 : numbers.size();
  if (window.empty())
    window.resize(count);
  else if (window.size() != count)
    return error(value.offset,
                 fmt::format("window field '{}' has {} dimension{} but an "
                             "earlier field has {}",
                             name.text, count, count == 1 ? "" : "s",
                             window.size()));
  for (size_t i = 0; i < count; ++i) {
    WindowDim &dim = window[i];
    switch (Field(field)) {
    case Size: dim.size = numbers[i]; break;
    case Stride: dim.stride = numbers[i]; break;
    case LhsDilate: dim.baseDilation = numbers[i]; break;
    case RhsDilate: dim.windowDilation = numbers[i]; break;
    case Pad:
      dim.padLow = numbers[2 * i];
      dim.padHigh = numbers[2 * i + 1];
      break;
    }
  }
  advance();
  return true;
}

bool HloParser::parseDimLabels(ConvolutionDimensionNumbers &d) {
  if (!at(TokenKind::Word))
    return expected("dim_labels like b01f_01io->b01f");
  Token word = tok_;
  std::string_view text = word.text;
  size_t underscore = text.find('_');
  size_t arrow = text.find("->");
  if (underscore == std::string_view::npos || arrow == std::string_view::npos ||
      underscore > arrow)
    return error(word.offset, fmt::format("invalid dim_labels '{}': expected "
                                          "INPUT_KERNEL->OUTPUT like "
                                          "b01f_01io->b01f",
                                          text));
  std::string_view input = text.substr(0, underscore);
  std::string_view kernel = text.substr(underscore + 1, arrow - underscore - 1);
  std::string_view output = text.substr(arrow + 2);
  std::string message =
      decodeLabels(input, 'b', 'f', d.inputBatch, d.inputFeature, d.inputSpatial);
  if (message.empty())
    message = decodeLabels(kernel, 'i', 'o', d.kernelInputFeature,
                           d.kernelOutputFeature, d.kernelSpatial);
  if (message.empty())
    message = decodeLabels(output, 'b', 'f', d.outputBatch, d.outputFeature,
                           d.outputSpatial);
  if (message.empty() && (d.inputSpatial.size() != d.kernelSpatial.size() ||
                          d.inputSpatial.size() != d.outputSpatial.size()))
    message = "input, kernel and output need the same number of spatial "
              "dimensions";
  if (!message.empty())
    return error(word.offset,
                 fmt::format("invalid dim_labels '{}': {}", text, message));
  advance();
  return true;
}

} // namespace kiln::ir
