//===- Manifest.cpp - PREFIX.json, the machine-readable model summary ----===//
//
// Written by hand rather than through a JSON library so the layout is fixed:
// keys in the documented order, two-space indentation, shapes on one line.
// Tools diff manifests, so the same model must give the same bytes.
//
//===----------------------------------------------------------------------===//
#include "kiln/AOT/ModelInfo.h"

#include <fmt/format.h>

namespace kiln::aot {

namespace {

std::string jsonString(std::string_view text) {
  std::string out = "\"";
  for (char c : text) {
    switch (c) {
    case '"':
      out += "\\\"";
      break;
    case '\\':
      out += "\\\\";
      break;
    case '\n':
      out += "\\n";
      break;
    case '\t':
      out += "\\t";
      break;
    case '\r':
      out += "\\r";
      break;
    default:
      if (static_cast<unsigned char>(c) < 0x20)
        out += fmt::format("\\u{:04x}", static_cast<unsigned char>(c));
      else
        out += c;
    }
  }
  return out + "\"";
}

/// A string, or null for an empty one (a setting not given).
std::string jsonStringOrNull(std::string_view text) {
  return text.empty() ? std::string("null") : jsonString(text);
}

std::string shapeList(const std::vector<int64_t> &shape) {
  std::string out = "[";
  for (size_t i = 0; i < shape.size(); ++i)
    out += (i ? ", " : "") + std::to_string(shape[i]);
  return out + "]";
}

/// The fields a bounded result and its count add after "bytes"; nothing
/// for other results, whose objects stay as they were.
std::string boundFields(const ModelInfo &info, size_t result) {
  if (const BoundInfo *bound = findBound(info, result, false))
    return fmt::format(",\n      \"bounded\": {{ \"dim\": {}, \"count\": {}, "
                       "\"count_result\": {} }}",
                       bound->dim,
                       jsonString(info.results.at(bound->countResult).name),
                       bound->countResult);
  if (const BoundInfo *bound = findBound(info, result, true))
    return fmt::format(",\n      \"count_of\": {{ \"name\": {}, "
                       "\"result\": {} }}",
                       jsonString(info.results.at(bound->result).name),
                       bound->result);
  return "";
}

/// One element of "args" (with its kind) or "results" (without).
std::string tensorObject(const TensorInfo &tensor, bool withKind,
                         std::string_view extraFields) {
  std::string out = "    {\n";
  out += fmt::format("      \"name\": {},\n", jsonString(tensor.name));
  if (withKind)
    out += fmt::format("      \"kind\": \"{}\",\n",
                       tensor.kind == ArgKind::Variable ? "variable" : "feed");
  // Feeds are always read-only; a variable says whether the run writes it.
  if (withKind && tensor.kind == ArgKind::Variable)
    out += fmt::format("      \"readonly\": {},\n",
                       tensor.readonly ? "true" : "false");
  out += fmt::format("      \"dtype\": \"{}\",\n", ir::numpyName(tensor.dtype));
  out += fmt::format("      \"shape\": {},\n", shapeList(tensor.shape));
  if (!tensor.layout.empty())
    out += fmt::format("      \"layout\": {},\n", shapeList(tensor.layout));
  out += fmt::format("      \"bytes\": {}{}\n", tensor.bytes, extraFields);
  return out + "    }";
}

/// "args" (with kinds) or, given `info`, "results" (with their bounds).
std::string tensorArray(const std::vector<TensorInfo> &all, bool withKind,
                        const ModelInfo *info = nullptr) {
  if (all.empty())
    return "[]";
  std::string out = "[\n";
  for (size_t i = 0; i < all.size(); ++i)
    out += tensorObject(all[i], withKind, info ? boundFields(*info, i) : "") +
           (i + 1 < all.size() ? ",\n" : "\n");
  return out + "  ]";
}

std::string stringArray(const std::vector<std::string> &all) {
  if (all.empty())
    return "[]";
  std::string out = "[";
  for (size_t i = 0; i < all.size(); ++i)
    out += (i ? ", " : "") + jsonString(all[i]);
  return out + "]";
}

std::string kernelArray(const std::vector<KernelInfo> &all) {
  if (all.empty())
    return "[]";
  std::string out = "[\n";
  for (size_t i = 0; i < all.size(); ++i) {
    const KernelInfo &k = all[i];
    out += fmt::format(
        "    {{ \"instruction\": {}, \"kernel\": {}, \"function\": {}, "
        "\"m\": {}, \"n\": {}, \"k\": {}, \"tile\": {{ \"mr\": {}, "
        "\"nr\": {}, \"kc\": {}, \"mc\": {} }}, \"packed_weights\": {}, "
        "\"epilogue\": {}, \"tasks\": {} }}{}\n",
        jsonString(k.instruction), jsonString(k.kernel), jsonString(k.function),
        k.m, k.n, k.k, k.mr, k.nr, k.kc, k.mc,
        k.packedWeights ? "true" : "false", jsonString(k.epilogue), k.tasks,
        i + 1 < all.size() ? "," : "");
  }
  return out + "  ]";
}

std::string loopArray(const std::vector<LoopInfo> &loops) {
  std::string out = "[\n";
  for (size_t i = 0; i < loops.size(); ++i) {
    const LoopInfo &loop = loops[i];
    out += fmt::format(
        "    {{ \"instruction\": {}, \"computation\": {}, \"trip_count\": {}, "
        "\"block_bytes\": {} }}{}\n",
        jsonString(loop.instruction), jsonString(loop.computation),
        loop.tripCount < 0 ? std::string("null")
                           : std::to_string(loop.tripCount),
        loop.blockBytes, i + 1 < loops.size() ? "," : "");
  }
  return out + "  ]";
}

} // namespace

std::string generateManifest(const ModelInfo &info) {
  std::string name = toCIdentifier(info.name);
  std::string out = "{\n";
  out += "  \"format\": \"kiln-manifest\",\n";
  out += "  \"version\": 1,\n";
  out += fmt::format("  \"name\": {},\n", jsonString(name));
  out += fmt::format("  \"entry\": {},\n", jsonString(name + "_run"));
  out += fmt::format("  \"parallel_entry\": {},\n",
                     jsonString(name + "_run_parallel"));
  out += fmt::format("  \"target\": {{\n    \"triple\": {},\n    \"cpu\": {},\n"
                     "    \"features\": {},\n    \"tuning\": {}\n  }},\n",
                     jsonString(info.triple), jsonString(info.cpu),
                     jsonString(info.features), jsonString(info.tuning));
  out += fmt::format("  \"arena\": {{\n    \"bytes\": {},\n    \"alignment\": "
                     "{},\n    \"peak_live_bytes\": {}\n  }},\n",
                     info.arenaBytes, info.arenaAlignment, info.peakLiveBytes);
  out += fmt::format("  \"weights_bytes\": {},\n", info.weightsBytes);
  out += fmt::format("  \"sizes\": {{\n    \"code_bytes\": {},\n"
                     "    \"weight_bytes\": {},\n    \"arena_bytes\": {},\n"
                     "    \"peak_live_bytes\": {},\n"
                     "    \"flash_bytes\": {},\n    \"ram_bytes\": {}\n  }},\n",
                     info.codeBytes, info.objectWeightBytes, info.arenaBytes,
                     info.peakLiveBytes, info.flashBytes, info.ramBytes);
  out += fmt::format("  \"placement\": {{\n    \"weights_section\": {},\n"
                     "    \"arena_section\": {}\n  }},\n",
                     jsonStringOrNull(info.weightsSection),
                     jsonStringOrNull(info.arenaSection));
  out += fmt::format("  \"args\": {},\n", tensorArray(info.args, true));
  out += fmt::format("  \"results\": {},\n", tensorArray(info.results, false, &info));
  out += fmt::format("  \"kernels\": {},\n", kernelArray(info.kernels));
  if (!info.loops.empty()) // additive: models without loops keep their manifest
    out += fmt::format("  \"loops\": {},\n", loopArray(info.loops));
  out += fmt::format("  \"required_symbols\": {}\n",
                     stringArray(info.requiredSymbols));
  return out + "}\n";
}

} // namespace kiln::aot
