//===- FuzzNpy.cpp - libFuzzer target: NumPy .npy files -------------------===//
//
// Besides not crashing, an array that parses must survive a round trip
// through serializeNpy unchanged.
//
//===----------------------------------------------------------------------===//

#include "FuzzSupport.h"

#include "kiln/Support/Npy.h"

#include <cstdio>
#include <cstdlib>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  auto array =
      kiln::parseNpy(std::vector<uint8_t>(data, data + size), "fuzz.npy");
  if (!array) {
    kiln::fuzz::requireDiagnostic(array.errorMessage());
    return 0;
  }
  auto again = kiln::parseNpy(kiln::serializeNpy(*array), "round-trip.npy");
  if (!again || again->dtype != array->dtype || again->shape != array->shape ||
      again->data != array->data) {
    std::fprintf(stderr, "kiln fuzz: .npy round trip changed the array\n");
    std::abort();
  }
  return 0;
}
