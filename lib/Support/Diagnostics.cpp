//===- Diagnostics.cpp - User-facing error and warning messages -----------===//
#include "kiln/Support/Diagnostics.h"

#include <algorithm>
#include <fmt/format.h>

namespace kiln {

SourceLocation locationOf(std::string_view text, size_t offset) {
  offset = std::min(offset, text.size());
  SourceLocation location{1, 1};
  for (size_t i = 0; i < offset; ++i) {
    if (text[i] == '\n') {
      ++location.line;
      location.column = 1;
    } else {
      ++location.column;
    }
  }
  return location;
}

/// Makes a source line safe to echo: binary garbage becomes '?'.
static std::string printableLine(std::string_view line) {
  std::string result;
  for (char c : line)
    result += (c == '\t' || (c >= 0x20 && c < 0x7f)) ? c : '?';
  return result;
}

std::string formatSourceError(std::string_view file, std::string_view text,
                              size_t offset, std::string_view message) {
  offset = std::min(offset, text.size());
  SourceLocation location = locationOf(text, offset);
  size_t lineStart =
      offset == 0 ? std::string_view::npos : text.rfind('\n', offset - 1);
  lineStart = lineStart == std::string_view::npos ? 0 : lineStart + 1;
  size_t lineEnd = text.find('\n', offset);
  if (lineEnd == std::string_view::npos)
    lineEnd = text.size();
  std::string line = printableLine(text.substr(lineStart, lineEnd - lineStart));
  // Long lines (a constant with thousands of values) are cut around the caret.
  size_t caret = offset - lineStart;
  if (line.size() > 160) {
    size_t from = caret > 80 ? caret - 80 : 0;
    line = line.substr(from, 160);
    caret -= from;
  }
  std::string caretLine(caret, ' ');
  for (size_t i = 0; i < caret && i < line.size(); ++i)
    if (line[i] == '\t')
      caretLine[i] = '\t';
  return fmt::format("{}:{}:{}: error: {}\n  {}\n  {}^", file, location.line,
                     location.column, message, line, caretLine);
}

std::string formatNodeError(std::string_view file, std::string_view node,
                            std::string_view op, std::string_view message) {
  return fmt::format("{}: node '{}' ({}): error: {}", file, node, op, message);
}

std::string formatWarning(std::string_view message) {
  return fmt::format("kiln: warning: {}", message);
}

} // namespace kiln
