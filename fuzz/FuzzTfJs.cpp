//===- FuzzTfJs.cpp - libFuzzer target: TF.js model.json with a shard -----===//
//
// The input is model.json, then the separator line below, then the bytes of
// one weight shard written as shard.bin beside it (the seed corpus rewrites
// each model's weightsManifest to that one shard; fuzz/make_corpus.py).
// Without a separator the whole input is model.json and no shard exists.
//
//===----------------------------------------------------------------------===//

#include "FuzzSupport.h"
#include "ImportCheck.h"

#include "kiln/Import/TensorFlow.h"

namespace {
constexpr std::string_view kShardSeparator = "\n--kiln-shard--\n";
} // namespace

extern "C" int LLVMFuzzerInitialize(int *, char ***) {
  kiln::fuzz::silenceProtobufLogs();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string_view input = kiln::fuzz::asText(data, size);
  size_t split = input.find(kShardSeparator);
  std::string_view json = input.substr(0, split);
  std::string_view shard = split == std::string_view::npos
                               ? std::string_view()
                               : input.substr(split + kShardSeparator.size());
  std::string path = kiln::fuzz::writeScratchFile("model.json", json);
  kiln::fuzz::writeScratchFile("shard.bin", shard);
  auto model = kiln::import::importTensorFlow(path, {});
  kiln::fuzz::checkImport(model);
  return 0;
}
