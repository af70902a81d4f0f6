//===- Lexer.h - Tokens of the HLO text format ------------------*- C++ -*-===//
//
// Internal to lib/IR. The lexer is deliberately context-free: every run of
// [A-Za-z0-9_.+\->%] is one Word (names, opcodes, numbers, "2x2", "0_0_1",
// "b01f_01io->b01f") and the parser interprets words by position. A word
// never starts with "->": that is an Arrow, so XLA's "(f32[2])->f32[]" splits
// where it should. "..." is a String (XLA's metadata, backend_config). '<'
// and '*' are Symbols, which only the parts of XLA's text that kiln skips
// (sharding "<=[4]", tile "*") contain. Whitespace and comments are skipped;
// any other byte is an Invalid token so binary input produces a precise error
// instead of undefined behaviour.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_LIB_IR_LEXER_H
#define KILN_LIB_IR_LEXER_H

#include <cstddef>
#include <string>
#include <string_view>

namespace kiln::ir {

enum class TokenKind {
  Word,
  Equal,
  Comma,
  Colon,
  LParen,
  RParen,
  LBracket,
  RBracket,
  LBrace,
  RBrace,
  Arrow,               // "->" at the start of a word
  String,              // "..." (text: between the quotes, escapes kept)
  Symbol,              // '<' or '*'
  Eof,
  Invalid,             // a byte that starts no token
  UnterminatedComment, // "/*" without "*/"
  UnterminatedString,  // '"' without a closing '"' on the same line
};

struct Token {
  TokenKind kind = TokenKind::Eof;
  std::string_view text; // for Word: without a leading '%'
  size_t offset = 0;     // byte offset of the token in the input
};

class Lexer {
public:
  explicit Lexer(std::string_view text) : text_(text) {}
  Token next();
  /// The token after the current one, without consuming anything.
  Token peek() const {
    Lexer copy = *this;
    return copy.next();
  }

private:
  /// Skips whitespace and comments; false on an unterminated block comment
  /// (whose start is left in `commentStart_`).
  bool skipTrivia();
  Token lexString(size_t start);

  std::string_view text_;
  size_t pos_ = 0;
  size_t commentStart_ = 0;
};

/// "'add'", "'('", "end of file", "'\x00'": how errors quote a token.
std::string describeToken(const Token &token);
/// A byte quoted for messages: printable as itself, else \xNN.
std::string quoteByte(char c);

} // namespace kiln::ir

#endif // KILN_LIB_IR_LEXER_H
