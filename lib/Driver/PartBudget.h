//===- PartBudget.h - The model against a part's flash and RAM --*- C++ -*-===//
//
// A microcontroller has a fixed flash and RAM. `kiln compile --max-flash N
// --max-ram M` measures what the compiled model takes of each and refuses
// to write anything when it does not fit:
//   flash = the object's code, read-only data (weights included) and the
//           initial values of its writable data;
//   RAM   = the arena, the inputs and results the caller holds, and the
//           object's writable data (initialized and zeroed).
// The manifest's "sizes" reports both, limits or not. This is the part's
// budget; --max-arena (MemoryBudget.h) is the compiling process's own.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_LIB_DRIVER_PARTBUDGET_H
#define KILN_LIB_DRIVER_PARTBUDGET_H

#include "kiln/AOT/ModelInfo.h"
#include "kiln/Analysis/BufferAssignment.h"
#include "kiln/Support/Error.h"

#include <cstdint>
#include <string_view>

namespace kiln::driver {

/// The object's allocated sections by where a microcontroller keeps them
/// (ObjectSections.cpp). Sections the program never loads (symbols,
/// relocations, debug information) are not counted.
struct ObjectFootprint {
  int64_t codeBytes = 0;            ///< executable sections: flash
  int64_t readOnlyBytes = 0;        ///< read-only data, weights included: flash
  int64_t initializedDataBytes = 0; ///< writable data: flash image and RAM
  int64_t zeroedDataBytes = 0;      ///< .bss: RAM only

  int64_t flashBytes() const {
    return codeBytes + readOnlyBytes + initializedDataBytes;
  }
  int64_t writableDataBytes() const {
    return initializedDataBytes + zeroedDataBytes;
  }
};

/// The allocated sections of an object file, summed by kind. On ELF the
/// section flags decide; other formats have no portable writable flag, so
/// their data sections count as read-only.
Expected<ObjectFootprint> readObjectFootprint(std::string_view object);

/// The RAM the model needs: arena, inputs, results, writable data.
int64_t ramBytes(const aot::ModelInfo &info, const ObjectFootprint &object);

/// --max-flash and --max-ram; 0 is no limit.
struct PartLimits {
  int64_t maxFlashBytes = 0;
  int64_t maxRamBytes = 0;
};

/// The model fits `limits`; otherwise an error with the bytes needed by
/// kind, and for RAM the arena's largest value.
Error checkPartBudget(const PartLimits &limits, const aot::ModelInfo &info,
                      const ObjectFootprint &object,
                      const analysis::BufferAssignment &buffers);

} // namespace kiln::driver

#endif // KILN_LIB_DRIVER_PARTBUDGET_H
