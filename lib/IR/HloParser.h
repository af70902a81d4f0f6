//===- HloParser.h - Recursive-descent parser for HLO text ------*- C++ -*-===//
//
// Internal to lib/IR; the public entry point is parseModule (Parser.h). The
// implementation is split by topic: Parser.cpp (computations, instructions,
// names), ParseShape.cpp (shapes and XLA layouts, entry layout checks),
// ParseModuleHeader.cpp (the HloModule line and XLA's module attributes and
// stack-frame tables), ParseAttributes.cpp (opcode attributes from the
// HloSyntax table), ParseXlaAttributes.cpp (XLA's generic attributes such as
// metadata, and XLA's spellings of kiln's ops: to_apply reducers, old
// dynamic-slice indices), ParseLiteral.cpp (constants). Every parse function
// returns false after recording the first error; nothing is recovered, so the
// first message is the one shown.
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
#include <vector>

namespace kiln::ir {

/// "a dimension", "an index": nouns in messages get their article here.
std::string withArticle(std::string_view noun);
/// kiln's opcode names, and XLA's where they differ ("topk").
std::optional<Opcode> parseXlaOpcodeName(std::string_view name);

/// The parser's bookkeeping types. They live outside HloParser because a
/// nested class with default member initializers is not yet default
/// constructible inside its enclosing class (clang rejects
/// std::optional<Signature>::emplace() there).
namespace hlo_parser {

/// A layout other than the default (major-to-minor = row-major) written
/// on an array shape: "{0,1}" for f32[2,3]. Interior values ignore it;
/// on an entry parameter or result it is an error (checkEntryLayouts).
struct LayoutNote {
  std::string layout; // "{0,1}"
  std::string shape;  // "f32[2,3]" (the array it is on)
  size_t offset = 0;
};
/// A shape as written, with its first non-default layout if any.
struct WrittenShape {
  Shape shape;
  std::optional<LayoutNote> layout;
  size_t offset = 0;
};
/// `(p: f32[], q: s32[]) -> f32[]` after a computation's name.
struct Signature {
  size_t offset = 0; // the '(' of the parameter list
  std::vector<WrittenShape> parameters;
  WrittenShape result;
};
/// A value name inside one computation.
struct ValueInfo {
  size_t offset = 0;
  Instruction *instruction = nullptr;
};
struct ComputationInfo {
  size_t offset = 0;
  Computation *computation = nullptr;
};
/// Per-computation bookkeeping while its body is parsed. Instruction
/// names are scoped to their computation; computation names are a
/// namespace of their own (XLA's rule).
struct BodyState {
  Computation *computation = nullptr;
  Token name;
  Instruction *root = nullptr;
  size_t rootOffset = 0;
  Instruction *last = nullptr;
  std::map<int64_t, size_t> parameterOffsets;
  std::unordered_map<std::string_view, ValueInfo> values;
  std::optional<Signature> signature;
};
/// What an instruction carries besides opcode, shape and operands.
struct InstructionParts {
  Attributes attrs;
  std::vector<Computation *> called; // in the opcode's callee slots
  std::string sourceNode;            // metadata op_name
};

} // namespace hlo_parser

class HloParser {
public:
  HloParser(std::string_view text, std::string_view fileName)
      : text_(text), fileName_(fileName), lexer_(text) {}
  Expected<std::unique_ptr<Module>> run();

private:
  using LayoutNote = hlo_parser::LayoutNote;
  using WrittenShape = hlo_parser::WrittenShape;
  using Signature = hlo_parser::Signature;
  using ValueInfo = hlo_parser::ValueInfo;
  using ComputationInfo = hlo_parser::ComputationInfo;
  using BodyState = hlo_parser::BodyState;
  using InstructionParts = hlo_parser::InstructionParts;

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
  bool defineValue(BodyState &body, const Token &name, Instruction *instruction);
  bool defineComputation(const Token &name, Computation *computation);
  /// The instruction `name` names in `body`, or an error at the name.
  bool lookUpValue(BodyState &body, const Token &name, Instruction *&value);

  // Structure (Parser.cpp).
  bool parseComputation();
  bool parseSignature(Signature &signature);
  bool checkSignature(const BodyState &body);
  bool parseInstruction(BodyState &body);
  bool parseOperands(Opcode opcode, const Token &opcodeToken, BodyState &body,
                     std::vector<Instruction *> &operands);
  bool parseOperand(BodyState &body, std::vector<Instruction *> &operands);
  bool parseParameterNumber(BodyState &body, int64_t &number);
  /// The result shape of an instruction written without one (XLA leaves it
  /// out where it can be inferred), from kiln's shape inference.
  bool inferOmittedShape(Opcode opcode, const Token &opcodeToken,
                         const std::vector<Instruction *> &operands,
                         const InstructionParts &parts, Shape &shape);
  bool resolveEntry();
  /// Hands the parsed computations to the module (see Parser.cpp).
  void adoptComputations();

  // Shapes and layouts (ParseShape.cpp).
  bool parseShape(Shape &shape, std::optional<LayoutNote> *layout = nullptr,
                  int depth = 0);
  bool parseWrittenShape(WrittenShape &shape);
  bool parseArrayShape(Shape &shape, std::optional<LayoutNote> *layout);
  bool atLayout() const;
  bool parseLayout(const Shape &shape, std::optional<LayoutNote> *layout);
  bool skipLayoutExtras();
  /// Whether the current token starts a shape rather than a name: '(' or a
  /// dtype followed by '['.
  bool atShape() const;
  /// Entry parameters and results must be in the default layout.
  bool checkEntryLayouts();
  bool checkEntryLayoutAttribute();

  // The module header (ParseModuleHeader.cpp).
  bool parseHeader();
  bool parseModuleAttribute();
  bool parseEntryComputationLayout();
  bool parseStackFrameTables();
  bool atStackFrameSection() const;
  /// Skips a bracketed value kiln has no use for ({...}, [...] or (...),
  /// nested, with strings), checking only that it is well formed.
  bool skipBalanced(std::string_view what);

  // Attributes (ParseAttributes.cpp).
  bool parseAttributes(Opcode opcode, const Token &opcodeToken,
                       BodyState &body,
                       const std::vector<Instruction *> &operands,
                       InstructionParts &parts);
  bool parseAttrValue(syntax::AttrKey key, Attributes &attrs,
                      std::vector<Computation *> &called);
  bool parseEnumValue(syntax::AttrKey key, Attributes &attrs);
  bool parseCallee(Computation *&called);
  bool parseCalleeList(std::vector<Computation *> &called);
  bool checkConditionalForm(const Token &opcodeToken,
                            const std::vector<std::optional<size_t>> &seen,
                            std::span<const syntax::AttrSpec> specs);
  bool checkReduceForm(Opcode opcode, const Token &opcodeToken,
                       const std::vector<std::optional<size_t>> &seen,
                       std::span<const syntax::AttrSpec> specs);
  /// sort orders by descending= or by a to_apply comparator, not both.
  bool checkSortForm(const Token &opcodeToken,
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

  // XLA's generic attributes and XLA's spellings (ParseXlaAttributes.cpp).
  /// Parses `name=value` when `name` is one of XLA's attributes that any
  /// instruction may carry (metadata, sharding, ...); `handled` says so.
  bool parseGenericAttribute(const Token &name, BodyState &body,
                             InstructionParts &parts, bool &handled);
  bool parseMetadata(std::string &sourceNode);
  bool parseControlPredecessors(BodyState &body);
  /// XLA's attributes of one opcode that kiln's table spells differently
  /// or not at all (gather's indices_are_sorted=, sort's is_stable=, ...).
  bool parseXlaOpAttribute(Opcode opcode, const Token &name, bool &handled);
  /// to_apply= on reduce and reduce-window: a binary reducer kiln knows
  /// (ReducerMatch.h) becomes the reducer kind of a one-input reduce or
  /// reduce-window. Otherwise the callee is kept in `general` (slot 0) for
  /// the general form, which the shape rule checks.
  bool parseReducerCallee(Attributes &attrs,
                          const std::vector<Instruction *> &operands,
                          std::vector<Computation *> &general);
  /// XLA's old dynamic-slice / dynamic-update-slice form with the start
  /// indices in one vector operand: split into one scalar per dimension.
  void splitIndexVector(Opcode opcode, BodyState &body, const Token &name,
                        std::vector<Instruction *> &operands);
  /// sort's to_apply=%comp: a comparator that is exactly a LT or GT
  /// compare of parameters 0 and 1 (ComparatorMatch.h), not TOTALORDER,
  /// becomes descending=; any other is kept in `called` (slot 0) for the general
  /// form, which the shape rule checks.
  bool parseSortComparator(Attributes &attrs,
                           const std::vector<Instruction *> &operands,
                           std::vector<Computation *> &called);
  /// Drops computations that only served as a to_apply replaced by an
  /// attribute (a reducer kind, a sort order).
  void removeReplacedCallees();

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
  std::unordered_map<std::string_view, ComputationInfo> computations_;
  /// Computations in file order, owned here until adoptComputations.
  std::vector<std::unique_ptr<Computation>> parsed_;
  Computation *current_ = nullptr; // the computation being parsed
  /// The first computation that defines each instruction name, so that a
  /// use from another computation gets a precise message.
  std::unordered_map<std::string_view, Computation *> valueOwners_;
  Token headerEntry_;          // entry=NAME in the HloModule line, if any
  bool haveHeaderEntry_ = false;
  size_t headerOffset_ = 0;
  Computation *entry_ = nullptr; // the computation marked ENTRY
  size_t entryOffset_ = 0;
  /// entry_computation_layout={(params)->result} in the HloModule line.
  std::optional<Signature> entryLayout_;
  /// Instructions whose written shape had a non-default layout; only entry
  /// parameters and the entry root are checked (interior layouts are
  /// kiln's own choice).
  std::unordered_map<const Instruction *, LayoutNote> layouts_;
  /// Computations named by to_apply= that became an attribute (reducer=,
  /// descending=); removed when nothing else calls them.
  std::vector<Computation *> replacedCallees_;
};

} // namespace kiln::ir

#endif // KILN_LIB_IR_HLOPARSER_H
