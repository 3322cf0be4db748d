#include "export/merge_writer.h"

#include <algorithm>
#include <vector>

#include "event/format.h"
#include "event/s2.h"
#include "event/timebase.h"
#include "export/id_renumber.h"
#include "export/process_table.h"

namespace rastrace::exporter {

namespace {

std::vector<uint8_t> SourceBuffer(std::string_view name, ByteOrder order) {
  // Longer names are cut so that the whole buffer, length included, fits a generic event's 2-byte
  // length (a name is a label, not data).
  std::vector<uint8_t> buffer;
  event::AppendS2(name.substr(0, event::kS2MaxLength - 2), order, buffer);
  return buffer;
}

// The inputs' own clock events: the merged log has its own (its timestamps are converted).
bool IsClockEvent(const event::Event& e) {
  const auto subhook = UtilitySubhook(e);
  return (e.generic && subhook == event::kUtilTimeConversion) ||
         (!e.generic && subhook == event::kUtilWallClock);
}

}  // namespace

Result<ByteOrder> CommonByteOrder(const MergedStream& stream) {
  if (stream.input_count() == 0) return NativeByteOrder();
  const ByteOrder order = stream.reader(0).byte_order();
  for (size_t i = 1; i < stream.input_count(); ++i) {
    if (stream.reader(i).byte_order() != order) {
      const auto name = [](ByteOrder o) { return o == ByteOrder::kBig ? "big" : "little"; };
      return MakeError(
          "{} is {}-endian but {} is {}-endian: generic buffers keep their log's byte order, so "
          "logs of different byte orders cannot be merged into one",
          stream.reader(i).name(), name(stream.reader(i).byte_order()), stream.reader(0).name(),
          name(order));
    }
  }
  return order;
}

Result<MergeStats> WriteMergedLog(MergedStream& stream, event::LogWriter& writer,
                                  Progress* progress) {
  if (writer.layout() != event::Layout::k64) {
    return MakeError("merge writes 64-bit logs only (nanosecond timestamps need 8 bytes)");
  }
  const ByteOrder order = writer.byte_order();
  MergeStats stats;

  const std::vector<uint8_t> conversion =
      event::EncodeTimeConversion(event::TimeConversion{1, 1, 2}, order);
  event::EventFields header;
  header.hook_id = event::kHookUtil;
  header.subhook = event::kUtilTimeConversion;
  header.generic = true;
  header.buffer = conversion;
  if (auto written = writer.Write(header); !written.ok()) return written.error();

  bool wall_written = false;
  constexpr size_t kNoOrigin = SIZE_MAX;
  size_t current_origin = kNoOrigin;
  std::vector<uint8_t> source_buffer;
  IdRenumberer ids;
  std::vector<uint8_t> renumbered_buffer;
  std::vector<IdRenumberer::Renumbered> renumbered;
  SourceEvent item;
  while (stream.Next(item) == event::ReadStatus::kEvent) {
    const event::Event& e = *item.event;
    if (progress != nullptr) progress->Update(stream.bytes_read(), stats.events);
    if (IsClockEvent(e)) continue;
    if (!wall_written && stream.wall_clock()) {
      // Every input was placed in wall-clock time: the merged log's nanoseconds are CLOCK_REALTIME.
      wall_written = true;
      event::EventFields wall;
      wall.hook_id = event::kHookUtil;
      wall.subhook = event::kUtilWallClock;
      wall.word_count = 1;
      wall.words[0] = item.time_ns;
      wall.timestamped = true;
      wall.timestamp = item.time_ns;
      if (auto written = writer.Write(wall); !written.ok()) return written.error();
    }
    if (item.origin != current_origin) {
      current_origin = item.origin;
      source_buffer = SourceBuffer(stream.origins()[item.origin].name, order);
      event::EventFields source;
      source.hook_id = event::kHookUtil;
      source.subhook = event::kUtilSource;
      source.generic = true;
      source.generic_word = item.origin;
      source.buffer = source_buffer;
      source.timestamped = true;
      source.timestamp = item.time_ns;
      if (auto written = writer.Write(source); !written.ok()) return written.error();
      ++stats.source_events;
    }
    event::EventFields fields = e;  // the recorded fields, timestamp converted
    if (fields.timestamped) fields.timestamp = item.time_ns;
    renumbered.clear();
    ids.Apply(item.origin, item.trace_layout, order, fields, renumbered_buffer, renumbered);
    for (const auto& id : renumbered) {
      event::EventFields note;
      note.hook_id = event::kHookUtil;
      note.subhook = event::kUtilRenumbered;
      note.word_count = 2;
      note.words[0] = id.from;
      note.words[1] = id.to;
      note.timestamped = true;
      note.timestamp = item.time_ns;
      if (auto written = writer.Write(note); !written.ok()) return written.error();
      ++stats.renumbered;
    }
    if (item.trace_layout == event::Layout::k32 && !fields.generic && fields.word_count > 0) {
      fields.data32 = true;
    }
    if (auto written = writer.Write(fields); !written.ok()) {
      return MakeError("{}: offset 0x{:x}: {}", stream.reader(item.input).name(), e.offset,
                       written.error().message);
    }
    ++stats.events;
  }
  return stats;
}

}  // namespace rastrace::exporter
