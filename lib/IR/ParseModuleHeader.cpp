//===- ParseModuleHeader.cpp - HLO text input: the module header ----------===//
//
// kiln's own header is `HloModule NAME[, entry=NAME]`. XLA, JAX and
// TensorFlow print more module attributes, and recent JAX dumps add tables
// of stack frames after the header. kiln keeps what has a meaning for it
// (entry_computation_layout is checked against the entry computation) and
// checks the form of the rest without keeping it. The header itself is
// optional, as in XLA's parser; the module is then named after the file.
//
//===----------------------------------------------------------------------===//
#include "HloParser.h"

#include <fmt/format.h>

namespace kiln::ir {

namespace {

/// "dir/model.hlo" -> "model": the module name when there is no header.
std::string fileStem(std::string_view fileName) {
  size_t slash = fileName.find_last_of('/');
  if (slash != std::string_view::npos)
    fileName.remove_prefix(slash + 1);
  size_t dot = fileName.find('.');
  if (dot != std::string_view::npos && dot > 0)
    fileName = fileName.substr(0, dot);
  return fileName.empty() ? "module" : std::string(fileName);
}

constexpr std::string_view kStackFrameSections[] = {
    "FileNames", "FunctionNames", "FileLocations", "StackFrames"};

bool isDigits(std::string_view text) {
  return !text.empty() &&
         text.find_first_not_of("0123456789") == std::string_view::npos;
}

} // namespace

bool HloParser::parseHeader() {
  headerOffset_ = tok_.offset;
  if (!atWord("HloModule")) {
    module_ = std::make_unique<Module>(fileStem(fileName_));
    return true;
  }
  advance();
  // Module names come from file stems ("2layer.v1"), so any word will do.
  if (!at(TokenKind::Word))
    return expected("a module name");
  module_ = std::make_unique<Module>(std::string(tok_.text));
  advance();
  while (consume(TokenKind::Comma))
    if (!parseModuleAttribute())
      return false;
  return true;
}

/// One `name=value` of the HloModule line.
bool HloParser::parseModuleAttribute() {
  if (!at(TokenKind::Word))
    return expected("a module attribute");
  Token name = tok_;
  advance();
  if (!expect(TokenKind::Equal, "'='"))
    return false;
  std::string_view key = name.text;
  if (key == "entry") {
    haveHeaderEntry_ = true;
    return parseName("computation name", headerEntry_);
  }
  if (key == "entry_computation_layout")
    return parseEntryComputationLayout();
  if (key == "is_scheduled" || key == "alias_passthrough_params") {
    bool ignored;
    return parseBool(ignored);
  }
  if (key == "replica_count" || key == "num_partitions") {
    // kiln compiles one device's program; the module has no collectives
    // (kiln implements none), so the counts do not change its meaning.
    int64_t ignored;
    return parseInt("count", ignored);
  }
  if (key == "input_output_alias" || key == "buffer_donor" ||
      key == "frontend_attributes" ||
      key == "allow_spmd_sharding_propagation_to_parameters" ||
      key == "allow_spmd_sharding_propagation_to_output")
    return skipBalanced(key);
  return error(name.offset,
               fmt::format("unknown module attribute '{}' (expected entry, "
                           "entry_computation_layout, is_scheduled, "
                           "replica_count, num_partitions, input_output_alias, "
                           "buffer_donor, frontend_attributes, "
                           "allow_spmd_sharding_propagation_to_parameters or "
                           "allow_spmd_sharding_propagation_to_output)",
                           key));
}

/// `{(f32[2,3]{1,0}, s32[])->f32[2]{0}}`: checked against the entry
/// computation once it is known (checkEntryLayoutAttribute).
bool HloParser::parseEntryComputationLayout() {
  if (!expect(TokenKind::LBrace, "'{'"))
    return false;
  Signature layout;
  layout.offset = tok_.offset;
  if (!expect(TokenKind::LParen, "'(' and the parameter shapes"))
    return false;
  if (!at(TokenKind::RParen)) {
    do {
      WrittenShape shape;
      if (!parseWrittenShape(shape))
        return false;
      layout.parameters.push_back(std::move(shape));
    } while (consume(TokenKind::Comma));
  }
  if (!expect(TokenKind::RParen, "',' or ')'") ||
      !expect(TokenKind::Arrow, "'->' and the result shape") ||
      !parseWrittenShape(layout.result) || !expect(TokenKind::RBrace, "'}'"))
    return false;
  entryLayout_ = std::move(layout);
  return true;
}

bool HloParser::atStackFrameSection() const {
  if (!at(TokenKind::Word))
    return false;
  bool isSection = false;
  for (std::string_view section : kStackFrameSections)
    isSection = isSection || tok_.text == section;
  // A computation may be named like a section; it is followed by '{' or
  // its signature's '('.
  TokenKind next = lexer_.peek().kind;
  return isSection && next != TokenKind::LBrace && next != TokenKind::LParen;
}

/// JAX's stack-frame tables: sections of numbered entries, each a string
/// (FileNames, FunctionNames) or a brace group of `key=N` fields
/// (FileLocations, StackFrames). Metadata refers to them by stack_frame_id;
/// kiln names source ops by op_name, so the tables are read and dropped.
bool HloParser::parseStackFrameTables() {
  while (atStackFrameSection()) {
    advance();
    while (at(TokenKind::Word) && isDigits(tok_.text)) {
      advance();
      if (at(TokenKind::String)) {
        advance();
      } else if (at(TokenKind::LBrace)) {
        advance();
        while (!consume(TokenKind::RBrace)) {
          Token field;
          int64_t ignored;
          if (!parseName("stack frame field", field) ||
              !expect(TokenKind::Equal, "'='") || !parseInt("integer", ignored))
            return false;
          consume(TokenKind::Comma);
        }
      } else {
        return expected("a string or '{' in the stack frame table");
      }
    }
  }
  return true;
}

/// Brackets must pair up ({ with }, [ with ], ( with )); strings, words and
/// the punctuation of JSON and sharding text may sit inside.
bool HloParser::skipBalanced(std::string_view what) {
  if (!at(TokenKind::LBrace) && !at(TokenKind::LBracket) &&
      !at(TokenKind::LParen))
    return expected(fmt::format("'{{' starting the value of {}", what));
  std::vector<Token> open;
  do {
    switch (tok_.kind) {
    case TokenKind::LBrace:
    case TokenKind::LBracket:
    case TokenKind::LParen:
      open.push_back(tok_);
      break;
    case TokenKind::RBrace:
    case TokenKind::RBracket:
    case TokenKind::RParen: {
      char opener = open.back().text[0];
      char closer = tok_.text[0];
      if ((opener == '{') != (closer == '}') ||
          (opener == '[') != (closer == ']'))
        return error(tok_.offset,
                     fmt::format("'{}' does not close the '{}' at {} in the "
                                 "value of {}",
                                 closer, opener, where(open.back().offset),
                                 what));
      open.pop_back();
      break;
    }
    case TokenKind::Eof:
      return error(open.back().offset,
                   fmt::format("unclosed '{}' in the value of {}",
                               open.back().text, what));
    case TokenKind::Invalid:
    case TokenKind::UnterminatedComment:
    case TokenKind::UnterminatedString:
      return expected(fmt::format("the rest of the value of {}", what));
    default:
      break;
    }
    advance();
  } while (!open.empty());
  return true;
}

} // namespace kiln::ir
