//===- ParseLiteral.cpp - HLO text input: constant values -----------------===//
//
// Constants can hold millions of elements, so values are decoded straight
// from the token text into the byte buffer (no strings per element), the
// brace nesting is walked with an explicit stack (a huge rank cannot
// overflow the C++ stack) and memory grows with the input actually read, not
// with the element count the shape claims.
//
//===----------------------------------------------------------------------===//
#include "HloParser.h"

#include "kiln/Support/Float16.h"

#include <bit>
#include <charconv>
#include <cmath>
#include <cstring>
#include <fmt/format.h>
#include <limits>

namespace kiln::ir {

namespace {

template <typename T> void appendRaw(std::vector<uint8_t> &bytes, T value) {
  size_t size = bytes.size();
  bytes.resize(size + sizeof value);
  std::memcpy(bytes.data() + size, &value, sizeof value);
}

/// Appends the low byteSize(type) bytes of `bits` (little-endian host).
void appendBits(std::vector<uint8_t> &bytes, DType type, uint64_t bits) {
  switch (byteSize(type)) {
  case 1: return appendRaw(bytes, uint8_t(bits));
  case 2: return appendRaw(bytes, uint16_t(bits));
  case 4: return appendRaw(bytes, uint32_t(bits));
  default: return appendRaw(bytes, bits);
  }
}

/// Layout of a float type's bit pattern, for NaN handling.
struct FloatBits {
  uint64_t exponentMask;
  uint64_t mantissaMask;
  uint64_t canonicalNan; // what `nan` means: positive, quiet
  uint64_t signBit;
};

FloatBits floatBits(DType type) {
  switch (type) {
  case DType::F16: return {0x7c00, 0x3ff, 0x7e00, 0x8000};
  case DType::BF16: return {0x7f80, 0x7f, 0x7fc0, 0x8000};
  case DType::F32: return {0x7f800000, 0x7fffff, 0x7fc00000, 0x80000000};
  default:
    return {0x7ff0000000000000ull, 0xfffffffffffffull, 0x7ff8000000000000ull,
            0x8000000000000000ull};
  }
}

/// An article for messages: "an s8 value", "a u8 value".
std::string aValue(DType type) {
  char first = dtypeName(type)[0];
  bool vowelSound = first == 's' || first == 'f';
  return fmt::format("{} {} value", vowelSound ? "an" : "a", dtypeName(type));
}

} // namespace

bool HloParser::parseLiteral(const Shape &shape, size_t shapeOffset,
                             Literal &literal) {
  if (shape.isTuple())
    return error(shapeOffset, "a constant needs an array shape, not a tuple");
  // The shape parser guarantees the byte size fits int64.
  int64_t needed = shape.numElements();
  size_t elementSize = byteSize(shape.dtype());
  // Each element needs at least one character of input, which bounds the
  // reservation even when the shape claims billions of elements.
  size_t remaining = text_.size() - std::min(tok_.offset, text_.size());
  std::vector<uint8_t> bytes;
  bytes.reserve(size_t(std::min<int64_t>(needed, int64_t(remaining))) *
                elementSize);
  if (shape.rank() == 0) {
    if (at(TokenKind::LBrace))
      return error(tok_.offset,
                   fmt::format("expected {} but found '{{' (a scalar constant "
                               "takes no braces)",
                               aValue(shape.dtype())));
    if (!parseScalar(shape.dtype(), bytes, true))
      return false;
  } else {
    int64_t count = 0;
    if (!parseNestedElements(shape, bytes, count))
      return false;
  }
  literal = Literal(shape, std::move(bytes));
  return true;
}

bool HloParser::parseNestedElements(const Shape &shape,
                                    std::vector<uint8_t> &bytes,
                                    int64_t &count) {
  const std::vector<int64_t> &dims = shape.dims();
  size_t rank = dims.size();
  int64_t needed = shape.numElements();
  size_t openOffset = tok_.offset;
  if (!expect(TokenKind::LBrace, "'{'"))
    return false;
  std::vector<int64_t> entries(1, 0); // entries seen at each open level
  std::optional<size_t> mismatchOffset;
  std::string mismatch;
  bool needItem = false; // right after a ',': '}' is not allowed
  while (true) {
    size_t level = entries.size() - 1;
    if (at(TokenKind::RBrace) && !needItem) {
      if (entries[level] != dims[level] && !mismatchOffset) {
        mismatchOffset = tok_.offset;
        mismatch = fmt::format("dimension {} of the constant has {} entries "
                               "but shape {} needs {}",
                               level, entries[level], shape.toString(),
                               dims[level]);
      }
      advance();
      entries.pop_back();
      if (entries.empty())
        break;
      ++entries.back();
    } else if (level + 1 < rank) {
      if (!at(TokenKind::LBrace))
        return expected(fmt::format("'{{' (shape {} has rank {})",
                                    shape.toString(), rank));
      advance();
      entries.push_back(0);
      needItem = false;
      continue;
    } else {
      if (at(TokenKind::LBrace))
        return error(tok_.offset,
                     fmt::format("expected {} but found '{{' (shape {} has "
                                 "rank {})",
                                 aValue(shape.dtype()), shape.toString(), rank));
      if (!parseScalar(shape.dtype(), bytes, count < needed))
        return false;
      ++count;
      ++entries[level];
    }
    needItem = consume(TokenKind::Comma);
    if (!needItem && !at(TokenKind::RBrace))
      return expected("',' or '}'");
  }
  if (count != needed)
    return error(openOffset,
                 fmt::format("constant has {} element{} but shape {} needs {}",
                             count, count == 1 ? "" : "s", shape.toString(),
                             needed));
  if (mismatchOffset)
    return error(*mismatchOffset, mismatch);
  return true;
}

bool HloParser::parseScalar(DType type, std::vector<uint8_t> &bytes,
                            bool store) {
  if (!at(TokenKind::Word))
    return expected(aValue(type));
  std::string_view text = tok_.text;
  const char *begin = text.data();
  const char *end = begin + text.size();
  if (type == DType::Pred) {
    // XLA's parser also reads pred elements as 0 and 1.
    bool isTrue = text == "true" || text == "1";
    if (!isTrue && text != "false" && text != "0")
      return error(tok_.offset, fmt::format("expected 'true' or 'false' for "
                                            "pred but found '{}'",
                                            text));
    if (store)
      appendRaw(bytes, uint8_t(isTrue));
    advance();
    return true;
  }
  if (isFloat(type))
    return parseFloatScalar(type, bytes, store);
  std::string outOfRange =
      fmt::format("value {} is out of range for {}", text, dtypeName(type));
  uint64_t bits = 0;
  std::from_chars_result result;
  if (isSignedInt(type)) {
    int64_t value = 0;
    result = std::from_chars(begin, end, value);
    int shift = int(byteSize(type) * 8 - 1);
    int64_t limit = shift == 63 ? std::numeric_limits<int64_t>::max()
                                : (int64_t(1) << shift) - 1;
    if (result.ec == std::errc() && (value > limit || value < -limit - 1))
      result.ec = std::errc::result_out_of_range;
    bits = uint64_t(value);
  } else {
    // from_chars rejects a '-', but "-5" for a u8 deserves the range message.
    bool negative = !text.empty() && text[0] == '-';
    result = std::from_chars(begin + negative, end, bits);
    int width = int(byteSize(type) * 8);
    if (result.ec == std::errc() &&
        ((negative && bits != 0) || (width < 64 && bits >> width)))
      result.ec = std::errc::result_out_of_range;
  }
  if (result.ptr != end || (result.ec != std::errc() &&
                            result.ec != std::errc::result_out_of_range))
    return error(tok_.offset, fmt::format("expected {} but found '{}'",
                                          aValue(type), text));
  if (result.ec == std::errc::result_out_of_range)
    return error(tok_.offset, outOfRange);
  if (store)
    appendBits(bytes, type, bits);
  advance();
  return true;
}

/// `nan(0xBITS)`: the printer's spelling for NaNs other than nan and -nan.
bool HloParser::parseNanPayload(DType type, uint64_t &bits) {
  advance(); // '('
  if (!at(TokenKind::Word))
    return expected("a NaN bit pattern like 0x7fc00001");
  std::string_view text = tok_.text;
  FloatBits layout = floatBits(type);
  bool isHex = text.size() > 2 && text.substr(0, 2) == "0x";
  auto result = std::from_chars(text.data() + (isHex ? 2 : 0),
                                text.data() + text.size(), bits, 16);
  uint64_t allBits = layout.signBit | (layout.signBit - 1);
  if (!isHex || result.ec != std::errc() ||
      result.ptr != text.data() + text.size() || (bits & ~allBits) != 0 ||
      (bits & layout.exponentMask) != layout.exponentMask ||
      (bits & layout.mantissaMask) == 0)
    return error(tok_.offset, fmt::format("'{}' is not a NaN bit pattern of {}",
                                          text, dtypeName(type)));
  advance();
  return expect(TokenKind::RParen, "')'");
}

bool HloParser::parseFloatScalar(DType type, std::vector<uint8_t> &bytes,
                                 bool store) {
  std::string_view text = tok_.text;
  FloatBits layout = floatBits(type);
  if (text == "nan" || text == "-nan") {
    uint64_t bits = layout.canonicalNan | (text[0] == '-' ? layout.signBit : 0);
    advance();
    if (text == "nan" && at(TokenKind::LParen) && !parseNanPayload(type, bits))
      return false;
    if (store)
      appendBits(bytes, type, bits);
    return true;
  }
  double value = 0;
  std::from_chars_result result{};
  if (text == "inf" || text == "-inf") {
    value = text[0] == '-' ? -HUGE_VAL : HUGE_VAL;
  } else if (type == DType::F64) {
    result = std::from_chars(text.data(), text.data() + text.size(), value);
  } else {
    // Parse as f32 directly (correct rounding for f32); f16/bf16 then round
    // from the f32, which is exact for every value the printer writes.
    float single = 0;
    result = std::from_chars(text.data(), text.data() + text.size(), single);
    value = single;
  }
  if (result.ptr != text.data() + text.size() && !std::isinf(value))
    return error(tok_.offset, fmt::format("expected {} but found '{}'",
                                          aValue(type), text));
  if (result.ec == std::errc::result_out_of_range) {
    // from_chars reports underflow as out of range too; a tiny value is
    // not an error, it rounds to (signed) zero like a C compiler does.
    size_t exponent = text.find_first_of("eE");
    bool underflow = exponent != std::string_view::npos &&
                     text.substr(exponent + 1, 1) == "-";
    if (!underflow)
      return error(tok_.offset, fmt::format("value {} is out of range for {}",
                                            text, dtypeName(type)));
    value = text[0] == '-' ? -0.0 : 0.0;
  }
  uint64_t bits = 0;
  switch (type) {
  case DType::F16: bits = floatToHalf(float(value)); break;
  case DType::BF16: bits = floatToBfloat16(float(value)); break;
  case DType::F32: bits = std::bit_cast<uint32_t>(float(value)); break;
  default: bits = std::bit_cast<uint64_t>(value); break;
  }
  bool becameInf = (bits & ~layout.signBit) == layout.exponentMask;
  if (becameInf && !std::isinf(value))
    return error(tok_.offset, fmt::format("value {} is out of range for {}",
                                          text, dtypeName(type)));
  if (store)
    appendBits(bytes, type, bits);
  advance();
  return true;
}

} // namespace kiln::ir
