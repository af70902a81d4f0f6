//===- Diagnostics.h - User-facing error and warning messages ---*- C++ -*-===//
//
// Formats messages the way every kiln tool prints them:
//   model.hlo:12:7: error: expected ']' but found ','
//     %x = f32[2,3,] parameter(0)
//                  ^
//   model.pb: node 'conv1' (Conv2D): error: unsupported data_format 'NCHW_VECT_C'
// Lower-case, no final period, expected vs found.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_SUPPORT_DIAGNOSTICS_H
#define KILN_SUPPORT_DIAGNOSTICS_H

#include <string>
#include <string_view>

namespace kiln {

/// A 1-based line and column in a text file.
struct SourceLocation {
  int line = 0;
  int column = 0;
};

/// Computes the location of byte `offset` in `text`.
SourceLocation locationOf(std::string_view text, size_t offset);

/// "file:line:col: error: message\n  <source line>\n  <caret>" where the
/// source line is taken from `text`. No trailing newline.
std::string formatSourceError(std::string_view file, std::string_view text,
                              size_t offset, std::string_view message);

/// "file: node 'name' (Op): error: message".
std::string formatNodeError(std::string_view file, std::string_view node,
                            std::string_view op, std::string_view message);

/// "kiln: warning: message", printed to stderr by the tools.
std::string formatWarning(std::string_view message);

} // namespace kiln

#endif // KILN_SUPPORT_DIAGNOSTICS_H
