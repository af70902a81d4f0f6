//===- ResourceLimits.cpp - The process-wide constant budget --------------===//
#include "kiln/Support/ResourceLimits.h"

#include "kiln/Support/CheckedArithmetic.h"

namespace kiln {

ResourceLimits &resourceLimits() {
  static ResourceLimits limits;
  return limits;
}

Error checkConstantBytes(std::string_view what, std::optional<int64_t> bytes) {
  int64_t limit = resourceLimits().maxConstantBytes;
  if (bytes && *bytes >= 0 && *bytes <= limit)
    return Error::success();
  std::string asked =
      bytes && *bytes >= 0 ? fmt::format("{} bytes", *bytes)
                           : std::string("more than 2^63 bytes");
  return makeError("{} needs {}, more than the limit of {} bytes "
                   "(--max-constant-bytes)",
                   what, asked, limit);
}

Error checkConstantElements(std::string_view what, std::optional<int64_t> count,
                            int64_t elementBytes) {
  std::optional<int64_t> bytes;
  if (count && *count >= 0)
    bytes = checkedMul(*count, elementBytes);
  return checkConstantBytes(what, bytes);
}

} // namespace kiln
