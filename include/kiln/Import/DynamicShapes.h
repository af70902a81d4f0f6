//===- DynamicShapes.h - Run-time sized values in a static IR ---*- C++ -*-===//
//
// NonMaxSuppression, Where and the ops downstream of them make tensors
// whose extent along a dimension is known only at run time. kiln's IR stays
// static: such a dimension is stored at a compile-time bound, and this
// table keeps, beside the value, what the importer knows of the extent:
//  - a dynamic dimension: an s32[] value with the run-time extent and its
//    size form (what is known of it at compile time);
//  - the size forms of a non-constant integer value (shape vectors and the
//    scalars computed from them).
// A size form is affine over opaque symbols, each with a range, so that
// `n + (100 - n)` comes out as the constant 100 (ranges alone would widen
// it to [0, 200]). See docs/architecture.md, "Run-time sized values".
//
//===----------------------------------------------------------------------===//
#ifndef KILN_IMPORT_DYNAMICSHAPES_H
#define KILN_IMPORT_DYNAMICSHAPES_H

#include "kiln/IR/Instruction.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace kiln::import {

using Value = ir::Instruction *;

/// `constant + Σ coefficient·symbol`: a compile-time view of a run-time
/// integer. Symbols are indices into DynamicShapes' symbol table.
struct SizeForm {
  int64_t constant = 0;
  std::map<size_t, int64_t> terms; ///< symbol -> nonzero coefficient

  static SizeForm of(int64_t value) { return SizeForm{value, {}}; }
  bool isConstant() const { return terms.empty(); }

  SizeForm operator+(const SizeForm &other) const;
  SizeForm operator-(const SizeForm &other) const;
  SizeForm scaled(int64_t factor) const;
  bool operator==(const SizeForm &other) const = default;
};

/// A dimension stored at its bound whose run-time extent is `size`.
struct DynamicDim {
  Value size = nullptr; ///< s32[] run-time extent, 0 <= size <= bound
  SizeForm form;        ///< what is known of `size` at compile time
};

class DynamicShapes {
public:
  // --- Symbols ---------------------------------------------------------
  /// A fresh symbol in [lo, hi], made by `origin` (a node name, for
  /// errors), as a form.
  SizeForm newSymbol(int64_t lo, int64_t hi, std::string origin);
  int64_t lowerBound(const SizeForm &form) const;
  int64_t upperBound(const SizeForm &form) const;
  /// The node that made the first symbol of `form` ("" for a constant).
  const std::string &origin(const SizeForm &form) const;

  // --- Dynamic dimensions ------------------------------------------------
  void setDim(Value v, int64_t dim, DynamicDim d);
  /// Dim `dim` of `v` if it is dynamic, else nullptr.
  const DynamicDim *dim(Value v, int64_t dim) const;
  /// Every dim of `v`; an empty vector when none is dynamic.
  std::vector<std::optional<DynamicDim>> dims(Value v) const;
  bool hasDynamicDims(Value v) const;

  // --- Size forms of integer values -------------------------------------
  /// Values with more elements than this get no forms.
  static constexpr int64_t kMaxFormElements = 64;
  void setForms(Value v, std::vector<SizeForm> forms);
  /// The per-element forms of `v` (row-major) if it has them, else nullptr.
  const std::vector<SizeForm> *forms(Value v) const;

  /// True when `v` has dynamic dims or forms.
  bool isDynamic(Value v) const { return hasDynamicDims(v) || forms(v); }
  /// The node behind `v`'s first symbol (dims first, then forms): names
  /// where a run-time size came from in errors.
  std::string originOf(Value v) const;

private:
  struct Symbol {
    int64_t lo = 0, hi = 0;
    std::string origin;
  };
  std::vector<Symbol> symbols_;
  std::map<Value, std::vector<std::optional<DynamicDim>>> dims_;
  std::map<Value, std::vector<SizeForm>> forms_;
};

} // namespace kiln::import

#endif // KILN_IMPORT_DYNAMICSHAPES_H
