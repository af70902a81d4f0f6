//===- RunDriver.cpp - `kiln run`: execute a model on .npy inputs ---------===//
#include "kiln/Driver/Driver.h"

#include "BoundedOutputs.h"
#include "MemoryBudget.h"

#include "kiln/Driver/Compile.h"
#include "kiln/Driver/Optimize.h"
#include "kiln/Eval/Evaluator.h"
#include "kiln/Support/Allocation.h"
#include "kiln/Support/FileUtils.h"

#include <filesystem>
#include <map>
#include <set>
#include <system_error>

namespace kiln::driver {

namespace {
std::string describeShape(const ir::Shape &shape) {
  if (shape.isTuple())
    return shape.toString();
  return describeArrayType(ir::numpyName(shape.dtype()), shape.dims());
}

/// Splits "NAME=FILE" at the first '='; names never contain one.
Expected<std::pair<std::string, std::string>>
parseInputSpec(const std::string &spec) {
  size_t equals = spec.find('=');
  if (equals == std::string::npos || equals == 0 || equals + 1 == spec.size())
    return makeError("--input expects NAME=FILE.npy, got '{}'", spec);
  return std::make_pair(spec.substr(0, equals), spec.substr(equals + 1));
}

std::string nameList(const std::vector<std::string> &names) {
  return names.empty() ? "none" : fmt::format("{}", fmt::join(names, ", "));
}

/// Maps each input name to its file, rejecting unknown and repeated names
/// and reporting every arg left without an input.
Expected<std::map<std::string, std::string>>
matchInputs(const std::vector<std::string> &argNames,
            const std::vector<std::string> &specs) {
  std::set<std::string> known(argNames.begin(), argNames.end());
  std::map<std::string, std::string> files;
  for (const std::string &spec : specs) {
    auto parsed = parseInputSpec(spec);
    if (!parsed)
      return parsed.takeError();
    auto &[name, file] = *parsed;
    if (!known.count(name))
      return makeError("the model has no input named '{}' (its inputs: {})",
                       name, nameList(argNames));
    if (!files.emplace(name, file).second)
      return makeError("--input '{}' is given more than once", name);
  }
  std::vector<std::string> missing;
  for (const std::string &name : argNames)
    if (!files.count(name))
      missing.push_back(name);
  if (!missing.empty())
    return makeError("missing --input for {} (use --input NAME=FILE.npy for "
                     "each of: {})",
                     fmt::join(missing, ", "), nameList(argNames));
  return files;
}

Expected<ir::Literal> loadInput(const std::string &name,
                                const ir::Shape &expected,
                                const std::string &file) {
  if (expected.isTuple())
    return makeError("input '{}' has tuple type {}; kiln run takes array "
                     "inputs only",
                     name, expected.toString());
  Expected<NpyArray> array = readNpyFile(file);
  if (!array)
    return array.takeError();
  std::string wanted(ir::numpyName(expected.dtype()));
  if (array->dtype != wanted || array->shape != expected.dims())
    return makeError("input '{}' is {} but the model expects {} (file '{}')",
                     name, describeArrayType(array->dtype, array->shape),
                     describeShape(expected), file);
  return literalFromNpy(*array);
}

/// Result names made into unique, safe file names ("y", "y.1", ...).
std::vector<std::string>
resultFileNames(const std::vector<std::string> &resultNames) {
  std::vector<std::string> files;
  std::set<std::string> used;
  for (const std::string &name : resultNames) {
    std::string base = sanitizeFileName(name), file = base;
    for (int n = 1; used.count(file); ++n)
      file = fmt::format("{}.{}", base, n);
    used.insert(file);
    files.push_back(file);
  }
  return files;
}

Expected<std::vector<ir::Literal>> execute(const ir::Module &module,
                                           const std::vector<ir::Literal> &args,
                                           const RunOptions &options) {
  // The evaluator runs the module as imported: an oracle independent of
  // the optimization passes.
  if (options.reference)
    return eval::evaluateModule(module, args);
  // The same pipeline and code generator `kiln compile` uses, run
  // in-process (JitRun.cpp).
  Expected<std::unique_ptr<ir::Module>> optimized =
      optimizedCopy(module, options.optimize, options.fusion);
  if (!optimized)
    return optimized.takeError();
  return runWithJit(**optimized, args, options.winograd);
}

/// The .npy file of result `name`, which it consumes (its bytes move into
/// the array). Serializing still copies it twice, so a result within
/// --max-arena may find the memory short: an error naming it, not
/// std::bad_alloc.
Expected<std::string> npyFileText(ir::Literal result, const std::string &name) {
  int64_t bytes = result.shape().byteSize();
  try {
    NpyArray array{std::string(ir::numpyName(result.shape().dtype())),
                   result.shape().dims(), std::move(result.bytes())};
    std::vector<uint8_t> file = serializeNpy(array);
    return std::string(file.begin(), file.end());
  } catch (const std::bad_alloc &) {
    return allocationError(fmt::format("the .npy file of result '{}'", name),
                           bytes);
  }
}
} // namespace

Expected<ir::Literal> literalFromNpy(const NpyArray &array) {
  std::optional<ir::DType> dtype = ir::parseNumpyName(array.dtype);
  if (!dtype)
    return makeError("unsupported dtype '{}'", array.dtype);
  ir::Shape shape(*dtype, array.shape);
  if (int64_t(array.data.size()) != shape.byteSize())
    return makeError("{} needs {} bytes of data but has {}",
                     describeArrayType(array.dtype, array.shape),
                     shape.byteSize(), array.data.size());
  std::vector<uint8_t> bytes = array.data;
  if (*dtype == ir::DType::Pred)
    for (uint8_t &byte : bytes)
      byte = byte != 0;
  return ir::Literal(std::move(shape), std::move(bytes));
}

NpyArray npyFromLiteral(const ir::Literal &literal) {
  assert(!literal.shape().isTuple() && "npy holds arrays only");
  return NpyArray{std::string(ir::numpyName(literal.shape().dtype())),
                  literal.shape().dims(), literal.bytes()};
}

namespace {
Expected<std::vector<ir::Literal>>
bindNamedInputs(const ir::Module &module, const std::vector<std::string> &names,
                const std::vector<std::string> &specs) {
  assert(module.entry() && "verified modules have an entry");
  std::vector<ir::Instruction *> parameters = module.entry()->parameters();
  assert(parameters.size() == names.size() && "one name per parameter");
  auto files = matchInputs(names, specs);
  if (!files)
    return files.takeError();
  std::vector<ir::Literal> args;
  for (size_t i = 0; i < parameters.size(); ++i) {
    auto literal =
        loadInput(names[i], parameters[i]->shape(), files->at(names[i]));
    if (!literal)
      return literal.takeError();
    args.push_back(std::move(*literal));
  }
  return args;
}
} // namespace

Expected<std::vector<ir::Literal>>
bindInputs(const ir::Module &module, const std::vector<std::string> &specs) {
  std::vector<std::string> names;
  for (const ir::Instruction *parameter : module.entry()->parameters())
    names.push_back(parameter->name());
  return bindNamedInputs(module, names, specs);
}

Expected<std::vector<ir::Literal>>
bindInputs(const import::ImportedModel &model,
           const std::vector<std::string> &specs) {
  std::vector<std::string> names;
  for (const import::ArgMetadata &arg : model.args)
    names.push_back(arg.name);
  return bindNamedInputs(*model.module, names, specs);
}

std::vector<std::string> resultNames(const ir::Module &module) {
  const ir::Instruction *root = module.entry()->root();
  std::vector<std::string> names;
  if (root->opcode() == ir::Opcode::Tuple) {
    for (const ir::Instruction *operand : root->operands())
      names.push_back(operand->name());
    return names;
  }
  if (!root->shape().isTuple())
    return {root->name()};
  // A tuple-valued root that is not a tuple instruction (sort, top-k, a
  // fusion) has no names for its elements; number them after the root.
  for (size_t i = 0; i < root->shape().tupleElements().size(); ++i)
    names.push_back(fmt::format("{}.{}", root->name(), i));
  return names;
}

std::string sanitizeFileName(std::string_view name) {
  std::string safe(name);
  for (char &c : safe) {
    bool ok = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
              (c >= '0' && c <= '9') || c == '_' || c == '.' || c == '-';
    if (!ok)
      c = '_';
  }
  return safe;
}

Expected<std::vector<RunOutput>> runModel(const RunOptions &options) {
  auto model =
      importWithInputShapes(options.model, options.import, options.inputs);
  if (!model)
    return model.takeError();
  if (Error error = checkDeclaredSizes(*model))
    return error;
  auto args = bindInputs(*model, options.inputs);
  if (!args)
    return args.takeError();
  auto results = execute(*model->module, *args, options);
  if (!results)
    return results.takeError();

  const std::vector<std::string> &names = model->resultNames;
  std::vector<std::string> files = resultFileNames(names);
  assert(results->size() == names.size() && "one literal per result");
  std::vector<ir::Shape> padded;
  for (const ir::Literal &result : *results)
    padded.push_back(result.shape());
  if (Error error = trimBoundedResults(model->boundedResults, names, *results))
    return error;
  AtomicFileSet fileSet;
  std::vector<RunOutput> outputs;
  for (size_t i = 0; i < names.size(); ++i) {
    std::string path =
        (std::filesystem::path(options.outputDir) / (files[i] + ".npy"))
            .string();
    outputs.push_back({names[i], path, (*results)[i].shape(), std::nullopt});
    Expected<std::string> text =
        npyFileText(std::move((*results)[i]), names[i]);
    if (!text)
      return text.takeError();
    fileSet.add(path, std::move(*text));
  }
  for (const import::BoundedResult &bounded : model->boundedResults)
    outputs[bounded.result].bound =
        RunOutput::Bound{bounded.dim, padded[bounded.result]};
  // Created once every file's contents exist: a failure above leaves no
  // directory behind either.
  std::error_code ec;
  std::filesystem::create_directories(options.outputDir, ec);
  if (ec)
    return makeError("cannot create output directory '{}': {}",
                     options.outputDir, ec.message());
  if (Error error = fileSet.commit())
    return error;
  return outputs;
}

} // namespace kiln::driver
