//===- FileUtilsTest.cpp - Whole-file reads and AtomicFileSet -------------===//
#include "kiln/Support/FileUtils.h"

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

using namespace kiln;
namespace fs = std::filesystem;

namespace {
struct TempDir {
  std::string path;
  TempDir() {
    std::string pattern = (fs::temp_directory_path() / "kiln-fu-XXXXXX").string();
    path = ::mkdtemp(pattern.data());
  }
  ~TempDir() { fs::remove_all(path); }
  std::string operator/(const std::string &name) const {
    return path + "/" + name;
  }
  /// File names in the directory, sorted.
  std::vector<std::string> list() const {
    std::vector<std::string> names;
    for (const auto &entry : fs::directory_iterator(path))
      names.push_back(entry.path().filename().string());
    std::sort(names.begin(), names.end());
    return names;
  }
};

std::string slurp(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}
} // namespace

TEST_CASE("readTextFile and readBinaryFile read whole files", "[files]") {
  TempDir dir;
  std::string contents("line 1\nbinary \0\xff bytes\n", 23);
  std::ofstream(dir / "a.txt", std::ios::binary) << contents;
  auto text = readTextFile(dir / "a.txt");
  REQUIRE(text);
  CHECK(*text == contents);
  auto bytes = readBinaryFile(dir / "a.txt");
  REQUIRE(bytes);
  CHECK(std::string(bytes->begin(), bytes->end()) == contents);

  std::ofstream(dir / "empty");
  auto empty = readBinaryFile(dir / "empty");
  REQUIRE(empty);
  CHECK(empty->empty());
}

TEST_CASE("file read errors name the path and the system's reason",
          "[files]") {
  TempDir dir;
  auto missing = readTextFile(dir / "x.hlo");
  REQUIRE(!missing);
  CHECK(missing.errorMessage() ==
        "cannot open '" + (dir / "x.hlo") + "': No such file or directory");
  auto directory = readBinaryFile(dir.path);
  REQUIRE(!directory);
  CHECK(directory.errorMessage() ==
        "cannot read '" + dir.path + "': it is a directory, not a regular file");
}

TEST_CASE("AtomicFileSet writes every file on commit", "[files]") {
  TempDir dir;
  std::ofstream(dir / "b.txt") << "old contents";
  AtomicFileSet files;
  files.add(dir / "a.txt", "alpha");
  files.add(dir / "b.txt", std::string("be\0ta", 5));
  CHECK(dir.list() == std::vector<std::string>{"b.txt"}); // nothing yet
  REQUIRE(!files.commit());
  CHECK(dir.list() == std::vector<std::string>{"a.txt", "b.txt"});
  CHECK(slurp(dir / "a.txt") == "alpha");
  CHECK(slurp(dir / "b.txt") == std::string("be\0ta", 5));
}

TEST_CASE("AtomicFileSet leaves nothing behind without a commit",
          "[files]") {
  TempDir dir;
  {
    AtomicFileSet files;
    files.add(dir / "a.txt", "alpha");
  }
  CHECK(dir.list().empty());
}

TEST_CASE("AtomicFileSet writes nothing when one file cannot be written",
          "[files]") {
  TempDir dir;
  std::ofstream(dir / "keep.txt") << "untouched";
  AtomicFileSet files;
  files.add(dir / "keep.txt", "new");
  files.add(dir / "c.txt", "gamma");
  files.add(dir / "missing-dir/d.txt", "delta");
  Error error = files.commit();
  REQUIRE(error);
  CHECK(error.message() == "cannot write '" + (dir / "missing-dir/d.txt") +
                               "': No such file or directory");
  CHECK(dir.list() == std::vector<std::string>{"keep.txt"});
  CHECK(slurp(dir / "keep.txt") == "untouched");
}
