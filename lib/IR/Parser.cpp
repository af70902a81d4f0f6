//===- Parser.cpp - HLO text input: computations, instructions, names ----===//
#include "kiln/IR/Parser.h"

#include "HloParser.h"
#include "kiln/IR/Verifier.h"
#include "kiln/Support/Diagnostics.h"

#include <algorithm>
#include <charconv>
#include <fmt/format.h>

namespace kiln::ir {

namespace {
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
  case TokenKind::Arrow: return "'->'";
  case TokenKind::String: return "a string";
  default: return "a word";
  }
}
} // namespace

std::string withArticle(std::string_view noun) {
  bool vowel = !noun.empty() && std::string_view("aeiou").find(noun[0]) !=
                                    std::string_view::npos;
  return fmt::format("{} {}", vowel ? "an" : "a", noun);
}

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
  case TokenKind::UnterminatedString:
    return error(tok_.offset, "unterminated string (a '\"' without its "
                              "closing '\"' on the same line)");
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

/// Instruction names are scoped to their computation; a clash inside one
/// computation is an error rather than a silent rename.
bool HloParser::defineValue(BodyState &body, const Token &name,
                            Instruction *instruction) {
  auto [it, inserted] =
      body.values.try_emplace(name.text, ValueInfo{name.offset, instruction});
  if (!inserted)
    return error(name.offset, fmt::format("value '{}' defined twice (first at {})",
                                          name.text, where(it->second.offset)));
  valueOwners_.try_emplace(name.text, body.computation);
  return true;
}

/// Computation names are a namespace of their own: an ENTRY named `dot` may
/// hold an instruction named `dot`.
bool HloParser::defineComputation(const Token &name, Computation *computation) {
  auto [it, inserted] = computations_.try_emplace(
      name.text, ComputationInfo{name.offset, computation});
  if (inserted)
    return true;
  return error(name.offset,
               fmt::format("computation '{}' defined twice (first at {})",
                           name.text, where(it->second.offset)));
}

bool HloParser::lookUpValue(BodyState &body, const Token &name,
                            Instruction *&value) {
  auto it = body.values.find(name.text);
  if (it != body.values.end()) {
    value = it->second.instruction;
    return true;
  }
  auto owner = valueOwners_.find(name.text);
  if (owner != valueOwners_.end())
    return error(name.offset, fmt::format("value '{}' belongs to computation '{}'",
                                          name.text, owner->second->name()));
  return error(name.offset, fmt::format("use of undefined value '{}'", name.text));
}

//===----------------------------------------------------------------------===//
// Module structure
//===----------------------------------------------------------------------===//

/// A computation: `[ENTRY] NAME [signature] '{' instruction* '}'`. Without a
/// ROOT marker the last instruction is the root (XLA's rule).
bool HloParser::parseComputation() {
  bool isEntry = atWord("ENTRY");
  if (isEntry)
    advance();
  BodyState body;
  if (!parseName("computation name", body.name))
    return false;
  auto owned = std::make_unique<Computation>(std::string(body.name.text));
  body.computation = owned.get();
  current_ = owned.get();
  if (!defineComputation(body.name, owned.get()))
    return false;
  if (at(TokenKind::LParen)) {
    body.signature.emplace();
    if (!parseSignature(*body.signature))
      return false;
  }
  if (!expect(TokenKind::LBrace, "'{'"))
    return false;
  while (!consume(TokenKind::RBrace)) {
    if (at(TokenKind::Eof))
      return expected("'}'");
    if (!parseInstruction(body))
      return false;
  }
  if (owned->instructionCount() == 0)
    return error(body.name.offset,
                 fmt::format("computation '{}' has no instructions",
                             body.name.text));
  if (!body.root)
    body.root = body.last;
  owned->setRoot(body.root);
  if (!checkSignature(body))
    return false;
  Computation *computation = owned.get();
  parsed_.push_back(std::move(owned));
  if (!isEntry)
    return true;
  if (entry_)
    return error(body.name.offset,
                 fmt::format("second ENTRY computation '{}' (first is '{}' at {})",
                             body.name.text, entry_->name(),
                             where(entryOffset_)));
  entry_ = computation;
  entryOffset_ = body.name.offset;
  return true;
}

/// `(p: f32[], q: (s32[], f32[2])) -> f32[]`: the names are XLA's parameter
/// names (not checked), the shapes must match the body (checkSignature).
bool HloParser::parseSignature(Signature &signature) {
  signature.offset = tok_.offset;
  advance(); // '('
  if (!at(TokenKind::RParen)) {
    do {
      Token name;
      WrittenShape shape;
      if (!parseName("parameter name", name) ||
          !expect(TokenKind::Colon, "':'") || !parseWrittenShape(shape))
        return false;
      signature.parameters.push_back(std::move(shape));
    } while (consume(TokenKind::Comma));
  }
  if (!expect(TokenKind::RParen, "',' or ')'") ||
      !expect(TokenKind::Arrow, "'->' and the result shape"))
    return false;
  return parseWrittenShape(signature.result);
}

bool HloParser::checkSignature(const BodyState &body) {
  if (!body.signature)
    return true;
  const Signature &signature = *body.signature;
  std::vector<Instruction *> parameters = body.computation->parameters();
  std::string_view name = body.name.text;
  if (parameters.size() != signature.parameters.size())
    return error(body.name.offset,
                 fmt::format("the signature of computation '{}' lists {} "
                             "parameter{} but its body has {}",
                             name, signature.parameters.size(),
                             signature.parameters.size() == 1 ? "" : "s",
                             parameters.size()));
  for (size_t i = 0; i < parameters.size(); ++i) {
    const WrittenShape &declared = signature.parameters[i];
    if (parameters[i]->parameterNumber() != int64_t(i))
      return true; // the verifier reports parameter numbers with gaps
    if (declared.shape != parameters[i]->shape())
      return error(declared.offset,
                   fmt::format("the signature of computation '{}' gives "
                               "parameter {} shape {} but parameter({}) '{}' "
                               "is {}",
                               name, i, declared.shape.toString(), i,
                               parameters[i]->name(),
                               parameters[i]->shape().toString()));
  }
  if (signature.result.shape != body.root->shape())
    return error(signature.result.offset,
                 fmt::format("the signature of computation '{}' gives result "
                             "shape {} but its root '{}' is {}",
                             name, signature.result.shape.toString(),
                             body.root->name(), body.root->shape().toString()));
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

/// One operand: `NAME`, or XLA's long form `SHAPE NAME`, whose shape must be
/// the operand's (layouts aside).
bool HloParser::parseOperand(BodyState &body,
                             std::vector<Instruction *> &operands) {
  std::optional<WrittenShape> written;
  if (atShape()) {
    written.emplace();
    if (!parseWrittenShape(*written))
      return false;
  }
  Token name;
  Instruction *value = nullptr;
  if (!parseName("operand name", name) || !lookUpValue(body, name, value))
    return false;
  if (written && written->shape != value->shape())
    return error(written->offset,
                 fmt::format("operand '{}' is written with shape {} but its "
                             "shape is {}",
                             name.text, written->shape.toString(),
                             value->shape().toString()));
  operands.push_back(value);
  return true;
}

bool HloParser::parseOperands(Opcode opcode, const Token &opcodeToken,
                              BodyState &body,
                              std::vector<Instruction *> &operands) {
  if (!expect(TokenKind::LParen, "'('"))
    return false;
  if (!at(TokenKind::RParen)) {
    do {
      if (!parseOperand(body, operands))
        return false;
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

/// Opcodes whose result shape says more than the operands do (a parameter's
/// or constant's whole shape, broadcast/reshape dimensions, a declared
/// dtype): XLA's text always writes it, and so must kiln's.
static bool needsWrittenShape(Opcode opcode) {
  return opcode == Opcode::Parameter || opcode == Opcode::Constant ||
         opcode == Opcode::Broadcast || opcode == Opcode::Reshape ||
         resultDType(opcode) == ResultDType::Declared;
}

/// XLA's text may leave out a result shape that follows from the operands;
/// kiln infers it with its own shape inference.
bool HloParser::inferOmittedShape(Opcode opcode, const Token &opcodeToken,
                                  const std::vector<Instruction *> &operands,
                                  const InstructionParts &parts, Shape &shape) {
  std::vector<Shape> operandShapes;
  for (Instruction *operand : operands)
    operandShapes.push_back(operand->shape());
  std::vector<const Computation *> callees(parts.called.begin(),
                                           parts.called.end());
  Expected<Shape> inferred =
      inferShape(opcode, operandShapes, parts.attrs, Shape(), callees);
  if (!inferred)
    return error(opcodeToken.offset,
                 fmt::format("cannot infer the result shape of '{}': {}",
                             opcodeName(opcode), inferred.errorMessage()));
  shape = std::move(*inferred);
  return true;
}

/// `[ROOT] NAME = [SHAPE] OPCODE(payload) (, attribute)*`.
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
  std::optional<LayoutNote> layout;
  // "tuple" is both an opcode and the tuple dtype's name; an array dtype
  // is always followed by '[', so an opcode followed by '(' has no shape.
  bool shapeOmitted = at(TokenKind::Word) && parseXlaOpcodeName(tok_.text) &&
                      lexer_.peek().kind == TokenKind::LParen;
  if (!shapeOmitted && !parseShape(shape, &layout))
    return false;
  if (!at(TokenKind::Word))
    return expected("an opcode");
  Token opcodeToken = tok_;
  std::optional<Opcode> opcode = parseXlaOpcodeName(tok_.text);
  if (!opcode)
    return error(tok_.offset, fmt::format("unknown opcode '{}'", tok_.text));
  if (shapeOmitted && needsWrittenShape(*opcode))
    return error(tok_.offset,
                 fmt::format("'{}' needs its result shape written before the "
                             "opcode (it cannot be inferred from the operands)",
                             tok_.text));
  advance();

  InstructionParts parts;
  Literal literal;
  std::vector<Instruction *> operands;
  if (*opcode == Opcode::Parameter) {
    if (!parseParameterNumber(body, parts.attrs.index))
      return false;
  } else if (*opcode == Opcode::Constant) {
    if (!expect(TokenKind::LParen, "'('") ||
        !parseLiteral(shape, shapeOffset, literal) ||
        !expect(TokenKind::RParen, "')'"))
      return false;
  } else if (!parseOperands(*opcode, opcodeToken, body, operands)) {
    return false;
  }
  if (!parseAttributes(*opcode, opcodeToken, body, operands, parts))
    return false;
  splitIndexVector(*opcode, body, name, operands);
  if (shapeOmitted &&
      !inferOmittedShape(*opcode, opcodeToken, operands, parts, shape))
    return false;

  Instruction *instruction = body.computation->add(
      *opcode, std::move(shape), std::move(operands), std::move(parts.attrs),
      std::string(name.text));
  if (*opcode == Opcode::Constant)
    instruction->setLiteral(std::move(literal));
  instruction->setCalledComputations(std::move(parts.called));
  instruction->setSourceNode(std::move(parts.sourceNode));
  if (layout)
    layouts_.emplace(instruction, std::move(*layout));
  if (!defineValue(body, name, instruction))
    return false;
  body.last = instruction;
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
    auto it = computations_.find(headerEntry_.text);
    if (it == computations_.end())
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
  return true;
}

/// The module keeps one namespace (Module::uniqueName), so a name used in
/// two computations is renamed with a .N suffix in the second one the
/// module receives. The entry goes first: its parameter names are how
/// callers pass inputs (kiln run --input NAME=...) and must stay as
/// written. The file's order of computations is kept.
void HloParser::adoptComputations() {
  auto entry = std::find_if(parsed_.begin(), parsed_.end(),
                            [&](const std::unique_ptr<Computation> &c) {
                              return c.get() == entry_;
                            });
  module_->addComputation(std::move(*entry));
  for (auto it = parsed_.begin(); it != entry; ++it)
    module_->addComputationBefore(std::move(*it), entry_);
  for (auto it = entry + 1; it != parsed_.end(); ++it)
    module_->addComputation(std::move(*it));
  parsed_.clear();
  module_->setEntry(entry_);
}

Expected<std::unique_ptr<Module>> HloParser::run() {
  advance();
  bool ok = parseHeader() && parseStackFrameTables();
  while (ok && !at(TokenKind::Eof))
    ok = parseComputation();
  ok = ok && resolveEntry();
  if (ok)
    adoptComputations();
  ok = ok && checkEntryLayouts();
  if (!ok)
    return Error::failure(*error_);
  removeReplacedCallees();
  return std::move(module_);
}

Expected<std::unique_ptr<Module>> parseModule(std::string_view text,
                                              std::string_view fileName) {
  return HloParser(text, fileName).run();
}

} // namespace kiln::ir
