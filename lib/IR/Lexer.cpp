//===- Lexer.cpp - Tokens of the HLO text format --------------------------===//
#include "Lexer.h"

#include <algorithm>
#include <array>
#include <fmt/format.h>

namespace kiln::ir {

namespace {

constexpr std::array<bool, 256> makeWordTable() {
  std::array<bool, 256> table{};
  for (int c = 'a'; c <= 'z'; ++c)
    table[size_t(c)] = true;
  for (int c = 'A'; c <= 'Z'; ++c)
    table[size_t(c)] = true;
  for (int c = '0'; c <= '9'; ++c)
    table[size_t(c)] = true;
  for (char c : {'_', '.', '+', '-', '>'})
    table[size_t(uint8_t(c))] = true;
  return table;
}
constexpr std::array<bool, 256> kWordChar = makeWordTable();

bool isWordChar(char c) { return kWordChar[uint8_t(c)]; }

TokenKind punctuationKind(char c) {
  switch (c) {
  case '=': return TokenKind::Equal;
  case ',': return TokenKind::Comma;
  case ':': return TokenKind::Colon;
  case '(': return TokenKind::LParen;
  case ')': return TokenKind::RParen;
  case '[': return TokenKind::LBracket;
  case ']': return TokenKind::RBracket;
  case '{': return TokenKind::LBrace;
  case '}': return TokenKind::RBrace;
  case '<':
  case '*': return TokenKind::Symbol;
  default: return TokenKind::Invalid;
  }
}

} // namespace

bool Lexer::skipTrivia() {
  while (pos_ < text_.size()) {
    char c = text_[pos_];
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
      ++pos_;
    } else if (text_.substr(pos_, 2) == "//") {
      size_t end = text_.find('\n', pos_);
      pos_ = end == std::string_view::npos ? text_.size() : end + 1;
    } else if (text_.substr(pos_, 2) == "/*") {
      size_t end = text_.find("*/", pos_ + 2);
      if (end == std::string_view::npos) {
        commentStart_ = pos_;
        pos_ = text_.size();
        return false;
      }
      pos_ = end + 2;
    } else {
      return true;
    }
  }
  return true;
}

/// A string ends at the next unescaped '"' on the same line; escapes are
/// kept in the token text (the parser decodes the few values it keeps).
Token Lexer::lexString(size_t start) {
  size_t end = start + 1;
  while (end < text_.size() && text_[end] != '"' && text_[end] != '\n')
    end += text_[end] == '\\' ? 2 : 1;
  if (end >= text_.size() || text_[end] != '"') {
    pos_ = std::min(end, text_.size());
    return {TokenKind::UnterminatedString, text_.substr(start, 1), start};
  }
  pos_ = end + 1;
  return {TokenKind::String, text_.substr(start + 1, end - start - 1), start};
}

Token Lexer::next() {
  if (!skipTrivia())
    return {TokenKind::UnterminatedComment, text_.substr(commentStart_, 2),
            commentStart_};
  if (pos_ >= text_.size())
    return {TokenKind::Eof, {}, text_.size()};
  size_t start = pos_;
  // A '%' sigil is accepted before names (XLA writes %x) and dropped.
  size_t wordStart = text_[pos_] == '%' ? pos_ + 1 : pos_;
  if (text_.substr(pos_, 2) == "->") {
    pos_ += 2;
    return {TokenKind::Arrow, text_.substr(start, 2), start};
  }
  if (text_[pos_] == '"')
    return lexString(start);
  if (wordStart < text_.size() && isWordChar(text_[wordStart])) {
    size_t end = wordStart;
    while (end < text_.size() && isWordChar(text_[end]))
      ++end;
    pos_ = end;
    return {TokenKind::Word, text_.substr(wordStart, end - wordStart), start};
  }
  ++pos_;
  return {punctuationKind(text_[start]), text_.substr(start, 1), start};
}

std::string quoteByte(char c) {
  if (c >= 0x20 && c < 0x7f)
    return std::string(1, c);
  return fmt::format("\\x{:02x}", uint8_t(c));
}

std::string describeToken(const Token &token) {
  switch (token.kind) {
  case TokenKind::Eof:
    return "end of file";
  case TokenKind::Word:
    if (token.text.size() > 40)
      return fmt::format("'{}...'", token.text.substr(0, 40));
    return fmt::format("'{}'", token.text);
  case TokenKind::Invalid:
    return fmt::format("'{}'", quoteByte(token.text[0]));
  case TokenKind::String:
    if (token.text.size() > 40)
      return fmt::format("\"{}...\"", token.text.substr(0, 40));
    return fmt::format("\"{}\"", token.text);
  default:
    return fmt::format("'{}'", token.text);
  }
}

} // namespace kiln::ir
