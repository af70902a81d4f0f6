//===- NpyTest.cpp - .npy reading and writing, checked against NumPy ------===//
//
// Expected bytes come from NumPy itself (/usr/bin/python3 writes the files
// and the raw C-order bytes, and reads back what kiln writes), never from
// kiln's own output.
//
//===----------------------------------------------------------------------===//
#include "kiln/Support/Npy.h"

#include "kiln/Support/FileUtils.h"
#include "kiln/Support/Float16.h"

#include <catch2/catch.hpp>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>

using namespace kiln;

namespace {
/// A fresh directory under the system temp dir, removed afterwards.
struct TempDir {
  std::string path;
  TempDir() {
    std::string pattern =
        (std::filesystem::temp_directory_path() / "kiln-npy-XXXXXX").string();
    path = ::mkdtemp(pattern.data());
  }
  ~TempDir() { std::filesystem::remove_all(path); }
  std::string operator/(const std::string &name) const {
    return path + "/" + name;
  }
};

/// Runs a Python script with NumPy; the script gets the directory as argv[1].
void runNumpy(const TempDir &dir, const std::string &script) {
  std::ofstream(dir / "script.py") << "import sys\nimport numpy as np\n"
                                   << "d = sys.argv[1]\n"
                                   << script;
  std::string command =
      "/usr/bin/python3 " + (dir / "script.py") + " " + dir.path;
  REQUIRE(std::system(command.c_str()) == 0);
}

std::vector<uint8_t> fileBytes(const std::string &path) {
  auto bytes = readBinaryFile(path);
  REQUIRE(bytes);
  return *bytes;
}

const char *const kNumpyDTypes[] = {
    "bool",   "int8",   "int16",   "int32",   "int64",   "uint8",
    "uint16", "uint32", "uint64", "float16", "float32", "float64"};

/// .npy bytes with a hand-written header (version 1.0 unless given).
std::vector<uint8_t> makeNpy(const std::string &header,
                             std::vector<uint8_t> data, uint8_t major = 1) {
  std::vector<uint8_t> bytes = {0x93, 'N', 'U', 'M', 'P', 'Y', major, 0};
  size_t length = header.size();
  bytes.push_back(uint8_t(length));
  bytes.push_back(uint8_t(length >> 8));
  if (major != 1) {
    bytes.push_back(uint8_t(length >> 16));
    bytes.push_back(uint8_t(length >> 24));
  }
  bytes.insert(bytes.end(), header.begin(), header.end());
  bytes.insert(bytes.end(), data.begin(), data.end());
  return bytes;
}

std::string parseError(const std::vector<uint8_t> &bytes) {
  auto array = parseNpy(bytes, "in.npy");
  REQUIRE(!array);
  return array.errorMessage();
}

template <typename T> std::vector<uint8_t> rawBytes(std::vector<T> values) {
  std::vector<uint8_t> bytes(values.size() * sizeof(T));
  std::memcpy(bytes.data(), values.data(), bytes.size());
  return bytes;
}
} // namespace

TEST_CASE("npy: reads every dtype NumPy writes, C and Fortran order",
          "[npy]") {
  TempDir dir;
  runNumpy(dir, R"(
base = np.array([[0, 1, 2], [3, 4, 5]])
for name in ['bool', 'int8', 'int16', 'int32', 'int64', 'uint8', 'uint16',
             'uint32', 'uint64', 'float16', 'float32', 'float64']:
    a = (base % 2 == 1) if name == 'bool' else base.astype(name)
    np.save(f'{d}/{name}.npy', a)
    np.save(f'{d}/{name}_fortran.npy', np.asfortranarray(a))
    open(f'{d}/{name}.bin', 'wb').write(a.tobytes(order='C'))
r3 = np.arange(24, dtype=np.int16).reshape(2, 3, 4)
np.save(f'{d}/rank3_fortran.npy', np.asfortranarray(r3))
open(f'{d}/rank3.bin', 'wb').write(r3.tobytes(order='C'))
)");
  for (const char *name : kNumpyDTypes) {
    INFO(name);
    std::vector<uint8_t> expected = fileBytes(dir / (std::string(name) + ".bin"));
    for (const char *suffix : {".npy", "_fortran.npy"}) {
      auto array = readNpyFile(dir / (name + std::string(suffix)));
      REQUIRE(array);
      CHECK(array->dtype == name);
      CHECK(array->shape == std::vector<int64_t>{2, 3});
      CHECK(array->data == expected);
    }
  }
  auto rank3 = readNpyFile(dir / "rank3_fortran.npy");
  REQUIRE(rank3);
  CHECK(rank3->shape == std::vector<int64_t>{2, 3, 4});
  CHECK(rank3->data == fileBytes(dir / "rank3.bin"));
}

TEST_CASE("npy: format versions 1.0, 2.0, 3.0, scalars, empty arrays, "
          "bfloat16",
          "[npy]") {
  TempDir dir;
  runNumpy(dir, R"(
a = np.array([[1.5, -2.0, 3.25], [0.0, 1e30, -0.5]], dtype=np.float32)
for major in (1, 2, 3):
    with open(f'{d}/v{major}.npy', 'wb') as f:
        np.lib.format.write_array(f, a, version=(major, 0))
open(f'{d}/v.bin', 'wb').write(a.tobytes())
np.save(f'{d}/scalar.npy', np.array(3.5, dtype=np.float64))
np.save(f'{d}/empty.npy', np.zeros((0, 3), dtype=np.int32))
np.save(f'{d}/empty_fortran.npy', np.asfortranarray(np.zeros((3, 0), np.uint8)))
np.save(f'{d}/big.npy', a.astype('>f4'))
np.save(f'{d}/complex.npy', np.zeros(2, dtype=np.complex64))
# ml_dtypes' bfloat16 has no NumPy type code: np.save writes it as '<V2'.
bits = np.array([0x3f80, 0x4000, 0xbf80], dtype='<u2')  # 1.0, 2.0, -1.0
with open(f'{d}/bf16.npy', 'wb') as f:
    np.lib.format.write_array_header_1_0(
        f, {'descr': '<V2', 'fortran_order': False, 'shape': (3,)})
    f.write(bits.tobytes())
np.save(f'{d}/void2.npy', bits.view('V2'))  # plain NumPy spells it '|V2'
)");
  std::vector<uint8_t> expected = fileBytes(dir / "v.bin");
  for (const char *file : {"v1.npy", "v2.npy", "v3.npy"}) {
    INFO(file);
    auto array = readNpyFile(dir / file);
    REQUIRE(array);
    CHECK(array->dtype == "float32");
    CHECK(array->data == expected);
  }

  auto scalar = readNpyFile(dir / "scalar.npy");
  REQUIRE(scalar);
  CHECK(scalar->shape.empty());
  CHECK(scalar->data == rawBytes<double>({3.5}));

  auto empty = readNpyFile(dir / "empty.npy");
  REQUIRE(empty);
  CHECK(empty->dtype == "int32");
  CHECK(empty->shape == std::vector<int64_t>{0, 3});
  CHECK(empty->data.empty());
  auto emptyF = readNpyFile(dir / "empty_fortran.npy");
  REQUIRE(emptyF);
  CHECK(emptyF->shape == std::vector<int64_t>{3, 0});

  for (const char *file : {"bf16.npy", "void2.npy"}) {
    auto bf16 = readNpyFile(dir / file);
    REQUIRE(bf16);
    CHECK(bf16->dtype == "bfloat16");
    CHECK(bf16->data == rawBytes<uint16_t>({0x3f80, 0x4000, 0xbf80}));
  }

  auto big = readNpyFile(dir / "big.npy");
  REQUIRE(!big);
  CHECK(big.errorMessage() ==
        dir / "big.npy" +
            ": error: big-endian '>f4' arrays are not supported; convert "
            "with arr.astype('<f4')");
  auto complex = readNpyFile(dir / "complex.npy");
  REQUIRE(!complex);
  CHECK_THAT(complex.errorMessage(),
             Catch::Contains("complex.npy: error: unsupported dtype '<c8'"));
}

TEST_CASE("npy: NumPy reads what kiln writes", "[npy]") {
  TempDir dir;
  auto write = [&](const std::string &file, NpyArray array) {
    REQUIRE(!writeNpyFile(dir / file, array));
  };
  std::vector<int64_t> shape = {2, 3};
  write("bool.npy", {"bool", shape, {0, 1, 0, 1, 0, 1}});
  write("int8.npy", {"int8", shape, rawBytes<int8_t>({0, 1, 2, 3, 4, 5})});
  write("int16.npy", {"int16", shape, rawBytes<int16_t>({0, 1, 2, 3, 4, 5})});
  write("int32.npy", {"int32", shape, rawBytes<int32_t>({0, 1, 2, 3, 4, 5})});
  write("int64.npy", {"int64", shape, rawBytes<int64_t>({0, 1, 2, 3, 4, 5})});
  write("uint8.npy", {"uint8", shape, rawBytes<uint8_t>({0, 1, 2, 3, 4, 5})});
  write("uint16.npy",
        {"uint16", shape, rawBytes<uint16_t>({0, 1, 2, 3, 4, 5})});
  write("uint32.npy",
        {"uint32", shape, rawBytes<uint32_t>({0, 1, 2, 3, 4, 5})});
  write("uint64.npy",
        {"uint64", shape, rawBytes<uint64_t>({0, 1, 2, 3, 4, 5})});
  std::vector<uint16_t> halves;
  for (float v : {0.f, 1.f, 2.f, 3.f, 4.f, 5.f})
    halves.push_back(floatToHalf(v));
  write("float16.npy", {"float16", shape, rawBytes(halves)});
  write("float32.npy", {"float32", shape, rawBytes<float>({0, 1, 2, 3, 4, 5})});
  write("float64.npy",
        {"float64", shape, rawBytes<double>({0, 1, 2, 3, 4, 5})});
  write("bfloat16.npy",
        {"bfloat16", {3}, rawBytes<uint16_t>({0x3f80, 0x4000, 0xbf80})});
  write("scalar.npy", {"float32", {}, rawBytes<float>({-7.25f})});
  write("empty.npy", {"int64", {4, 0, 2}, {}});
  runNumpy(dir, R"(
base = np.array([[0, 1, 2], [3, 4, 5]])
for name in ['bool', 'int8', 'int16', 'int32', 'int64', 'uint8', 'uint16',
             'uint32', 'uint64', 'float16', 'float32', 'float64']:
    a = np.load(f'{d}/{name}.npy')
    expected = (base % 2 == 1) if name == 'bool' else base.astype(name)
    assert a.dtype == expected.dtype, (name, a.dtype)
    assert a.shape == (2, 3), (name, a.shape)
    assert (a == expected).all(), (name, a)
bf = np.load(f'{d}/bfloat16.npy')
assert bf.dtype == np.dtype('V2') and bf.shape == (3,), bf.dtype
assert (bf.view('<u2') == [0x3f80, 0x4000, 0xbf80]).all()
s = np.load(f'{d}/scalar.npy')
assert s.shape == () and s.dtype == np.float32 and s == -7.25
e = np.load(f'{d}/empty.npy')
assert e.shape == (4, 0, 2) and e.dtype == np.int64
# The data starts 64-byte aligned, as NumPy's own writer does.
with open(f'{d}/float32.npy', 'rb') as f:
    major, minor = np.lib.format.read_magic(f)
    np.lib.format.read_array_header_1_0(f)
    assert (major, minor) == (1, 0) and f.tell() % 64 == 0, f.tell()
)");
}

TEST_CASE("npy: serialize then parse round-trips every dtype", "[npy]") {
  for (const char *name : kNumpyDTypes) {
    INFO(name);
    NpyArray array{name, {3, 1}, {}};
    size_t bytes = std::string_view(name) == "bool" ? 1 : 0;
    for (const auto &[prefix, size] :
         {std::pair{"int8", 1}, {"uint8", 1}, {"int16", 2}, {"uint16", 2},
          {"float16", 2}, {"int32", 4}, {"uint32", 4}, {"float32", 4},
          {"int64", 8}, {"uint64", 8}, {"float64", 8}})
      if (std::string_view(name) == prefix)
        bytes = size;
    for (size_t i = 0; i < 3 * bytes; ++i)
      array.data.push_back(std::string_view(name) == "bool" ? i % 2
                                                             : uint8_t(i * 7));
    auto parsed = parseNpy(serializeNpy(array), "x.npy");
    REQUIRE(parsed);
    CHECK(parsed->dtype == array.dtype);
    CHECK(parsed->shape == array.shape);
    CHECK(parsed->data == array.data);
  }
  NpyArray scalar{"bfloat16", {}, {0x80, 0x3f}};
  auto parsed = parseNpy(serializeNpy(scalar), "s.npy");
  REQUIRE(parsed);
  CHECK(parsed->shape.empty());
  CHECK(parsed->data == scalar.data);
}

TEST_CASE("npy: malformed files give errors naming the file", "[npy]") {
  const std::string good =
      "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }\n";
  std::vector<uint8_t> data(24, 0);
  REQUIRE(parseNpy(makeNpy(good, data), "in.npy"));

  CHECK(parseError({'P', 'K', 3, 4, 0, 0, 0, 0, 0, 0}) ==
        "in.npy: error: not a .npy file (bad magic bytes)");
  CHECK(parseError({}) == "in.npy: error: not a .npy file (bad magic bytes)");
  CHECK(parseError(makeNpy(good, std::vector<uint8_t>(10))) ==
        "in.npy: error: truncated data: float32[2,3] needs 24 bytes but the "
        "file has 10");
  CHECK(parseError(makeNpy(good, std::vector<uint8_t>(28))) ==
        "in.npy: error: excess data: float32[2,3] needs 24 bytes but the "
        "file has 28");
  std::vector<uint8_t> cut = makeNpy(good, data);
  cut.resize(30);
  CHECK_THAT(parseError(cut), Catch::StartsWith("in.npy: error: truncated "
                                                ".npy header"));
  CHECK(parseError(makeNpy(good, data, 4)) ==
        "in.npy: error: unsupported .npy format version 4.0 (kiln reads 1.0, "
        "2.0 and 3.0)");

  const char *badHeaders[] = {
      "{'descr': '<f4', 'fortran_order': Maybe, 'shape': (2, 3), }",
      "{'descr': '<f4', 'fortran_order': False, 'shape': [2, 3], }",
      "{'descr': '<f4', 'fortran_order': False}",
      "{'descr': '<f4', 'fortran_order': False, 'shape': (2, -3), }",
      "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), 'x': 1}",
      "{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (2,), }",
      "'descr': '<f4'",
  };
  for (const char *header : badHeaders) {
    INFO(header);
    CHECK_THAT(parseError(makeNpy(header, data)),
               Catch::StartsWith("in.npy: error: malformed .npy header: "));
  }
  CHECK(parseError(makeNpy("{'descr': '|O', 'fortran_order': False, "
                           "'shape': (2,), }",
                           data)) ==
        "in.npy: error: unsupported dtype '|O' (supported: bool, int8-int64, "
        "uint8-uint64, float16, float32, float64, bfloat16 as '<V2')");

  auto missing = readNpyFile("/nonexistent/dir/x.npy");
  REQUIRE(!missing);
  CHECK(missing.errorMessage() ==
        "cannot open '/nonexistent/dir/x.npy': No such file or directory");
}

TEST_CASE("npy: readNpyHeader reads the dtype and shape alone", "[npy]") {
  TempDir dir;
  runNumpy(dir, R"(
a = np.zeros((2, 3), dtype=np.float32)
for major in (1, 2, 3):
    with open(f'{d}/v{major}.npy', 'wb') as f:
        np.lib.format.write_array(f, a, version=(major, 0))
np.save(f'{d}/scalar.npy', np.array(7, dtype=np.int64))
with open(f'{d}/v1.npy', 'rb') as f:
    whole = f.read()
open(f'{d}/no_data.npy', 'wb').write(whole[:len(whole) - 24])
open(f'{d}/short_header.npy', 'wb').write(whole[:40])
open(f'{d}/tiny.npy', 'wb').write(whole[:5])
)");
  for (const char *file : {"v1.npy", "v2.npy", "v3.npy", "no_data.npy"}) {
    INFO(file);
    Expected<NpyHeader> header = readNpyHeader(dir / file);
    REQUIRE(header);
    CHECK(header->dtype == "float32");
    CHECK(header->shape == std::vector<int64_t>{2, 3});
  }
  Expected<NpyHeader> scalar = readNpyHeader(dir / "scalar.npy");
  REQUIRE(scalar);
  CHECK(scalar->dtype == "int64");
  CHECK(scalar->shape.empty());

  Expected<NpyHeader> short_ = readNpyHeader(dir / "short_header.npy");
  REQUIRE(!short_);
  CHECK_THAT(short_.errorMessage(),
             Catch::Contains("short_header.npy: error: truncated .npy header"));
  Expected<NpyHeader> tiny = readNpyHeader(dir / "tiny.npy");
  REQUIRE(!tiny);
  CHECK_THAT(tiny.errorMessage(),
             Catch::Contains("tiny.npy: error: not a .npy file"));
  CHECK(!readNpyHeader(dir / "missing.npy"));
}
