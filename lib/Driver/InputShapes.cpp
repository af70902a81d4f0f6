//===- InputShapes.cpp - Input shapes from the --input .npy files ---------===//
//
// `kiln run`, `check` and `profile` are given the values of the inputs, so
// a model that leaves an input's dimensions unknown needs no --shape: the
// .npy header says the shape. Only the header is read here; the values are
// read (and checked against the imported shapes) when the inputs are bound.
// A file holds its input in the caller's order (--input-layout), while
// --shape and the model's declarations are in the model's: dims are put in
// the model's order before they are compared.
//
//===----------------------------------------------------------------------===//
#include "kiln/Driver/Driver.h"
#include "kiln/Import/CallerLayouts.h"

#include <map>

namespace kiln::driver {

namespace {
/// NAME -> FILE of the well-formed --input specs; binding the inputs
/// reports malformed, repeated and unknown ones.
std::map<std::string, std::string>
inputFiles(const std::vector<std::string> &specs) {
  std::map<std::string, std::string> files;
  for (const std::string &spec : specs) {
    size_t equals = spec.find('=');
    if (equals != std::string::npos && equals != 0 && equals + 1 < spec.size())
      files.emplace(spec.substr(0, equals), spec.substr(equals + 1));
  }
  return files;
}

/// A file's `dims` in the model's order: as they are unless --input-layout
/// gives input `name` a layout that fits their rank (applying the layout
/// reports a malformed one).
std::vector<int64_t> inModelOrder(const std::string &name,
                                  const std::vector<int64_t> &dims,
                                  const import::ImportOptions &options) {
  Expected<std::map<std::string, std::string>> layouts =
      import::parseLayoutSpecs(options.inputLayouts, "--input-layout");
  if (!layouts) {
    (void)layouts.takeError();
    return dims;
  }
  auto layout = layouts->find(name);
  if (layout == layouts->end())
    return dims;
  Expected<std::vector<int64_t>> permutation =
      import::layoutPermutation(layout->second, int64_t(dims.size()));
  if (!permutation) {
    (void)permutation.takeError();
    return dims;
  }
  // The caller's dim i is the model's dim permutation[i].
  std::vector<int64_t> model(dims.size());
  for (size_t i = 0; i < dims.size(); ++i)
    model[size_t((*permutation)[i])] = dims[i];
  return model;
}

/// Whether an array of `dims` fits what the model declares: the same rank,
/// and the same size wherever the model gives one.
bool fitsDeclared(const std::vector<int64_t> &dims,
                  const import::DeclaredTensor &declared) {
  if (!declared.dims)
    return true;
  if (dims.size() != declared.dims->size())
    return false;
  for (size_t i = 0; i < dims.size(); ++i)
    if ((*declared.dims)[i].size && *(*declared.dims)[i].size != dims[i])
      return false;
  return true;
}

/// "--shape NAME=D0,D1,..." for each input the model leaves unknown, no
/// --shape gives and an --input file shows.
Expected<std::vector<std::string>>
shapesFromFiles(const import::SourceSummary &summary,
                const std::map<std::string, std::string> &files,
                const import::ImportOptions &options) {
  std::vector<std::string> shapes;
  for (const import::DeclaredTensor &input : *summary.inputs) {
    auto file = files.find(input.name);
    if (input.isStatic() || file == files.end())
      continue;
    Expected<NpyHeader> header = readNpyHeader(file->second);
    if (!header)
      return header.takeError();
    std::vector<int64_t> dims = inModelOrder(input.name, header->shape, options);
    if (!fitsDeclared(dims, input))
      return makeError("input '{}': file '{}' holds {} but the model "
                       "declares {}",
                       input.name, file->second,
                       describeArrayType(header->dtype, header->shape),
                       import::describeDeclared(input));
    shapes.push_back(fmt::format("{}={}", input.name, fmt::join(dims, ",")));
  }
  return shapes;
}

/// When the import failed and the summary shows inputs of unknown shape
/// that --input files can fix, the import again with their shapes; else
/// the first import's result.
Expected<import::ImportedModel>
retryWithFileShapes(Expected<import::ImportedModel> failed,
                    const std::string &path, import::ImportOptions options,
                    const std::map<std::string, std::string> &files) {
  Expected<import::SourceSummary> summary = summarizeModel(path, options);
  if (!summary || !summary->inputs) {
    (void)summary.takeError(); // the import's own error says more
    return failed;
  }
  Expected<std::vector<std::string>> shapes = shapesFromFiles(*summary, files, options);
  if (!shapes)
    return shapes.takeError();
  if (shapes->empty())
    return failed;
  options.shapes.insert(options.shapes.end(), shapes->begin(), shapes->end());
  return importModel(path, options);
}

/// An --input file whose shape differs from the --shape given for the same
/// input; --shape wins, but a disagreement is a mistake worth naming.
Error checkShapeFlags(const import::ImportOptions &options,
                      const std::map<std::string, std::string> &files) {
  Expected<std::map<std::string, std::vector<int64_t>>> shapes =
      import::parseShapeOverrides(options.shapes);
  if (!shapes) {
    (void)shapes.takeError(); // the import reports a malformed --shape
    return Error::success();
  }
  for (const auto &[name, dims] : *shapes) {
    auto file = files.find(name);
    if (file == files.end())
      continue;
    Expected<NpyHeader> header = readNpyHeader(file->second);
    if (!header)
      return header.takeError();
    if (inModelOrder(name, header->shape, options) != dims)
      return makeError("input '{}': file '{}' holds {} but --shape gives "
                       "{}={}",
                       name, file->second,
                       describeArrayType(header->dtype, header->shape), name,
                       fmt::join(dims, ","));
  }
  return Error::success();
}
} // namespace

Expected<import::ImportedModel>
importWithInputShapes(const std::string &path,
                      const import::ImportOptions &options,
                      const std::vector<std::string> &inputSpecs) {
  std::map<std::string, std::string> files = inputFiles(inputSpecs);
  // Before the import, whose errors a wrong --shape would only confuse.
  if (Error error = checkShapeFlags(options, files))
    return error;
  // Models with static inputs, the common case, are read once; a summary
  // is read only to find what a failed import was missing.
  Expected<import::ImportedModel> model = importModel(path, options);
  if (!model && !files.empty())
    return retryWithFileShapes(std::move(model), path, options, files);
  return model;
}

} // namespace kiln::driver
