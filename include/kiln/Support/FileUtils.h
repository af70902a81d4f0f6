//===- FileUtils.h - Whole-file reads and atomic writes ---------*- C++ -*-===//
#ifndef KILN_SUPPORT_FILEUTILS_H
#define KILN_SUPPORT_FILEUTILS_H

#include "kiln/Support/Error.h"

#include <string>
#include <vector>

namespace kiln {

Expected<std::string> readTextFile(const std::string &path);
Expected<std::vector<uint8_t>> readBinaryFile(const std::string &path);

/// Collects files to be written together: nothing appears at the final
/// paths unless every file was written (each goes to a temporary beside its
/// target, then all are renamed). Temporaries are removed on failure or if
/// commit() is never called.
class AtomicFileSet {
public:
  AtomicFileSet() = default;
  ~AtomicFileSet();
  AtomicFileSet(const AtomicFileSet &) = delete;
  AtomicFileSet &operator=(const AtomicFileSet &) = delete;

  void add(std::string path, std::string contents);
  Error commit();

private:
  struct Pending {
    std::string path, contents, temporary;
  };
  std::vector<Pending> files_;
};

} // namespace kiln

#endif // KILN_SUPPORT_FILEUTILS_H
