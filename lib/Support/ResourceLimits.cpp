//===- ResourceLimits.cpp - The process-wide constant and arena budgets ---===//
#include "kiln/Support/ResourceLimits.h"

#include "kiln/Support/CheckedArithmetic.h"

namespace kiln {

ResourceLimits &resourceLimits() {
  static ResourceLimits limits;
  return limits;
}

namespace {
/// "WHAT needs N bytes, more than the limit of L bytes (FLAG)" unless
/// `bytes` is known and within `limit`.
Error checkBudget(std::string_view what, std::optional<int64_t> bytes,
                  int64_t limit, std::string_view flag) {
  if (bytes && *bytes >= 0 && *bytes <= limit)
    return Error::success();
  std::string asked =
      bytes && *bytes >= 0 ? fmt::format("{} bytes", *bytes)
                           : std::string("more than 2^63 bytes");
  return makeError("{} needs {}, more than the limit of {} bytes ({})", what,
                   asked, limit, flag);
}

std::optional<int64_t> totalBytes(std::optional<int64_t> count,
                                  int64_t elementBytes) {
  if (!count || *count < 0)
    return std::nullopt;
  return checkedMul(*count, elementBytes);
}
} // namespace

Error checkConstantBytes(std::string_view what, std::optional<int64_t> bytes) {
  return checkBudget(what, bytes, resourceLimits().maxConstantBytes,
                     "--max-constant-bytes");
}

Error checkConstantElements(std::string_view what, std::optional<int64_t> count,
                            int64_t elementBytes) {
  return checkConstantBytes(what, totalBytes(count, elementBytes));
}

Error checkArenaBytes(std::string_view what, std::optional<int64_t> bytes) {
  return checkBudget(what, bytes, resourceLimits().maxArenaBytes,
                     "--max-arena");
}

} // namespace kiln
