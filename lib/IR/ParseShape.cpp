//===- ParseShape.cpp - HLO text input: shapes and XLA layouts ------------===//
//
// XLA writes a layout after every array shape: `f32[2,3]{1,0}` lists the
// dimensions minor to major, optionally followed by tiling and memory-space
// extras (`{1,0:T(8,128)S(1)}`). kiln stores every value row-major and
// chooses interior layouts itself, so a layout only matters where the caller
// owns the bytes: an entry parameter or the entry result. There a
// non-default layout is rejected (checkEntryLayouts) rather than silently
// read in the wrong byte order.
//
//===----------------------------------------------------------------------===//
#include "HloParser.h"

#include <fmt/format.h>

namespace kiln::ir {

namespace {

/// Deep enough for any real tuple, shallow enough for a small stack.
constexpr int kMaxTupleDepth = 64;

std::string formatLayout(const std::vector<int64_t> &minorToMajor) {
  return fmt::format("{{{}}}", fmt::join(minorToMajor, ","));
}

/// Row-major: the last dimension is the most minor.
std::vector<int64_t> defaultLayout(size_t rank) {
  std::vector<int64_t> layout(rank);
  for (size_t i = 0; i < rank; ++i)
    layout[i] = int64_t(rank - 1 - i);
  return layout;
}

} // namespace

bool HloParser::atShape() const {
  if (at(TokenKind::LParen))
    return true;
  return at(TokenKind::Word) && parseDTypeName(tok_.text) &&
         lexer_.peek().kind == TokenKind::LBracket;
}

bool HloParser::parseWrittenShape(WrittenShape &shape) {
  shape.offset = tok_.offset;
  return parseShape(shape.shape, &shape.layout);
}

bool HloParser::parseArrayShape(Shape &shape, std::optional<LayoutNote> *layout) {
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
      if (at(TokenKind::Symbol) || (at(TokenKind::Invalid) && tok_.text == "?"))
        return error(tok_.offset, "dynamic dimensions ('<=N', '?') are not "
                                  "supported: kiln compiles static shapes");
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
  if (atLayout())
    return parseLayout(shape, layout);
  return true;
}

/// A '{' after an array shape opens a layout when a layout dimension, ':'
/// or '}' follows; otherwise it is the body of a computation whose
/// signature ends with this shape ("-> f32[2] {" then an instruction name).
bool HloParser::atLayout() const {
  if (!at(TokenKind::LBrace))
    return false;
  Token next = lexer_.peek();
  bool digits = next.kind == TokenKind::Word &&
                next.text.find_first_not_of("0123456789") == std::string_view::npos;
  return digits || next.kind == TokenKind::Colon ||
         next.kind == TokenKind::RBrace;
}

/// `{minor,...,major[:extras]}` after an array shape. The dimensions must be
/// a permutation of the shape's; the extras (tiles, memory space, element
/// size) describe XLA's device buffers and are checked for form only.
bool HloParser::parseLayout(const Shape &shape, std::optional<LayoutNote> *layout) {
  size_t open = tok_.offset;
  advance(); // '{'
  std::vector<int64_t> minorToMajor;
  if (!at(TokenKind::RBrace) && !at(TokenKind::Colon)) {
    do {
      if (!at(TokenKind::Word))
        return expected("a layout dimension");
      int64_t dim;
      if (!parseIntText(tok_.text, tok_.offset, "layout dimension", dim))
        return false;
      minorToMajor.push_back(dim);
      advance();
    } while (consume(TokenKind::Comma));
  }
  if (consume(TokenKind::Colon) && !skipLayoutExtras())
    return false;
  if (!expect(TokenKind::RBrace, "',', ':' or '}' in the layout"))
    return false;
  size_t rank = size_t(shape.rank());
  std::vector<bool> seen(rank, false);
  bool permutation = minorToMajor.size() == rank;
  for (int64_t dim : minorToMajor) {
    permutation = permutation && dim >= 0 && size_t(dim) < rank && !seen[size_t(dim)];
    if (permutation)
      seen[size_t(dim)] = true;
  }
  if (!permutation)
    return error(open, fmt::format("layout {} of {} is not a permutation of "
                                   "its {} dimension{} (minor to major, e.g. {})",
                                   formatLayout(minorToMajor), shape.toString(),
                                   rank, rank == 1 ? "" : "s",
                                   formatLayout(defaultLayout(rank))));
  if (layout && !*layout && minorToMajor != defaultLayout(rank))
    *layout = LayoutNote{formatLayout(minorToMajor), shape.toString(), open};
  return true;
}

/// XLA's layout extras after ':': items such as T(8,128)(2,1), S(1), E(16),
/// D(D,C), L(4), each a capitalised word with parenthesised arguments.
bool HloParser::skipLayoutExtras() {
  while (!at(TokenKind::RBrace)) {
    if (!at(TokenKind::Word) || !(tok_.text[0] >= 'A' && tok_.text[0] <= 'Z'))
      return expected("a layout extra such as T(8,128) or S(1)");
    advance();
    if (!at(TokenKind::LParen))
      return expected("'(' after a layout extra");
    while (at(TokenKind::LParen)) {
      advance();
      while (!consume(TokenKind::RParen)) {
        if (!at(TokenKind::Word) && !at(TokenKind::Comma) &&
            !at(TokenKind::Symbol))
          return expected("')' closing the layout extra");
        advance();
      }
    }
  }
  return true;
}

bool HloParser::parseShape(Shape &shape, std::optional<LayoutNote> *layout,
                           int depth) {
  if (at(TokenKind::Word))
    return parseArrayShape(shape, layout);
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
      if (!parseShape(element, layout, depth + 1))
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
// Entry layouts
//===----------------------------------------------------------------------===//

namespace {
std::string unsupportedEntryLayout(std::string_view what,
                                   std::string_view layout,
                                   std::string_view shape) {
  return fmt::format(
      "{} has the non-default layout {} on {}: the caller's buffer would be in "
      "that byte order, but kiln's compiled entry takes row-major buffers "
      "(the default layout); non-default entry layouts are not supported",
      what, layout, shape);
}
} // namespace

/// entry_computation_layout must describe the entry computation's own
/// signature, and only with default layouts.
bool HloParser::checkEntryLayoutAttribute() {
  if (!entryLayout_)
    return true;
  std::vector<Instruction *> parameters = entry_->parameters();
  const Signature &layout = *entryLayout_;
  if (layout.parameters.size() != parameters.size())
    return error(layout.offset,
                 fmt::format("entry_computation_layout lists {} parameter{} but "
                             "the entry computation '{}' has {}",
                             layout.parameters.size(),
                             layout.parameters.size() == 1 ? "" : "s",
                             entry_->name(), parameters.size()));
  for (size_t i = 0; i < parameters.size(); ++i) {
    const WrittenShape &written = layout.parameters[i];
    std::string what = fmt::format("entry parameter {} '{}'", i,
                                   parameters[i]->name());
    if (written.shape != parameters[i]->shape())
      return error(written.offset,
                   fmt::format("entry_computation_layout gives {} shape {} but "
                               "it is {}",
                               what, written.shape.toString(),
                               parameters[i]->shape().toString()));
    if (written.layout)
      return error(written.layout->offset,
                   unsupportedEntryLayout(what, written.layout->layout,
                                          written.layout->shape));
  }
  if (layout.result.shape != entry_->root()->shape())
    return error(layout.result.offset,
                 fmt::format("entry_computation_layout gives the result shape "
                             "{} but the entry root '{}' is {}",
                             layout.result.shape.toString(),
                             entry_->root()->name(),
                             entry_->root()->shape().toString()));
  if (layout.result.layout)
    return error(layout.result.layout->offset,
                 unsupportedEntryLayout("the entry result",
                                        layout.result.layout->layout,
                                        layout.result.layout->shape));
  return true;
}

bool HloParser::checkEntryLayouts() {
  if (!checkEntryLayoutAttribute())
    return false;
  for (Instruction *parameter : entry_->parameters()) {
    auto it = layouts_.find(parameter);
    if (it != layouts_.end())
      return error(it->second.offset,
                   unsupportedEntryLayout(
                       fmt::format("entry parameter {} '{}'",
                                   parameter->parameterNumber(),
                                   parameter->name()),
                       it->second.layout, it->second.shape));
  }
  auto it = layouts_.find(entry_->root());
  if (it != layouts_.end())
    return error(it->second.offset,
                 unsupportedEntryLayout(
                     fmt::format("the entry result '{}'", entry_->root()->name()),
                     it->second.layout, it->second.shape));
  return true;
}

} // namespace kiln::ir
