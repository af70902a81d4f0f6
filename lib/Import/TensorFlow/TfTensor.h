//===- TfTensor.h - TensorFlow dtypes, shapes and tensors as kiln IR -*- C++ -*-===//
//
// Conversions from the schema classes (DataType, TensorShapeProto,
// TensorProto) to kiln's DType, dimension lists and literals, shared by the
// GraphDef reader, the TF.js loader and the node context.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_LIB_IMPORT_TENSORFLOW_TFTENSOR_H
#define KILN_LIB_IMPORT_TENSORFLOW_TFTENSOR_H

#include "kiln/IR/Literal.h"
#include "kiln/Support/Error.h"

#include "tensorflow/graph.pb.h"

#include <optional>
#include <string>
#include <vector>

namespace kiln::import::tf {

/// The IR dtype of a TensorFlow dtype (reference types map like their value
/// type); nullopt for types kiln has no equivalent of (string, complex,
/// resource, quantized).
std::optional<ir::DType> dtypeFromTf(tensorflow::DataType type);
/// "DT_FLOAT", or the number when the enum has no name.
std::string tfDTypeName(tensorflow::DataType type);
/// The TensorFlow dtype of an IR dtype.
tensorflow::DataType tfFromDType(ir::DType type);

/// Dimensions with -1 for unknown ones; nullopt for an unknown rank.
std::optional<std::vector<int64_t>>
dimsFromShape(const tensorflow::TensorShapeProto &shape);
/// "[1,-1,3]" or "<unknown rank>".
std::string describeDims(const std::optional<std::vector<int64_t>> &dims);

/// The literal a TensorProto holds: raw tensor_content or the typed value
/// fields, where fewer values than elements repeat the last (none: zeros),
/// as TensorFlow reads them. Errors say what is wrong, not where.
Expected<ir::Literal> literalFromTensor(const tensorflow::TensorProto &tensor);

/// Bytes the tensor occupies once materialized (0 when its shape is not
/// fully known or its dtype unsupported).
int64_t tensorByteSize(const tensorflow::TensorProto &tensor);

} // namespace kiln::import::tf

#endif // KILN_LIB_IMPORT_TENSORFLOW_TFTENSOR_H
