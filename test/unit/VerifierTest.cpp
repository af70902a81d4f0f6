//===- VerifierTest.cpp - Structure errors of the verifier ----------------===//
//
// Each case builds a module through the API and asserts the verifier's whole
// message (or its specific part). Per-opcode inference errors are in
// ShapeInferenceErrorTest.cpp.
//
//===----------------------------------------------------------------------===//
#include "kiln/IR/Verifier.h"

#include <catch2/catch.hpp>

using namespace kiln;
using namespace kiln::ir;

namespace {

Shape f32(std::vector<int64_t> dims) { return Shape(DType::F32, dims); }
Shape s32(std::vector<int64_t> dims) { return Shape(DType::S32, dims); }

/// A module "m" with an entry computation "main" to add instructions to.
struct TestModule {
  Module module{"m"};
  Computation *main = nullptr;
  TestModule() {
    main = module.addComputation("main");
    module.setEntry(main);
  }
  Instruction *param(int64_t number, Shape shape, std::string name) {
    return main->addParameter(number, std::move(shape), std::move(name));
  }
  /// The verifier's message for the module ("" when it verifies).
  std::string verify() {
    Error e = verifyModule(module);
    return e ? e.message() : std::string();
  }
};

/// A non-entry computation computing p0 + p1 on f32[n].
Computation *addFusedAdd(Module &module, int64_t n) {
  Computation *fused = module.addComputation("fused");
  Instruction *p0 = fused->addParameter(0, f32({n}), "fp0");
  Instruction *p1 = fused->addParameter(1, f32({n}), "fp1");
  fused->setRoot(fused->add(Opcode::Add, f32({n}), {p0, p1}, {}, "fadd"));
  return fused;
}

} // namespace

TEST_CASE("verifier accepts a well-formed module", "[verifier]") {
  TestModule t;
  Computation *fused = addFusedAdd(t.module, 3);
  Instruction *x = t.param(0, f32({2, 3}), "x");
  Instruction *zero =
      t.main->addConstant(Literal::fromValues<float>(f32({}), {0.0f}), "zero");
  Attributes none;
  Instruction *b =
      t.main->add(Opcode::Broadcast, f32({2, 3}), {zero}, none, "b");
  Instruction *r = t.main->add(Opcode::Maximum, f32({2, 3}), {x, b}, {}, "r");
  Attributes rowSlice;
  rowSlice.slice = {{0, 1, 1}, {0, 3, 1}};
  Instruction *row =
      t.main->add(Opcode::Slice, f32({1, 3}), {r}, rowSlice, "row");
  Instruction *flat = t.main->add(Opcode::Reshape, f32({3}), {row}, {}, "flat");
  Instruction *f = t.main->add(Opcode::Fusion, f32({3}), {flat, flat}, {}, "f");
  f->setCalledComputation(fused);
  t.main->setRoot(t.main->add(
      Opcode::Tuple, Shape::tuple({f32({2, 3}), f32({3})}), {r, f}, {}, "out"));
  CHECK(t.verify() == "");
}

TEST_CASE("verifier reports the computation, instruction and opcode",
          "[verifier]") {
  TestModule t;
  Instruction *a = t.param(0, f32({2, 3}), "a");
  Instruction *b = t.param(1, f32({4, 5}), "b");
  Attributes attrs;
  attrs.dot.lhsContracting = {1};
  attrs.dot.rhsContracting = {0};
  t.main->setRoot(t.main->add(Opcode::Dot, f32({2, 5}), {a, b}, attrs, "d"));
  CHECK(t.verify() ==
        "in computation 'main': instruction 'd' (dot): lhs contracting "
        "dimension 1 has size 3 but rhs contracting dimension 0 has size 4");
  // The instruction-level inferShape carries the same prefix.
  Expected<Shape> shape = inferShape(*t.main->root());
  REQUIRE_FALSE(shape);
  CHECK_THAT(
      shape.errorMessage(),
      Catch::StartsWith("in computation 'main': instruction 'd' (dot): "));
}

TEST_CASE("verifier checks declared shapes against inferred ones",
          "[verifier]") {
  TestModule t;
  Instruction *x = t.param(0, f32({2}), "x");
  SECTION("wrong dims") {
    t.main->setRoot(t.main->add(Opcode::Negate, f32({3}), {x}, {}, "n"));
    CHECK(t.verify() == "in computation 'main': instruction 'n' (negate): "
                        "declared shape f32[3] does not match inferred shape "
                        "f32[2]");
  }
  SECTION("wrong dtype of compare") {
    t.main->setRoot(t.main->add(Opcode::Compare, f32({2}), {x, x}, {}, "c"));
    CHECK_THAT(t.verify(), Catch::Contains("declared shape f32[2] does not "
                                           "match inferred shape pred[2]"));
  }
  SECTION("convert keeps the operand dims") {
    t.main->setRoot(t.main->add(Opcode::Convert, s32({3}), {x}, {}, "cv"));
    CHECK_THAT(t.verify(), Catch::Contains("declared shape s32[3] does not "
                                           "match inferred shape s32[2]"));
  }
  SECTION("constant literal") {
    Instruction *c = t.main->addConstant(
        Literal::fromValues<float>(f32({2}), {1.0f, 2.0f}), "c");
    c->setShape(f32({3}));
    t.main->setRoot(c);
    CHECK_THAT(t.verify(),
               Catch::Contains("instruction 'c' (constant): literal shape "
                               "f32[2] does not match declared shape f32[3]"));
  }
  SECTION("tuple-shaped parameter") {
    Instruction *p = t.param(1, Shape::tuple({f32({2})}), "p");
    t.main->setRoot(p);
    CHECK_THAT(t.verify(),
               Catch::Contains("parameter 'p' has tuple shape (f32[2]); the "
                               "entry computation takes arrays"));
  }
}

TEST_CASE("verifier checks structure", "[verifier]") {
  TestModule t;
  Instruction *x = t.param(0, f32({2}), "x");
  SECTION("missing entry") {
    t.main->setRoot(x);
    t.module.setEntry(nullptr);
    CHECK(t.verify() == "module 'm' has no entry computation");
  }
  SECTION("missing root") {
    CHECK(t.verify() == "in computation 'main': no root instruction");
  }
  SECTION("operand defined after its user") {
    Instruction *n = t.main->add(Opcode::Negate, f32({2}), {x}, {}, "n");
    Instruction *later = t.main->add(Opcode::Abs, f32({2}), {x}, {}, "later");
    n->setOperand(0, later);
    t.main->setRoot(n);
    CHECK(t.verify() == "in computation 'main': instruction 'n' (negate): "
                        "operand 0 'later' is defined after its user");
    // Computations destroy users first; restore the order for teardown.
    n->setOperand(0, x);
  }
  SECTION("operand from another computation") {
    Computation *other = t.module.addComputation("other");
    Instruction *y = other->addParameter(0, f32({2}), "y");
    other->setRoot(y);
    t.main->setRoot(t.main->add(Opcode::Add, f32({2}), {x, y}, {}, "sum"));
    CHECK_THAT(t.verify(),
               Catch::Contains("instruction 'sum' (add): operand 1 'y' is not "
                               "an instruction of this computation"));
  }
  SECTION("parameter gap") {
    Instruction *z = t.param(2, f32({2}), "z");
    t.main->setRoot(t.main->add(Opcode::Add, f32({2}), {x, z}, {}, "sum"));
    CHECK(t.verify() == "in computation 'main': parameters must be numbered "
                        "0..1 without gaps but parameter 1 is missing");
  }
  SECTION("parameter number used twice") {
    Instruction *z = t.param(0, f32({2}), "z");
    t.main->setRoot(t.main->add(Opcode::Add, f32({2}), {x, z}, {}, "sum"));
    CHECK(t.verify() == "in computation 'main': parameter number 0 is used "
                        "by both 'x' and 'z'");
  }
  SECTION("root of another computation") {
    Computation *other = t.module.addComputation("other");
    Instruction *y = other->addParameter(0, f32({2}), "y");
    other->setRoot(y);
    t.main->setRoot(y);
    CHECK(t.verify() == "in computation 'main': root 'y' is not an "
                        "instruction of this computation");
  }
  SECTION("entry root with a nested tuple") {
    Instruction *inner =
        t.main->add(Opcode::Tuple, Shape::tuple({f32({2})}), {x}, {}, "inner");
    t.main->setRoot(t.main->add(Opcode::Tuple,
                                Shape::tuple({Shape::tuple({f32({2})})}),
                                {inner}, {}, "outer"));
    CHECK_THAT(t.verify(),
               Catch::Contains("root 'outer' has shape ((f32[2])); the entry "
                               "computation must return an array or a tuple "
                               "of arrays"));
  }
  SECTION("non-fusion calling a computation") {
    Instruction *n = t.main->add(Opcode::Negate, f32({2}), {x}, {}, "n");
    n->setCalledComputation(t.main);
    t.main->setRoot(n);
    CHECK_THAT(t.verify(),
               Catch::Contains("instruction 'n' (negate): only fusion, while, "
                               "conditional, call, reduce, reduce-window, "
                               "map, scatter, sort and select-and-scatter "
                               "may call a computation"));
  }
}

TEST_CASE("verifier checks names", "[verifier]") {
  TestModule t;
  Instruction *x = t.param(0, f32({2}), "x");
  SECTION("twice in one computation") {
    Instruction *n = t.main->add(Opcode::Negate, f32({2}), {x}, {}, "n");
    n->setName("x");
    t.main->setRoot(n);
    CHECK(t.verify() ==
          "in computation 'main': instruction name 'x' is used twice");
  }
  SECTION("across computations") {
    Computation *fused = addFusedAdd(t.module, 2);
    fused->root()->setName("x");
    t.main->setRoot(x);
    CHECK(t.verify() == "in computation 'fused': instruction name 'x' is "
                        "already used in computation 'main'");
  }
}

TEST_CASE("verifier checks fusions", "[verifier]") {
  TestModule t;
  Instruction *x = t.param(0, f32({2}), "x");
  Instruction *f = t.main->add(Opcode::Fusion, f32({2}), {x, x}, {}, "f");
  t.main->setRoot(f);
  SECTION("no callee") {
    CHECK(t.verify() == "in computation 'main': instruction 'f' (fusion): "
                        "fusion has no called computation");
  }
  SECTION("callee is the entry") {
    f->setCalledComputation(t.main);
    CHECK_THAT(t.verify(), Catch::Contains("instruction 'f' (fusion): calls its own computation"));
  }
  SECTION("callee is another module's entry computation") {
    Module other("other");
    Computation *foreign = addFusedAdd(other, 2);
    f->setCalledComputation(foreign);
    CHECK_THAT(t.verify(), Catch::Contains("called computation 'fused' is not "
                                           "in module 'm'"));
  }
  SECTION("parameter shapes differ from the operands") {
    f->setCalledComputation(addFusedAdd(t.module, 3));
    CHECK(t.verify() == "in computation 'main': instruction 'f' (fusion): "
                        "operand 0 has shape f32[2] but parameter 0 of "
                        "'fused' has shape f32[3]");
  }
  SECTION("operand count differs from the parameters") {
    f->setCalledComputation(addFusedAdd(t.module, 2));
    f->setOperand(1, x);
    Instruction *g = t.main->add(Opcode::Fusion, f32({2}), {x}, {}, "g");
    g->setCalledComputation(f->calledComputation());
    t.main->setRoot(g);
    CHECK_THAT(t.verify(), Catch::Contains("called computation 'fused' has 2 "
                                           "parameters but is given 1 value"));
  }
  SECTION("fusion calling the entry from another computation") {
    Computation *helper = t.module.addComputation("helper");
    Instruction *p = helper->addParameter(0, f32({2}), "hp");
    Instruction *q = helper->addParameter(1, f32({2}), "hq");
    Instruction *back = helper->add(Opcode::Fusion, f32({2}), {p}, {}, "back");
    back->setCalledComputation(t.main);
    helper->setRoot(helper->add(Opcode::Add, f32({2}), {back, q}, {}, "hs"));
    f->setCalledComputation(helper);
    CHECK_THAT(t.verify(),
               Catch::Contains("in computation 'helper': instruction 'back' "
                               "(fusion): calls the entry computation "
                               "'main'"));
  }
  SECTION("call cycle between fused computations") {
    Computation *a = t.module.addComputation("a");
    Computation *b = t.module.addComputation("b");
    Instruction *ap = a->addParameter(0, f32({2}), "ap");
    Instruction *bp = b->addParameter(0, f32({2}), "bp");
    Instruction *af = a->add(Opcode::Fusion, f32({2}), {ap}, {}, "af");
    Instruction *bf = b->add(Opcode::Fusion, f32({2}), {bp}, {}, "bf");
    af->setCalledComputation(b);
    bf->setCalledComputation(a);
    a->setRoot(af);
    b->setRoot(bf);
    f->setCalledComputation(addFusedAdd(t.module, 2));
    Instruction *g = t.main->add(Opcode::Fusion, f32({2}), {x}, {}, "g");
    g->setCalledComputation(a);
    t.main->setRoot(g);
    CHECK_THAT(t.verify(), Catch::Contains("in computation 'b': call cycle "
                                           "through computation 'a'"));
  }
}

TEST_CASE("verifyComputation works without a module", "[verifier]") {
  Computation c("loose");
  Instruction *x = c.addParameter(0, f32({2}), "x");
  c.setRoot(c.add(Opcode::Sqrt, f32({2}), {x}, {}, "s"));
  Error ok = verifyComputation(c);
  CHECK_FALSE(ok);
  c.setRoot(c.add(Opcode::Sqrt, s32({2}),
                  {c.add(Opcode::Convert, s32({2}), {x}, {}, "i")}, {}, "bad"));
  Error e = verifyComputation(c);
  REQUIRE(e);
  CHECK(e.message() == "in computation 'loose': instruction 'bad' (sqrt): "
                       "expected floating-point operands but found s32");
}
