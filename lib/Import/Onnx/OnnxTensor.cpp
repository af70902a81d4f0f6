//===- OnnxTensor.cpp - ONNX element types and TensorProto contents -------===//
#include "Onnx/OnnxTensor.h"

#include "onnx/onnx.pb.h"

#include "kiln/Support/CheckedArithmetic.h"
#include "kiln/Support/FileUtils.h"
#include "kiln/Support/ResourceLimits.h"

#include <cstdlib>
#include <cstring>
#include <unistd.h>

namespace kiln::import::onnx {

namespace {
// Which repeated field holds a dtype's values when raw_data is not used
// (onnx.proto's comments on each field are the source of this table).
enum class TypedField { Float, Double, Int32, Int64, Uint64 };

struct OnnxType {
  int32_t number;
  std::string_view name;
  std::optional<ir::DType> dtype; // nullopt: not representable in kiln
  TypedField field;
};

const OnnxType kOnnxTypes[] = {
    {1, "FLOAT", ir::DType::F32, TypedField::Float},
    {2, "UINT8", ir::DType::U8, TypedField::Int32},
    {3, "INT8", ir::DType::S8, TypedField::Int32},
    {4, "UINT16", ir::DType::U16, TypedField::Int32},
    {5, "INT16", ir::DType::S16, TypedField::Int32},
    {6, "INT32", ir::DType::S32, TypedField::Int32},
    {7, "INT64", ir::DType::S64, TypedField::Int64},
    {8, "STRING", std::nullopt, TypedField::Int32},
    {9, "BOOL", ir::DType::Pred, TypedField::Int32},
    {10, "FLOAT16", ir::DType::F16, TypedField::Int32},
    {11, "DOUBLE", ir::DType::F64, TypedField::Double},
    {12, "UINT32", ir::DType::U32, TypedField::Uint64},
    {13, "UINT64", ir::DType::U64, TypedField::Uint64},
    {14, "COMPLEX64", std::nullopt, TypedField::Float},
    {15, "COMPLEX128", std::nullopt, TypedField::Double},
    {16, "BFLOAT16", ir::DType::BF16, TypedField::Int32},
    {17, "FLOAT8E4M3FN", std::nullopt, TypedField::Int32},
    {18, "FLOAT8E4M3FNUZ", std::nullopt, TypedField::Int32},
    {19, "FLOAT8E5M2", std::nullopt, TypedField::Int32},
    {20, "FLOAT8E5M2FNUZ", std::nullopt, TypedField::Int32},
};

const OnnxType *findType(int32_t number) {
  for (const OnnxType &type : kOnnxTypes)
    if (type.number == number)
      return &type;
  return nullptr;
}

/// Stores `count` values of any arithmetic type into the literal, converted
/// to its dtype as the ONNX spec describes (narrow integer types and the
/// 16-bit floats' raw bits live in the low bits of int32_data).
template <typename Source>
void storeValues(ir::Literal &literal, const Source *values, int64_t count) {
  size_t width = ir::byteSize(literal.shape().dtype());
  uint8_t *out = literal.bytes().data();
  bool pred = literal.shape().dtype() == ir::DType::Pred;
  for (int64_t i = 0; i < count; ++i) {
    if constexpr (std::is_floating_point_v<Source>) {
      if (width == sizeof(float)) {
        float value = float(values[i]);
        std::memcpy(out + i * width, &value, width);
      } else {
        double value = double(values[i]);
        std::memcpy(out + i * width, &value, width);
      }
    } else {
      uint64_t bits = uint64_t(values[i]);
      if (pred)
        bits = bits != 0;
      std::memcpy(out + i * width, &bits, width); // little-endian low bytes
    }
  }
}

Expected<std::string> readExternal(const onnxpb::TensorProto &tensor,
                                   const std::string &baseDir,
                                   int64_t expectedBytes) {
  std::string location;
  int64_t offset = 0, length = -1;
  for (const onnxpb::StringStringEntryProto &entry : tensor.external_data()) {
    if (entry.key() == "location")
      location = entry.value();
    else if (entry.key() == "offset")
      offset = std::strtoll(entry.value().c_str(), nullptr, 10);
    else if (entry.key() == "length")
      length = std::strtoll(entry.value().c_str(), nullptr, 10);
  }
  if (location.empty())
    return makeError("external data has no 'location'");
  if (length < 0)
    length = expectedBytes;
  if (length != expectedBytes)
    return makeError("external data length {} does not match the {} bytes "
                     "of its shape",
                     length, expectedBytes);
  Expected<std::string> file =
      resolveInsideDirectory(baseDir, location, "external data location");
  if (!file)
    return file.takeError();
  if (::access(file->c_str(), F_OK) != 0)
    return makeError("cannot open external data file '{}' (it must be beside "
                     "the model)",
                     *file);
  Expected<std::string> bytes = readFileRange(*file, offset, length);
  if (!bytes)
    return makeError("external data: {}", bytes.errorMessage());
  return bytes;
}

int64_t typedCount(const onnxpb::TensorProto &tensor, TypedField field) {
  switch (field) {
  case TypedField::Float: return tensor.float_data_size();
  case TypedField::Double: return tensor.double_data_size();
  case TypedField::Int32: return tensor.int32_data_size();
  case TypedField::Int64: return tensor.int64_data_size();
  case TypedField::Uint64: return tensor.uint64_data_size();
  }
  return 0;
}

Error checkTypedCount(const onnxpb::TensorProto &tensor, TypedField field,
                      int64_t count) {
  int64_t have = typedCount(tensor, field);
  if (have != count)
    return makeError("tensor has {} values for its {} elements", have, count);
  return Error::success();
}

/// Fills the literal from the typed field, whose count checkTypedCount
/// has already compared with the literal's elements.
void storeTyped(ir::Literal &literal, const onnxpb::TensorProto &tensor,
                TypedField field) {
  int64_t count = literal.numElements();
  switch (field) {
  case TypedField::Float:
    storeValues(literal, tensor.float_data().data(), count);
    break;
  case TypedField::Double:
    storeValues(literal, tensor.double_data().data(), count);
    break;
  case TypedField::Int32:
    storeValues(literal, tensor.int32_data().data(), count);
    break;
  case TypedField::Int64:
    storeValues(literal, tensor.int64_data().data(), count);
    break;
  case TypedField::Uint64:
    storeValues(literal, tensor.uint64_data().data(), count);
    break;
  }
}
} // namespace

std::string_view onnxTypeName(int32_t dataType) {
  const OnnxType *type = findType(dataType);
  return type ? type->name : "UNDEFINED";
}

Expected<ir::DType> dtypeFromOnnx(int32_t dataType) {
  const OnnxType *type = findType(dataType);
  if (!type)
    return makeError("unknown ONNX element type {}", dataType);
  if (type->dtype)
    return *type->dtype;
  if (dataType == 8)
    return makeError("string tensors are not supported by an ahead-of-time "
                     "compiler");
  return makeError("element type {} is not supported", type->name);
}

Expected<ir::Literal> literalFromTensor(const onnxpb::TensorProto &tensor,
                                        const std::string &baseDir) {
  Expected<ir::DType> dtype = dtypeFromOnnx(tensor.data_type());
  if (!dtype)
    return dtype.takeError();
  std::vector<int64_t> dims(tensor.dims().begin(), tensor.dims().end());
  for (int64_t dim : dims)
    if (dim < 0)
      return makeError("tensor has a negative dimension {}", dim);
  ir::Shape shape(*dtype, dims);
  // Everything about the size is checked before the literal is allocated:
  // a corrupt file may declare dims far beyond the data it carries.
  std::optional<int64_t> count = checkedProduct(dims);
  if (Error error =
          checkConstantElements(fmt::format("tensor {}", shape.toString()),
                                count, int64_t(ir::byteSize(*dtype))))
    return error;
  int64_t bytes = *count * int64_t(ir::byteSize(*dtype));

  const std::string *raw = tensor.has_raw_data() ? &tensor.raw_data() : nullptr;
  std::string external;
  if (tensor.data_location() == onnxpb::TensorProto::EXTERNAL) {
    Expected<std::string> data = readExternal(tensor, baseDir, bytes);
    if (!data)
      return data.takeError();
    external = std::move(*data);
    raw = &external;
  }
  if (!raw) {
    TypedField field = findType(tensor.data_type())->field;
    if (Error error = checkTypedCount(tensor, field, *count))
      return error;
    ir::Literal literal(std::move(shape));
    storeTyped(literal, tensor, field);
    return literal;
  }
  if (int64_t(raw->size()) != bytes)
    return makeError("raw_data has {} bytes but {} needs {}", raw->size(),
                     shape.toString(), bytes);
  ir::Literal literal(std::move(shape));
  if (bytes)
    std::memcpy(literal.bytes().data(), raw->data(), size_t(bytes));
  if (*dtype == ir::DType::Pred)
    for (uint8_t &byte : literal.bytes())
      byte = byte != 0;
  return literal;
}

int64_t tensorStoredBytes(const onnxpb::TensorProto &tensor) {
  std::optional<int64_t> elements = checkedProduct(tensor.dims());
  Expected<ir::DType> dtype = dtypeFromOnnx(tensor.data_type());
  std::optional<int64_t> bytes =
      elements && dtype ? checkedMul(*elements, int64_t(ir::byteSize(*dtype)))
                        : std::nullopt;
  if (!bytes) // not a tensor kiln can read; it then stores its raw bytes
    return int64_t(tensor.raw_data().size());
  return *bytes;
}

} // namespace kiln::import::onnx
