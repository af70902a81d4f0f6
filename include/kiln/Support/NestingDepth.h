//===- NestingDepth.h - Refusing absurdly nested text before parsing -*- C++ -*-===//
//
// protobuf's text-format and JSON parsers and nlohmann's JSON recurse once
// per nesting level, so a small file of nothing but opening brackets (or an
// unknown field nested deep inside a config, which the parser skips
// recursively) overflows the stack. Real models nest a few dozen levels at
// most; a linear scan refuses anything deeper before any parser runs.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_SUPPORT_NESTINGDEPTH_H
#define KILN_SUPPORT_NESTINGDEPTH_H

#include "kiln/Support/Error.h"

#include <string_view>

namespace kiln {

/// The deepest nesting kiln reads in text or JSON model and config files.
constexpr int kMaxNestingDepth = 100;

/// An error "file:line:col: error: ..." at the bracket that nests deeper
/// than `limit` levels. Brackets are `{ [ <` and their closers; those inside
/// quoted strings and, when `hashComments` (protobuf text format), inside
/// `#` comments do not count.
Error checkNestingDepth(std::string_view text, std::string_view file,
                        bool hashComments, int limit = kMaxNestingDepth);

} // namespace kiln

#endif // KILN_SUPPORT_NESTINGDEPTH_H
