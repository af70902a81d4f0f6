//===- TfOpDefs.h - Output argument lists of TensorFlow ops -----*- C++ -*-===//
//
// Inside a FunctionDef a node's output is named "node:out_arg:i": output i
// *of the named output argument*, not of the node. Turning that into the
// flat output index the importer uses needs the op's output argument list
// (TensorFlow's op registry): every argument before `out_arg` counts as
// one tensor, N tensors (`number_attr`) or one per type of a list
// (`type_list_attr`), as the node's attributes say.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_LIB_IMPORT_TENSORFLOW_TFOPDEFS_H
#define KILN_LIB_IMPORT_TENSORFLOW_TFOPDEFS_H

#include "kiln/Support/Error.h"

#include "tensorflow/graph.pb.h"

#include <string_view>

namespace kiln::import::tf {

/// The flat output index of output `index` of output argument `argument`
/// of `node`. `signature` is the called function's when the node's op is
/// a library function, else null (the op registry table is used). An op
/// kiln's table does not list has one output argument, whatever its name.
Expected<int64_t> flatOutputIndex(const tensorflow::NodeDef &node,
                                  const tensorflow::OpDef *signature,
                                  std::string_view argument, int64_t index);

} // namespace kiln::import::tf

#endif // KILN_LIB_IMPORT_TENSORFLOW_TFOPDEFS_H
