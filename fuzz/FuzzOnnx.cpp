//===- FuzzOnnx.cpp - libFuzzer target: binary ONNX ModelProto ------------===//
//
// The input is the model's bytes; external data is looked up in the empty
// scratch directory, so only the reader and the lowerings are exercised.
//
//===----------------------------------------------------------------------===//

#include "FuzzSupport.h"
#include "ImportCheck.h"

#include "kiln/Import/Onnx.h"

extern "C" int LLVMFuzzerInitialize(int *, char ***) {
  kiln::fuzz::silenceProtobufLogs();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  auto model =
      kiln::import::importOnnxBytes(kiln::fuzz::asText(data, size), "fuzz.onnx",
                                    kiln::fuzz::scratchDir(), {});
  kiln::fuzz::checkImport(model);
  return 0;
}
