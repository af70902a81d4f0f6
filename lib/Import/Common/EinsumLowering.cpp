//===- EinsumLowering.cpp - Einstein summation as dots and reductions -----===//
#include "Common/EinsumLowering.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>

namespace kiln::import {

using ir::DType;
using ir::Opcode;

namespace {
/// One label per dimension; ellipsis dimensions get the digits '0'...
struct Equation {
  std::vector<std::string> inputs;
  std::string output;
};

bool contains(const std::string &labels, char label) {
  return labels.find(label) != std::string::npos;
}

bool isLetter(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

/// Whether a term is letters with at most one "...": the expansion below
/// gives a term one label per dimension only then (a stray '.' or a digit
/// would become a label of its own).
bool wellFormedTerm(const std::string &term) {
  size_t at = term.find("...");
  std::string labels =
      at == std::string::npos ? term : term.substr(0, at) + term.substr(at + 3);
  return std::all_of(labels.begin(), labels.end(), isLetter);
}

/// Replaces "..." in `term` by the last `count` of `all` ellipsis labels.
std::string expandEllipsis(const std::string &term, const std::string &all,
                           size_t count) {
  size_t at = term.find("...");
  if (at == std::string::npos)
    return term;
  return term.substr(0, at) + all.substr(all.size() - count) +
         term.substr(at + 3);
}

Expected<Equation> parseEquation(std::string text,
                                 const std::vector<Value> &operands) {
  text.erase(std::remove(text.begin(), text.end(), ' '), text.end());
  size_t arrow = text.find("->");
  std::string lhs = text.substr(0, arrow);
  std::vector<std::string> terms;
  for (size_t start = 0;;) {
    size_t comma = lhs.find(',', start);
    terms.push_back(lhs.substr(start, comma - start));
    if (comma == std::string::npos)
      break;
    start = comma + 1;
  }
  if (terms.size() != operands.size())
    return makeError("einsum equation '{}' names {} operands but the node has {}",
                     text, terms.size(), operands.size());
  std::string output =
      arrow == std::string::npos ? std::string() : text.substr(arrow + 2);
  for (const std::string &term : terms)
    if (!wellFormedTerm(term))
      return makeError(
          "einsum term '{}' in '{}' is not letters with at most one '...'",
          term, text);
  if (!wellFormedTerm(output))
    return makeError(
        "einsum output '{}' in '{}' is not letters with at most one '...'",
        output, text);
  std::vector<size_t> ellipsisRanks;
  size_t maxEllipsis = 0;
  for (size_t i = 0; i < terms.size(); ++i) {
    bool hasEllipsis = contains(terms[i], '.'); // well formed: one "..."
    int64_t letters = int64_t(terms[i].size()) - (hasEllipsis ? 3 : 0);
    int64_t rest = operands[i]->shape().rank() - letters;
    if (rest < 0 || (!hasEllipsis && rest != 0))
      return makeError("einsum term '{}' does not match operand {} of rank {}",
                       terms[i], i, operands[i]->shape().rank());
    ellipsisRanks.push_back(size_t(rest));
    maxEllipsis = std::max(maxEllipsis, size_t(rest));
  }
  std::string ellipsis;
  for (size_t k = 0; k < maxEllipsis; ++k)
    ellipsis.push_back(char('0' + k));
  Equation eq;
  for (size_t i = 0; i < terms.size(); ++i)
    eq.inputs.push_back(expandEllipsis(terms[i], ellipsis, ellipsisRanks[i]));
  if (arrow != std::string::npos) {
    eq.output = expandEllipsis(output, ellipsis, maxEllipsis);
    for (size_t k = 0; k < eq.output.size(); ++k)
      if (eq.output.find(eq.output[k], k + 1) != std::string::npos)
        return makeError("einsum output '{}' in '{}' repeats label '{}'",
                         output, text, eq.output[k]);
    return eq;
  }
  // Implicit output: the ellipsis, then letters used once, alphabetically.
  std::map<char, int> uses;
  for (const std::string &term : eq.inputs)
    for (char label : term)
      ++uses[label];
  eq.output = ellipsis;
  for (auto [label, count] : uses)
    if (count == 1 && !(label >= '0' && label <= '9'))
      eq.output.push_back(label);
  return eq;
}

/// Broadcasts size-1 ellipsis dimensions (digit labels) to the size the
/// other operands give the same label, as NumPy does; a letter label with
/// two different sizes is an error.
bool broadcastLabels(GraphBuilder &b, std::vector<Value> &operands,
                     const std::vector<std::string> &labels) {
  std::map<char, int64_t> sizes;
  for (size_t i = 0; i < operands.size(); ++i)
    for (size_t d = 0; d < labels[i].size(); ++d) {
      int64_t size = operands[i]->shape().dim(d);
      int64_t &known = sizes.try_emplace(labels[i][d], size).first->second;
      bool ellipsis = labels[i][d] >= '0' && labels[i][d] <= '9';
      if (size != known && !(ellipsis && (size == 1 || known == 1))) {
        b.fail(fmt::format("einsum label '{}' has sizes {} and {}",
                           labels[i][d], known, size));
        return false;
      }
      known = std::max(known, size);
    }
  for (size_t i = 0; i < operands.size(); ++i) {
    std::vector<int64_t> dims;
    for (char label : labels[i])
      dims.push_back(sizes[label]);
    if (dims != operands[i]->shape().dims())
      operands[i] = b.broadcastTo(operands[i], dims);
  }
  return b.ok();
}

/// Takes the diagonal for every label repeated within one operand.
Value takeDiagonals(GraphBuilder &b, Value x, std::string &labels) {
  for (size_t i = 0; i < labels.size(); ++i) {
    size_t j = labels.find(labels[i], i + 1);
    if (j == std::string::npos)
      continue;
    ir::Shape indexShape(DType::S64, x->shape().dims());
    ir::Attributes ai, aj;
    ai.dimensions = {int64_t(i)};
    aj.dimensions = {int64_t(j)};
    Value onDiagonal =
        b.compare(ir::ComparisonDirection::EQ,
                  b.add(Opcode::Iota, {}, ai, indexShape),
                  b.add(Opcode::Iota, {}, aj, indexShape));
    x = b.select(onDiagonal, x, b.like(x, 0));
    x = b.reduce(x, {int64_t(j)}, ir::ReducerKind::Add);
    labels.erase(j, 1);
    --i; // The label may occur a third time.
  }
  return x;
}

/// Sums the dimensions whose labels `keep` does not contain.
Value sumOthers(GraphBuilder &b, Value x, std::string &labels,
                const std::string &keep) {
  std::vector<int64_t> dims;
  std::string kept;
  for (size_t i = 0; i < labels.size(); ++i) {
    if (contains(keep, labels[i]))
      kept.push_back(labels[i]);
    else
      dims.push_back(int64_t(i));
  }
  labels = kept;
  return dims.empty() ? x : b.reduce(x, dims, ir::ReducerKind::Add);
}

/// Contracts two operands with one `dot`; batch labels are those both
/// share that `later` (the output and the operands still to come) needs.
Value contract(GraphBuilder &b, Value lhs, std::string &lhsLabels, Value rhs,
               const std::string &rhsLabels, const std::string &later) {
  ir::Attributes attrs;
  std::string batch, lhsFree, rhsFree;
  for (size_t i = 0; i < lhsLabels.size(); ++i) {
    char label = lhsLabels[i];
    size_t j = rhsLabels.find(label);
    if (j == std::string::npos) {
      lhsFree.push_back(label);
      continue;
    }
    if (contains(later, label)) {
      batch.push_back(label);
      attrs.dot.lhsBatch.push_back(int64_t(i));
      attrs.dot.rhsBatch.push_back(int64_t(j));
    } else {
      attrs.dot.lhsContracting.push_back(int64_t(i));
      attrs.dot.rhsContracting.push_back(int64_t(j));
    }
  }
  for (char label : rhsLabels)
    if (!contains(lhsLabels, label))
      rhsFree.push_back(label);
  lhsLabels = batch + lhsFree + rhsFree;
  return b.add(Opcode::Dot, {lhs, rhs}, attrs);
}
} // namespace

Value einsum(GraphBuilder &b, const std::string &equation,
             std::vector<Value> operands) {
  if (operands.empty())
    return b.fail("einsum needs at least one operand");
  for (Value operand : operands)
    if (!operand)
      return b.fail("internal error: null operand");
  Expected<Equation> eq = parseEquation(equation, operands);
  if (!eq)
    return b.fail(eq.errorMessage());
  std::vector<std::string> labels = eq->inputs;
  if (!broadcastLabels(b, operands, labels))
    return nullptr;
  for (size_t i = 0; i < operands.size(); ++i) {
    operands[i] = takeDiagonals(b, operands[i], labels[i]);
    std::string needed = eq->output;
    for (size_t j = 0; j < labels.size(); ++j)
      if (j != i)
        needed += labels[j];
    operands[i] = sumOthers(b, operands[i], labels[i], needed);
  }
  Value result = operands[0];
  std::string current = labels[0];
  for (size_t i = 1; i < operands.size() && b.ok(); ++i) {
    std::string later = eq->output;
    for (size_t j = i + 1; j < labels.size(); ++j)
      later += labels[j];
    result = contract(b, result, current, operands[i], labels[i], later);
  }
  result = sumOthers(b, result, current, eq->output);
  std::vector<int64_t> permutation;
  for (char label : eq->output) {
    size_t at = current.find(label);
    if (at == std::string::npos)
      return b.fail(fmt::format("einsum output label '{}' is not an input label",
                                label));
    permutation.push_back(int64_t(at));
  }
  return b.transpose(result, permutation);
}

} // namespace kiln::import
