//===- FuzzHlo.cpp - libFuzzer target: HLO text, parsed and verified ------===//

#include "FuzzSupport.h"

#include "kiln/IR/Parser.h"
#include "kiln/IR/Verifier.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  auto module =
      kiln::ir::parseModule(kiln::fuzz::asText(data, size), "fuzz.hlo");
  if (!module) {
    kiln::fuzz::requireDiagnostic(module.errorMessage());
    return 0;
  }
  (void)kiln::ir::verifyModule(**module);
  return 0;
}
