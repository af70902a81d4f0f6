//===- Npy.cpp - NumPy .npy file reading and writing ----------------------===//
//
// The format (numpy.lib.format): magic "\x93NUMPY", major and minor version
// bytes, a little-endian header length (2 bytes in 1.0, 4 bytes in 2.0 and
// 3.0), then a Python dict literal {'descr': '<f4', 'fortran_order': False,
// 'shape': (2, 3), } padded with spaces and '\n', then the raw elements.
//
// bfloat16: numpy cannot name ml_dtypes' bfloat16, so np.save writes it with
// the void descr '<V2' (jax-ml/ml_dtypes#41). kiln reads every 2-byte void
// array as bfloat16 and writes bfloat16 as '<V2'; in Python, view such a file
// with np.load(f).view(ml_dtypes.bfloat16).
//
//===----------------------------------------------------------------------===//
#include "kiln/Support/Npy.h"

#include "kiln/Support/FileUtils.h"

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <optional>
#include <string_view>

namespace kiln {

namespace {
constexpr char kMagic[] = "\x93NUMPY";
constexpr size_t kMagicSize = 6;
// numpy >= 1.23 pads the header so the data starts on a 64-byte boundary.
constexpr size_t kHeaderAlignment = 64;

struct NpyDType {
  std::string_view kind; // descr without its byte-order character
  std::string_view name;
  size_t bytes;
};

// One row per element type kiln reads and writes.
constexpr NpyDType kDTypes[] = {
    {"b1", "bool", 1},    {"i1", "int8", 1},    {"i2", "int16", 2},
    {"i4", "int32", 4},   {"i8", "int64", 8},   {"u1", "uint8", 1},
    {"u2", "uint16", 2},  {"u4", "uint32", 4},  {"u8", "uint64", 8},
    {"f2", "float16", 2}, {"f4", "float32", 4}, {"f8", "float64", 8},
    {"V2", "bfloat16", 2},
};

const NpyDType *findByName(std::string_view name) {
  for (const NpyDType &row : kDTypes)
    if (row.name == name)
      return &row;
  return nullptr;
}

/// The little parser of the header's Python dict literal.
class HeaderParser {
public:
  HeaderParser(std::string_view text, const std::string &file)
      : text_(text), file_(file) {}

  Error parse(std::string &descr, bool &fortranOrder,
              std::vector<int64_t> &shape);

private:
  void skipSpace() {
    while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\t' ||
                                   text_[pos_] == '\n'))
      ++pos_;
  }
  bool consume(char c) {
    skipSpace();
    if (pos_ < text_.size() && text_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }
  bool consumeWord(std::string_view word) {
    skipSpace();
    if (text_.substr(pos_, word.size()) != word)
      return false;
    pos_ += word.size();
    return true;
  }
  Error fail(std::string_view what) const {
    return makeError("{}: error: malformed .npy header: {} in {}", file_, what,
                     text_.substr(0, text_.find_last_not_of(" \n") + 1));
  }
  std::optional<std::string> parseString();
  Error parseShape(std::vector<int64_t> &shape);

  std::string_view text_;
  const std::string &file_;
  size_t pos_ = 0;
};

std::optional<std::string> HeaderParser::parseString() {
  skipSpace();
  if (pos_ >= text_.size() || (text_[pos_] != '\'' && text_[pos_] != '"'))
    return std::nullopt;
  char quote = text_[pos_++];
  size_t end = text_.find(quote, pos_);
  if (end == std::string_view::npos)
    return std::nullopt;
  std::string value(text_.substr(pos_, end - pos_));
  pos_ = end + 1;
  return value;
}

Error HeaderParser::parseShape(std::vector<int64_t> &shape) {
  if (!consume('('))
    return fail("expected a tuple for 'shape'");
  while (!consume(')')) {
    skipSpace();
    size_t start = pos_;
    int64_t value = 0;
    while (pos_ < text_.size() && text_[pos_] >= '0' && text_[pos_] <= '9') {
      if (value > (INT64_MAX - 9) / 10)
        return fail("dimension too large");
      value = value * 10 + (text_[pos_++] - '0');
    }
    if (pos_ == start)
      return fail("expected a non-negative integer dimension");
    consumeWord("L"); // Python 2 longs
    shape.push_back(value);
    if (!consume(',') && (skipSpace(), pos_ >= text_.size() || text_[pos_] != ')'))
      return fail("expected ',' or ')' in 'shape'");
  }
  return Error::success();
}

Error HeaderParser::parse(std::string &descr, bool &fortranOrder,
                          std::vector<int64_t> &shape) {
  bool seenDescr = false, seenOrder = false, seenShape = false;
  if (!consume('{'))
    return fail("expected '{'");
  while (!consume('}')) {
    std::optional<std::string> key = parseString();
    if (!key || !consume(':'))
      return fail("expected 'key': value");
    if (*key == "descr") {
      std::optional<std::string> value = parseString();
      if (!value)
        return fail("'descr' is not a simple dtype string (structured "
                    "dtypes are not supported)");
      descr = *value;
      seenDescr = true;
    } else if (*key == "fortran_order") {
      if (consumeWord("True"))
        fortranOrder = true;
      else if (consumeWord("False"))
        fortranOrder = false;
      else
        return fail("expected True or False for 'fortran_order'");
      seenOrder = true;
    } else if (*key == "shape") {
      if (Error error = parseShape(shape))
        return error;
      seenShape = true;
    } else {
      return fail(fmt::format("unexpected key '{}'", *key));
    }
    if (!consume(',') && (skipSpace(), pos_ >= text_.size() || text_[pos_] != '}'))
      return fail("expected ',' or '}'");
  }
  if (!seenDescr || !seenOrder || !seenShape)
    return fail("missing 'descr', 'fortran_order' or 'shape'");
  return Error::success();
}

Expected<const NpyDType *> lookupDescr(const std::string &descr,
                                       const std::string &file) {
  if (descr.size() >= 2) {
    char order = descr[0];
    std::string_view kind = std::string_view(descr).substr(1);
    for (const NpyDType &row : kDTypes) {
      if (row.kind != kind)
        continue;
      if (order == '<' || order == '|' || (order == '>' && row.bytes == 1))
        return &row;
      if (order == '>')
        return makeError("{}: error: big-endian '{}' arrays are not "
                         "supported; convert with arr.astype('<{}')",
                         file, descr, kind);
    }
  }
  return makeError("{}: error: unsupported dtype '{}' (supported: bool, "
                   "int8-int64, uint8-uint64, float16, float32, float64, "
                   "bfloat16 as '<V2')",
                   file, descr);
}

uint64_t readLittleEndian(const uint8_t *bytes, size_t count) {
  uint64_t value = 0;
  for (size_t i = 0; i < count; ++i)
    value |= uint64_t(bytes[i]) << (8 * i);
  return value;
}

/// Reorders Fortran-order (column-major) elements into C order.
std::vector<uint8_t> fortranToC(const uint8_t *data,
                                const std::vector<int64_t> &shape,
                                size_t elementBytes, size_t count) {
  std::vector<uint8_t> out(count * elementBytes);
  std::vector<int64_t> index(shape.size(), 0);
  for (size_t linear = 0; linear < count; ++linear) {
    // Column-major offset of the current C-order multi-index.
    int64_t offset = 0, stride = 1;
    for (size_t d = 0; d < shape.size(); ++d) {
      offset += index[d] * stride;
      stride *= shape[d];
    }
    std::memcpy(&out[linear * elementBytes], data + offset * elementBytes,
                elementBytes);
    for (size_t d = shape.size(); d-- > 0;) {
      if (++index[d] < shape[d])
        break;
      index[d] = 0;
    }
  }
  return out;
}

/// The header dict as numpy writes it, without padding.
std::string headerDict(const NpyArray &array, const NpyDType &type) {
  std::string shape;
  for (int64_t dim : array.shape)
    shape += fmt::format("{}, ", dim);
  if (array.shape.size() > 1)
    shape.resize(shape.size() - 2);
  else if (array.shape.size() == 1)
    shape.pop_back(); // "(3,)"
  char order = type.bytes == 1 ? '|' : '<';
  return fmt::format("{{'descr': '{}{}', 'fortran_order': False, 'shape': "
                     "({}), }}",
                     order, type.kind, shape);
}
} // namespace

namespace {
/// Everything before the data: magic, version, header length and dict.
struct ParsedHeader {
  const NpyDType *type = nullptr;
  std::vector<int64_t> shape;
  bool fortranOrder = false;
  size_t dataStart = 0;
};

/// Where the header dict ends (its start plus its length), from the magic,
/// version and length at the start of `bytes`.
Expected<size_t> headerEnd(const uint8_t *bytes, size_t size,
                           const std::string &fileName) {
  if (size < kMagicSize + 2 || std::memcmp(bytes, kMagic, kMagicSize) != 0)
    return makeError("{}: error: not a .npy file (bad magic bytes)", fileName);
  uint8_t major = bytes[6], minor = bytes[7];
  if (major < 1 || major > 3)
    return makeError("{}: error: unsupported .npy format version {}.{} "
                     "(kiln reads 1.0, 2.0 and 3.0)",
                     fileName, major, minor);
  size_t lengthBytes = major == 1 ? 2 : 4;
  size_t headerStart = 8 + lengthBytes;
  if (size < headerStart)
    return makeError("{}: error: truncated .npy header", fileName);
  return headerStart + readLittleEndian(&bytes[8], lengthBytes);
}

Expected<ParsedHeader> parseHeader(const uint8_t *bytes, size_t size,
                                   const std::string &fileName) {
  Expected<size_t> end = headerEnd(bytes, size, fileName);
  if (!end)
    return end.takeError();
  size_t headerStart = bytes[6] == 1 ? 10 : 12;
  if (size < *end)
    return makeError("{}: error: truncated .npy header: expected {} header "
                     "bytes, found {}",
                     fileName, *end - headerStart, size - headerStart);
  std::string_view header(reinterpret_cast<const char *>(&bytes[headerStart]),
                          *end - headerStart);
  ParsedHeader parsed;
  std::string descr;
  if (Error error = HeaderParser(header, fileName)
                        .parse(descr, parsed.fortranOrder, parsed.shape))
    return error;
  Expected<const NpyDType *> type = lookupDescr(descr, fileName);
  if (!type)
    return type.takeError();
  parsed.type = *type;
  parsed.dataStart = *end;
  return parsed;
}
} // namespace

Expected<NpyArray> parseNpy(const std::vector<uint8_t> &bytes,
                            const std::string &fileName) {
  Expected<ParsedHeader> header =
      parseHeader(bytes.data(), bytes.size(), fileName);
  if (!header)
    return header.takeError();
  NpyArray array;
  array.dtype = std::string(header->type->name);
  array.shape = std::move(header->shape);
  const NpyDType *type = header->type;
  bool fortranOrder = header->fortranOrder;

  uint64_t count = 1;
  for (int64_t dim : array.shape)
    if (__builtin_mul_overflow(count, uint64_t(dim), &count))
      return makeError("{}: error: shape too large", fileName);
  uint64_t dataBytes;
  if (__builtin_mul_overflow(count, type->bytes, &dataBytes))
    return makeError("{}: error: shape too large", fileName);
  size_t dataStart = header->dataStart;
  size_t available = bytes.size() - dataStart;
  if (available != dataBytes)
    return makeError("{}: error: {} data: {} needs {} bytes but the file has "
                     "{}",
                     fileName, available < dataBytes ? "truncated" : "excess",
                     fmt::format("{}[{}]", array.dtype,
                                 fmt::join(array.shape, ",")),
                     dataBytes, available);
  const uint8_t *data = bytes.data() + dataStart;
  if (fortranOrder && array.shape.size() >= 2)
    array.data = fortranToC(data, array.shape, type->bytes, count);
  else
    array.data.assign(data, data + dataBytes);
  return array;
}

Expected<NpyArray> readNpyFile(const std::string &path) {
  Expected<std::vector<uint8_t>> bytes = readBinaryFile(path);
  if (!bytes)
    return bytes.takeError();
  return parseNpy(*bytes, path);
}

Expected<NpyHeader> readNpyHeader(const std::string &path) {
  // The prefix (magic, version, header length) takes at most 12 bytes; a
  // shorter file gets parseNpy's errors, from what there is.
  Expected<std::string> empty = readFileRange(path, 0, 0);
  if (!empty)
    return empty.takeError();
  std::error_code ignored;
  int64_t size = int64_t(std::filesystem::file_size(path, ignored));
  Expected<std::string> prefix =
      readFileRange(path, 0, std::min<int64_t>(size, 12));
  if (!prefix)
    return prefix.takeError();
  auto bytes = [](const std::string &text) {
    return reinterpret_cast<const uint8_t *>(text.data());
  };
  Expected<size_t> end = headerEnd(bytes(*prefix), prefix->size(), path);
  if (!end)
    return end.takeError();
  if (int64_t(*end) > size) // corrupt: do not read what may be gigabytes
    return makeError("{}: error: truncated .npy header: it ends at byte {} "
                     "but the file has {} bytes",
                     path, *end, size);
  Expected<std::string> header = readFileRange(path, 0, int64_t(*end));
  if (!header)
    return header.takeError();
  Expected<ParsedHeader> parsed =
      parseHeader(bytes(*header), header->size(), path);
  if (!parsed)
    return parsed.takeError();
  return NpyHeader{std::string(parsed->type->name), std::move(parsed->shape)};
}

std::vector<uint8_t> serializeNpy(const NpyArray &array) {
  const NpyDType *type = findByName(array.dtype);
  assert(type && "serializeNpy: dtype kiln does not know");
  std::string dict = headerDict(array, *type);
  // Pads with spaces so magic + version + length + header + '\n' is aligned.
  auto padded = [&](size_t lengthBytes) {
    size_t unpadded = kMagicSize + 2 + lengthBytes + dict.size() + 1;
    return dict +
           std::string((kHeaderAlignment - unpadded % kHeaderAlignment) %
                           kHeaderAlignment,
                       ' ') +
           '\n';
  };
  // Version 1.0 unless the header needs 2.0's 4-byte length.
  size_t lengthBytes = 2;
  std::string header = padded(lengthBytes);
  if (header.size() > 0xffff)
    header = padded(lengthBytes = 4);
  std::vector<uint8_t> out(kMagic, kMagic + kMagicSize);
  out.push_back(lengthBytes == 2 ? 1 : 2);
  out.push_back(0);
  for (size_t i = 0; i < lengthBytes; ++i)
    out.push_back(uint8_t(header.size() >> (8 * i)));
  out.insert(out.end(), header.begin(), header.end());
  out.insert(out.end(), array.data.begin(), array.data.end());
  return out;
}

Error writeNpyFile(const std::string &path, const NpyArray &array) {
  if (!findByName(array.dtype))
    return makeError("cannot write '{}': unsupported dtype '{}'", path,
                     array.dtype);
  std::vector<uint8_t> bytes = serializeNpy(array);
  AtomicFileSet files;
  files.add(path, std::string(bytes.begin(), bytes.end()));
  return files.commit();
}

} // namespace kiln
