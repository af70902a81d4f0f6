//===- ElementwiseLowering.h - Math and activations shared by the importers ===//
//
// Elementwise functions that TensorFlow and ONNX both define but HLO has no
// opcode for (tan, expm1, floor division, softplus, ...), composed from HLO
// opcodes with the numerically careful formulas the frameworks use, plus
// softmax-style functions along one axis. Every helper goes through the
// GraphBuilder, so broadcasting, folding and sticky errors apply; a nullptr
// operand gives nullptr.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_LIB_IMPORT_COMMON_ELEMENTWISELOWERING_H
#define KILN_LIB_IMPORT_COMMON_ELEMENTWISELOWERING_H

#include "kiln/Import/GraphBuilder.h"

namespace kiln::import {

// --- Integer-aware arithmetic ----------------------------------------------
/// floor(a / b): rounds toward negative infinity for integers and floats
/// (TensorFlow FloorDiv, Python //).
Value floorDivide(GraphBuilder &b, Value x, Value y);
/// a - floor(a / b) * b: the result has the sign of the divisor (TensorFlow
/// FloorMod, ONNX Mod with fmod=0, Python %).
Value floorRemainder(GraphBuilder &b, Value x, Value y);
/// a / b rounded toward zero, for floats too (TensorFlow TruncateDiv).
Value truncateDivide(GraphBuilder &b, Value x, Value y);
/// Rounds a float toward zero; integers are returned unchanged.
Value truncate(GraphBuilder &b, Value x);
/// x / y, or 0 where y == 0 (TensorFlow DivNoNan).
Value divideNoNan(GraphBuilder &b, Value x, Value y);
/// (x - y)^2.
Value squaredDifference(GraphBuilder &b, Value x, Value y);

// --- Unary math ---------------------------------------------------------------
Value square(GraphBuilder &b, Value x);
Value reciprocal(GraphBuilder &b, Value x);
/// -1, 0 or 1 for every numeric dtype (HLO `sign` rejects unsigned).
Value signOf(GraphBuilder &b, Value x);
/// Round half to even on floats; integers unchanged.
Value roundHalfEven(GraphBuilder &b, Value x);
/// floor/ceil on floats; integers unchanged.
Value floorOf(GraphBuilder &b, Value x);
Value ceilOf(GraphBuilder &b, Value x);
/// exp(x) - 1 and log(1 + x), accurate near 0 (Kahan's formulas).
Value expm1(GraphBuilder &b, Value x);
Value log1p(GraphBuilder &b, Value x);
Value tanOf(GraphBuilder &b, Value x);
Value asinOf(GraphBuilder &b, Value x);
Value acosOf(GraphBuilder &b, Value x);
Value atanOf(GraphBuilder &b, Value x);
Value sinhOf(GraphBuilder &b, Value x);
Value coshOf(GraphBuilder &b, Value x);
Value asinhOf(GraphBuilder &b, Value x);
Value acoshOf(GraphBuilder &b, Value x);
Value atanhOf(GraphBuilder &b, Value x);
Value erfcOf(GraphBuilder &b, Value x);
/// pred results; false for integer inputs.
Value isNan(GraphBuilder &b, Value x);
Value isInf(GraphBuilder &b, Value x, bool negative = true,
            bool positive = true);

// --- Activations ------------------------------------------------------------
Value relu(GraphBuilder &b, Value x);
Value relu6(GraphBuilder &b, Value x);
/// x > 0 ? x : alpha * (exp(x) - 1)
Value elu(GraphBuilder &b, Value x, double alpha);
/// scale * (x > 0 ? x : alpha * (exp(x) - 1))
Value selu(GraphBuilder &b, Value x, double alpha, double scale);
/// max(0, x) + min(0, alpha * (exp(x / alpha) - 1))
Value celu(GraphBuilder &b, Value x, double alpha);
/// x < 0 ? alpha * x : x
Value leakyRelu(GraphBuilder &b, Value x, double alpha);
/// x < 0 ? slope * x : x, slope broadcast against x.
Value preluOf(GraphBuilder &b, Value x, Value slope);
/// log(1 + exp(x)) without overflow.
Value softplus(GraphBuilder &b, Value x);
Value softsign(GraphBuilder &b, Value x);
/// max(0, min(1, alpha * x + beta))
Value hardSigmoid(GraphBuilder &b, Value x, double alpha, double beta);
Value hardSwish(GraphBuilder &b, Value x);
Value mish(GraphBuilder &b, Value x);
/// x > alpha ? x : 0
Value thresholdedRelu(GraphBuilder &b, Value x, double alpha);
/// x < -lambd ? x + bias : x > lambd ? x - bias : 0
Value shrink(GraphBuilder &b, Value x, double lambd, double bias);
/// min(max(x, lo), hi); either bound may be nullptr (unbounded). A lower
/// bound above the upper one gives the upper one, as NumPy's clip does.
Value clip(GraphBuilder &b, Value x, Value lo, Value hi);

// --- Along one axis -----------------------------------------------------------
/// exp(x - max) / sum(exp(x - max)) along `axis` (already normalized).
Value softmax(GraphBuilder &b, Value x, int64_t axis);
/// (x - max) - log(sum(exp(x - max))) along `axis`.
Value logSoftmax(GraphBuilder &b, Value x, int64_t axis);
/// 1 at the first maximum along `axis`, 0 elsewhere, in x's dtype.
Value hardmax(GraphBuilder &b, Value x, int64_t axis);

// --- Types ------------------------------------------------------------------
/// The float dtype a computation on `dtype` runs in: f16/bf16 widen to f32
/// (as the frameworks' CPU kernels accumulate), others are kept.
ir::DType computeType(ir::DType dtype);

} // namespace kiln::import

#endif // KILN_LIB_IMPORT_COMMON_ELEMENTWISELOWERING_H
