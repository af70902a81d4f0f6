//===- Onnx.h - Importing ONNX models ---------------------------*- C++ -*-===//
//
// Reads a binary ModelProto (opsets 7-18 of the default domain) with its
// initializers, Constant nodes and external data files, and lowers every
// node into HLO through the op tables of lib/Import/Onnx. Entry parameters
// are the graph inputs that are not initializers, in graph order; results
// are the graph outputs. Every shape is static after import: symbolic or
// unknown input dimensions must be fixed with --shape NAME=D0,D1,...
//
//===----------------------------------------------------------------------===//
#ifndef KILN_IMPORT_ONNX_H
#define KILN_IMPORT_ONNX_H

#include "kiln/Import/Import.h"

#include <string>
#include <string_view>

namespace kiln::import {

/// Imports the ONNX model at `path`; external data files are looked up
/// beside it. Errors start with `path` and name the node when there is one.
Expected<ImportedModel> importOnnx(const std::string &path,
                                   const ImportOptions &options);

/// The same for a model already in memory; `displayName` prefixes errors
/// and `baseDir` is where external data files live.
Expected<ImportedModel> importOnnxBytes(std::string_view bytes,
                                        const std::string &displayName,
                                        const std::string &baseDir,
                                        const ImportOptions &options);

/// What `kiln inspect` shows without lowering: format and opset, the op
/// histogram, unsupported ops (not an error here), initializer bytes and
/// the declared inputs (with `options`' --shape) and outputs.
Expected<SourceSummary> summarizeOnnx(const std::string &path,
                                      const ImportOptions &options);

} // namespace kiln::import

#endif // KILN_IMPORT_ONNX_H
