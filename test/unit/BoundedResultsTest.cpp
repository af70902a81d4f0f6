//===- BoundedResultsTest.cpp - Outputs of run-time size and their counts -===//
//
// The importers' shared result assembly (Common/BoundedResults.h) and the
// driver's cut of a padded result to its valid entries (BoundedOutputs.h).
// Expected values are worked out by hand in the comments.
//
//===----------------------------------------------------------------------===//
#include "Common/BoundedResults.h"

#include "../../lib/Driver/BoundedOutputs.h"

#include "kiln/Import/GraphBuilder.h"
#include "kiln/IR/Module.h"

#include <catch2/catch.hpp>

using namespace kiln;
using namespace kiln::import;
using ir::DType;
using ir::Shape;

namespace {
/// An entry computation with two parameters: `rows` f32[5,2] (dim 0 of run-
/// time size, from node "nms") and `static` f32[3]; `size` is rows' count.
struct Fixture {
  ir::Module module{"m"};
  ir::Computation *entry = module.addComputation("main");
  GraphBuilder builder{*entry};
  Value rows = builder.parameter(0, Shape(DType::F32, {5, 2}), "rows");
  Value other = builder.parameter(1, Shape(DType::F32, {3}), "other");
  Value size = builder.parameter(2, Shape(DType::S32, {}), "size");

  Fixture() {
    DynamicDim dim{size, builder.dynamic().newSymbol(0, 5, "nms")};
    builder.dynamic().setDim(rows, 0, dim);
  }
};
} // namespace

TEST_CASE("a dynamic output gets a count result after every other result",
          "[import]") {
  Fixture f;
  // Results: boxes (dynamic), other (static), v (a variable update).
  ResultList results{{f.rows, f.other, f.other}, {"boxes", "other", "v"}};
  std::vector<BoundedResult> bounded;
  REQUIRE(!appendBoundedCounts(f.builder.dynamic(), "m.pb", 2, results,
                               bounded));
  CHECK(results.names ==
        std::vector<std::string>{"boxes", "other", "v", "boxes_count"});
  CHECK(results.values.back() == f.size);
  REQUIRE(bounded.size() == 1);
  CHECK(bounded[0].result == 0);
  CHECK(bounded[0].dim == 0);
  CHECK(bounded[0].countResult == 3);
}

TEST_CASE("static outputs are left as they are", "[import]") {
  Fixture f;
  ResultList results{{f.other}, {"other"}};
  std::vector<BoundedResult> bounded;
  REQUIRE(!appendBoundedCounts(f.builder.dynamic(), "m.pb", 1, results,
                               bounded));
  CHECK(results.names == std::vector<std::string>{"other"});
  CHECK(bounded.empty());
}

TEST_CASE("unsupported dynamic results are errors naming the output",
          "[import]") {
  Fixture f;
  std::vector<BoundedResult> bounded;
  SECTION("two dynamic dimensions") {
    Value grid = f.builder.parameter(3, Shape(DType::F32, {4, 4}), "grid");
    SizeForm symbol = f.builder.dynamic().newSymbol(0, 4, "where");
    f.builder.dynamic().setDim(grid, 0, {f.size, symbol});
    f.builder.dynamic().setDim(grid, 1, {f.size, symbol});
    ResultList results{{grid}, {"grid"}};
    Error error =
        appendBoundedCounts(f.builder.dynamic(), "m.pb", 1, results, bounded);
    REQUIRE(error);
    CHECK(error.message() ==
          "m.pb: output 'grid' has 2 dimensions of run-time size (0 and 1, "
          "from node 'where'); kiln returns at most one per output, with its "
          "count");
  }
  SECTION("a count name already taken") {
    ResultList results{{f.rows, f.other}, {"boxes", "boxes_count"}};
    Error error =
        appendBoundedCounts(f.builder.dynamic(), "m.pb", 2, results, bounded);
    REQUIRE(error);
    CHECK(error.message() ==
          "m.pb: output 'boxes' has a run-time size along dimension 0; its "
          "count would be the result 'boxes_count', but the model already "
          "has a result with that name");
  }
  SECTION("a variable update of run-time size") {
    ResultList results{{f.other, f.rows}, {"out", "state"}};
    Error error =
        appendBoundedCounts(f.builder.dynamic(), "m.pb", 1, results, bounded);
    REQUIRE(error);
    CHECK(error.message() ==
          "m.pb: variable 'state' is assigned a value whose dimension 0 has a "
          "run-time size (from node 'nms'); variables keep a static shape");
  }
}

TEST_CASE("a bounded result is cut to its valid entries", "[driver]") {
  // [[0,1,2],[3,4,5]] padded along dim 1 (bound 3): 2 valid entries keep
  // columns 0 and 1 of each row.
  ir::Literal padded = ir::Literal::fromValues<int32_t>(
      Shape(DType::S32, {2, 3}), {0, 1, 2, 3, 4, 5});
  ir::Literal columns = driver::leadingEntries(padded, 1, 2);
  CHECK(columns.shape() == Shape(DType::S32, {2, 2}));
  CHECK(columns == ir::Literal::fromValues<int32_t>(Shape(DType::S32, {2, 2}),
                                                     {0, 1, 3, 4}));
  // Along dim 0: the first row.
  CHECK(driver::leadingEntries(padded, 0, 1) ==
        ir::Literal::fromValues<int32_t>(Shape(DType::S32, {1, 3}), {0, 1, 2}));
  CHECK(driver::leadingEntries(padded, 0, 0).shape() ==
        Shape(DType::S32, {0, 3}));

  std::vector<ir::Literal> results = {
      padded, ir::Literal::fromValues<int32_t>(Shape(DType::S32, {}), {1})};
  std::vector<BoundedResult> bounded = {{0, 1, 1}};
  REQUIRE(!driver::trimBoundedResults(bounded, {"x", "x_count"}, results));
  CHECK(results[0] == ir::Literal::fromValues<int32_t>(
                          Shape(DType::S32, {2, 1}), {0, 3}));

  // A count beyond the bound is reported, not read past the buffer.
  results = {padded, ir::Literal::fromValues<int32_t>(Shape(DType::S32, {}),
                                                      {4})};
  Error error = driver::trimBoundedResults(bounded, {"x", "x_count"}, results);
  REQUIRE(error);
  CHECK(error.message() == "result 'x' has 4 valid entries along dimension 1 "
                           "by its count, outside its bound [0, 3]");
}
