//===- ResourceLimits.h - What one kiln process may read and allocate -*- C++ -*-===//
//
// Models come from anywhere, so every size a reader or lowering takes from
// them is checked against a budget before anything is allocated: the bytes
// any one literal, host-side table or folded constant may occupy
// (--max-constant-bytes), and the bytes any one input, result or
// intermediate value, and the arena holding the intermediates, may occupy
// when a model is compiled or run (--max-arena). The same settings say
// whether external data and weight shards may live outside the model's
// directory (--allow-external-paths). The tools set them once from their
// flags, before any model is read; the libraries only read them.
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
  /// 4 GiB: the most bytes one argument, result, intermediate value or the
  /// whole arena may take. Activations can outgrow weights (a batch of
  /// images), so it is twice the constant budget; it is also the whole
  /// address space of a 32-bit device, so a model over it is almost
  /// always a mistyped or hostile shape, and a wrong [1e12, 4] input is an
  /// error instead of a failed multi-terabyte allocation.
  static constexpr int64_t kDefaultMaxArenaBytes = int64_t(1) << 32;
  /// The most iterations all unrolled loops of one model may add up to.
  static constexpr int64_t kMaxUnrolledIterations = 8192;
  /// The most floating-point operations (kiln inspect's count) one
  /// compile-time fold may cost: the evaluator is a reference, not fast,
  /// and a convolution of constants can ask for billions. Costlier
  /// instructions are computed at run time.
  static constexpr int64_t kMaxFoldFlops = int64_t(1) << 24;

  int64_t maxConstantBytes = kDefaultMaxConstantBytes;
  int64_t maxArenaBytes = kDefaultMaxArenaBytes;
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

/// Success when a value or arena of `bytes` (nullopt: so many that the
/// count overflowed) fits the budget; otherwise "WHAT needs N bytes, more
/// than the limit of L bytes (--max-arena)".
Error checkArenaBytes(std::string_view what, std::optional<int64_t> bytes);

} // namespace kiln

#endif // KILN_SUPPORT_RESOURCELIMITS_H
