//===- TfOpDefsTest.cpp - "node:out_arg:i" inside TensorFlow functions ----===//
//
// flatOutputIndex counts within the named output argument, through the
// op's argument list (TensorFlow's op registry: names, number_attr,
// type_list_attr) or a library function's signature. Expected indices are
// worked out by hand from those argument lists.
//
//===----------------------------------------------------------------------===//
#include "TensorFlow/TfOpDefs.h"

#include <catch2/catch.hpp>

using namespace kiln;
using namespace kiln::import::tf;

namespace {
tensorflow::NodeDef makeNode(const std::string &op) {
  tensorflow::NodeDef node;
  node.set_name("n");
  node.set_op(op);
  return node;
}

int64_t flat(const tensorflow::NodeDef &node, std::string_view argument,
             int64_t index, const tensorflow::OpDef *signature = nullptr) {
  Expected<int64_t> result = flatOutputIndex(node, signature, argument, index);
  REQUIRE(result);
  return *result;
}
} // namespace

TEST_CASE("output arguments of registry ops", "[tf-import]") {
  tensorflow::NodeDef top = makeNode("TopKV2");
  CHECK(flat(top, "values", 0) == 0);
  CHECK(flat(top, "indices", 0) == 1);
  tensorflow::NodeDef norm = makeNode("FusedBatchNormV3");
  CHECK(flat(norm, "batch_variance", 0) == 2);
  CHECK(flat(norm, "reserve_space_3", 0) == 5);
  tensorflow::NodeDef split = makeNode("Split");
  (*split.mutable_attr())["num_split"].set_i(3);
  CHECK(flat(split, "output", 2) == 2);
  // An op the table does not list has one output argument.
  CHECK(flat(makeNode("AddV2"), "z", 0) == 0);
}

TEST_CASE("output arguments of a library function's signature",
          "[tf-import]") {
  tensorflow::OpDef signature;
  auto *first = signature.add_output_arg();
  first->set_name("parts");
  first->set_number_attr("N");
  signature.add_output_arg()->set_name("total");
  tensorflow::NodeDef call = makeNode("my_function");
  (*call.mutable_attr())["N"].set_i(3);
  CHECK(flat(call, "parts", 1, &signature) == 1);
  CHECK(flat(call, "total", 0, &signature) == 3);
}

TEST_CASE("a wrong output argument is an error naming it", "[tf-import]") {
  tensorflow::NodeDef top = makeNode("TopKV2");
  Expected<int64_t> unknown = flatOutputIndex(top, nullptr, "idx", 0);
  REQUIRE_FALSE(unknown);
  CHECK_THAT(unknown.errorMessage(),
             Catch::Contains("has no output argument 'idx' (it has values, "
                             "indices)"));
  tensorflow::NodeDef split = makeNode("Split");
  (*split.mutable_attr())["num_split"].set_i(2);
  Expected<int64_t> range = flatOutputIndex(split, nullptr, "output", 2);
  REQUIRE_FALSE(range);
  CHECK_THAT(range.errorMessage(), Catch::Contains("has 2 tensors; index 2"));
  // An argument after a list needs the list's size.
  tensorflow::OpDef signature;
  signature.add_output_arg()->set_name("parts");
  signature.mutable_output_arg(0)->set_number_attr("N");
  signature.add_output_arg()->set_name("total");
  Expected<int64_t> unsized =
      flatOutputIndex(makeNode("f"), &signature, "total", 0);
  REQUIRE_FALSE(unsized);
  CHECK_THAT(unsized.errorMessage(), Catch::Contains("needs an int attribute 'N'"));
}
