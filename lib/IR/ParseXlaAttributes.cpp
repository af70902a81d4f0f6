//===- ParseXlaAttributes.cpp - HLO text input: XLA's extra syntax --------===//
//
// XLA prints attributes that any instruction may carry (metadata, sharding,
// backend_config, ...) and spells some of kiln's attributes its own way
// (to_apply=%add for reducer=add). Everything here is read on input only;
// the printer writes kiln's canonical form. What kiln keeps: metadata's
// op_name becomes the instruction's source node, so errors, the profile and
// the report name the source op. The rest is checked for form and dropped:
// it places or schedules values on XLA's devices and never changes what is
// computed. An attribute not listed here is an error, never skipped.
//
//===----------------------------------------------------------------------===//
#include "HloParser.h"

#include "kiln/IR/ComparatorMatch.h"
#include "kiln/IR/ReducerMatch.h"

#include <algorithm>
#include <fmt/format.h>

namespace kiln::ir {

namespace {

/// OpMetadata fields XLA prints, by value type.
constexpr std::string_view kMetadataStringFields[] = {
    "op_type", "op_name", "source_file", "deduplicated_name",
    "scheduling_name"};
constexpr std::string_view kMetadataOtherFields[] = {
    "source_line",      "source_end_line",
    "source_column",    "source_end_column",
    "stack_frame_id",   "size_of_generated_code_in_bytes",
    "preserve_layout",  "size_of_memory_working_set_in_bytes",
    "profile_type"};

template <size_t N>
bool contains(const std::string_view (&list)[N], std::string_view word) {
  return std::find(std::begin(list), std::end(list), word) != std::end(list);
}

/// The text of a string token with \" and \\ decoded.
std::string unescape(std::string_view text) {
  std::string result;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\\' && i + 1 < text.size())
      ++i;
    result += text[i];
  }
  return result;
}

} // namespace

bool HloParser::parseGenericAttribute(const Token &name, BodyState &body,
                                      InstructionParts &parts, bool &handled) {
  std::string_view key = name.text;
  handled = key == "metadata" || key == "frontend_attributes" ||
            key == "backend_config" || key == "sharding" ||
            key == "parameter_replication" || key == "control-predecessors" ||
            key == "result_accuracy";
  if (!handled)
    return true;
  advance();
  if (!expect(TokenKind::Equal, "'='"))
    return false;
  if (key == "metadata")
    return parseMetadata(parts.sourceNode);
  if (key == "control-predecessors")
    return parseControlPredecessors(body);
  if (key == "parameter_replication") {
    if (!expect(TokenKind::LBrace, "'{'"))
      return false;
    do {
      bool ignored;
      if (!parseBool(ignored))
        return false;
    } while (consume(TokenKind::Comma));
    return expect(TokenKind::RBrace, "',' or '}'");
  }
  if (key == "backend_config" && consume(TokenKind::String))
    return true;
  return skipBalanced(key);
}

/// `metadata={op_type="Dot" op_name="model/dense/MatMul" source_file="m.py"
/// source_line=12}`: fields separated by spaces (commas tolerated).
bool HloParser::parseMetadata(std::string &sourceNode) {
  if (!expect(TokenKind::LBrace, "'{'"))
    return false;
  while (!consume(TokenKind::RBrace)) {
    if (!at(TokenKind::Word))
      return expected("a metadata field or '}'");
    Token field = tok_;
    bool isString = contains(kMetadataStringFields, field.text);
    if (!isString && !contains(kMetadataOtherFields, field.text))
      return error(field.offset,
                   fmt::format("unknown metadata field '{}' (expected op_type, "
                               "op_name, source_file, source_line, ...)",
                               field.text));
    advance();
    if (!expect(TokenKind::Equal, "'='"))
      return false;
    if (isString) {
      if (!at(TokenKind::String))
        return expected(fmt::format("a string for metadata field '{}'",
                                    field.text));
      if (field.text == "op_name")
        sourceNode = unescape(tok_.text);
      advance();
    } else if (at(TokenKind::LBrace)) {
      if (!skipBalanced(field.text))
        return false;
    } else if (!consume(TokenKind::Word)) {
      return expected(fmt::format("a value for metadata field '{}'",
                                  field.text));
    }
    consume(TokenKind::Comma);
  }
  return true;
}

/// `control-predecessors={%a, %b}`: ordering edges kiln does not need (it
/// has no side effects); the names must still be values of this computation.
bool HloParser::parseControlPredecessors(BodyState &body) {
  if (!expect(TokenKind::LBrace, "'{'"))
    return false;
  if (consume(TokenKind::RBrace))
    return true;
  do {
    Token name;
    Instruction *ignored = nullptr;
    if (!parseName("instruction name", name) ||
        !lookUpValue(body, name, ignored))
      return false;
  } while (consume(TokenKind::Comma));
  return expect(TokenKind::RBrace, "',' or '}'");
}

bool HloParser::parseXlaOpAttribute(Opcode opcode, const Token &name,
                                    bool &handled) {
  std::string_view key = name.text;
  bool isGather = opcode == Opcode::Gather;
  bool isContraction = opcode == Opcode::Dot || opcode == Opcode::Convolution;
  handled = (opcode == Opcode::Reshape && key == "inferred_dimension") ||
            (opcode == Opcode::Fusion && key == "output_to_operand_aliasing") ||
            (isGather && (key == "indices_are_sorted" ||
                          key == "operand_batching_dims" ||
                          key == "start_indices_batching_dims")) ||
            (isContraction && key == "operand_precision") ||
            (opcode == Opcode::Sort && key == "is_stable");
  if (!handled)
    return true;
  advance();
  if (!expect(TokenKind::Equal, "'='"))
    return false;
  if (key == "inferred_dimension") {
    // Which dimension the frontend inferred (-1 in a reshape to [-1, 4]);
    // the result shape already says its size.
    int64_t ignored;
    return parseInt("dimension", ignored);
  }
  if (key == "output_to_operand_aliasing")
    return skipBalanced(key); // a buffer-sharing hint; kiln assigns buffers
  if (key == "indices_are_sorted") {
    bool ignored; // a promise that helps XLA's code; kiln's gather is exact
    return parseBool(ignored);
  }
  if (key == "is_stable") {
    bool ignored; // kiln's sort is always stable, which either value allows
    return parseBool(ignored);
  }
  if (key == "operand_precision") {
    // kiln computes in the operands' own type, at least as precise as any
    // precision XLA's config asks for.
    if (!expect(TokenKind::LBrace, "'{'"))
      return false;
    do {
      Token ignored;
      if (!parseName("precision", ignored))
        return false;
    } while (consume(TokenKind::Comma));
    return expect(TokenKind::RBrace, "',' or '}'");
  }
  // Batching dimensions of gather: only the empty list means kiln's gather.
  size_t offset = tok_.offset;
  std::vector<int64_t> dims;
  if (!parseIntList("dimension", dims))
    return false;
  if (!dims.empty())
    return error(offset, fmt::format("gather with {} is not supported (kiln's "
                                     "gather has no batching dimensions)",
                                     key));
  return true;
}

bool HloParser::parseReducerCallee(Attributes &attrs,
                                   const std::vector<Instruction *> &operands,
                                   std::vector<Computation *> &general) {
  size_t offset = tok_.offset;
  Computation *callee = nullptr;
  if (!parseCallee(callee))
    return false;
  ReducerMatch match = matchBinaryReducer(*callee);
  if (operands.size() != 2 || !match.kind) {
    // Variadic or not one binary operation: the shape rule checks it.
    general.assign(1, callee);
    return true;
  }
  // The init value (operand 1 of reduce and reduce-window) has the type
  // the reducer combines.
  DType combined = callee->parameters().front()->shape().dtype();
  if (operands.size() == 2 && !operands[1]->shape().isTuple() &&
      operands[1]->shape().dtype() != combined)
    return error(offset,
                 fmt::format("to_apply computation '{}' combines {} values but "
                             "the init value '{}' is {}",
                             callee->name(), dtypeName(combined),
                             operands[1]->name(),
                             operands[1]->shape().toString()));
  attrs.reducer = *match.kind;
  replacedCallees_.push_back(callee);
  return true;
}

bool HloParser::parseSortComparator(
    Attributes &attrs, const std::vector<Instruction *> &operands,
    std::vector<Computation *> &called) {
  Computation *comparator = nullptr;
  if (!parseCallee(comparator))
    return false;
  std::vector<Shape> shapes;
  for (const Instruction *operand : operands)
    shapes.push_back(operand->shape());
  // A total-order comparator stays general: descending= keeps -0 == +0
  // and puts NaNs of either sign at one end, so it cannot stand for it.
  std::optional<KeyOrder> order = matchKeyOrderComparator(*comparator, shapes);
  if (order && !order->totalOrder) {
    attrs.descending = order->descending;
    replacedCallees_.push_back(comparator);
    return true;
  }
  called.assign(1, comparator);
  return true;
}

void HloParser::splitIndexVector(Opcode opcode, BodyState &body,
                                 const Token &name,
                                 std::vector<Instruction *> &operands) {
  size_t indexOperand = opcode == Opcode::DynamicSlice         ? 1
                        : opcode == Opcode::DynamicUpdateSlice ? 2
                                                               : 0;
  if (indexOperand == 0 || operands.size() != indexOperand + 1)
    return;
  Instruction *vector = operands[indexOperand];
  const Shape &shape = vector->shape();
  if (shape.isTuple() || shape.rank() != 1)
    return; // the current form: one scalar per dimension
  operands.pop_back();
  for (int64_t i = 0; i < shape.dims()[0]; ++i) {
    Attributes slice;
    slice.slice = {SliceDim{i, i + 1, 1}};
    std::string base = fmt::format("{}.index{}", name.text, i);
    Instruction *element = body.computation->add(
        Opcode::Slice, Shape(shape.dtype(), {1}), {vector}, std::move(slice),
        base + ".slice");
    operands.push_back(body.computation->add(
        Opcode::Reshape, Shape(shape.dtype(), {}), {element}, {}, base));
  }
}

void HloParser::removeReplacedCallees() {
  std::sort(replacedCallees_.begin(), replacedCallees_.end());
  replacedCallees_.erase(
      std::unique(replacedCallees_.begin(), replacedCallees_.end()),
      replacedCallees_.end());
  for (Computation *callee : replacedCallees_) {
    bool stillCalled = callee == module_->entry();
    for (Computation *computation : module_->computations())
      for (Instruction *instruction : computation->instructions())
        for (Computation *called : instruction->calledComputations())
          stillCalled = stillCalled || called == callee;
    if (!stillCalled)
      module_->removeComputation(callee);
  }
}

std::optional<Opcode> parseXlaOpcodeName(std::string_view name) {
  if (std::optional<Opcode> opcode = parseOpcodeName(name))
    return opcode;
  // XLA's spellings of kiln's opcodes.
  if (name == "topk")
    return Opcode::TopK;
  return std::nullopt;
}

} // namespace kiln::ir
