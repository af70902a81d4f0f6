//===- DType.h - Element types of tensors -----------------------*- C++ -*-===//
#ifndef KILN_IR_DTYPE_H
#define KILN_IR_DTYPE_H

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace kiln::ir {

/// Element type of a tensor. The HLO text spelling is given beside each.
enum class DType : uint8_t {
  Pred, // pred: one byte, 0 or 1
  S8,   // s8
  S16,  // s16
  S32,  // s32
  S64,  // s64
  U8,   // u8
  U16,  // u16
  U32,  // u32
  U64,  // u64
  F16,  // f16: IEEE binary16, stored as raw bits
  BF16, // bf16: bfloat16, stored as raw bits
  F32,  // f32
  F64,  // f64
  Tuple // the element type of a tuple shape; holds no data of its own
};

inline constexpr DType kAllArrayDTypes[] = {
    DType::Pred, DType::S8,  DType::S16, DType::S32,  DType::S64,
    DType::U8,   DType::U16, DType::U32, DType::U64,  DType::F16,
    DType::BF16, DType::F32, DType::F64};

/// Bytes per element (0 for Tuple).
size_t byteSize(DType type);
bool isFloat(DType type);
bool isSignedInt(DType type);
bool isUnsignedInt(DType type);
inline bool isInteger(DType type) { return isSignedInt(type) || isUnsignedInt(type); }

/// The field widths of a binary floating-point dtype's storage: sign, then
/// exponentBits, then mantissaBits (without the implicit leading one).
struct FloatFormat {
  int bits, exponentBits, mantissaBits;
};
/// f16 (5, 10), bf16 (8, 7), f32 (8, 23), f64 (11, 52); nullopt otherwise.
std::optional<FloatFormat> floatFormat(DType type);

/// HLO text spelling: "f32", "pred", ...
std::string_view dtypeName(DType type);
std::optional<DType> parseDTypeName(std::string_view name);

/// NumPy's name for the type ("float32", "bool", ...), used by the manifest.
std::string_view numpyName(DType type);
std::optional<DType> parseNumpyName(std::string_view name);

} // namespace kiln::ir

#endif // KILN_IR_DTYPE_H
