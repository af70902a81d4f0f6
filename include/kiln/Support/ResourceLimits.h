//===- ResourceLimits.h - What one kiln process may read and allocate -*- C++ -*-===//
//
// Models come from anywhere, so every size a reader or lowering takes from
// them is checked against one budget before anything is allocated: the
// bytes any one literal, host-side table or folded constant may occupy
// (--max-constant-bytes). The same settings say whether external data and
// weight shards may live outside the model's directory
// (--allow-external-paths). The tools set them once from their flags,
// before any model is read; the libraries only read them.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_SUPPORT_RESOURCELIMITS_H
#define KILN_SUPPORT_RESOURCELIMITS_H

#include "kiln/Support/Error.h"

#include <cstdint>
#include <optional>
#include <string_view>

namespace kiln {

struct ResourceLimits {
  /// 2 GiB: more than the largest single weight of the models kiln is
  /// tested on (and protobuf's own limit on a whole model file), and small
  /// enough that one bad tensor cannot take the machine's memory.
  static constexpr int64_t kDefaultMaxConstantBytes = int64_t(1) << 31;
  /// The most iterations all unrolled loops of one model may add up to.
  static constexpr int64_t kMaxUnrolledIterations = 8192;
  /// The most floating-point operations (kiln inspect's count) one
  /// compile-time fold may cost: the evaluator is a reference, not fast,
  /// and a convolution of constants can ask for billions. Costlier
  /// instructions are computed at run time.
  static constexpr int64_t kMaxFoldFlops = int64_t(1) << 24;

  int64_t maxConstantBytes = kDefaultMaxConstantBytes;
  bool allowExternalPaths = false;
};

/// The process's limits; the tools change them while parsing flags.
ResourceLimits &resourceLimits();

/// Success when a constant of `bytes` (nullopt: so many that the count
/// overflowed) fits the budget; otherwise "WHAT needs N bytes, more than the
/// limit of L bytes (--max-constant-bytes)".
Error checkConstantBytes(std::string_view what, std::optional<int64_t> bytes);

/// checkConstantBytes for `count` elements of `elementBytes` each.
Error checkConstantElements(std::string_view what, std::optional<int64_t> count,
                            int64_t elementBytes);

} // namespace kiln

#endif // KILN_SUPPORT_RESOURCELIMITS_H
