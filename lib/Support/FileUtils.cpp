//===- FileUtils.cpp - Whole-file reads and all-or-nothing writes ---------===//
#include "kiln/Support/FileUtils.h"

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <unistd.h>

namespace kiln {

namespace {
struct FileCloser {
  void operator()(std::FILE *file) const { std::fclose(file); }
};
using FilePtr = std::unique_ptr<std::FILE, FileCloser>;

std::string lastError() { return std::strerror(errno); }

template <typename Container>
Expected<Container> readWholeFile(const std::string &path) {
  FilePtr file(std::fopen(path.c_str(), "rb"));
  if (!file)
    return makeError("cannot open '{}': {}", path, lastError());
  Container contents;
  char buffer[1 << 16];
  size_t count;
  while ((count = std::fread(buffer, 1, sizeof(buffer), file.get())) > 0)
    contents.insert(contents.end(), buffer, buffer + count);
  // fopen succeeds on a directory; the read then fails with EISDIR.
  if (std::ferror(file.get()))
    return makeError("cannot read '{}': {}", path, lastError());
  return contents;
}

/// Writes `contents` to `actual`; errors name `path`, the file the user asked
/// for, not the temporary.
Error writeWholeFile(const std::string &path, const std::string &actual,
                     const std::string &contents) {
  FilePtr file(std::fopen(actual.c_str(), "wb"));
  if (!file)
    return makeError("cannot write '{}': {}", path, lastError());
  if (std::fwrite(contents.data(), 1, contents.size(), file.get()) !=
          contents.size() ||
      std::fflush(file.get()) != 0)
    return makeError("cannot write '{}': {}", path, lastError());
  if (std::fclose(file.release()) != 0)
    return makeError("cannot write '{}': {}", path, lastError());
  return Error::success();
}

/// A name beside `path` that no other AtomicFileSet in any process uses.
std::string temporaryName(const std::string &path) {
  static std::atomic<unsigned> counter{0};
  return fmt::format("{}.kiln-tmp-{}-{}", path, ::getpid(), counter++);
}
} // namespace

Expected<std::string> readTextFile(const std::string &path) {
  return readWholeFile<std::string>(path);
}

Expected<std::vector<uint8_t>> readBinaryFile(const std::string &path) {
  return readWholeFile<std::vector<uint8_t>>(path);
}

AtomicFileSet::~AtomicFileSet() {
  for (Pending &file : files_)
    if (!file.temporary.empty())
      std::remove(file.temporary.c_str());
}

void AtomicFileSet::add(std::string path, std::string contents) {
  files_.push_back({std::move(path), std::move(contents), ""});
}

Error AtomicFileSet::commit() {
  // On failure, remove every temporary now rather than at destruction, so
  // the caller sees a clean directory as soon as the error comes back.
  auto fail = [this](Error error) {
    for (Pending &file : files_) {
      if (!file.temporary.empty())
        std::remove(file.temporary.c_str());
      file.temporary.clear();
    }
    return error;
  };
  // Write every temporary first: a failure here leaves the targets untouched.
  for (Pending &file : files_) {
    file.temporary = temporaryName(file.path);
    if (Error error = writeWholeFile(file.path, file.temporary, file.contents))
      return fail(std::move(error));
  }
  // rename() replaces each target atomically.
  for (Pending &file : files_) {
    if (std::rename(file.temporary.c_str(), file.path.c_str()) != 0)
      return fail(makeError("cannot write '{}': {}", file.path, lastError()));
    file.temporary.clear();
  }
  files_.clear();
  return Error::success();
}

} // namespace kiln
