//===- TfTensor.cpp - TensorFlow dtypes, shapes and tensors as kiln IR ----===//
#include "TensorFlow/TfTensor.h"

#include "kiln/Support/CheckedArithmetic.h"
#include "kiln/Support/ResourceLimits.h"

#include <fmt/format.h>

#include <cstring>

namespace kiln::import::tf {

using tensorflow::DataType;

namespace {
struct DTypeRow {
  DataType tf;
  ir::DType ir;
};

// Every TensorFlow dtype kiln computes with. Quantized types (DT_QINT8...)
// are deliberately absent: their scale lives outside the tensor.
constexpr DTypeRow kDTypes[] = {
    {tensorflow::DT_FLOAT, ir::DType::F32},
    {tensorflow::DT_DOUBLE, ir::DType::F64},
    {tensorflow::DT_HALF, ir::DType::F16},
    {tensorflow::DT_BFLOAT16, ir::DType::BF16},
    {tensorflow::DT_INT8, ir::DType::S8},
    {tensorflow::DT_INT16, ir::DType::S16},
    {tensorflow::DT_INT32, ir::DType::S32},
    {tensorflow::DT_INT64, ir::DType::S64},
    {tensorflow::DT_UINT8, ir::DType::U8},
    {tensorflow::DT_UINT16, ir::DType::U16},
    {tensorflow::DT_UINT32, ir::DType::U32},
    {tensorflow::DT_UINT64, ir::DType::U64},
    {tensorflow::DT_BOOL, ir::DType::Pred},
};

// Reference dtypes (a VariableV2's output) are the value type plus 100.
constexpr int kRefOffset = 100;

// Copies `count` typed values into the literal's elements, repeating the
// last value to fill the shape; `Dst` is the literal's storage type.
template <typename Dst, typename Values>
Error fillElements(ir::Literal &literal, const Values &values) {
  int64_t size = literal.numElements();
  int64_t count = values.size();
  if (count > size)
    return makeError("tensor holds {} values but its shape {} has {} elements",
                     count, literal.shape().toString(), size);
  if (count == 0)
    return Error::success(); // all zeros
  Dst *out = literal.data<Dst>();
  for (int64_t i = 0; i < size; ++i)
    out[i] = static_cast<Dst>(values.Get(int(std::min(i, count - 1))));
  return Error::success();
}

Error fillTyped(ir::Literal &literal, const tensorflow::TensorProto &tensor) {
  switch (literal.shape().dtype()) {
  case ir::DType::F32: return fillElements<float>(literal, tensor.float_val());
  case ir::DType::F64: return fillElements<double>(literal, tensor.double_val());
  case ir::DType::F16:
  case ir::DType::BF16: return fillElements<uint16_t>(literal, tensor.half_val());
  case ir::DType::S8: return fillElements<int8_t>(literal, tensor.int_val());
  case ir::DType::S16: return fillElements<int16_t>(literal, tensor.int_val());
  case ir::DType::S32: return fillElements<int32_t>(literal, tensor.int_val());
  case ir::DType::U8: return fillElements<uint8_t>(literal, tensor.int_val());
  case ir::DType::U16: return fillElements<uint16_t>(literal, tensor.int_val());
  case ir::DType::S64: return fillElements<int64_t>(literal, tensor.int64_val());
  case ir::DType::U32: return fillElements<uint32_t>(literal, tensor.uint32_val());
  case ir::DType::U64: return fillElements<uint64_t>(literal, tensor.uint64_val());
  case ir::DType::Pred: return fillElements<uint8_t>(literal, tensor.bool_val());
  case ir::DType::Tuple: break;
  }
  return makeError("internal error: tuple tensor");
}
} // namespace

std::optional<ir::DType> dtypeFromTf(DataType type) {
  int value = int(type);
  if (value > kRefOffset)
    value -= kRefOffset;
  for (const DTypeRow &row : kDTypes)
    if (int(row.tf) == value)
      return row.ir;
  return std::nullopt;
}

std::string tfDTypeName(DataType type) {
  if (tensorflow::DataType_IsValid(int(type)))
    return tensorflow::DataType_Name(type);
  return fmt::format("dtype {}", int(type));
}

DataType tfFromDType(ir::DType type) {
  for (const DTypeRow &row : kDTypes)
    if (row.ir == type)
      return row.tf;
  return tensorflow::DT_INVALID;
}

std::optional<std::vector<int64_t>>
dimsFromShape(const tensorflow::TensorShapeProto &shape) {
  if (shape.unknown_rank())
    return std::nullopt;
  std::vector<int64_t> dims;
  for (const tensorflow::TensorShapeProto::Dim &dim : shape.dim())
    dims.push_back(dim.size() < 0 ? -1 : dim.size());
  return dims;
}

std::string describeDims(const std::optional<std::vector<int64_t>> &dims) {
  if (!dims)
    return "<unknown rank>";
  return fmt::format("[{}]", fmt::join(*dims, ","));
}

Expected<ir::Literal> literalFromTensor(const tensorflow::TensorProto &tensor) {
  std::optional<ir::DType> dtype = dtypeFromTf(tensor.dtype());
  if (!dtype)
    return makeError("tensors of type {} are not supported",
                     tfDTypeName(tensor.dtype()));
  std::optional<std::vector<int64_t>> dims = dimsFromShape(tensor.tensor_shape());
  if (!dims)
    return makeError("tensor has an unknown rank");
  for (int64_t dim : *dims)
    if (dim < 0)
      return makeError("tensor shape {} has an unknown dimension",
                       describeDims(dims));
  // Corrupt files can claim absurd shapes (a few bytes of typed values are
  // repeated to fill any shape); refuse before allocating.
  if (Error error = checkConstantElements(
          fmt::format("tensor of shape {}", describeDims(dims)),
          checkedProduct(*dims), int64_t(ir::byteSize(*dtype))))
    return error;
  ir::Literal literal(ir::Shape(*dtype, *dims));
  const std::string &content = tensor.tensor_content();
  if (content.empty()) {
    if (Error error = fillTyped(literal, tensor))
      return error;
    return literal;
  }
  if (int64_t(content.size()) != literal.shape().byteSize())
    return makeError("tensor_content holds {} bytes but {} needs {}",
                     content.size(), literal.shape().toString(),
                     literal.shape().byteSize());
  std::memcpy(literal.bytes().data(), content.data(), content.size());
  if (*dtype == ir::DType::Pred) // bool bytes other than 0/1 mean true
    for (uint8_t &byte : literal.bytes())
      byte = byte != 0;
  return literal;
}

int64_t tensorByteSize(const tensorflow::TensorProto &tensor) {
  std::optional<ir::DType> dtype = dtypeFromTf(tensor.dtype());
  std::optional<std::vector<int64_t>> dims = dimsFromShape(tensor.tensor_shape());
  if (!dtype || !dims)
    return 0;
  std::optional<int64_t> bytes =
      checkedProduct({checkedProduct(*dims).value_or(-1),
                      int64_t(ir::byteSize(*dtype))});
  return bytes.value_or(0);
}

} // namespace kiln::import::tf
