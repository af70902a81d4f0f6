//===- Parser.cpp - HLO text input: module structure, names, shapes -------===//
#include "kiln/IR/Parser.h"

#include "HloParser.h"
#include "kiln/Support/Diagnostics.h"

#include <charconv>
#include <fmt/format.h>

namespace kiln::ir {

namespace {
/// Deep enough for any real tuple, shallow enough for a small stack.
constexpr int kMaxTupleDepth = 64;

bool isNameStart(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}
bool isNameChar(char c) {
  return isNameStart(c) || (c >= '0' && c <= '9') || c == '.' || c == '-';
}
bool isValidName(std::string_view text) {
  if (text.empty() || !isNameStart(text[0]))
    return false;
  for (char c : text)
    if (!isNameChar(c))
      return false;
  return true;
}

/// "a dimension", "an index": nouns in messages get their article here.
std::string withArticle(std::string_view noun) {
  bool vowel = !noun.empty() && std::string_view("aeiou").find(noun[0]) !=
                                    std::string_view::npos;
  return fmt::format("{} {}", vowel ? "an" : "a", noun);
}

std::string_view tokenSpelling(TokenKind kind) {
  switch (kind) {
  case TokenKind::Equal: return "'='";
  case TokenKind::Comma: return "','";
  case TokenKind::Colon: return "':'";
  case TokenKind::LParen: return "'('";
  case TokenKind::RParen: return "')'";
  case TokenKind::LBracket: return "'['";
  case TokenKind::RBracket: return "']'";
  case TokenKind::LBrace: return "'{'";
  case TokenKind::RBrace: return "'}'";
  default: return "a word";
  }
}
} // namespace

//===----------------------------------------------------------------------===//
// Tokens and errors
//===----------------------------------------------------------------------===//

bool HloParser::consume(TokenKind kind) {
  if (!at(kind))
    return false;
  advance();
  return true;
}

bool HloParser::expect(TokenKind kind, std::string_view what) {
  if (consume(kind))
    return true;
  return expected(what.empty() ? tokenSpelling(kind) : what);
}

bool HloParser::expected(std::string_view what) {
  switch (tok_.kind) {
  case TokenKind::Eof:
    return error(tok_.offset, fmt::format("unexpected end of file, expected {}", what));
  case TokenKind::Invalid:
    return error(tok_.offset, fmt::format("unexpected character {}",
                                          describeToken(tok_)));
  case TokenKind::UnterminatedComment:
    return error(tok_.offset, "unterminated '/*' comment");
  default:
    return error(tok_.offset, fmt::format("expected {} but found {}", what,
                                          describeToken(tok_)));
  }
}

bool HloParser::error(size_t offset, std::string message) {
  if (!error_)
    error_ = formatSourceError(fileName_, text_, offset, message);
  return false;
}

std::string HloParser::where(size_t offset) const {
  SourceLocation location = locationOf(text_, offset);
  return fmt::format("{}:{}", location.line, location.column);
}

//===----------------------------------------------------------------------===//
// Numbers and names
//===----------------------------------------------------------------------===//

bool HloParser::parseIntText(std::string_view text, size_t offset,
                             std::string_view what, int64_t &value) {
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (end != text.data() + text.size() || text.empty() ||
      (ec != std::errc() && ec != std::errc::result_out_of_range))
    return error(offset, fmt::format("expected {} but found '{}'",
                                     withArticle(what), text));
  if (ec == std::errc::result_out_of_range)
    return error(offset, fmt::format("{} {} overflows int64", what, text));
  return true;
}

bool HloParser::parseInt(std::string_view what, int64_t &value) {
  if (!at(TokenKind::Word))
    return expected(withArticle(what));
  if (!parseIntText(tok_.text, tok_.offset, what, value))
    return false;
  advance();
  return true;
}

bool HloParser::parseIntList(std::string_view what,
                             std::vector<int64_t> &values) {
  if (!expect(TokenKind::LBrace, "'{'"))
    return false;
  values.clear();
  if (consume(TokenKind::RBrace))
    return true;
  do {
    int64_t value;
    if (!parseInt(what, value))
      return false;
    values.push_back(value);
  } while (consume(TokenKind::Comma));
  return expect(TokenKind::RBrace, "',' or '}'");
}

bool HloParser::parseBool(bool &value) {
  if (atWord("true") || atWord("false")) {
    value = tok_.text == "true";
    advance();
    return true;
  }
  return expected("'true' or 'false'");
}

bool HloParser::parseName(std::string_view what, Token &name) {
  if (!at(TokenKind::Word))
    return expected(withArticle(what));
  if (!isValidName(tok_.text))
    return error(tok_.offset,
                 fmt::format("invalid {} '{}': names match "
                             "[A-Za-z_][A-Za-z0-9_.-]*",
                             what, tok_.text));
  name = tok_;
  advance();
  return true;
}

/// Instruction and computation names share one namespace per module, as in
/// Module::uniqueName; a clash is an error rather than a silent rename.
bool HloParser::defineName(const Token &name, Instruction *instruction,
                           Computation *computation) {
  auto [it, inserted] =
      names_.try_emplace(name.text, NameInfo{name.offset, instruction, computation});
  if (inserted)
    return true;
  bool bothValues = instruction && it->second.instruction;
  return error(name.offset,
               fmt::format("{} '{}' defined twice (first at {})",
                           bothValues ? "value" : "name", name.text,
                           where(it->second.offset)));
}

//===----------------------------------------------------------------------===//
// Shapes
//===----------------------------------------------------------------------===//

bool HloParser::parseArrayShape(Shape &shape) {
  std::optional<DType> dtype = parseDTypeName(tok_.text);
  if (parseOpcodeName(tok_.text))
    return error(tok_.offset, fmt::format("expected a shape before opcode '{}'",
                                          tok_.text));
  if (!dtype || *dtype == DType::Tuple)
    return error(tok_.offset, fmt::format("unknown dtype {}", describeToken(tok_)));
  advance();
  if (!expect(TokenKind::LBracket, "'['"))
    return false;
  std::vector<int64_t> dims;
  // Every nonzero dimension multiplies into the byte size, which must fit
  // int64 so that Shape::byteSize and strides never overflow.
  int64_t bytes = int64_t(byteSize(*dtype));
  if (!at(TokenKind::RBracket)) {
    do {
      if (!at(TokenKind::Word))
        return expected(withArticle("dimension"));
      int64_t dim;
      if (!parseIntText(tok_.text, tok_.offset, "dimension", dim))
        return false;
      if (dim < 0)
        return error(tok_.offset, fmt::format("dimension {} is negative", dim));
      if (dim > 0 && __builtin_mul_overflow(bytes, dim, &bytes))
        return error(tok_.offset, "the product of dimensions overflows");
      dims.push_back(dim);
      advance();
    } while (consume(TokenKind::Comma));
  }
  if (!expect(TokenKind::RBracket, "',' or ']'"))
    return false;
  shape = Shape(*dtype, std::move(dims));
  return true;
}

bool HloParser::parseShape(Shape &shape, int depth) {
  if (at(TokenKind::Word))
    return parseArrayShape(shape);
  if (!at(TokenKind::LParen))
    return expected("a shape");
  if (depth >= kMaxTupleDepth)
    return error(tok_.offset, fmt::format("tuple shapes nest deeper than {} levels",
                                          kMaxTupleDepth));
  advance();
  std::vector<Shape> elements;
  if (!at(TokenKind::RParen)) {
    do {
      Shape element;
      if (!parseShape(element, depth + 1))
        return false;
      elements.push_back(std::move(element));
    } while (consume(TokenKind::Comma));
  }
  if (!expect(TokenKind::RParen, "',' or ')'"))
    return false;
  shape = Shape::tuple(std::move(elements));
  return true;
}

//===----------------------------------------------------------------------===//
// Module structure
//===----------------------------------------------------------------------===//

bool HloParser::parseHeader() {
  headerOffset_ = tok_.offset;
  if (!atWord("HloModule"))
    return expected("'HloModule'");
  advance();
  // Module names come from file stems ("2layer.v1"), so any word will do.
  if (!at(TokenKind::Word))
    return expected("a module name");
  module_ = std::make_unique<Module>(std::string(tok_.text));
  advance();
  if (!consume(TokenKind::Comma))
    return true;
  if (!atWord("entry")) {
    if (at(TokenKind::Word))
      return error(tok_.offset, fmt::format("unknown module attribute '{}' "
                                            "(expected 'entry')",
                                            tok_.text));
    return expected("'entry'");
  }
  advance();
  if (!expect(TokenKind::Equal, "'='") ||
      !parseName("computation name", headerEntry_))
    return false;
  haveHeaderEntry_ = true;
  return true;
}

bool HloParser::parseComputation() {
  bool isEntry = atWord("ENTRY");
  if (isEntry)
    advance();
  Token name;
  if (!parseName("computation name", name))
    return false;
  auto owned = std::make_unique<Computation>(std::string(name.text));
  BodyState body;
  body.computation = owned.get();
  if (!defineName(name, nullptr, owned.get()) ||
      !expect(TokenKind::LBrace, "'{'"))
    return false;
  while (!consume(TokenKind::RBrace)) {
    if (at(TokenKind::Eof))
      return expected("'}'");
    if (!parseInstruction(body))
      return false;
  }
  if (owned->instructionCount() == 0)
    return error(name.offset,
                 fmt::format("computation '{}' has no instructions", name.text));
  if (!body.root)
    return error(name.offset,
                 fmt::format("missing ROOT instruction in computation '{}'",
                             name.text));
  owned->setRoot(body.root);
  Computation *computation = module_->addComputation(std::move(owned));
  if (!isEntry)
    return true;
  if (entry_)
    return error(name.offset,
                 fmt::format("second ENTRY computation '{}' (first is '{}' at {})",
                             name.text, entry_->name(), where(entryOffset_)));
  entry_ = computation;
  entryOffset_ = name.offset;
  return true;
}

bool HloParser::parseParameterNumber(BodyState &body, int64_t &number) {
  if (!expect(TokenKind::LParen, "'('"))
    return false;
  size_t offset = tok_.offset;
  if (!parseInt("parameter number", number))
    return false;
  if (number < 0)
    return error(offset, fmt::format("parameter number {} is negative", number));
  auto [it, inserted] = body.parameterOffsets.try_emplace(number, offset);
  if (!inserted)
    return error(offset, fmt::format("parameter number {} used twice (first at {})",
                                     number, where(it->second)));
  return expect(TokenKind::RParen, "')'");
}

bool HloParser::parseOperands(Opcode opcode, const Token &opcodeToken,
                              BodyState &body,
                              std::vector<Instruction *> &operands) {
  if (!expect(TokenKind::LParen, "'('"))
    return false;
  if (!at(TokenKind::RParen)) {
    do {
      Token name;
      if (!parseName("operand name", name))
        return false;
      auto it = names_.find(name.text);
      if (it == names_.end() || !it->second.instruction)
        return error(name.offset,
                     fmt::format("use of undefined value '{}'", name.text));
      if (it->second.computation != body.computation)
        return error(name.offset,
                     fmt::format("value '{}' belongs to computation '{}'",
                                 name.text, it->second.computation->name()));
      operands.push_back(it->second.instruction);
    } while (consume(TokenKind::Comma));
  }
  if (!expect(TokenKind::RParen, "',' or ')'"))
    return false;
  int arity = opcodeArity(opcode);
  if (arity >= 0 && size_t(arity) != operands.size())
    return error(opcodeToken.offset,
                 fmt::format("'{}' takes {} operand{} but {} {} given",
                             opcodeName(opcode), arity, arity == 1 ? "" : "s",
                             operands.size(),
                             operands.size() == 1 ? "was" : "were"));
  return true;
}

bool HloParser::parseInstruction(BodyState &body) {
  size_t startOffset = tok_.offset;
  bool isRoot = atWord("ROOT");
  if (isRoot)
    advance();
  Token name;
  if (!parseName("instruction name", name) || !expect(TokenKind::Equal, "'='"))
    return false;
  size_t shapeOffset = tok_.offset;
  Shape shape;
  if (!parseShape(shape))
    return false;
  if (!at(TokenKind::Word))
    return expected("an opcode");
  Token opcodeToken = tok_;
  std::optional<Opcode> opcode = parseOpcodeName(tok_.text);
  if (!opcode)
    return error(tok_.offset, fmt::format("unknown opcode '{}'", tok_.text));
  advance();

  Attributes attrs;
  Literal literal;
  std::vector<Instruction *> operands;
  if (*opcode == Opcode::Parameter) {
    if (!parseParameterNumber(body, attrs.index))
      return false;
  } else if (*opcode == Opcode::Constant) {
    if (!expect(TokenKind::LParen, "'('") ||
        !parseLiteral(shape, shapeOffset, literal) ||
        !expect(TokenKind::RParen, "')'"))
      return false;
  } else if (!parseOperands(*opcode, opcodeToken, body, operands)) {
    return false;
  }
  std::vector<Computation *> called;
  if (!parseAttributes(*opcode, opcodeToken, attrs, called))
    return false;

  Instruction *instruction = body.computation->add(
      *opcode, std::move(shape), std::move(operands), std::move(attrs),
      std::string(name.text));
  if (*opcode == Opcode::Constant)
    instruction->setLiteral(std::move(literal));
  instruction->setCalledComputations(std::move(called));
  if (!defineName(name, instruction, body.computation))
    return false;
  if (!isRoot)
    return true;
  if (body.root)
    return error(startOffset, fmt::format("second ROOT instruction in "
                                          "computation '{}' (first at {})",
                                          body.computation->name(),
                                          where(body.rootOffset)));
  body.root = instruction;
  body.rootOffset = startOffset;
  return true;
}

bool HloParser::resolveEntry() {
  if (haveHeaderEntry_) {
    auto it = names_.find(headerEntry_.text);
    if (it == names_.end() || it->second.instruction)
      return error(headerEntry_.offset,
                   fmt::format("unknown computation '{}'", headerEntry_.text));
    if (entry_ && entry_ != it->second.computation)
      return error(entryOffset_,
                   fmt::format("ENTRY computation '{}' disagrees with "
                               "entry={} in the HloModule line",
                               entry_->name(), headerEntry_.text));
    entry_ = it->second.computation;
  }
  if (!entry_)
    return error(headerOffset_,
                 "no ENTRY computation (mark one computation ENTRY or add "
                 "entry=NAME to the HloModule line)");
  module_->setEntry(entry_);
  return true;
}

Expected<std::unique_ptr<Module>> HloParser::run() {
  advance();
  bool ok = parseHeader();
  while (ok && !at(TokenKind::Eof))
    ok = parseComputation();
  if (ok)
    ok = resolveEntry();
  if (!ok)
    return Error::failure(*error_);
  return std::move(module_);
}

Expected<std::unique_ptr<Module>> parseModule(std::string_view text,
                                              std::string_view fileName) {
  return HloParser(text, fileName).run();
}

} // namespace kiln::ir
