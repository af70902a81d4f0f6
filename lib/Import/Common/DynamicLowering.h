//===- DynamicLowering.h - Ops on run-time sized values ---------*- C++ -*-===//
//
// The front-end-neutral half of "Run-time sized values"
// (docs/architecture.md): reading what the DynamicShapes table knows of a
// value, masking a value's padding, and the lowerings whose result extent
// is a size form (Fill, Range, Slice, Pad, Concat). Every run-time size is
// an s32[] value.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_LIB_IMPORT_COMMON_DYNAMICLOWERING_H
#define KILN_LIB_IMPORT_COMMON_DYNAMICLOWERING_H

#include "kiln/Import/GraphBuilder.h"

#include <optional>
#include <vector>

namespace kiln::import {

// --- Reading the table -------------------------------------------------------

/// The forms of integer value `v`: recorded forms, or its constant elements;
/// nullopt when it is neither (a run-time value with no known form).
std::optional<std::vector<SizeForm>> formsOf(GraphBuilder &b, Value v);
/// What is known of the extent of dim `d` of `v` (its form if dynamic, its
/// static size otherwise).
SizeForm extentForm(GraphBuilder &b, Value v, int64_t d);
/// The run-time extent of dim `d` of `v` as s32[].
Value extentOf(GraphBuilder &b, Value v, int64_t d);
/// Element `i` of the small integer tensor `v` as an s32[] value.
Value elementAsS32(GraphBuilder &b, Value v, int64_t i);
/// Copies every dynamic dim of `from` to `to` (same rank, same bounds).
void copyDynamicDims(GraphBuilder &b, Value from, Value to);

// --- Padding -----------------------------------------------------------------

/// `x` with every element past a dynamic dim's size replaced by the scalar
/// `fill` (x's dtype); `x` itself when it has no dynamic dims.
Value maskPadding(GraphBuilder &b, Value x, Value fill);

// --- Lowerings -------------------------------------------------------------

/// The shape of `x` as a rank-1 `dtype` vector (s32/s64) with forms.
Value shapeVector(GraphBuilder &b, Value x, ir::DType dtype);
/// Scalar `value` broadcast to `dims` (a small integer vector with forms):
/// each dim at the upper bound of its form, dynamic where it is not
/// constant. `origin` names the node for errors.
Value fillDims(GraphBuilder &b, Value dims, Value value);
/// [start, start + delta·n) for run-time `limit` (start and delta constant),
/// at the upper bound of n.
Value rangeToLimit(GraphBuilder &b, ir::DType dtype, int64_t start,
                   Value limit, int64_t delta, const std::string &origin);
/// Slice of `x` from constant `begin` with `size` (a small integer vector
/// with forms; -1: to the end of the dim).
Value sliceSizes(GraphBuilder &b, Value x, const std::vector<int64_t> &begin,
                 Value size, const std::string &origin);
/// `x` padded by `paddings` ([rank, 2] with forms) with scalar `value`.
Value padBy(GraphBuilder &b, Value x, Value paddings, Value value);
/// `parts` joined along `axis`, where some parts are dynamic along it: each
/// part written at the running sum of the earlier parts' sizes.
Value concatDynamic(GraphBuilder &b, const std::vector<Value> &parts,
                    int64_t axis);

} // namespace kiln::import

#endif // KILN_LIB_IMPORT_COMMON_DYNAMICLOWERING_H
