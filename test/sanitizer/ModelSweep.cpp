//===- ModelSweep.cpp - Many models through kiln in one process ----------===//
//
// kiln-model-sweep [--evaluate-max-flops N] LIST: the work of
// scripts/sanitizer_sweep.py, for a sanitized build. Each line of LIST is a
// JSON object {"name": N, "path": P, "shapes": ["x=1,3"]}, and each model
// gets what `kiln inspect` does (import, verify, the default pipeline, buffer
// assignment, cost analysis) and, when the imported module costs at most N
// FLOPs (default: no limit), what `kiln compile --no-opt --emit hlo` plus
// `kiln run --reference` do: the imported module printed as HLO text, parsed
// back, verified and evaluated on the seeded inputs of `kiln check`.
//
// One process for hundreds of models because a sanitized kiln spends about
// a third of a second starting; three processes per model would not fit the
// CI budget. The oracle is the sanitizers and kiln's error contract: a model
// either passes or is refused with a message. Output, one line per model:
//   begin NAME          (flushed first, so a crash names its model)
//   NAME<TAB>OUTCOME<TAB>SECONDS<TAB>DETAIL
// with OUTCOME imported, evaluated, rejected or evaluation-rejected, or FAIL
// (and exit status 1) when a refusal had no message or the printed module did
// not parse back.
//
//===----------------------------------------------------------------------===//
#include "SeededInputs.h"

#include "kiln/Driver/Driver.h"
#include "kiln/Driver/Inspect.h"
#include "kiln/Eval/Evaluator.h"
#include "kiln/IR/Parser.h"
#include "kiln/IR/Printer.h"
#include "kiln/IR/Verifier.h"

#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <string>

namespace {

using namespace kiln;

struct SweepModel {
  std::string name, path;
  std::vector<std::string> shapes;
};

struct Outcome {
  std::string kind, detail;
  bool contractBroken = false; ///< a refusal without a message, and the like
};

Outcome refused(const std::string &kind, const std::string &message) {
  if (message.empty())
    return {kind, "refused without a message", true};
  return {kind, message.substr(0, message.find('\n'))};
}

/// Print, parse back, verify and evaluate the module as imported.
Outcome evaluateImported(const SweepModel &model,
                         const import::ImportOptions &options) {
  auto imported = driver::importModel(model.path, options);
  if (!imported) // inspect imported the same file a moment ago
    return {"evaluation-rejected",
            "a second import failed: " + imported.errorMessage(), true};
  std::string text = ir::printModule(*imported->module);
  auto reparsed = ir::parseModule(text, model.name + ".hlo");
  if (!reparsed)
    return {"evaluation-rejected",
            "printed HLO does not parse back: " + reparsed.errorMessage(),
            true};
  if (Error error = ir::verifyModule(**reparsed))
    return {"evaluation-rejected",
            "printed HLO does not verify: " + error.message(), true};
  auto inputs = driver::seededInputs(**reparsed);
  if (!inputs)
    return refused("evaluation-rejected", inputs.errorMessage());
  auto results = eval::evaluateModule(**reparsed, *inputs);
  if (!results)
    return refused("evaluation-rejected", results.errorMessage());
  return {"evaluated", ""};
}

Outcome sweepOne(const SweepModel &model, int64_t evaluateMaxFlops) {
  driver::InspectOptions inspect;
  inspect.model = model.path;
  inspect.import.shapes = model.shapes;
  driver::InspectReport report = driver::inspectModel(inspect);
  if (!report.error.empty() || !report.cost)
    return refused("rejected", report.error);
  if (evaluateMaxFlops >= 0 && report.cost->imported.flops > evaluateMaxFlops)
    return {"imported", ""};
  return evaluateImported(model, inspect.import);
}

SweepModel parseLine(const std::string &line) {
  nlohmann::json entry = nlohmann::json::parse(line);
  SweepModel model;
  model.name = entry.at("name").get<std::string>();
  model.path = entry.at("path").get<std::string>();
  model.shapes = entry.value("shapes", std::vector<std::string>{});
  return model;
}

} // namespace

int main(int argc, char **argv) {
  int64_t evaluateMaxFlops = -1;
  if (argc == 4 && std::string(argv[1]) == "--evaluate-max-flops") {
    evaluateMaxFlops = std::stoll(argv[2]);
    argv += 2;
    argc -= 2;
  }
  if (argc != 2) {
    std::fprintf(stderr, "usage: kiln-model-sweep [--evaluate-max-flops N] "
                         "LIST.jsonl\n");
    return 2;
  }
  std::ifstream list(argv[1]);
  if (!list) {
    std::fprintf(stderr, "kiln-model-sweep: error: cannot read '%s'\n",
                 argv[1]);
    return 2;
  }
  bool broken = false;
  for (std::string line; std::getline(list, line);) {
    if (line.empty())
      continue;
    SweepModel model = parseLine(line);
    std::cout << "begin " << model.name << std::endl;
    auto start = std::chrono::steady_clock::now();
    Outcome outcome = sweepOne(model, evaluateMaxFlops);
    std::chrono::duration<double> seconds =
        std::chrono::steady_clock::now() - start;
    broken |= outcome.contractBroken;
    std::cout << model.name << '\t'
              << (outcome.contractBroken ? "FAIL" : outcome.kind) << '\t'
              << seconds.count() << '\t' << outcome.detail << std::endl;
  }
  return broken ? 1 : 0;
}
