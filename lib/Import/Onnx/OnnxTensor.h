//===- OnnxTensor.h - ONNX element types and TensorProto contents -*- C++ -*-===//
//
// Initializers, Constant nodes and tensor attributes all arrive as
// TensorProto: raw little-endian bytes, one of the typed repeated fields,
// or an external data file beside the model. These helpers turn any of
// them into a Literal and map ONNX's DataType numbers onto kiln dtypes.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_LIB_IMPORT_ONNX_ONNXTENSOR_H
#define KILN_LIB_IMPORT_ONNX_ONNXTENSOR_H

#include "kiln/IR/Literal.h"
#include "kiln/Support/Error.h"

#include <cstdint>
#include <string>
#include <string_view>

namespace kiln::onnxpb {
class TensorProto;
}

namespace kiln::import::onnx {

/// ONNX's name of a TensorProto.DataType value ("FLOAT", "STRING", ...).
std::string_view onnxTypeName(int32_t dataType);

/// The kiln dtype of an ONNX element type; strings and complex numbers are
/// errors that say why an ahead-of-time compiler does not take them.
Expected<ir::DType> dtypeFromOnnx(int32_t dataType);

/// The contents of `tensor` as a literal. `baseDir` is the directory that
/// external data locations are relative to.
Expected<ir::Literal> literalFromTensor(const onnxpb::TensorProto &tensor,
                                        const std::string &baseDir);

/// Bytes the tensor stores (raw, typed or external), for `kiln inspect`.
int64_t tensorStoredBytes(const onnxpb::TensorProto &tensor);

} // namespace kiln::import::onnx

#endif // KILN_LIB_IMPORT_ONNX_ONNXTENSOR_H
