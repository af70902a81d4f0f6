//===- NestingDepth.cpp - A bracket-depth scan that ignores strings -------===//
#include "kiln/Support/NestingDepth.h"

#include "kiln/Support/Diagnostics.h"

namespace kiln {

namespace {
/// The index just past the string literal starting at `open` (a quote).
size_t skipString(std::string_view text, size_t open) {
  char quote = text[open];
  for (size_t i = open + 1; i < text.size(); ++i) {
    if (text[i] == '\\')
      ++i;
    else if (text[i] == quote || text[i] == '\n')
      return i + 1; // text format strings end at the line too
  }
  return text.size();
}
} // namespace

Error checkNestingDepth(std::string_view text, std::string_view file,
                        bool hashComments, int limit) {
  int depth = 0;
  for (size_t i = 0; i < text.size();) {
    char c = text[i];
    if (c == '"' || (hashComments && c == '\'')) {
      i = skipString(text, i);
      continue;
    }
    if (hashComments && c == '#') {
      size_t end = text.find('\n', i);
      i = end == std::string_view::npos ? text.size() : end + 1;
      continue;
    }
    if (c == '{' || c == '[' || c == '<') {
      if (++depth > limit)
        return Error::failure(formatSourceError(
            file, text, i,
            fmt::format("nested more than {} levels deep", limit)));
    } else if ((c == '}' || c == ']' || c == '>') && depth > 0) {
      --depth;
    }
    ++i;
  }
  return Error::success();
}

} // namespace kiln
