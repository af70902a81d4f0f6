//===- TensorFlow.h - The TensorFlow and TensorFlow.js importer -*- C++ -*-===//
//
// Reads a frozen GraphDef (.pb binary, .pbtxt text, .json) or a TF.js graph
// model (model.json with its weight shards), applies the tfcompile config
// (feeds, fetches, variables) or the model's own inputs and outputs, prunes
// the graph to what the fetches need and lowers it to a verified HLO
// module. docs/formats.md describes what is read and every error.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_IMPORT_TENSORFLOW_H
#define KILN_IMPORT_TENSORFLOW_H

#include "kiln/Import/Import.h"

#include <string>

namespace kiln::import {

/// Imports the TensorFlow model at `path` (format by extension and
/// content). Entry parameters are the feeds then the config's variables;
/// results are the fetches then the new values of updated writable
/// variables (listed in ImportedModel::variableUpdates).
Expected<ImportedModel> importTensorFlow(const std::string &path,
                                         const ImportOptions &options);

/// What `kiln inspect` shows without lowering: the format, the op
/// histogram of the pruned graph, its unsupported ops (not an error here)
/// and the weight bytes. Errors only for unreadable files and configs.
Expected<SourceSummary> summarizeTensorFlow(const std::string &path,
                                            const ImportOptions &options);

} // namespace kiln::import

#endif // KILN_IMPORT_TENSORFLOW_H
