//===- CodeGenTest.cpp - Generated code against the reference evaluator ---===//
//
// Each case parses a small module, generates code for the host (and for a
// baseline x86-64 without SSE4.1, which takes the libm-free rounding path),
// runs it through the JIT with inputs that include NaN, infinities, -0 and
// integer extremes, and compares every result with kiln::eval (an
// independent implementation) plus a few hand-computed values.
//
//===----------------------------------------------------------------------===//
#include "kiln/Analysis/BufferAssignment.h"
#include "kiln/CodeGen/CodeGen.h"
#include "kiln/Eval/Evaluator.h"
#include "kiln/IR/Parser.h"
#include "kiln/IR/Verifier.h"
#include "kiln/Support/Float16.h"
#include "kiln/Target/Jit.h"
#include "kiln/Target/Target.h"

#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/Object/ObjectFile.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Target/TargetMachine.h>

#include <catch2/catch.hpp>

#include <cmath>
#include <cstdlib>
#include <cstring>

using namespace kiln;

namespace {

std::unique_ptr<ir::Module> parse(const std::string &text) {
  auto module = ir::parseModule(text, "test.hlo");
  if (!module)
    FAIL(module.errorMessage());
  if (Error e = ir::verifyModule(**module))
    FAIL(e.message());
  return std::move(*module);
}

std::unique_ptr<llvm::TargetMachine> machineFor(const target::TargetOptions &o) {
  target::initializeTargets();
  auto resolved = target::resolveTarget(o);
  if (!resolved)
    FAIL(resolved.errorMessage());
  auto machine = target::createTargetMachine(*resolved);
  if (!machine)
    FAIL(machine.errorMessage());
  return std::move(*machine);
}

/// Compiles for `options` (host by default), runs through the JIT.
std::vector<ir::Literal> runCompiled(const ir::Module &module,
                                     const std::vector<ir::Literal> &args,
                                     const target::TargetOptions &options = {}) {
  auto buffers = analysis::BufferAssignment::build(module);
  if (!buffers)
    FAIL(buffers.errorMessage());
  auto machine = machineFor(options);
  auto context = std::make_unique<llvm::LLVMContext>();
  codegen::CodeGenOptions cg;
  cg.entryName = "test_run";
  auto generated = codegen::emitModule(module, *buffers, cg, *context, *machine);
  if (!generated)
    FAIL(generated.errorMessage());
  if (Error e = target::optimizeModule(*generated->module, *machine))
    FAIL(e.message());
  auto jit = target::Jit::create(std::move(generated->module), std::move(context));
  if (!jit)
    FAIL(jit.errorMessage());
  auto entry = (*jit)->lookup("test_run");
  if (!entry)
    FAIL(entry.errorMessage());
  // Args copied to buffers offset by one element so that only element
  // alignment holds, as the ABI allows.
  std::vector<std::vector<uint8_t>> argStorage;
  std::vector<const void *> argPointers;
  for (const ir::Literal &arg : args) {
    size_t elem = ir::byteSize(arg.shape().dtype());
    argStorage.emplace_back(arg.bytes().size() + elem + 64);
    auto base = reinterpret_cast<uintptr_t>(argStorage.back().data());
    uint8_t *p = reinterpret_cast<uint8_t *>((base + 63) / 64 * 64 + elem);
    std::memcpy(p, arg.bytes().data(), arg.bytes().size());
    argPointers.push_back(p);
  }
  std::vector<ir::Literal> results;
  for (int64_t i = 0; i < buffers->resultCount(); ++i) {
    analysis::ValueRef v = buffers->resultValue(i);
    const ir::Shape &s = v.tupleIndex < 0
                             ? v.instruction->shape()
                             : v.instruction->shape().tupleElements()[size_t(v.tupleIndex)];
    results.emplace_back(s);
  }
  std::vector<void *> resultPointers;
  for (ir::Literal &r : results)
    resultPointers.push_back(r.bytes().data());
  size_t arenaBytes = size_t(std::max<int64_t>(buffers->arenaBytes(), 64));
  void *arena = std::aligned_alloc(64, (arenaBytes + 63) / 64 * 64);
  int status = (*entry)(argPointers.data(), resultPointers.data(), arena);
  std::free(arena);
  CHECK(status == 0);
  return results;
}

double elementAsDouble(const ir::Literal &l, int64_t i) {
  const uint8_t *p = l.bytes().data() + i * int64_t(ir::byteSize(l.shape().dtype()));
  auto get = [&](auto zero) {
    decltype(zero) v;
    std::memcpy(&v, p, sizeof v);
    return double(v);
  };
  switch (l.shape().dtype()) {
  case ir::DType::Pred: return get(uint8_t());
  case ir::DType::S8: return get(int8_t());
  case ir::DType::S16: return get(int16_t());
  case ir::DType::S32: return get(int32_t());
  case ir::DType::S64: return get(int64_t());
  case ir::DType::U8: return get(uint8_t());
  case ir::DType::U16: return get(uint16_t());
  case ir::DType::U32: return get(uint32_t());
  case ir::DType::U64: return get(uint64_t());
  case ir::DType::F16: { uint16_t b; std::memcpy(&b, p, 2); return halfToFloat(b); }
  case ir::DType::BF16: { uint16_t b; std::memcpy(&b, p, 2); return bfloat16ToFloat(b); }
  case ir::DType::F32: return get(float());
  case ir::DType::F64: return get(double());
  default: return 0;
  }
}

/// Deterministic inputs: specials first, then a spread of magnitudes.
ir::Literal makeInput(const ir::Shape &shape, uint64_t seed) {
  ir::Literal l(shape);
  ir::DType t = shape.dtype();
  size_t elem = ir::byteSize(t);
  static const double kFloatSpecials[] = {
      NAN, INFINITY, -INFINITY, 0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 2.5, -2.5,
      1e-3, 100.0, -100.0, 3.0, 1e-40, 88.0, -90.0, 710.0, 1e7};
  static const double kIntSpecials[] = {0, 1, -1, 2, -2, 7, 127, -128, 255,
                                        31, 32, 33, 63, 64, -7};
  uint64_t state = seed * 6364136223846793005ull + 1442695040888963407ull;
  for (int64_t i = 0; i < shape.numElements(); ++i) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    double u = double(state >> 11) / double(1ull << 53); // [0, 1)
    uint8_t *p = l.bytes().data() + size_t(i) * elem;
    double v;
    if (ir::isFloat(t)) {
      size_t n = sizeof(kFloatSpecials) / sizeof(double);
      v = size_t(i) < n ? kFloatSpecials[(size_t(i) + seed) % n]
                        : (u - 0.5) * std::pow(10.0, double(state % 7) - 3);
    } else {
      size_t n = sizeof(kIntSpecials) / sizeof(double);
      v = size_t(i) < n ? kIntSpecials[(size_t(i) + seed) % n]
                        : std::floor((u - 0.5) * 200);
    }
    auto put = [&](auto value) { std::memcpy(p, &value, sizeof value); };
    switch (t) {
    case ir::DType::Pred: put(uint8_t(u < 0.5)); break;
    case ir::DType::S8: put(int8_t(int64_t(v))); break; // wraps, like U8
    case ir::DType::S16: put(int16_t(int64_t(v))); break;
    case ir::DType::S32:
      put(i == 3 ? INT32_MIN : int32_t(v)); break;
    case ir::DType::S64:
      put(i == 3 ? INT64_MIN : int64_t(v)); break;
    case ir::DType::U8: put(uint8_t(int64_t(v))); break;
    case ir::DType::U16: put(uint16_t(int64_t(v))); break;
    case ir::DType::U32: put(uint32_t(int64_t(v))); break;
    case ir::DType::U64: put(uint64_t(int64_t(v))); break;
    case ir::DType::F16: put(floatToHalf(float(v))); break;
    case ir::DType::BF16: put(floatToBfloat16(float(v))); break;
    case ir::DType::F32: put(float(v)); break;
    case ir::DType::F64: put(v); break;
    default: break;
    }
  }
  return l;
}

bool close(double got, double want, ir::DType t) {
  if (std::isnan(want))
    return std::isnan(got);
  if (std::isinf(want) || !ir::isFloat(t))
    return got == want;
  double rtol = t == ir::DType::F64 ? 1e-12 : t == ir::DType::F32 ? 1e-5 : 1e-2;
  double atol = t == ir::DType::F64 ? 1e-300 : t == ir::DType::F32 ? 1e-30 : 1e-4;
  return std::fabs(got - want) <= atol + rtol * std::fabs(want);
}

/// Runs `text` compiled and evaluated on the same inputs; compares all.
void checkAgainstEvaluator(const std::string &text,
                           const target::TargetOptions &options = {}) {
  auto module = parse(text);
  std::vector<ir::Literal> args;
  for (const ir::Instruction *p : module->entry()->parameters())
    args.push_back(makeInput(p->shape(), uint64_t(args.size()) + 1));
  auto expected = eval::evaluateModule(*module, args);
  if (!expected)
    FAIL(expected.errorMessage());
  std::vector<ir::Literal> got = runCompiled(*module, args, options);
  REQUIRE(got.size() == expected->size());
  for (size_t r = 0; r < got.size(); ++r) {
    const ir::Literal &want = (*expected)[r];
    REQUIRE(got[r].shape() == want.shape());
    int mismatches = 0;
    for (int64_t i = 0; i < want.numElements(); ++i) {
      double g = elementAsDouble(got[r], i), w = elementAsDouble(want, i);
      if (close(g, w, want.shape().dtype()))
        continue;
      if (++mismatches <= 5) {
        double in = args.empty() ? 0 : elementAsDouble(args[0], i % args[0].numElements());
        INFO("result " << r << " element " << i << ": got " << g << " want "
                       << w << " (arg0 " << in << ")");
        CHECK(false);
      }
    }
    CHECK(mismatches == 0);
  }
}

std::string unaryModule(const std::string &dtype, const std::string &dims) {
  const char *ops[] = {"abs", "negate", "exponential", "log", "sqrt", "rsqrt",
                       "tanh", "logistic", "erf", "sine", "cosine", "floor",
                       "ceil", "round-nearest-even", "round-nearest-afz",
                       "sign", "copy"};
  std::string shape = dtype + "[" + dims + "]";
  std::string body = "  x = " + shape + " parameter(0)\n", types, names;
  for (const char *op : ops) {
    std::string name = std::string("v_") + op;
    for (char &c : name)
      if (c == '-')
        c = '_';
    body += "  " + name + " = " + shape + " " + op + "(x)\n";
    types += (types.empty() ? "" : ", ") + shape;
    names += (names.empty() ? "" : ", ") + name;
  }
  body += "  fin = pred[" + dims + "] is-finite(x)\n";
  types += ", pred[" + dims + "]";
  names += ", fin";
  return "HloModule unary, entry=main\n\nENTRY main {\n" + body +
         "  ROOT t = (" + types + ") tuple(" + names + ")\n}\n";
}

std::string binaryModule(const std::string &dtype, const std::string &dims,
                         const std::vector<std::string> &ops) {
  std::string shape = dtype + "[" + dims + "]";
  std::string body = "  x = " + shape + " parameter(0)\n  y = " + shape +
                     " parameter(1)\n";
  std::string types, names;
  for (const std::string &op : ops) {
    std::string name = "v_" + op;
    for (char &c : name)
      if (c == '-')
        c = '_';
    body += "  " + name + " = " + shape + " " + op + "(x, y)\n";
    types += (types.empty() ? "" : ", ") + shape;
    names += (names.empty() ? "" : ", ") + name;
  }
  for (const char *dir : {"EQ", "NE", "LT", "LE", "GT", "GE"}) {
    body += std::string("  c") + dir + " = pred[" + dims + "] compare(x, y), direction=" + dir + "\n";
    types += ", pred[" + dims + "]";
    names += std::string(", c") + dir;
  }
  return "HloModule binary, entry=main\n\nENTRY main {\n" + body +
         "  ROOT t = (" + types + ") tuple(" + names + ")\n}\n";
}

const std::vector<std::string> kFloatBinary = {
    "add", "subtract", "multiply", "divide", "remainder", "power",
    "maximum", "minimum", "atan2"};
const std::vector<std::string> kIntBinary = {
    "add", "subtract", "multiply", "divide", "remainder", "power", "maximum",
    "minimum", "and", "or", "xor", "shift-left", "shift-right-arithmetic",
    "shift-right-logical"};

} // namespace

TEST_CASE("codegen: float unary ops match the evaluator", "[codegen]") {
  // 7x13 = 91 elements: vector body plus scalar tail.
  for (const char *dtype : {"f32", "f64", "f16", "bf16"}) {
    SECTION(dtype) { checkAgainstEvaluator(unaryModule(dtype, "7,13")); }
  }
}

TEST_CASE("codegen: float binary ops and compares match the evaluator",
          "[codegen]") {
  for (const char *dtype : {"f32", "f64", "f16", "bf16"}) {
    SECTION(dtype) {
      checkAgainstEvaluator(binaryModule(dtype, "67", kFloatBinary));
    }
  }
}

TEST_CASE("codegen: integer ops match the evaluator", "[codegen]") {
  for (const char *dtype : {"s8", "s16", "s32", "s64", "u8", "u16", "u32", "u64"}) {
    SECTION(dtype) {
      checkAgainstEvaluator(binaryModule(dtype, "45", kIntBinary));
      // sign is defined for signed integers only.
      std::string t = std::string(dtype) + "[19]";
      bool isSigned = dtype[0] == 's';
      checkAgainstEvaluator(
          "HloModule u, entry=main\nENTRY main {\n  x = " + t +
          " parameter(0)\n  a = " + t + " abs(x)\n  n = " + t +
          " negate(x)\n  s = " + t + (isSigned ? " sign(x)" : " copy(x)") +
          "\n  o = " + t + " not(x)\n  ROOT r = (" + t + ", " + t + ", " + t +
          ", " + t + ") tuple(a, n, s, o)\n}\n");
    }
  }
}

TEST_CASE("codegen: integer division rules by hand", "[codegen]") {
  auto module = parse(R"(HloModule div, entry=main
ENTRY main {
  x = s32[4] parameter(0)
  y = s32[4] parameter(1)
  q = s32[4] divide(x, y)
  r = s32[4] remainder(x, y)
  ROOT t = (s32[4], s32[4]) tuple(q, r)
})");
  std::vector<int32_t> x = {7, -7, INT32_MIN, 5}, y = {0, 2, -1, -3};
  auto got = runCompiled(*module, {ir::Literal::fromValues(ir::Shape(ir::DType::S32, {4}), x),
                                   ir::Literal::fromValues(ir::Shape(ir::DType::S32, {4}), y)});
  const int32_t *q = got[0].data<int32_t>(), *r = got[1].data<int32_t>();
  CHECK(q[0] == -1);
  CHECK(r[0] == 7);
  CHECK(q[1] == -3);
  CHECK(r[1] == -1);
  CHECK(q[2] == INT32_MIN);
  CHECK(r[2] == 0);
  CHECK(q[3] == -1);
  CHECK(r[3] == 2);
}

TEST_CASE("codegen: converts match the evaluator", "[codegen]") {
  const char *types[] = {"pred", "s8", "s32", "s64", "u8", "u32", "u64",
                         "f16", "bf16", "f32", "f64"};
  for (const char *from : types) {
    SECTION(from) {
      std::string body = std::string("  x = ") + from + "[33] parameter(0)\n";
      std::string tys, names;
      for (const char *to : types) {
        body += std::string("  c_") + to + " = " + to + "[33] convert(x)\n";
        tys += (tys.empty() ? "" : ", ") + std::string(to) + "[33]";
        names += (names.empty() ? "" : ", ") + std::string("c_") + to;
      }
      checkAgainstEvaluator("HloModule cvt, entry=main\nENTRY main {\n" + body +
                            "  ROOT t = (" + tys + ") tuple(" + names + ")\n}\n");
    }
  }
}

TEST_CASE("codegen: hand-checked f32 conversions and NaN rules", "[codegen]") {
  auto module = parse(R"(HloModule c, entry=main
ENTRY main {
  x = f32[6] parameter(0)
  i = s8[6] convert(x)
  h = f16[6] convert(x)
  m = f32[6] maximum(x, x)
  ROOT t = (s8[6], f16[6], f32[6]) tuple(i, h, m)
})");
  std::vector<float> x = {NAN, 1000.f, -1000.f, -2.9f, 65520.f, 1.0009765625f};
  auto got = runCompiled(*module, {ir::Literal::fromValues(ir::Shape(ir::DType::F32, {6}), x)});
  const int8_t *i = got[0].data<int8_t>();
  CHECK(i[0] == 0);
  CHECK(i[1] == 127);
  CHECK(i[2] == -128);
  CHECK(i[3] == -2);
  const uint16_t *h = got[1].data<uint16_t>();
  CHECK(h[4] == 0x7c00); // 65520 rounds to +inf in f16
  CHECK(h[5] == 0x3c01); // 1 + 2^-10 exactly
  CHECK(std::isnan(got[2].data<float>()[0]));
}

TEST_CASE("codegen: data movement ops match the evaluator", "[codegen]") {
  checkAgainstEvaluator(R"(HloModule layout, entry=main
ENTRY main {
  x = f32[3,4] parameter(0)
  y = s32[2,4] parameter(1)
  s = f32[] parameter(2)
  b = f32[2,3,4] broadcast(x), dimensions={1,2}
  bs = f32[3,4] broadcast(s), dimensions={}
  r = f32[4,3] reshape(x)
  tr = f32[4,3] transpose(x), dimensions={1,0}
  sl = f32[2,2] slice(x), slice={[1:3], [0:4:2]}
  c = f32[3,12] concatenate(x, x, bs), dimensions={1}
  p = f32[5,11] pad(x, s), padding=1_1_0x2_2_1
  pn = f32[1,2] pad(x, s), padding=-1_-1_0x0_-2_0
  rv = s32[2,4] reverse(y), dimensions={0,1}
  io = s32[3,5] iota(), iota_dimension=1
  iof = f32[4] iota(), iota_dimension=0
  ROOT t = (f32[2,3,4], f32[3,4], f32[4,3], f32[4,3], f32[2,2], f32[3,12], f32[5,11], f32[1,2], s32[2,4], s32[3,5], f32[4]) tuple(b, bs, r, tr, sl, c, p, pn, rv, io, iof)
})");
}

TEST_CASE("codegen: select, clamp and fusion", "[codegen]") {
  checkAgainstEvaluator(R"(HloModule fused, entry=main

fused.1 {
  p0 = f32[5,6] parameter(0)
  p1 = f32[6] parameter(1)
  b = f32[5,6] broadcast(p1), dimensions={1}
  a = f32[5,6] add(p0, b)
  z = f32[] constant(0)
  zb = f32[5,6] broadcast(z), dimensions={}
  ROOT m = f32[5,6] maximum(a, zb)
}

fused.2 {
  q0 = f32[5,6] parameter(0)
  e = f32[5,6] exponential(q0)
  ROOT n = f32[5,6] negate(e)
}

ENTRY main {
  x = f32[5,6] parameter(0)
  v = f32[6] parameter(1)
  k = pred[5,6] parameter(2)
  f = f32[5,6] fusion(x, v), kind=kLoop, calls=fused.1
  g = f32[5,6] fusion(f), kind=kLoop, calls=fused.2
  s = f32[5,6] select(k, f, x)
  c = f32[5,6] clamp(f, x, g)
  ROOT t = (f32[5,6], f32[5,6], f32[5,6], f32[5,6], f32[5,6]) tuple(g, s, c, x, g)
})");
}

TEST_CASE("codegen: baseline x86-64 without SSE4.1 rounds without libm",
          "[codegen]") {
  target::TargetOptions baseline;
  baseline.triple = "x86_64-unknown-linux-gnu";
  baseline.cpu = "x86-64";
  checkAgainstEvaluator(unaryModule("f32", "37"), baseline);
  checkAgainstEvaluator(binaryModule("f64", "29", kFloatBinary), baseline);
}

TEST_CASE("codegen: objects have no undefined symbols", "[codegen]") {
  for (const char *triple : {"x86_64-unknown-linux-gnu", "aarch64-linux-gnu"}) {
    for (const std::string &module :
         {unaryModule("f32", "37"), unaryModule("f64", "5"),
          unaryModule("bf16", "5"), unaryModule("f16", "9"),
          binaryModule("f32", "33", kFloatBinary),
          binaryModule("f16", "33", kFloatBinary),
          binaryModule("f64", "33", kFloatBinary),
          binaryModule("s64", "9", kIntBinary)}) {
      auto parsed = parse(module);
      auto buffers = analysis::BufferAssignment::build(*parsed);
      REQUIRE(buffers);
      target::TargetOptions options;
      options.triple = triple;
      options.cpu = std::string(triple).find("x86") == 0 ? "x86-64" : "generic";
      auto machine = machineFor(options);
      llvm::LLVMContext context;
      auto generated = codegen::emitModule(*parsed, *buffers, {}, context, *machine);
      REQUIRE(generated);
      REQUIRE_FALSE(target::optimizeModule(*generated->module, *machine));
      auto object = target::emitModule(*generated->module, *machine,
                                       target::OutputKind::Object);
      REQUIRE(object);
      auto buffer = llvm::MemoryBuffer::getMemBuffer(*object, "obj", false);
      auto file = llvm::object::ObjectFile::createObjectFile(buffer->getMemBufferRef());
      REQUIRE(bool(file));
      for (const llvm::object::SymbolRef &symbol : (*file)->symbols()) {
        auto flags = symbol.getFlags();
        REQUIRE(bool(flags));
        if (*flags & llvm::object::SymbolRef::SF_Undefined) {
          auto name = symbol.getName();
          INFO(triple << ": undefined symbol " << (name ? name->str() : "?"));
          CHECK(false);
        }
      }
      llvm::consumeError(file.takeError());
    }
  }
}

TEST_CASE("codegen: entry ABI, internal constants, errors name the instruction",
          "[codegen]") {
  auto module = parse(R"(HloModule abi, entry=main
ENTRY main {
  x = s32[2,100] parameter(0)
  w = s32[2] constant({3, -4})
  b = s32[2,100] broadcast(w), dimensions={0}
  ROOT m = s32[2,100] multiply(x, b)
})");
  auto buffers = analysis::BufferAssignment::build(*module);
  REQUIRE(buffers);
  auto machine = machineFor({});
  llvm::LLVMContext context;
  codegen::CodeGenOptions options;
  options.entryName = "abi_run";
  auto generated = codegen::emitModule(*module, *buffers, options, context, *machine);
  REQUIRE(generated);
  CHECK(generated->weightsBytes == 8);
  llvm::Function *entry = generated->module->getFunction("abi_run");
  REQUIRE(entry);
  CHECK(entry->hasExternalLinkage());
  CHECK(entry->getReturnType()->isIntegerTy(32));
  CHECK(entry->arg_size() == 3);
  llvm::Function *parallel = generated->module->getFunction("abi_run_parallel");
  REQUIRE(parallel);
  CHECK(parallel->hasExternalLinkage());
  CHECK(parallel->getReturnType()->isIntegerTy(32));
  CHECK(parallel->arg_size() == 4);
  llvm::GlobalVariable *w = generated->module->getGlobalVariable("const.w", true);
  REQUIRE(w);
  // Internal, not private: a symbol with a size, which the report and nm see.
  CHECK(w->hasInternalLinkage());
  CHECK(w->isConstant());
  CHECK(w->hasGlobalUnnamedAddr());
  CHECK(w->getAlign().valueOrOne().value() == 64);
  for (const llvm::Function &f : *generated->module)
    if (&f != entry && &f != parallel)
      CHECK((f.isIntrinsic() || f.hasLocalLinkage()));

  // Arithmetic on pred is rejected by the verifier; emitted anyway, the
  // code generator must refuse it with an error naming the instruction.
  auto bad = ir::parseModule(R"(HloModule bad, entry=main
ENTRY main {
  p = pred[4] parameter(0)
  ROOT s = pred[4] add(p, p)
})", "bad.hlo");
  REQUIRE(bad);
  auto badBuffers = analysis::BufferAssignment::build(**bad);
  REQUIRE(badBuffers);
  llvm::LLVMContext context2;
  auto failed = codegen::emitModule(**bad, *badBuffers, options, context2, *machine);
  REQUIRE_FALSE(failed);
  CHECK_THAT(failed.errorMessage(),
             Catch::Contains("cannot lower '%s' (add pred[4])"));
}

TEST_CASE("codegen: transcendentals over a dense sweep of inputs",
          "[codegen][math]") {
  // 4099 inputs per dtype across magnitudes 1e-3 .. 1e3 (plus specials):
  // f32 within rtol 1e-5 and f64 within 1e-12 of the evaluator (libm).
  for (const char *dtype : {"f32", "f64"}) {
    SECTION(dtype) {
      checkAgainstEvaluator(unaryModule(dtype, "4099"));
      checkAgainstEvaluator(binaryModule(dtype, "4099", kFloatBinary));
    }
  }
}
