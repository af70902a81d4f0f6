//===- GraphvizWriter.cpp - An HLO module as Graphviz text ----------------===//
//
// The layout rules are in Graphviz.h. A while's or conditional's callees
// are dashed clusters next to its node, with dashed edges for the state
// handed in and the root taken back. Node ids are "n0", "n1", ... in the
// order the instructions are drawn, never pointers, so the output is the
// same on every run.
//
//===----------------------------------------------------------------------===//
#include "Graphviz.h"

#include "kiln/IR/Printer.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <map>

namespace kiln::driver {

namespace {

using ir::Instruction;
using ir::Opcode;

/// Longest constant value drawn in its node; longer ones show only the shape.
constexpr size_t kMaxValueText = 32;

/// `text` inside a double-quoted Graphviz string: quotes and backslashes
/// escaped; newlines become Graphviz's centered line break.
std::string quoted(std::string_view text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\')
      out += '\\';
    if (c == '\n')
      out += "\\n";
    else
      out += c;
  }
  return out + "\"";
}

/// The value of a small constant ("1.5", "{0, 1}"), or "" when too long.
std::string constantValue(const Instruction &constant) {
  if (constant.shape().isTuple() || constant.shape().numElements() > 4)
    return "";
  std::string value = ir::printLiteral(constant.literal());
  return value.size() <= kMaxValueText ? value : "";
}

std::string nodeLabel(const Instruction &instruction) {
  std::string label = "%" + instruction.name() + "\n" +
                      std::string(ir::opcodeName(instruction.opcode())) + " " +
                      instruction.shape().toString();
  if (instruction.opcode() == Opcode::Constant) {
    std::string value = constantValue(instruction);
    if (!value.empty())
      label += "\n= " + value;
  }
  if (!instruction.sourceNode().empty())
    label += "\nnode: " + instruction.sourceNode();
  return label;
}

/// Parameters and constants are the graph's inputs; they get shapes and
/// colours of their own so data flow reads at a glance.
std::string nodeStyle(const Instruction &instruction, bool isRoot) {
  std::string style;
  switch (instruction.opcode()) {
  case Opcode::Parameter:
    style = "shape=invhouse, style=filled, fillcolor=\"#d6e6f5\"";
    break;
  case Opcode::Constant:
    style = "shape=note, style=filled, fillcolor=\"#e8e8e8\"";
    break;
  default:
    style = "shape=box, style=\"rounded,filled\", fillcolor=white";
    break;
  }
  if (isRoot)
    style += ", peripheries=2";
  return style;
}

class DotWriter {
public:
  std::string write(const ir::Module &module, const std::string &title) {
    out_ = fmt::format("digraph {} {{\n", quoted(module.name()));
    out_ += fmt::format("  label={};\n  labelloc=t;\n", quoted(title));
    out_ += "  node [fontname=\"Helvetica\", fontsize=10];\n"
            "  edge [fontname=\"Helvetica\", fontsize=8];\n";
    const ir::Computation &entry = *module.entry();
    root_ = entry.root();
    drawNodes(entry, "  ");
    drawEdges(entry);
    out_ += edges_;
    return out_ + "}\n";
  }

private:
  /// The node an edge from `instruction` starts at: a fusion's value comes
  /// out of its fused root, inside the cluster.
  const std::string &source(const Instruction *instruction) const {
    while (instruction->opcode() == Opcode::Fusion)
      instruction = instruction->calledComputation()->root();
    return ids_.at(instruction);
  }

  void drawNodes(const ir::Computation &computation,
                 const std::string &indent) {
    for (const Instruction *instruction : computation.instructions()) {
      if (instruction->opcode() == Opcode::Fusion) {
        drawFusion(*instruction, indent);
        continue;
      }
      std::string id = fmt::format("n{}", ids_.size());
      ids_.emplace(instruction, id);
      out_ += fmt::format("{}{} [label={}, {}];\n", indent, id,
                          quoted(nodeLabel(*instruction)),
                          nodeStyle(*instruction, instruction == root_));
      if (ir::callsSequentially(instruction->opcode()))
        drawCallees(*instruction, indent);
    }
  }

  /// What callee `k` of a while or conditional is, for its cluster's label
  /// and the edges to and from it.
  static std::string calleeRole(const Instruction &caller, size_t k) {
    if (caller.opcode() == Opcode::While)
      return k == 0 ? "condition" : "body";
    if (caller.operand(0)->shape().dtype() == ir::DType::Pred)
      return k == 0 ? "true branch" : "false branch";
    return fmt::format("branch {}", k);
  }

  /// Each computation a while or conditional runs, as a cluster of its own
  /// next to the caller's node (nested loops inside, recursively).
  void drawCallees(const Instruction &caller, const std::string &indent) {
    const std::vector<ir::Computation *> &callees =
        caller.calledComputations();
    for (size_t k = 0; k < callees.size(); ++k) {
      std::string label = fmt::format("%{} {}: {}", caller.name(),
                                      calleeRole(caller, k),
                                      callees[k]->name());
      out_ += fmt::format("{}subgraph {} {{\n", indent,
                          quoted("cluster_" + caller.name() + "_" +
                                 callees[k]->name()));
      out_ += fmt::format("{}  label={};\n{}  style=\"rounded,dashed\";\n",
                          indent, quoted(label), indent);
      drawNodes(*callees[k], indent + "  ");
      out_ += indent + "}\n";
    }
  }

  void drawFusion(const Instruction &fusion, const std::string &indent) {
    std::string label = "%" + fusion.name() + " = fusion " +
                        std::string(ir::fusionKindName(
                            fusion.attrs().fusionKind)) +
                        " " + fusion.shape().toString();
    out_ += fmt::format("{}subgraph {} {{\n", indent,
                        quoted("cluster_" + fusion.name()));
    out_ += fmt::format("{}  label={};\n{}  style=\"rounded,filled\";\n"
                        "{}  fillcolor=\"#fdf1dc\";\n",
                        indent, quoted(label), indent, indent);
    if (&fusion == root_)
      out_ += indent + "  peripheries=2;\n";
    drawNodes(*fusion.calledComputation(), indent + "  ");
    out_ += indent + "}\n";
  }

  void drawEdges(const ir::Computation &computation) {
    for (const Instruction *user : computation.instructions()) {
      if (user->opcode() == Opcode::Fusion) {
        // Operand i feeds the fused parameter i inside the cluster.
        const ir::Computation &called = *user->calledComputation();
        for (size_t i = 0; i < user->operandCount(); ++i)
          addEdge(source(user->operand(i)),
                  ids_.at(called.parameter(int64_t(i))), "");
        drawEdges(called);
        continue;
      }
      bool numbered = user->operandCount() > 1;
      for (size_t i = 0; i < user->operandCount(); ++i)
        addEdge(source(user->operand(i)), ids_.at(user),
                numbered ? std::to_string(i) : "");
      if (ir::callsSequentially(user->opcode()))
        drawCalleeEdges(*user);
    }
  }

  /// Dashed edges: the caller hands its state (or branch operand) to each
  /// callee's parameter and takes back its root.
  void drawCalleeEdges(const Instruction &caller) {
    const std::vector<ir::Computation *> &callees =
        caller.calledComputations();
    for (size_t k = 0; k < callees.size(); ++k) {
      drawEdges(*callees[k]);
      std::string role = calleeRole(caller, k);
      if (const Instruction *parameter = callees[k]->parameter(0))
        addEdge(ids_.at(&caller), ids_.at(parameter), role, true);
      addEdge(source(callees[k]->root()), ids_.at(&caller), role + " result",
              true);
    }
  }

  void addEdge(const std::string &from, const std::string &to,
               const std::string &label, bool dashed = false) {
    std::vector<std::string> parts;
    if (!label.empty())
      parts.push_back("label=" + quoted(label));
    if (dashed)
      parts.push_back("style=dashed");
    std::string attributes =
        parts.empty() ? "" : fmt::format(" [{}]", fmt::join(parts, ", "));
    edges_ += fmt::format("  {} -> {}{};\n", from, to, attributes);
  }

  std::string out_, edges_;
  const Instruction *root_ = nullptr; ///< the entry's root: double border
  std::map<const Instruction *, std::string> ids_;
};

} // namespace

std::string moduleToDot(const ir::Module &module, const std::string &title) {
  return DotWriter().write(module, title);
}

} // namespace kiln::driver
