//===- FileUtils.cpp - Whole-file reads and all-or-nothing writes ---------===//
#include "kiln/Support/FileUtils.h"

#include "kiln/Support/CheckedArithmetic.h"
#include "kiln/Support/ResourceLimits.h"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <memory>
#include <sys/stat.h>
#include <unistd.h>

namespace kiln {

namespace {
struct FileCloser {
  void operator()(std::FILE *file) const { std::fclose(file); }
};
using FilePtr = std::unique_ptr<std::FILE, FileCloser>;

std::string lastError() { return std::strerror(errno); }

/// What a non-regular file is, for messages.
const char *fileKind(mode_t mode) {
  if (S_ISDIR(mode))
    return "a directory";
  if (S_ISFIFO(mode))
    return "a FIFO";
  if (S_ISCHR(mode))
    return "a character device";
  if (S_ISBLK(mode))
    return "a block device";
  if (S_ISSOCK(mode))
    return "a socket";
  if (S_ISLNK(mode))
    return "a symbolic link";
  return "not a regular file";
}

/// A file descriptor closed on scope exit.
class Descriptor {
public:
  explicit Descriptor(int fd) : fd_(fd) {}
  ~Descriptor() {
    if (fd_ >= 0)
      ::close(fd_);
  }
  Descriptor(const Descriptor &) = delete;
  Descriptor &operator=(const Descriptor &) = delete;
  int get() const { return fd_; }
  void reset(int fd) {
    if (fd_ >= 0)
      ::close(fd_);
    fd_ = fd;
  }

private:
  int fd_;
};

/// Opens `path` for reading if it is a regular file and returns its size.
/// O_NONBLOCK keeps open() from waiting for a writer on a FIFO; it has no
/// effect on the reads of a regular file.
Expected<int64_t> openRegular(const std::string &path, Descriptor &out) {
  int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0)
    return makeError("cannot open '{}': {}", path, lastError());
  out.reset(fd);
  struct stat info;
  if (::fstat(fd, &info) != 0)
    return makeError("cannot read '{}': {}", path, lastError());
  if (!S_ISREG(info.st_mode))
    return makeError("cannot read '{}': it is {}, not a regular file", path,
                     fileKind(info.st_mode));
  return int64_t(info.st_size);
}

/// Reads exactly `length` bytes at `offset`; a short read means the file
/// shrank or lied about its size.
Error readExactly(int fd, const std::string &path, int64_t offset,
                  int64_t length, char *out) {
  int64_t done = 0;
  while (done < length) {
    ssize_t count = ::pread(fd, out + done, size_t(length - done),
                            off_t(offset + done));
    if (count < 0 && errno == EINTR)
      continue;
    if (count < 0)
      return makeError("cannot read '{}': {}", path, lastError());
    if (count == 0)
      return makeError("cannot read '{}': the file ended after {} bytes", path,
                       offset + done);
    done += count;
  }
  return Error::success();
}

template <typename Container>
Expected<Container> readWholeFile(const std::string &path) {
  Descriptor fd(-1);
  Expected<int64_t> size = openRegular(path, fd);
  if (!size)
    return size.takeError();
  if (Error error = checkConstantBytes(fmt::format("reading '{}'", path), *size))
    return error;
  Container contents(size_t(*size), 0);
  if (Error error = readExactly(fd.get(), path, 0, *size,
                                reinterpret_cast<char *>(contents.data())))
    return error;
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

/// Outputs replace only regular files: renaming over a device node, FIFO
/// or symbolic link would replace it (as root, `-o /dev/null` would delete
/// the device), and a directory cannot be replaced at all.
Error checkReplaceable(const std::string &path) {
  struct stat info;
  if (::lstat(path.c_str(), &info) != 0) {
    if (errno == ENOENT)
      return Error::success(); // a new file
    return makeError("cannot write '{}': {}", path, lastError());
  }
  if (!S_ISREG(info.st_mode))
    return makeError("cannot write '{}': it is {}; kiln writes only to new "
                     "paths or regular files",
                     path, fileKind(info.st_mode));
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

Expected<std::string> readFileRange(const std::string &path, int64_t offset,
                                    int64_t length) {
  Descriptor fd(-1);
  Expected<int64_t> size = openRegular(path, fd);
  if (!size)
    return size.takeError();
  std::optional<int64_t> end = checkedAdd(offset, length);
  if (offset < 0 || length < 0 || !end || *end > *size)
    return makeError("'{}' has {} bytes: it cannot hold {} bytes at offset {}",
                     path, *size, length, offset);
  if (Error error =
          checkConstantBytes(fmt::format("reading '{}'", path), length))
    return error;
  std::string bytes(size_t(length), '\0');
  if (Error error = readExactly(fd.get(), path, offset, length, bytes.data()))
    return error;
  return bytes;
}

Expected<std::string> resolveInsideDirectory(const std::string &baseDir,
                                             const std::string &location,
                                             std::string_view what) {
  namespace fs = std::filesystem;
  fs::path base = baseDir.empty() ? fs::path(".") : fs::path(baseDir);
  fs::path relative(location);
  if (resourceLimits().allowExternalPaths)
    return (base / relative).string();
  if (relative.is_absolute())
    return makeError("{} '{}' is an absolute path; it must be inside the "
                     "model's directory (--allow-external-paths allows it)",
                     what, location);
  // weakly_canonical follows the symbolic links of the parts that exist,
  // so a link inside the directory that points out of it is caught too.
  std::error_code error;
  fs::path root = fs::weakly_canonical(base, error);
  fs::path target = error ? fs::path() : fs::weakly_canonical(base / relative, error);
  if (error)
    return makeError("{} '{}': {}", what, location, error.message());
  bool inside = std::mismatch(root.begin(), root.end(), target.begin(),
                              target.end())
                    .first == root.end();
  if (!inside || target == root)
    return makeError("{} '{}' resolves to '{}', outside the model's directory "
                     "'{}' (--allow-external-paths allows it)",
                     what, location, target.string(), root.string());
  return (base / relative).string();
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
  for (Pending &file : files_)
    if (Error error = checkReplaceable(file.path))
      return fail(std::move(error));
  // Write every temporary first: a failure here leaves the targets untouched.
  for (Pending &file : files_) {
    file.temporary = temporaryName(file.path);
    if (Error error = writeWholeFile(file.path, file.temporary, file.contents))
      return fail(std::move(error));
  }
  // rename() replaces each target atomically. The targets are checked
  // again: one may have been replaced while the temporaries were written.
  for (Pending &file : files_)
    if (Error error = checkReplaceable(file.path))
      return fail(std::move(error));
  for (Pending &file : files_) {
    if (std::rename(file.temporary.c_str(), file.path.c_str()) != 0)
      return fail(makeError("cannot write '{}': {}", file.path, lastError()));
    file.temporary.clear();
  }
  files_.clear();
  return Error::success();
}

} // namespace kiln
