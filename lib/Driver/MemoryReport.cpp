//===- MemoryReport.cpp - The report's "memory" section -------------------===//
//
// What sets the arena size: the arena and its lower bound (the schedule's
// peak live bytes), every arena buffer with its offset and live range, and
// the buffers live where the peak is.
//
//===----------------------------------------------------------------------===//
#include "Report.h"

#include <fmt/format.h>

namespace kiln::driver {

using analysis::BufferAssignment;
using analysis::ValueRef;

namespace {

/// One arena buffer as the report lists it.
struct BufferRow {
  std::string name;        ///< as print-buffer-assignment names it
  std::string instruction; ///< the HLO instruction
  std::string kind;        ///< value, fused, packing-scratch, staging
  std::string fusion;      ///< fused values: the fusion they belong to
  std::string shape;       ///< empty for scratch and staging
  int64_t bytes = 0, offset = 0, first = 0, last = 0;
};

/// The fusion (by name) each fused instruction of the schedule belongs to.
std::map<const ir::Instruction *, std::string>
fusionOwners(const BufferAssignment &buffers) {
  std::map<const ir::Instruction *, std::string> owners;
  for (const ir::Instruction *instruction : buffers.schedule())
    if (const ir::Computation *called = instruction->calledComputation())
      for (const ir::Instruction *inner : called->instructions())
        owners.emplace(inner, instruction->name());
  return owners;
}

BufferRow
valueRow(const BufferAssignment &buffers, ValueRef value,
         const std::map<const ir::Instruction *, std::string> &owners) {
  BufferRow row;
  const ir::Instruction &instruction = *value.instruction;
  const analysis::BufferSlice &slice = buffers.slice(value);
  row.instruction = instruction.name();
  row.name = "%" + instruction.name();
  row.kind = "value";
  if (value.tupleIndex == BufferAssignment::kScratchIndex &&
      instruction.opcode() == ir::Opcode::Convolution) {
    row.kind = "winograd-scratch"; // kiln/Analysis/Winograd.h
    row.name += " (winograd scratch)";
  } else if (value.tupleIndex == BufferAssignment::kScratchIndex &&
             instruction.opcode() == ir::Opcode::Sort) {
    row.kind = "sort-scratch"; // the merge passes' rows
    row.name += " (sort scratch)";
  } else if (value.tupleIndex == BufferAssignment::kScratchIndex) {
    row.kind = "packing-scratch";
    row.name += " (packing scratch)";
  } else if (value.tupleIndex == BufferAssignment::kCalleeBlockIndex) {
    row.kind = "callee-block";
    row.name += instruction.opcode() == ir::Opcode::While
                    ? " (condition and body)"
                    : " (branches)";
  } else if (value.tupleIndex >= 0) {
    row.name += fmt::format("{{{}}}", value.tupleIndex);
    row.shape = instruction.shape()
                    .tupleElements()[size_t(value.tupleIndex)]
                    .toString();
  } else {
    row.shape = instruction.shape().toString();
  }
  if (auto owner = owners.find(&instruction); owner != owners.end()) {
    row.fusion = owner->second;
    if (row.kind == "value")
      row.kind = "fused";
  }
  row.bytes = slice.bytes;
  row.offset = slice.offset;
  std::tie(row.first, row.last) = buffers.liveRange(value);
  return row;
}

/// Every arena buffer: values by live range start, then write-back staging
/// (live only after the last instruction).
std::vector<BufferRow> bufferRows(const BufferAssignment &buffers) {
  std::map<const ir::Instruction *, std::string> owners = fusionOwners(buffers);
  std::vector<BufferRow> rows;
  for (ValueRef value : buffers.arenaValues())
    rows.push_back(valueRow(buffers, value, owners));
  int64_t end = int64_t(buffers.schedule().size());
  for (const analysis::WriteBack &writeBack : buffers.writeBacks()) {
    if (!writeBack.staging)
      continue;
    BufferRow row;
    row.instruction = writeBack.value.instruction->name();
    row.name = "%" + row.instruction + " (write-back staging)";
    row.kind = "staging";
    row.bytes = writeBack.staging->bytes;
    row.offset = writeBack.staging->offset;
    row.first = row.last = end;
    rows.push_back(row);
  }
  return rows;
}

std::string liveText(const BufferRow &row) {
  return fmt::format("[{}, {}]", row.first, row.last);
}

/// The instruction at schedule position `position`; one past the end is
/// where write-backs are copied.
std::string positionName(const BufferAssignment &buffers, int64_t position) {
  if (position >= int64_t(buffers.schedule().size()))
    return "after the last instruction (write-backs)";
  return "%" + buffers.schedule()[size_t(position)]->name();
}

nlohmann::ordered_json rowJson(const BufferRow &row) {
  nlohmann::ordered_json json;
  json["name"] = row.name;
  json["instruction"] = row.instruction;
  json["kind"] = row.kind;
  if (!row.fusion.empty())
    json["fusion"] = row.fusion;
  if (!row.shape.empty())
    json["shape"] = row.shape;
  json["bytes"] = row.bytes;
  json["offset"] = row.offset;
  json["live"] = {row.first, row.last};
  return json;
}

std::string ratioText(int64_t arena, int64_t peak) {
  return peak == 0 ? std::string("-")
                   : fmt::format("{:.3f}", double(arena) / double(peak));
}

std::string tableText(const std::vector<const BufferRow *> &rows) {
  std::vector<std::vector<std::string>> cells;
  for (const BufferRow *row : rows)
    cells.push_back({row->name, row->shape.empty() ? "-" : row->shape,
                     std::to_string(row->bytes), std::to_string(row->offset),
                     liveText(*row)});
  return formatTable({"buffer", "shape", "bytes", "offset", "live"}, cells);
}

} // namespace

ReportSection memoryReportSection(const BufferAssignment &buffers) {
  std::vector<BufferRow> rows = bufferRows(buffers);
  int64_t peakPosition = buffers.peakPosition();
  std::vector<const BufferRow *> all, atPeak;
  for (const BufferRow &row : rows) {
    all.push_back(&row);
    if (row.first <= peakPosition && peakPosition <= row.last)
      atPeak.push_back(&row);
  }
  // Biggest first: what to look at to lower the peak.
  std::stable_sort(atPeak.begin(), atPeak.end(),
                   [](const BufferRow *a, const BufferRow *b) {
                     return a->bytes > b->bytes;
                   });

  ReportSection section;
  section.key = "memory";
  section.title = "memory";
  int64_t arena = buffers.arenaBytes(), peak = buffers.peakLiveBytes();
  std::string strategy(scheduleStrategyName(buffers.scheduleStrategy()));
  section.text += fmt::format(
      "arena: {} bytes, alignment {}\n"
      "peak live: {} bytes (buffers rounded to the alignment), arena / peak "
      "live: {}\n"
      "schedule: {} ({} instructions)\n",
      arena, BufferAssignment::kArenaAlignment, peak, ratioText(arena, peak),
      strategy, buffers.schedule().size());
  const analysis::CrossedHalves &crossed = buffers.crossedHalves();
  section.text += fmt::format(
      "two threads' halves: {} bytes per run written where the other thread "
      "wrote last ({} as best fit placed them)\n",
      crossed.placed, crossed.bestFit);
  section.text +=
      fmt::format("\npeak at position {}, {}: {} buffers live\n", peakPosition,
                  positionName(buffers, peakPosition), atPeak.size());
  section.text += tableText(atPeak);
  section.text += fmt::format("\narena buffers ({}):\n", all.size());
  section.text += tableText(all);

  nlohmann::ordered_json &json = section.json;
  json["arena_bytes"] = arena;
  json["alignment"] = BufferAssignment::kArenaAlignment;
  json["peak_live_bytes"] = peak;
  json["crossed_half_bytes"] = {{"placed", crossed.placed},
                                {"best_fit", crossed.bestFit}};
  json["schedule"] = strategy;
  json["instructions"] = buffers.schedule().size();
  json["peak"]["position"] = peakPosition;
  json["peak"]["at"] = positionName(buffers, peakPosition);
  json["peak"]["live"] = nlohmann::ordered_json::array();
  for (const BufferRow *row : atPeak)
    json["peak"]["live"].push_back(row->name);
  json["buffers"] = nlohmann::ordered_json::array();
  for (const BufferRow &row : rows)
    json["buffers"].push_back(rowJson(row));
  return section;
}

} // namespace kiln::driver
