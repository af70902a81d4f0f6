//===- DType.cpp - Element types of tensors -------------------------------===//
#include "kiln/IR/DType.h"

namespace kiln::ir {

namespace {
struct DTypeInfo {
  DType type;
  std::string_view hloName;
  std::string_view numpyName;
  size_t bytes;
};

// One row per element type; the order matches the DType enumeration.
constexpr DTypeInfo kDTypeTable[] = {
    {DType::Pred, "pred", "bool", 1},     {DType::S8, "s8", "int8", 1},
    {DType::S16, "s16", "int16", 2},      {DType::S32, "s32", "int32", 4},
    {DType::S64, "s64", "int64", 8},      {DType::U8, "u8", "uint8", 1},
    {DType::U16, "u16", "uint16", 2},     {DType::U32, "u32", "uint32", 4},
    {DType::U64, "u64", "uint64", 8},     {DType::F16, "f16", "float16", 2},
    {DType::BF16, "bf16", "bfloat16", 2}, {DType::F32, "f32", "float32", 4},
    {DType::F64, "f64", "float64", 8},    {DType::Tuple, "tuple", "", 0},
};

const DTypeInfo &info(DType type) { return kDTypeTable[size_t(type)]; }
} // namespace

size_t byteSize(DType type) { return info(type).bytes; }

bool isFloat(DType type) {
  return type == DType::F16 || type == DType::BF16 || type == DType::F32 ||
         type == DType::F64;
}

std::optional<FloatFormat> floatFormat(DType type) {
  switch (type) {
  case DType::F16: return FloatFormat{16, 5, 10};
  case DType::BF16: return FloatFormat{16, 8, 7};
  case DType::F32: return FloatFormat{32, 8, 23};
  case DType::F64: return FloatFormat{64, 11, 52};
  default: return std::nullopt;
  }
}

bool isSignedInt(DType type) {
  return type == DType::S8 || type == DType::S16 || type == DType::S32 ||
         type == DType::S64;
}

bool isUnsignedInt(DType type) {
  return type == DType::U8 || type == DType::U16 || type == DType::U32 ||
         type == DType::U64;
}

std::string_view dtypeName(DType type) { return info(type).hloName; }

std::optional<DType> parseDTypeName(std::string_view name) {
  for (const DTypeInfo &row : kDTypeTable)
    if (row.hloName == name)
      return row.type;
  return std::nullopt;
}

std::string_view numpyName(DType type) { return info(type).numpyName; }

std::optional<DType> parseNumpyName(std::string_view name) {
  for (const DTypeInfo &row : kDTypeTable)
    if (!row.numpyName.empty() && row.numpyName == name)
      return row.type;
  return std::nullopt;
}

} // namespace kiln::ir
