#include "export/merged_stream.h"

#include <algorithm>
#include <filesystem>
#include <optional>

#include "event/format.h"
#include "event/s2.h"
#include "event/reformat.h"
#include "export/process_table.h"
#include "stda/trace_input.h"

namespace rastrace::exporter {

struct MergedStream::Input {
  explicit Input(event::LogReader r) : reader(std::move(r)) {}
  event::LogReader reader;
  event::TimeBase timebase;
  event::LogClock clock;  // the wall-clock offset of this input's times
  event::Event head;
  uint64_t head_time_ns = 0;
  size_t head_origin = 0;
  uint64_t last_time_ns = 0;
  size_t origin = 0;  // the origin of events read from now on
  // 00A/0x105 source numbers of this input -> origins.
  std::unordered_map<uint64_t, size_t> source_origins;
  std::vector<uint8_t> reformat_scratch;  // checking 00B events (seed 002 part C)
  event::Event reformatted;
};

MergedStream::MergedStream(MergedStream&&) noexcept = default;
MergedStream& MergedStream::operator=(MergedStream&&) noexcept = default;
MergedStream::~MergedStream() = default;

Result<MergedStream> MergedStream::Open(std::span<const std::string> paths) {
  std::vector<event::LogReader> readers;
  std::vector<event::LogClock> clocks;
  std::vector<Error> problems;
  uint64_t total = 0;
  bool sizes_known = true;
  for (const std::string& path : paths) {
    event::ReaderOptions options;
    options.reformat = false;
    auto input = stda::OpenTraceInput(path, options);
    if (!input.ok()) return input.error();
    readers.push_back(std::move(input->reader));
    clocks.push_back(input->clock);
    for (auto& problem : input->problems) problems.push_back(Error{std::move(problem)});
    std::error_code ec;
    const auto size = path == "-" ? 0 : std::filesystem::file_size(path, ec);
    if (ec || path == "-") {
      sizes_known = false;
    } else {
      total += size;
    }
  }
  MergedStream stream = FromReaders(std::move(readers));
  stream.total_bytes_ = sizes_known ? total : 0;
  stream.warnings_ = std::move(problems);
  event::PlaceOnOneTimeLine(clocks);
  for (size_t i = 0; i < clocks.size(); ++i) {
    Input& input = *stream.inputs_[i];
    input.clock = clocks[i];
    // rastrace writes the time conversion after TRACE ON and the header, whose timestamps would
    // otherwise be taken as nanoseconds while every later one is converted: the look ahead of the
    // clock scan found it first. (Standard input cannot be read twice; there the conversion
    // applies from where it is.)
    if (clocks[i].conversion) input.timebase.Set(*clocks[i].conversion);
  }
  return stream;
}

bool MergedStream::wall_clock() const {
  if (inputs_.empty()) return false;
  for (const auto& input : inputs_) {
    if (input->clock.anchor == event::WallClockAnchor::kNone) return false;
  }
  return true;
}

MergedStream MergedStream::FromReaders(std::vector<event::LogReader> readers) {
  MergedStream stream;
  for (auto& reader : readers) {
    const size_t index = stream.inputs_.size();
    stream.origins_.push_back(Origin{reader.name(), index});
    stream.inputs_.push_back(std::make_unique<Input>(std::move(reader)));
    stream.inputs_.back()->origin = index;
  }
  return stream;
}

void MergedStream::SetInputName(size_t input, std::string name) {
  if (input < inputs_.size()) origins_[inputs_[input]->origin].name = std::move(name);
}

const event::LogReader& MergedStream::reader(size_t input) const {
  return inputs_[input]->reader;
}

uint64_t MergedStream::bytes_read() const {
  uint64_t total = 0;
  for (const auto& input : inputs_) total += input->reader.offset();
  return total;
}

// Heap order: the later event sinks; equal times keep the order of the inputs.
bool MergedStream::Later(size_t a, size_t b) const {
  const Input& x = *inputs_[a];
  const Input& y = *inputs_[b];
  if (x.head_time_ns != y.head_time_ns) return x.head_time_ns > y.head_time_ns;
  return a > b;
}

void MergedStream::Advance(size_t index) {
  Input& input = *inputs_[index];
  const ByteOrder order = input.reader.byte_order();
  for (;;) {
    const event::ReadStatus status = input.reader.Next(input.head);
    if (status == event::ReadStatus::kEnd) return;
    if (status == event::ReadStatus::kError) {
      warnings_.push_back(input.reader.error());
      return;
    }
    const event::Event& e = input.head;
    input.timebase.Observe(e, order);
    if (event::NeedsReformat(e, input.reader.layout())) {
      // trcrpt's reader stops at an event seed 002 part C cannot reformat (a malformed 00B);
      // exports and merges agree with it: the input ends there, with the same message.
      auto checked = event::Reformat(e, input.reader.layout(), order, input.reformat_scratch,
                                     input.reformatted);
      if (!checked) {
        warnings_.push_back(MakeError("{}: {}", input.reader.name(), checked.error().message));
        return;
      }
    }
    if (e.generic && e.layout == event::Layout::k64 && UtilitySubhook(e) == event::kUtilSource) {
      // A merged log announces the origin of the events that follow; it is consumed here so that
      // every consumer sees origins the same way, however many merges deep.
      const auto name = event::ReadS2(e.buffer, 0, order);
      auto [it, added] = input.source_origins.try_emplace(e.generic_word, origins_.size());
      if (added) {
        origins_.push_back(
            Origin{name ? std::string(*name) : fmt::format("source {}", e.generic_word), index});
      }
      input.origin = it->second;
      continue;
    }
    if (e.timestamped) {
      input.last_time_ns = input.clock.ToWall(input.timebase.ToNanoseconds(e.timestamp));
    }
    input.head_time_ns = input.last_time_ns;
    input.head_origin = input.origin;
    heap_.push_back(index);
    std::push_heap(heap_.begin(), heap_.end(), [this](size_t a, size_t b) { return Later(a, b); });
    return;
  }
}

void MergedStream::Start() {
  started_ = true;
  for (size_t i = 0; i < inputs_.size(); ++i) Advance(i);
}

event::ReadStatus MergedStream::Next(SourceEvent& out) {
  if (!started_) Start();
  if (pending_advance_) {
    pending_advance_ = false;
    Advance(last_input_);
  }
  if (heap_.empty()) return event::ReadStatus::kEnd;
  std::pop_heap(heap_.begin(), heap_.end(), [this](size_t a, size_t b) { return Later(a, b); });
  const size_t index = heap_.back();
  heap_.pop_back();
  const Input& input = *inputs_[index];
  out.event = &input.head;
  out.input = index;
  out.origin = input.head_origin;
  out.time_ns = input.head_time_ns;
  out.byte_order = input.reader.byte_order();
  out.trace_layout = input.reader.layout();
  last_input_ = index;
  pending_advance_ = true;
  return event::ReadStatus::kEvent;
}

}  // namespace rastrace::exporter
