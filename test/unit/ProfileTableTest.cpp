//===- ProfileTableTest.cpp - The table `kiln profile` prints -------------===//
#include "kiln/Driver/Profile.h"

#include <catch2/catch.hpp>

#include <sstream>

using namespace kiln;

namespace {
/// The whitespace-separated fields of the table row for kernel `name`.
std::vector<std::string> row(const std::string &table,
                             const std::string &name) {
  std::istringstream lines(table);
  for (std::string line; std::getline(lines, line);) {
    std::istringstream fields(line);
    std::vector<std::string> out;
    for (std::string field; fields >> field;)
      out.push_back(field);
    if (!out.empty() && out[0] == name)
      return out;
  }
  return {};
}

/// Two runs of 10 ms: a 6 ms dot doing 3e9 FLOPs per call (twice), a
/// 2 ms copy without FLOPs, a 1 ms tail; the remaining 1 ms per run is
/// between kernels.
driver::ProfileReport twoRuns() {
  driver::ProfileReport report;
  report.model = "m.hlo";
  report.runs = 2;
  report.runSeconds = 0.020;
  report.kernels = {{"copy", "copy", "copy", 0, 4000, 2, 0.004},
                    {"dot", "dot", "dot", 3'000'000'000, 1000, 2, 0.012},
                    {"tail", "add", "tail", 10, 30, 2, 0.002}};
  return report;
}
} // namespace

TEST_CASE("the profile table sorts kernels by time", "[driver][profile]") {
  std::string table = driver::formatProfileTable(twoRuns(), 10);
  // Per run: 10 ms, kernels 9 of it.
  CHECK(table.find("m.hlo, 2 runs, 10000.000 us per run (kernels 90.0%)") !=
        std::string::npos);
  size_t dot = table.find("\ndot "), copy = table.find("\ncopy "),
         tail = table.find("\ntail ");
  REQUIRE(dot != std::string::npos);
  CHECK(dot < copy);
  CHECK(copy < tail);
  // dot: 6 ms per run, 60% of the run, 2 x 3e9 FLOPs in 12 ms = 500 GFLOP/s.
  CHECK(row(table, "dot") ==
        std::vector<std::string>{"dot", "dot", "1", "6000.000", "60.0%",
                                 "3000000000", "1000", "500.00"});
  // copy has no FLOPs: no rate.
  CHECK(row(table, "copy") == std::vector<std::string>{"copy", "copy", "1",
                                                       "2000.000", "20.0%", "0",
                                                       "4000", "-"});
}

TEST_CASE("the profile table sums the kernels it leaves out",
          "[driver][profile]") {
  std::string table = driver::formatProfileTable(twoRuns(), 1);
  CHECK(table.find("\ndot ") != std::string::npos);
  CHECK(table.find("\ncopy ") == std::string::npos);
  CHECK(table.find("(2 more kernels: 30.0%)") != std::string::npos);
}

TEST_CASE("the profile table shortens long kernel names", "[driver][profile]") {
  // A fusion named after a 110-character framework path, computing three
  // source nodes: the row shows the path's last 41 characters after "..."
  // and the node count; the trace (not the table) keeps the whole names.
  std::string path = "StatefulPartitionedCall_center_net_mobile_net_v2fpn_"
                     "feature_extractor_model_1_model_block_1_expand_relu_"
                     "Relu6";
  driver::ProfileReport report;
  report.model = "m.pb";
  report.runs = 1;
  report.runSeconds = 0.001;
  report.kernels = {{path, "fusion", "a/conv,a/bias,a/relu6", 0, 8, 1, 0.001}};
  std::string table = driver::formatProfileTable(report, 10);
  std::string shown = "..." + path.substr(path.size() - 41);
  CHECK(shown.size() == 44);
  CHECK(table.find(path) == std::string::npos);
  std::vector<std::string> fields = row(table, shown);
  REQUIRE(fields.size() == 8);
  CHECK(fields[1] == "fusion");
  CHECK(fields[2] == "3");
  // Every line of the table fits 120 columns.
  std::istringstream lines(table);
  for (std::string line; std::getline(lines, line);)
    CHECK(line.size() <= 120);
}
