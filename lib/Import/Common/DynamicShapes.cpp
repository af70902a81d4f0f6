//===- DynamicShapes.cpp - Run-time sized values in a static IR ----------===//

#include "kiln/Import/DynamicShapes.h"

#include <algorithm>
#include <cassert>

namespace kiln::import {

// --- SizeForm ----------------------------------------------------------------

namespace {
/// `a + factor·b`, dropping terms that cancel.
SizeForm combine(const SizeForm &a, const SizeForm &b, int64_t factor) {
  SizeForm result = a;
  result.constant += factor * b.constant;
  for (const auto &[symbol, coefficient] : b.terms) {
    int64_t &sum = result.terms[symbol];
    sum += factor * coefficient;
    if (sum == 0)
      result.terms.erase(symbol);
  }
  return result;
}
} // namespace

SizeForm SizeForm::operator+(const SizeForm &other) const {
  return combine(*this, other, 1);
}

SizeForm SizeForm::operator-(const SizeForm &other) const {
  return combine(*this, other, -1);
}

SizeForm SizeForm::scaled(int64_t factor) const {
  if (factor == 0)
    return of(0);
  SizeForm result{constant * factor, {}};
  for (const auto &[symbol, coefficient] : terms)
    result.terms[symbol] = coefficient * factor;
  return result;
}

// --- Symbols -----------------------------------------------------------------

SizeForm DynamicShapes::newSymbol(int64_t lo, int64_t hi, std::string origin) {
  assert(lo <= hi && "an empty symbol range");
  if (lo == hi)
    return SizeForm::of(lo);
  symbols_.push_back({lo, hi, std::move(origin)});
  return SizeForm{0, {{symbols_.size() - 1, 1}}};
}

int64_t DynamicShapes::lowerBound(const SizeForm &form) const {
  int64_t bound = form.constant;
  for (const auto &[symbol, coefficient] : form.terms) {
    const Symbol &s = symbols_[symbol];
    bound += coefficient * (coefficient > 0 ? s.lo : s.hi);
  }
  return bound;
}

int64_t DynamicShapes::upperBound(const SizeForm &form) const {
  int64_t bound = form.constant;
  for (const auto &[symbol, coefficient] : form.terms) {
    const Symbol &s = symbols_[symbol];
    bound += coefficient * (coefficient > 0 ? s.hi : s.lo);
  }
  return bound;
}

const std::string &DynamicShapes::origin(const SizeForm &form) const {
  static const std::string none;
  return form.terms.empty() ? none : symbols_[form.terms.begin()->first].origin;
}

// --- Dynamic dimensions ------------------------------------------------------

void DynamicShapes::setDim(Value v, int64_t dim, DynamicDim d) {
  assert(v && dim >= 0 && dim < int64_t(v->shape().rank()));
  auto found = dims_.find(v);
  if (d.form.isConstant()) { // the bound is the extent: a static dimension
    if (found == dims_.end())
      return;
    found->second[size_t(dim)].reset();
    if (std::none_of(found->second.begin(), found->second.end(),
                     [](const auto &entry) { return entry.has_value(); }))
      dims_.erase(found);
    return;
  }
  std::vector<std::optional<DynamicDim>> &entry = dims_[v];
  entry.resize(v->shape().rank());
  entry[size_t(dim)] = std::move(d);
}

const DynamicDim *DynamicShapes::dim(Value v, int64_t dim) const {
  auto found = dims_.find(v);
  if (found == dims_.end() || dim < 0 || size_t(dim) >= found->second.size())
    return nullptr;
  const std::optional<DynamicDim> &d = found->second[size_t(dim)];
  return d ? &*d : nullptr;
}

std::vector<std::optional<DynamicDim>> DynamicShapes::dims(Value v) const {
  auto found = dims_.find(v);
  return found == dims_.end() ? std::vector<std::optional<DynamicDim>>{}
                              : found->second;
}

bool DynamicShapes::hasDynamicDims(Value v) const { return dims_.count(v) > 0; }

// --- Size forms --------------------------------------------------------------

void DynamicShapes::setForms(Value v, std::vector<SizeForm> forms) {
  bool constant = std::all_of(forms.begin(), forms.end(),
                              [](const SizeForm &f) { return f.isConstant(); });
  if (constant || int64_t(forms.size()) > kMaxFormElements)
    return;
  forms_[v] = std::move(forms);
}

const std::vector<SizeForm> *DynamicShapes::forms(Value v) const {
  auto found = forms_.find(v);
  return found == forms_.end() ? nullptr : &found->second;
}

std::string DynamicShapes::originOf(Value v) const {
  for (const std::optional<DynamicDim> &d : dims(v))
    if (d)
      return origin(d->form);
  if (const std::vector<SizeForm> *f = forms(v))
    for (const SizeForm &form : *f)
      if (!form.isConstant())
        return origin(form);
  return "";
}

} // namespace kiln::import
