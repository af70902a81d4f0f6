//===- HloParser.h - Recursive-descent parser for HLO text ------*- C++ -*-===//
//
// Internal to lib/IR; the public entry point is parseModule (Parser.h). The
// implementation is split by topic: Parser.cpp (module structure, names,
// shapes), ParseAttributes.cpp (opcode attributes), ParseLiteral.cpp
// (constants). Every parse function returns false after recording the first
// error; nothing is recovered, so the first message is the one shown.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_LIB_IR_HLOPARSER_H
#define KILN_LIB_IR_HLOPARSER_H

#include "HloSyntax.h"
#include "Lexer.h"
#include "kiln/IR/Module.h"
#include "kiln/Support/Error.h"

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>

namespace kiln::ir {

class HloParser {
public:
  HloParser(std::string_view text, std::string_view fileName)
      : text_(text), fileName_(fileName), lexer_(text) {}
  Expected<std::unique_ptr<Module>> run();

private:
  /// What a name in the module's single namespace refers to.
  struct NameInfo {
    size_t offset = 0;
    Instruction *instruction = nullptr; // null for a computation name
    Computation *computation = nullptr; // owner, or the computation itself
  };
  /// Per-computation bookkeeping while its body is parsed.
  struct BodyState {
    Computation *computation = nullptr;
    Instruction *root = nullptr;
    size_t rootOffset = 0;
    std::map<int64_t, size_t> parameterOffsets;
  };

  // Tokens and errors (Parser.cpp).
  void advance() { tok_ = lexer_.next(); }
  bool at(TokenKind kind) const { return tok_.kind == kind; }
  bool atWord(std::string_view word) const {
    return tok_.kind == TokenKind::Word && tok_.text == word;
  }
  bool consume(TokenKind kind);
  bool expect(TokenKind kind, std::string_view what);
  /// "expected WHAT but found TOKEN" at the current token (with the special
  /// forms for end of file and invalid bytes).
  bool expected(std::string_view what);
  bool error(size_t offset, std::string message);
  std::string where(size_t offset) const;

  // Numbers and names (Parser.cpp).
  bool parseInt(std::string_view what, int64_t &value);
  bool parseIntText(std::string_view text, size_t offset,
                    std::string_view what, int64_t &value);
  bool parseIntList(std::string_view what, std::vector<int64_t> &values);
  bool parseBool(bool &value);
  bool parseName(std::string_view what, Token &name);
  bool defineName(const Token &name, Instruction *instruction,
                  Computation *computation);

  // Structure (Parser.cpp).
  bool parseHeader();
  bool parseComputation();
  bool parseInstruction(BodyState &body);
  bool parseOperands(Opcode opcode, const Token &opcodeToken, BodyState &body,
                     std::vector<Instruction *> &operands);
  bool parseParameterNumber(BodyState &body, int64_t &number);
  bool parseShape(Shape &shape, int depth = 0);
  bool parseArrayShape(Shape &shape);
  bool resolveEntry();

  // Attributes (ParseAttributes.cpp).
  bool parseAttributes(Opcode opcode, const Token &opcodeToken,
                       Attributes &attrs, std::vector<Computation *> &called);
  bool parseAttrValue(syntax::AttrKey key, Attributes &attrs,
                      std::vector<Computation *> &called);
  bool parseEnumValue(syntax::AttrKey key, Attributes &attrs);
  bool parseCallee(Computation *&called);
  bool parseCalleeList(std::vector<Computation *> &called);
  bool checkConditionalForm(const Token &opcodeToken,
                            const std::vector<std::optional<size_t>> &seen,
                            std::span<const syntax::AttrSpec> specs);
  bool parseSliceValue(std::vector<SliceDim> &slice);
  bool parsePaddingValue(std::vector<PadDim> &padding);
  bool parseWindowValue(std::vector<WindowDim> &window);
  bool parseWindowField(std::vector<WindowDim> &window, unsigned &seenFields);
  bool parseDimLabels(ConvolutionDimensionNumbers &dnums);
  bool splitInts(const Token &word, char separator, std::string_view what,
                 std::vector<int64_t> &values);
  /// "1_2_0x3_4_0": groups of `groupSize` integers joined by '_', groups
  /// separated by 'x', flattened into `values`.
  bool splitGroups(const Token &word, size_t groupSize,
                   std::string_view pattern, std::vector<int64_t> &values);

  // Constants (ParseLiteral.cpp).
  bool parseLiteral(const Shape &shape, size_t shapeOffset, Literal &literal);
  bool parseNestedElements(const Shape &shape, std::vector<uint8_t> &bytes,
                           int64_t &count);
  bool parseScalar(DType type, std::vector<uint8_t> &bytes, bool store);
  bool parseFloatScalar(DType type, std::vector<uint8_t> &bytes, bool store);
  bool parseNanPayload(DType type, uint64_t &bits);

  std::string_view text_;
  std::string_view fileName_;
  Lexer lexer_;
  Token tok_;
  std::optional<std::string> error_;
  std::unique_ptr<Module> module_;
  std::unordered_map<std::string_view, NameInfo> names_;
  Token headerEntry_;          // entry=NAME in the HloModule line, if any
  bool haveHeaderEntry_ = false;
  size_t headerOffset_ = 0;
  Computation *entry_ = nullptr; // the computation marked ENTRY
  size_t entryOffset_ = 0;
};

} // namespace kiln::ir

#endif // KILN_LIB_IR_HLOPARSER_H
