//===- FuzzGraphDef.cpp - libFuzzer target: a TensorFlow GraphDef ---------===//
//
// One source, three targets: KILN_FUZZ_EXTENSION (".pb", ".pbtxt" or
// ".json") picks the binary, text or JSON reader, as the file extension does
// for `kiln compile`. The whole import runs: prune, lower, verify.
//
//===----------------------------------------------------------------------===//

#include "FuzzSupport.h"
#include "ImportCheck.h"

#include "kiln/Import/TensorFlow.h"

#ifndef KILN_FUZZ_EXTENSION
#error "define KILN_FUZZ_EXTENSION as the model file's extension"
#endif

extern "C" int LLVMFuzzerInitialize(int *, char ***) {
  kiln::fuzz::silenceProtobufLogs();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string path = kiln::fuzz::writeScratchFile(
      "model" KILN_FUZZ_EXTENSION, kiln::fuzz::asText(data, size));
  auto model = kiln::import::importTensorFlow(path, {});
  kiln::fuzz::checkImport(model);
  return 0;
}
