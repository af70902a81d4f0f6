//===- FileUtils.h - Whole-file reads and atomic writes ---------*- C++ -*-===//
#ifndef KILN_SUPPORT_FILEUTILS_H
#define KILN_SUPPORT_FILEUTILS_H

#include "kiln/Support/Error.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace kiln {

/// Whole-file reads. Only regular files are read (a FIFO, a device such as
/// /dev/zero or a directory is an error, never read forever), and a file
/// larger than the constant budget (ResourceLimits) is refused before it is
/// read.
Expected<std::string> readTextFile(const std::string &path);
Expected<std::vector<uint8_t>> readBinaryFile(const std::string &path);

/// `length` bytes at `offset` of the regular file `path`; an error when the
/// file is shorter or the range is negative.
Expected<std::string> readFileRange(const std::string &path, int64_t offset,
                                    int64_t length);

/// `location`, relative to `baseDir`, as a path to open. Unless
/// --allow-external-paths is given, it must resolve (symbolic links
/// followed) inside `baseDir`: an absolute path or one that climbs out
/// with `..` is an error naming `what` (e.g. "external data location").
Expected<std::string> resolveInsideDirectory(const std::string &baseDir,
                                             const std::string &location,
                                             std::string_view what);

/// Collects files to be written together: nothing appears at the final
/// paths unless every file was written (each goes to a temporary beside its
/// target, then all are renamed). Temporaries are removed on failure or if
/// commit() is never called. A target that exists must be a regular file:
/// a device node, FIFO, directory or symbolic link is never replaced.
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
