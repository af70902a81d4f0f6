//===- FuzzSupport.cpp - Scratch files and result checks for fuzzing ------===//

#include "FuzzSupport.h"

#include <google/protobuf/stubs/logging.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>

namespace kiln::fuzz {

namespace {
void removeScratchDir() {
  std::error_code ignored;
  std::filesystem::remove_all(scratchDir(), ignored);
}
} // namespace

const std::string &scratchDir() {
  // Never destroyed: the atexit handler below runs after static destructors
  // registered before it, so it must not read a destroyed string.
  static const std::string &dir = *new std::string([] {
    std::string pattern =
        (std::filesystem::temp_directory_path() / "kiln-fuzz-XXXXXX").string();
    if (!mkdtemp(pattern.data())) {
      std::perror("kiln fuzz: cannot create a scratch directory");
      std::abort();
    }
    return pattern;
  }());
  static const bool removedAtExit = std::atexit(removeScratchDir) == 0;
  (void)removedAtExit;
  return dir;
}

std::string writeScratchFile(const std::string &name, std::string_view bytes) {
  std::string path = scratchDir() + "/" + name;
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), std::streamsize(bytes.size()));
  if (!out) {
    std::fprintf(stderr, "kiln fuzz: cannot write %s\n", path.c_str());
    std::abort();
  }
  return path;
}

void silenceProtobufLogs() { google::protobuf::SetLogHandler(nullptr); }

void requireDiagnostic(const std::string &message) {
  if (!message.empty())
    return;
  std::fprintf(stderr, "kiln fuzz: a failure without a message\n");
  std::abort();
}

} // namespace kiln::fuzz
