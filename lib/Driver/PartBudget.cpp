//===- PartBudget.cpp - The model against --max-flash and --max-ram -------===//
#include "PartBudget.h"
#include "MemoryBudget.h"

#include <fmt/format.h>

namespace kiln::driver {

namespace {

int64_t tensorBytes(const std::vector<aot::TensorInfo> &tensors) {
  int64_t total = 0;
  for (const aot::TensorInfo &tensor : tensors)
    total += tensor.bytes;
  return total;
}

Error checkFlash(int64_t limit, const aot::ModelInfo &info,
                 const ObjectFootprint &object) {
  if (limit == 0 || object.flashBytes() <= limit)
    return Error::success();
  return makeError(
      "the model does not fit --max-flash {}: it needs {} bytes of flash "
      "(code {}, read-only data {} of which weights {}, initialized data {})",
      limit, object.flashBytes(), object.codeBytes, object.readOnlyBytes,
      info.objectWeightBytes, object.initializedDataBytes);
}

Error checkRam(int64_t limit, const aot::ModelInfo &info,
               const ObjectFootprint &object,
               const analysis::BufferAssignment &buffers) {
  int64_t needed = ramBytes(info, object);
  if (limit == 0 || needed <= limit)
    return Error::success();
  std::string arenaNote =
      info.arenaBytes > 0 ? ": " + largestArenaValue(buffers) : "";
  return makeError("the model does not fit --max-ram {}: it needs {} bytes "
                   "of RAM (arena {}{}; inputs {}; results {}; writable data "
                   "{})",
                   limit, needed, info.arenaBytes, arenaNote,
                   tensorBytes(info.args), tensorBytes(info.results),
                   object.writableDataBytes());
}

} // namespace

int64_t ramBytes(const aot::ModelInfo &info, const ObjectFootprint &object) {
  return info.arenaBytes + tensorBytes(info.args) + tensorBytes(info.results) +
         object.writableDataBytes();
}

Error checkPartBudget(const PartLimits &limits, const aot::ModelInfo &info,
                      const ObjectFootprint &object,
                      const analysis::BufferAssignment &buffers) {
  if (Error error = checkFlash(limits.maxFlashBytes, info, object))
    return error;
  return checkRam(limits.maxRamBytes, info, object, buffers);
}

} // namespace kiln::driver
