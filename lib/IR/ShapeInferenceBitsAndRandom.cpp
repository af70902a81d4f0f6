//===- ShapeInferenceBitsAndRandom.cpp - Bits and random numbers ----------===//
//
// Shape rules of the opcodes that work on a value's bit pattern or produce
// values without reading any: their semantics are in docs/hlo.md.
//
//===----------------------------------------------------------------------===//
#include "ShapeInferenceRules.h"

#include <fmt/format.h>

namespace kiln::ir::detail {

namespace {

/// The dimensions of a bitcast-convert from `operand` to `to`: the same when
/// the widths agree; one minor dimension of width-ratio elements more when
/// narrowing; one less when widening, which must be that ratio.
Expected<std::vector<int64_t>> bitcastDims(const Shape &operand, DType to) {
  int64_t fromBytes = int64_t(byteSize(operand.dtype()));
  int64_t toBytes = int64_t(byteSize(to));
  std::vector<int64_t> dims = operand.dims();
  if (fromBytes > toBytes) {
    dims.push_back(fromBytes / toBytes);
    return dims;
  }
  if (fromBytes == toBytes)
    return dims;
  int64_t ratio = toBytes / fromBytes;
  if (dims.empty() || dims.back() != ratio)
    return makeError("bitcast-convert from {} to {} needs a last dimension of "
                     "{} (the width ratio) but the operand has shape {}",
                     dtypeName(operand.dtype()), dtypeName(to), ratio,
                     operand.toString());
  dims.pop_back();
  return dims;
}

} // namespace

Expected<Shape> inferBitcastConvert(const InferenceInput &in) {
  if (Error e = requireArray(in, 0))
    return e;
  if (Error e = requireAcceptedDType(in, 0))
    return e;
  if (Error e = checkDeclaredArray(in))
    return e;
  DType to = in.declared.dtype();
  if (!isInClasses(to, DTypeClasses::Numeric))
    return makeError("bitcast-convert must produce a numeric dtype but "
                     "declares {}",
                     dtypeName(to));
  Expected<std::vector<int64_t>> dims = bitcastDims(in.operands[0], to);
  if (!dims)
    return dims.takeError();
  return makeArray(to, std::move(*dims));
}

/// An elementwise rule plus the widths: XLA requires at least one exponent
/// bit and no negative mantissa; widths above the operand's change nothing.
Expected<Shape> inferReducePrecision(const InferenceInput &in) {
  Expected<Shape> shape = inferElementwise(in);
  if (!shape)
    return shape;
  if (in.attrs.exponentBits < 1)
    return makeError("exponent_bits must be at least 1 but is {}",
                     in.attrs.exponentBits);
  if (in.attrs.mantissaBits < 0)
    return makeError("mantissa_bits must be at least 0 but is {}",
                     in.attrs.mantissaBits);
  return shape;
}

/// rng(a, b): two scalars of one floating-point dtype, which the declared
/// shape shares.
Expected<Shape> inferRng(const InferenceInput &in) {
  std::string_view second =
      in.attrs.distribution == RngDistribution::Normal ? "sigma" : "b";
  std::string_view first =
      in.attrs.distribution == RngDistribution::Normal ? "mu" : "a";
  if (Error e = requireScalar(in, 0, first))
    return e;
  if (Error e = requireScalar(in, 1, second))
    return e;
  if (Error e = requireAcceptedDType(in, 0))
    return e;
  if (Error e = requireSameDType(in, 0, 1))
    return e;
  if (Error e = checkDeclaredArray(in))
    return e;
  if (in.declared.dtype() != in.operands[0].dtype())
    return makeError("rng declares dtype {} but its operands have dtype {}",
                     dtypeName(in.declared.dtype()),
                     dtypeName(in.operands[0].dtype()));
  return in.declared;
}

} // namespace kiln::ir::detail
