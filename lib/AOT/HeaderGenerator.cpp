//===- HeaderGenerator.cpp - PREFIX.h from a template with placeholders --===//
//
// Like tfcompile, the header is one template (HeaderTemplate.inc) with named
// {{PLACEHOLDERS}}; this file only computes the values. Keeping the text in
// one place makes the generated header reviewable as a whole.
//
//===----------------------------------------------------------------------===//
#include "kiln/AOT/ModelInfo.h"

#include <cassert>
#include <cctype>
#include <fmt/format.h>
#include <map>
#include <set>

namespace kiln::aot {

namespace {

constexpr std::string_view kHeaderTemplate =
#include "HeaderTemplate.inc"
    ;

/// Expanded into {{PROFILE}} for profiled objects; nothing otherwise, so
/// the header without --profile is unchanged.
constexpr std::string_view kProfileTemplate =
#include "ProfileTemplate.inc"
    ;

/// Replaces every {{KEY}} in `text` with values[KEY]; "{{{" is a literal
/// brace followed by a placeholder.
std::string expandTemplate(std::string_view text,
                           const std::map<std::string, std::string> &values) {
  std::string out;
  size_t pos = 0;
  while (true) {
    size_t open = text.find("{{", pos);
    while (open != std::string_view::npos && open + 2 < text.size() &&
           text[open + 2] == '{')
      ++open;
    if (open == std::string_view::npos)
      break;
    size_t close = text.find("}}", open);
    assert(close != std::string_view::npos && "unterminated placeholder");
    auto found =
        values.find(std::string(text.substr(open + 2, close - open - 2)));
    assert(found != values.end() && "unbound placeholder in the template");
    out.append(text.substr(pos, open - pos));
    out.append(found->second);
    pos = close + 2;
  }
  out.append(text.substr(pos));
  return out;
}

/// The C++ element type of a dtype; 16-bit floats are their raw bits.
std::string_view cppElementType(ir::DType type) {
  static const std::map<ir::DType, std::string_view> kTypes = {
      {ir::DType::Pred, "bool"},     {ir::DType::S8, "int8_t"},
      {ir::DType::S16, "int16_t"},   {ir::DType::S32, "int32_t"},
      {ir::DType::S64, "int64_t"},   {ir::DType::U8, "uint8_t"},
      {ir::DType::U16, "uint16_t"},  {ir::DType::U32, "uint32_t"},
      {ir::DType::U64, "uint64_t"},  {ir::DType::F16, "uint16_t"},
      {ir::DType::BF16, "uint16_t"}, {ir::DType::F32, "float"},
      {ir::DType::F64, "double"}};
  return kTypes.at(type);
}

/// Text safe inside a /* */ comment and on one line.
std::string commentSafe(std::string_view text) {
  std::string out;
  for (char c : text) {
    if (std::iscntrl(static_cast<unsigned char>(c)))
      c = ' ';
    if (c == '/' && !out.empty() && out.back() == '*')
      out += ' ';
    out += c;
  }
  return out;
}

/// What the object needs from the C library or the compiler's runtime
/// (libgcc, compiler-rt: __aeabi_* on 32-bit ARM): a bare-metal user must
/// link these. Wrapped at about 80 columns.
std::string requiredSymbolsLine(const std::vector<std::string> &symbols) {
  if (symbols.empty())
    return "External symbols: none (the object calls no library function).";
  std::string out = "External symbols the object calls (from libc or the "
                    "compiler runtime):";
  size_t column = 80;
  for (size_t i = 0; i < symbols.size(); ++i) {
    std::string item =
        commentSafe(symbols[i]) + (i + 1 < symbols.size() ? "," : ".");
    if (column + item.size() + 1 > 78) {
      out += "\n *  ";
      column = 4;
    }
    out += " " + item;
    column += item.size() + 1;
  }
  return out;
}

std::string cStringLiteral(std::string_view text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\')
      out += {'\\', c};
    else if (std::isprint(static_cast<unsigned char>(c)))
      out += c;
    else
      out += fmt::format("\\{:03o}", static_cast<unsigned char>(c));
  }
  return out + "\"";
}

std::string upper(std::string text) {
  for (char &c : text)
    c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return text;
}

std::string describe(const TensorInfo &tensor) {
  std::string dims;
  for (int64_t d : tensor.shape)
    dims += (dims.empty() ? "" : ",") + std::to_string(d);
  return fmt::format("'{}': {}[{}]", commentSafe(tensor.name),
                     ir::numpyName(tensor.dtype), dims);
}

/// A result's description, saying which results are padded and which
/// hold counts; other results are described as before.
std::string describeResult(const ModelInfo &info, size_t index) {
  const TensorInfo &result = info.results[index];
  if (const BoundInfo *bound = findBound(info, index, false))
    return describe(result) +
           fmt::format(", padded along dim {}: result {} holds how many "
                       "entries are valid",
                       bound->dim, bound->countResult);
  if (const BoundInfo *bound = findBound(info, index, true))
    return describe(result) +
           fmt::format(", the valid entries of result {} ('{}')",
                       bound->result,
                       commentSafe(info.results.at(bound->result).name));
  return describe(result);
}

/// An arg's description, saying what kind of variable it is.
std::string describeArg(const TensorInfo &arg) {
  if (arg.kind != ArgKind::Variable)
    return describe(arg);
  return describe(arg) + (arg.readonly ? ", read-only variable"
                                       : ", variable written in place");
}

int64_t elementCountOf(const TensorInfo &tensor) {
  int64_t count = 1;
  for (int64_t d : tensor.shape)
    count *= d;
  return count;
}

/// Generates accessors for one buffer under several prefixes ("arg0",
/// "arg_x"): data, size, count and the element accessor of its rank.
class AccessorWriter {
public:
  explicit AccessorWriter(std::string &out) : out_(out) {}

  /// `elementCount` false leaves out PREFIX_count(), whose name the count
  /// result of a bounded output takes.
  void write(const TensorInfo &tensor, std::string_view generic, size_t index,
             const std::string &prefix, bool settable,
             bool elementCount = true) {
    std::string_view type = cppElementType(tensor.dtype);
    if (settable)
      out_ += fmt::format("  void set_{0}_data(const void* data) {{ "
                          "set_{1}_data({2}, data); }}\n",
                          prefix, generic, index);
    out_ += fmt::format(
        "  {0}* {1}_data() {{ return static_cast<{0}*>({2}_data({3})); }}\n"
        "  const {0}* {1}_data() const {{ return static_cast<const {0}*>"
        "({2}_data({3})); }}\n"
        "  static constexpr size_t {1}_size() {{ return {4}; }}\n",
        type, prefix, generic, index, tensor.bytes);
    if (elementCount)
      out_ += fmt::format(
          "  static constexpr size_t {}_count() {{ return {}; }}\n", prefix,
          elementCountOf(tensor));
    std::string params, flat;
    for (size_t d = 0; d < tensor.shape.size(); ++d) {
      params += fmt::format("{}size_t i{}", d ? ", " : "", d);
      int64_t stride = 1;
      for (size_t e = d + 1; e < tensor.shape.size(); ++e)
        stride *= tensor.shape[e];
      flat += fmt::format("{}i{}", d ? " + " : "", d);
      if (stride != 1)
        flat += fmt::format(" * {}", stride);
    }
    if (flat.empty())
      flat = "0";
    out_ += fmt::format(
        "  {0}& {1}({2}) {{ return {1}_data()[{3}]; }}\n"
        "  const {0}& {1}({2}) const {{ return {1}_data()[{3}]; }}\n",
        type, prefix, params, flat);
  }

private:
  std::string &out_;
};

/// Identifiers for the named accessors, unique within one kind (two names
/// that sanitize alike get the later one's index appended). "data" and
/// "size" are taken: arg_data(i) and arg_size(i) are the generic accessors.
std::vector<std::string> uniqueIdentifiers(const std::vector<TensorInfo> &all) {
  std::vector<std::string> names;
  std::set<std::string> taken = {"data", "size"};
  for (size_t i = 0; i < all.size(); ++i) {
    std::string name = toCIdentifier(all[i].name);
    if (!taken.insert(name).second) {
      name += "_" + std::to_string(i);
      taken.insert(name);
    }
    names.push_back(name);
  }
  return names;
}

std::string accessors(const ModelInfo &info) {
  std::string out;
  AccessorWriter writer(out);
  std::vector<std::string> argNames = uniqueIdentifiers(info.args);
  for (size_t i = 0; i < info.args.size(); ++i) {
    const TensorInfo &arg = info.args[i];
    out += fmt::format("\n  // arg {} {}\n", i, describeArg(arg));
    writer.write(arg, "arg", i, fmt::format("arg{}", i), true);
    bool variable = arg.kind == ArgKind::Variable;
    writer.write(arg, "arg", i,
                 fmt::format("{}_{}", variable ? "var" : "arg", argNames[i]),
                 true);
  }
  std::vector<std::string> resultNames = uniqueIdentifiers(info.results);
  for (size_t i = 0; i < info.results.size(); ++i) {
    const TensorInfo &result = info.results[i];
    out += fmt::format("\n  // result {} {}\n", i, describeResult(info, i));
    writer.write(result, "result", i, fmt::format("result{}", i), false);
    // A bounded output's result_NAME_count() is its count result's element
    // accessor: the number of valid entries, not the padded element count.
    const BoundInfo *bound = findBound(info, i, false);
    bool countTakesName =
        bound && resultNames.at(bound->countResult) == resultNames[i] + "_count";
    writer.write(result, "result", i, "result_" + resultNames[i], false,
                 !countTakesName);
  }
  return out;
}

std::string bufferMacros(const ModelInfo &info, const std::string &macro) {
  std::string out;
  for (size_t i = 0; i < info.args.size(); ++i)
    out += fmt::format("#define {}_ARG{}_SIZE {} /* {} */\n", macro, i,
                       info.args[i].bytes, describeArg(info.args[i]));
  for (size_t i = 0; i < info.results.size(); ++i) {
    const TensorInfo &result = info.results[i];
    out += fmt::format("#define {}_RESULT{}_SIZE {} /* {} */\n", macro, i,
                       result.bytes, describeResult(info, i));
    if (const BoundInfo *bound = findBound(info, i, false))
      out += fmt::format(
          "#define {0}_RESULT{1}_BOUNDED_DIM {2} /* entries >= the count "
          "along this dim are padding */\n"
          "#define {0}_RESULT{1}_COUNT_RESULT {3} /* results[{3}], an int32_t, "
          "holds the count */\n",
          macro, i, bound->dim, bound->countResult);
  }
  return out;
}

std::string listOf(const std::vector<TensorInfo> &all, bool names) {
  std::string out;
  for (const TensorInfo &tensor : all)
    out +=
        (names ? cStringLiteral(tensor.name) : std::to_string(tensor.bytes)) +
        ", ";
  return out;
}

/// "namespace a {\nnamespace b {\n" and its closing counterpart.
std::pair<std::string, std::string> namespaces(std::string_view path) {
  std::string open, close;
  while (!path.empty()) {
    size_t sep = path.find("::");
    std::string part = toCIdentifier(path.substr(0, sep));
    open += fmt::format("namespace {} {{\n", part);
    close = fmt::format("}}  // namespace {}\n", part) + close;
    path = sep == std::string_view::npos ? "" : path.substr(sep + 2);
  }
  if (!open.empty()) {
    open += "\n";
    close = "\n" + close;
  }
  return {open, close};
}

} // namespace

const BoundInfo *findBound(const ModelInfo &info, size_t result,
                           bool asCount) {
  for (const BoundInfo &bound : info.bounded)
    if ((asCount ? bound.countResult : bound.result) == result)
      return &bound;
  return nullptr;
}

std::string toCIdentifier(std::string_view text) {
  std::string out;
  for (char c : text)
    out += std::isalnum(static_cast<unsigned char>(c)) || c == '_' ? c : '_';
  if (out.empty() || std::isdigit(static_cast<unsigned char>(out[0])))
    out = "m" + out;
  return out;
}

std::string defaultClassName(std::string_view name) {
  std::string out;
  bool startWord = true;
  for (char c : toCIdentifier(name)) {
    if (c == '_') {
      startWord = true;
      continue;
    }
    out += startWord ? static_cast<char>(std::toupper(c)) : c;
    startWord = false;
  }
  return out.empty() ? "Model" : out;
}

std::string generateHeader(const ModelInfo &info) {
  std::string name = toCIdentifier(info.name);
  std::string macro = upper(name);
  auto [nsOpen, nsClose] = namespaces(info.cppNamespace);
  int64_t variables = 0;
  for (const TensorInfo &arg : info.args)
    variables += arg.kind == ArgKind::Variable;
  std::map<std::string, std::string> values = {
      {"FILE", name + ".h"},
      {"NAME", name},
      {"MACRO", macro},
      {"GUARD", "KILN_GENERATED_" + macro + "_H"},
      {"TRIPLE", commentSafe(info.triple)},
      {"CPU", commentSafe(info.cpu)},
      {"FEATURES", commentSafe(info.features)},
      {"REQUIRED_SYMBOLS", requiredSymbolsLine(info.requiredSymbols)},
      {"NUM_ARGS", std::to_string(info.args.size())},
      {"NUM_RESULTS", std::to_string(info.results.size())},
      {"NUM_VARIABLES", std::to_string(variables)},
      {"ARENA_SIZE", std::to_string(info.arenaBytes)},
      {"ARENA_ALIGN", std::to_string(info.arenaAlignment)},
      {"WEIGHTS_SIZE", std::to_string(info.weightsBytes)},
      {"ARENA_SECTION_NOTE",
       info.arenaSection.empty()
           ? std::string()
           : fmt::format(" and places it in section {} (--arena-section)",
                         info.arenaSection)},
      {"ARENA_SECTION_ATTRIBUTE",
       info.arenaSection.empty()
           ? std::string()
           : fmt::format(", section({})", cStringLiteral(info.arenaSection))},
      {"BUFFER_MACROS", bufferMacros(info, macro)},
      {"NAMESPACE_OPEN", nsOpen},
      {"NAMESPACE_CLOSE", nsClose},
      {"CLASS", info.className.empty() ? defaultClassName(name)
                                       : toCIdentifier(info.className)},
      {"ARG_SIZES", listOf(info.args, false)},
      {"RESULT_SIZES", listOf(info.results, false)},
      {"ARG_NAMES", listOf(info.args, true)},
      {"RESULT_NAMES", listOf(info.results, true)},
      {"ACCESSORS", accessors(info)},
      {"PROFILE_KERNELS", std::to_string(info.profileKernels.size())}};
  values["PROFILE"] =
      info.profile ? expandTemplate(kProfileTemplate, values) : "";
  return expandTemplate(kHeaderTemplate, values);
}

} // namespace kiln::aot
