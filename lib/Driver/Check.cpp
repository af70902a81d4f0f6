//===- Check.cpp - `kiln check`: compiled code against the evaluator ------===//
//
// One run of each side on the same inputs: the JIT-compiled check module
// (every top-level value a result) and the evaluator on an identical copy.
// Both propagate their own values, so the error table shows how error grows
// along the graph; the first probe that disagrees while every probe it reads
// agrees is where the compiled code goes wrong.
//
//===----------------------------------------------------------------------===//
#include "kiln/Driver/Check.h"

#include "BoundedOutputs.h"
#include "CheckModule.h"
#include "MemoryBudget.h"
#include "SeededInputs.h"
#include "TensorCompare.h"

#include "kiln/Driver/Compile.h"
#include "kiln/Driver/Driver.h"
#include "kiln/Driver/Optimize.h"
#include "kiln/Eval/Evaluator.h"
#include "kiln/Import/LiteralUtil.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <optional>
#include <ostream>

namespace kiln::driver {

namespace {

/// float32's unit roundoff: the relative error of one correctly rounded
/// operation, the floor of the growth figure's denominator.
constexpr double kF32Roundoff = 5.9604644775390625e-08; // 2^-24

/// What the evaluator computed and what the compiled code computed for
/// every probe, plus the float64 evaluation when asked for.
struct Values {
  std::vector<ir::Literal> compiled, reference;
  std::optional<std::vector<ir::Literal>> wide;
};

/// One --expect file, matched to a model result.
struct ExpectedOutput {
  size_t result;
  std::string file;
  ir::Literal value;
};

/// The dimension along which result `result` is bounded, if it is.
std::optional<int64_t> boundedDim(const import::ImportedModel &model,
                                  size_t result) {
  for (const import::BoundedResult &bounded : model.boundedResults)
    if (bounded.result == result)
      return bounded.dim;
  return std::nullopt;
}

/// Whether an --expect array of shape `file` can be compared with a result
/// of shape `result`: the same shape, except that a bounded result's file
/// holds only the valid entries along `dim` (as `kiln run` writes them).
bool fitsResult(const ir::Shape &file, const ir::Shape &result,
                std::optional<int64_t> dim) {
  if (!dim || file.isTuple() || file.dtype() != result.dtype() ||
      file.rank() != result.rank())
    return file == result;
  for (int64_t d = 0; d < result.rank(); ++d)
    if (d == *dim ? file.dim(size_t(d)) > result.dim(size_t(d))
                  : file.dim(size_t(d)) != result.dim(size_t(d)))
      return false;
  return true;
}

/// The model's outputs among the probes of `values`, bounded ones cut to
/// their valid entries.
Expected<std::vector<ir::Literal>>
validOutputs(const import::ImportedModel &model, const CheckModules &check,
             const std::vector<ir::Literal> &values) {
  std::vector<ir::Literal> outputs;
  for (size_t probe : check.outputs)
    outputs.push_back(values[probe]);
  if (Error error =
          trimBoundedResults(model.boundedResults, model.resultNames, outputs))
    return error;
  return outputs;
}

/// compareTensors, where a bounded output's valid entries may differ in
/// number: then every element of the longer one counts as a mismatch.
Difference compareOutputs(const ir::Literal &got, const ir::Literal &want,
                          const Tolerance &tolerance) {
  if (got.shape() == want.shape())
    return compareTensors(got, want, tolerance);
  Difference difference;
  difference.maxAbs = difference.relative =
      std::numeric_limits<double>::infinity();
  difference.elements = difference.mismatches =
      std::max(got.numElements(), want.numElements());
  return difference;
}

Expected<std::vector<ExpectedOutput>>
loadExpected(const import::ImportedModel &model,
             const std::vector<std::string> &specs) {
  std::vector<ExpectedOutput> expected;
  for (const std::string &spec : specs) {
    size_t equals = spec.find('=');
    if (equals == std::string::npos || equals == 0 || equals + 1 == spec.size())
      return makeError("--expect expects NAME=FILE.npy, got '{}'", spec);
    std::string name = spec.substr(0, equals), file = spec.substr(equals + 1);
    auto found = std::find(model.resultNames.begin(), model.resultNames.end(),
                           name);
    if (found == model.resultNames.end())
      return makeError("--expect '{}': the model has no result named '{}' "
                       "(its results: {})",
                       spec, name, fmt::join(model.resultNames, ", "));
    size_t result = size_t(found - model.resultNames.begin());
    Expected<NpyArray> array = readNpyFile(file);
    if (!array)
      return array.takeError();
    Expected<ir::Literal> literal = literalFromNpy(*array);
    if (!literal)
      return makeError("--expect '{}': {}", spec, literal.errorMessage());
    const ir::Instruction *root = model.module->entry()->root();
    const ir::Shape &shape = root->opcode() == ir::Opcode::Tuple
                                 ? root->operand(result)->shape()
                                 : root->shape();
    std::optional<int64_t> dim = boundedDim(model, result);
    if (!fitsResult(literal->shape(), shape, dim))
      return makeError("--expect '{}': the file holds {} but result '{}' is "
                       "{}{}",
                       spec, literal->shape().toString(), name,
                       shape.toString(),
                       dim ? fmt::format(" (at most {} valid entries along "
                                         "dimension {})",
                                         shape.dim(size_t(*dim)), *dim)
                           : "");
    expected.push_back({result, file, std::move(*literal)});
  }
  return expected;
}

std::vector<ir::Literal> widenArgs(const std::vector<ir::Literal> &args) {
  std::vector<ir::Literal> wide;
  for (const ir::Literal &arg : args) {
    if (arg.shape().dtype() != ir::DType::F32) {
      wide.push_back(arg);
      continue;
    }
    wide.push_back(import::literalFromDoubles(
        ir::Shape(ir::DType::F64, arg.shape().dims()),
        import::literalToDoubles(arg)));
  }
  return wide;
}

Expected<Values> computeValues(const CheckModules &check,
                               const std::vector<ir::Literal> &args,
                               bool f64, bool winograd) {
  Values values;
  Expected<std::vector<ir::Literal>> compiled =
      runWithJit(*check.compiled, args, winograd);
  if (!compiled)
    return compiled.takeError();
  values.compiled = std::move(*compiled);
  Expected<std::vector<ir::Literal>> reference =
      eval::evaluateModule(*check.reference, args);
  if (!reference)
    return makeError("the reference evaluator failed: {}",
                     reference.errorMessage());
  values.reference = std::move(*reference);
  if (!f64)
    return values;
  Expected<std::unique_ptr<ir::Module>> wide = widenToF64(*check.reference);
  if (!wide)
    return wide.takeError();
  Expected<std::vector<ir::Literal>> wideValues =
      eval::evaluateModule(**wide, widenArgs(args));
  if (!wideValues)
    return makeError("the float64 evaluation failed: {}",
                     wideValues.errorMessage());
  values.wide = std::move(*wideValues);
  return values;
}

bool isFloatProbe(const ir::Literal &value) {
  return ir::isFloat(value.shape().dtype());
}

std::string figure(double value) {
  if (std::isinf(value))
    return "inf";
  return value == 0 ? "0" : fmt::format("{:.2e}", value);
}

/// The comparisons of one probe.
struct ProbeResult {
  Difference difference; ///< compiled vs evaluator, same precision
  std::optional<double> compiledVsWide, referenceVsWide, growth;
};

class Report {
public:
  Report(const CheckModules &check, const Values &values,
         const Tolerance &tolerance)
      : check_(check), values_(values), tolerance_(tolerance) {
    compare();
  }

  bool agrees() const { return diverging_ == 0; }
  void printTable(std::ostream &out) const;
  void printDivergence(std::ostream &out) const;
  void printF64(std::ostream &out,
                const std::vector<std::string> &resultNames) const;

private:
  void compare();

  const CheckModules &check_;
  const Values &values_;
  Tolerance tolerance_;
  std::vector<ProbeResult> results_;
  size_t diverging_ = 0;
  std::optional<size_t> first_;
};

void Report::compare() {
  for (size_t i = 0; i < check_.probes.size(); ++i) {
    ProbeResult result;
    result.difference = compareTensors(values_.compiled[i],
                                       values_.reference[i], tolerance_);
    if (values_.wide && isFloatProbe(values_.compiled[i])) {
      const ir::Literal &wide = (*values_.wide)[i];
      result.compiledVsWide =
          compareTensors(values_.compiled[i], wide, tolerance_).relative;
      result.referenceVsWide =
          compareTensors(values_.reference[i], wide, tolerance_).relative;
      double inputError = 0;
      for (size_t operand : check_.probes[i].operands)
        inputError = std::max(inputError,
                              results_[operand].compiledVsWide.value_or(0));
      result.growth =
          *result.compiledVsWide / std::max(inputError, kF32Roundoff);
    }
    results_.push_back(result);
  }
  for (size_t i = 0; i < results_.size(); ++i) {
    if (results_[i].difference.agrees())
      continue;
    ++diverging_;
    bool operandsAgree = true;
    for (size_t operand : check_.probes[i].operands)
      operandsAgree = operandsAgree && results_[operand].difference.agrees();
    if (operandsAgree && !first_)
      first_ = i;
  }
}

void Report::printTable(std::ostream &out) const {
  size_t nameWidth = 11, opWidth = 2, shapeWidth = 5;
  for (const Probe &probe : check_.probes) {
    nameWidth = std::max(nameWidth, std::min<size_t>(probe.name.size(), 40));
    opWidth = std::max(opWidth, probe.op.size());
    shapeWidth = std::max(shapeWidth, std::min<size_t>(probe.shape.size(), 24));
  }
  std::string header = fmt::format(
      "{:>4}  {:<{}}  {:<{}}  {:<{}}  {:>9}  {:>9}", "#",
      "instruction", nameWidth, "op", opWidth, "shape",
      shapeWidth, "max abs", "max rel");
  if (values_.wide)
    header += fmt::format("  {:>9}  {:>9}  {:>8}", "jit~f64", "eval~f64",
                          "growth");
  out << header << "  status\n";
  for (size_t i = 0; i < check_.probes.size(); ++i) {
    const Probe &probe = check_.probes[i];
    const ProbeResult &result = results_[i];
    std::string line = fmt::format(
        "{:>4}  {:<{}}  {:<{}}  {:<{}}  {:>9}  {:>9}", i, probe.name,
        nameWidth, probe.op, opWidth, probe.shape,
        shapeWidth, figure(result.difference.maxAbs),
        figure(result.difference.relative));
    if (values_.wide)
      line += result.growth
                  ? fmt::format("  {:>9}  {:>9}  {:>7.1f}x",
                                figure(*result.compiledVsWide),
                                figure(*result.referenceVsWide), *result.growth)
                  : fmt::format("  {:>9}  {:>9}  {:>8}", "-", "-", "-");
    std::string status = "ok";
    if (!result.difference.agrees())
      status = fmt::format("DIFFERS ({} of {} elements){}",
                           result.difference.mismatches,
                           result.difference.elements,
                           first_ == i ? " <- first" : "");
    out << line << "  " << status << "\n";
  }
}

void Report::printDivergence(std::ostream &out) const {
  if (diverging_ == 0) {
    out << fmt::format("all {} instructions agree (rtol {}, atol {})\n",
                       check_.probes.size(), tolerance_.rtol, tolerance_.atol);
    return;
  }
  out << fmt::format("{} of {} instructions differ beyond rtol {}, atol {}\n",
                     diverging_, check_.probes.size(), tolerance_.rtol,
                     tolerance_.atol);
  if (!first_) {
    out << "no instruction differs while all its operands agree (the first "
           "differences come from the inputs)\n";
    return;
  }
  const Probe &probe = check_.probes[*first_];
  std::vector<std::string> operands;
  for (size_t operand : probe.operands)
    operands.push_back(check_.probes[operand].name);
  out << fmt::format(
      "first divergence: instruction '{}' ({} {}): max abs error {}, max rel "
      "{}; its operands agree ({})\n",
      probe.name, probe.op, probe.shape,
      figure(results_[*first_].difference.maxAbs),
      figure(results_[*first_].difference.relative),
      operands.empty() ? "it reads only inputs and constants"
                       : fmt::format("{}", fmt::join(operands, ", ")));
}

void Report::printF64(std::ostream &out,
                      const std::vector<std::string> &resultNames) const {
  if (!values_.wide)
    return;
  for (size_t i = 0; i < check_.outputs.size(); ++i) {
    const ProbeResult &result = results_[check_.outputs[i]];
    if (!result.compiledVsWide)
      continue;
    out << fmt::format("float64: output '{}': compiled f32 rel error {} ({:.1f} "
                       "f32 roundoffs), evaluator f32 rel error {}\n",
                       resultNames[i], figure(*result.compiledVsWide),
                       *result.compiledVsWide / kF32Roundoff,
                       figure(*result.referenceVsWide));
  }
  std::optional<size_t> worst;
  for (size_t i = 0; i < results_.size(); ++i)
    if (results_[i].growth &&
        (!worst || *results_[i].growth > *results_[*worst].growth))
      worst = i;
  if (!worst)
    return;
  const Probe &probe = check_.probes[*worst];
  double output = *results_[*worst].compiledVsWide;
  out << fmt::format("float64: largest error growth {:.1f}x at '{}' ({}): "
                     "its operands' rel error {} becomes {}\n",
                     *results_[*worst].growth, probe.name, probe.op,
                     figure(output / *results_[*worst].growth), figure(output));
}

/// For a bounded output: how many entries were compared, or how many each
/// side has when they differ in number.
std::string validEntriesNote(const ir::Literal &got, const ir::Literal &want,
                             std::optional<int64_t> dim) {
  if (!dim)
    return "";
  int64_t gotCount = got.shape().dim(size_t(*dim));
  int64_t wantCount = want.shape().dim(size_t(*dim));
  if (gotCount == wantCount)
    return fmt::format(" ({} valid entries along dimension {})", gotCount,
                       *dim);
  return fmt::format(" (valid entries along dimension {}: compiled {}, "
                     "reference {})",
                     *dim, gotCount, wantCount);
}

/// The outputs against an independent oracle: the evaluator on the module
/// as imported (so an optimization pass that changes the meaning shows).
bool checkImported(const import::ImportedModel &model,
                   const std::vector<ir::Literal> &args,
                   const CheckModules &check, const Values &values,
                   const Tolerance &tolerance, std::ostream &out) {
  Expected<std::vector<ir::Literal>> imported =
      eval::evaluateModule(*model.module, args);
  if (!imported) {
    out << "outputs vs the evaluator on the imported module: not compared ("
        << imported.errorMessage() << ")\n";
    return false;
  }
  Expected<std::vector<ir::Literal>> compiled =
      validOutputs(model, check, values.compiled);
  Error trimmed = compiled ? trimBoundedResults(model.boundedResults,
                                                model.resultNames, *imported)
                           : compiled.takeError();
  if (trimmed) {
    out << "outputs vs the evaluator on the imported module: not compared ("
        << trimmed.message() << ")\n";
    return false;
  }
  bool agree = true;
  for (size_t i = 0; i < check.outputs.size(); ++i) {
    Difference difference =
        compareOutputs((*compiled)[i], (*imported)[i], tolerance);
    agree = agree && difference.agrees();
    out << fmt::format("output '{}' vs the evaluator on the imported module: "
                       "max abs {}, max rel {}: {}{}\n",
                       model.resultNames[i], figure(difference.maxAbs),
                       figure(difference.relative),
                       difference.agrees() ? "agree" : "DIFFERS",
                       validEntriesNote((*compiled)[i], (*imported)[i],
                                        boundedDim(model, i)));
  }
  return agree;
}

bool checkExpected(const std::vector<ExpectedOutput> &expected,
                   const import::ImportedModel &model,
                   const CheckModules &check, const Values &values,
                   const Tolerance &tolerance, std::ostream &out) {
  if (expected.empty())
    return true;
  Expected<std::vector<ir::Literal>> compiled =
      validOutputs(model, check, values.compiled);
  if (!compiled) {
    out << "outputs vs --expect: not compared (" << compiled.errorMessage()
        << ")\n";
    return false;
  }
  std::optional<std::vector<ir::Literal>> wide;
  if (values.wide)
    if (Expected<std::vector<ir::Literal>> valid =
            validOutputs(model, check, *values.wide))
      wide = std::move(*valid);
  bool agree = true;
  for (const ExpectedOutput &entry : expected) {
    const ir::Literal &got = (*compiled)[entry.result];
    Difference difference = compareOutputs(got, entry.value, tolerance);
    agree = agree && difference.agrees();
    std::string line = fmt::format(
        "output '{}' vs --expect {}: max abs {}, max rel {}: {}{}",
        model.resultNames[entry.result], entry.file, figure(difference.maxAbs),
        figure(difference.relative),
        difference.agrees() ? "agree" : "DIFFERS",
        validEntriesNote(got, entry.value, boundedDim(model, entry.result)));
    if (wide && isFloatProbe(entry.value) &&
        (*wide)[entry.result].shape().dims() == entry.value.shape().dims())
      line += fmt::format(
          " (that runtime's rel error vs float64: {})",
          figure(compareTensors(entry.value, (*wide)[entry.result], tolerance)
                     .relative));
    out << line << "\n";
  }
  return agree;
}

} // namespace

Error parseTolerance(const std::string &text, CheckOptions &options) {
  std::vector<std::string> items = splitList(text);
  std::vector<double> numbers;
  for (const std::string &item : items) {
    char *end = nullptr;
    double value = std::strtod(item.c_str(), &end);
    if (end != item.c_str() + item.size() || !(value >= 0))
      return makeError("--tolerance '{}': expected RTOL or RTOL,ATOL with "
                       "non-negative numbers, e.g. 1e-3,1e-4",
                       text);
    numbers.push_back(value);
  }
  if (numbers.empty() || numbers.size() > 2)
    return makeError("--tolerance '{}': expected RTOL or RTOL,ATOL, e.g. "
                     "1e-3,1e-4",
                     text);
  options.rtol = numbers[0];
  if (numbers.size() == 2)
    options.atol = numbers[1];
  return Error::success();
}

Expected<bool> runCheck(const CheckOptions &options, std::ostream &out) {
  Expected<import::ImportedModel> model =
      importWithInputShapes(options.model, options.import, options.inputs);
  if (!model)
    return model.takeError();
  if (!model->variableUpdates.empty())
    return makeError("{}: kiln check does not support models that update "
                     "variables",
                     options.model);
  if (Error error = checkDeclaredSizes(*model))
    return error;
  std::vector<ir::Literal> args;
  if (options.inputs.empty()) {
    Expected<std::vector<ir::Literal>> seeded = seededInputs(*model->module);
    if (!seeded)
      return seeded.takeError();
    args = std::move(*seeded);
  } else {
    Expected<std::vector<ir::Literal>> bound =
        bindInputs(*model, options.inputs);
    if (!bound)
      return bound.takeError();
    args = std::move(*bound);
  }
  Expected<std::vector<ExpectedOutput>> expected =
      loadExpected(*model, options.expect);
  if (!expected)
    return expected.takeError();

  Expected<std::unique_ptr<ir::Module>> optimized =
      optimizedCopy(*model->module, true, options.fusion);
  if (!optimized)
    return optimized.takeError();
  Expected<CheckModules> check =
      buildCheckModules(**optimized, options.injectError);
  if (!check)
    return check.takeError();
  Expected<Values> values = computeValues(*check, args, options.f64, options.winograd);
  if (!values)
    return values.takeError();

  Tolerance tolerance{options.rtol, options.atol};
  out << fmt::format("kiln check {}: {} inputs; the compiled code (host JIT) "
                     "against the evaluator on the optimized module\n",
                     options.model,
                     options.inputs.empty()
                         ? "seeded (mulberry32 seed 1: floats in [0,1), "
                           "integers in [0,255])"
                         : "--input");
  Report report(*check, *values, tolerance);
  report.printTable(out);
  report.printDivergence(out);
  bool agree = report.agrees();
  agree &= checkImported(*model, args, *check, *values, tolerance, out);
  agree &= checkExpected(*expected, *model, *check, *values, tolerance, out);
  report.printF64(out, model->resultNames);
  out << (agree ? "result: agree\n" : "result: DIFFERS\n");
  return agree;
}

} // namespace kiln::driver
