// Several logs read as one stream in time order: a streaming k-way merge by converted nanosecond
// time, each log with its own time conversion (00A/25C). Memory holds one event per log.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "common/byte_order.h"
#include "common/result.h"
#include "event/log_clock.h"
#include "event/reader.h"
#include "event/timebase.h"

namespace rastrace::exporter {

// Where events came from. Each input log is an origin; a log written by `rastrace merge` holds
// several, announced by its 00A/0x105 source events, and each of those is an origin of its own.
struct Origin {
  std::string name;
  size_t input = 0;
};

struct SourceEvent {
  // The event as recorded (read without seed 002 part C reformatting), valid until the next call
  // of MergedStream::Next.
  const event::Event* event = nullptr;
  size_t input = 0;
  size_t origin = 0;
  // Nanoseconds by the input's time conversion, moved to wall-clock time (since 1970) when the
  // input has a wall-clock anchor (event/log_clock.h). An event without a timestamp carries the time
  // of the last timestamped event of its input (0 before the first), which keeps it in place.
  uint64_t time_ns = 0;
  ByteOrder byte_order = ByteOrder::kLittle;
  event::Layout trace_layout = event::Layout::k64;
};

class MergedStream {
 public:
  // Opens every log (or TRACEFMT save file, read as the log of its records: src/stda/
  // trace_input.h); fails on the first that cannot be opened or is neither. Each input's times are
  // placed in wall-clock time when the log says where it stands (event/log_clock.h), so logs of
  // different clocks interleave; problems of a save file are warnings from the start.
  static Result<MergedStream> Open(std::span<const std::string> paths);
  // Merges readers already open (tests read logs from memory). Readers must not reformat.
  static MergedStream FromReaders(std::vector<event::LogReader> readers);

  MergedStream(MergedStream&&) noexcept;
  MergedStream& operator=(MergedStream&&) noexcept;
  ~MergedStream();

  // The next event in time order; ties go to the input listed first. kEnd when every input is
  // done. An input that ends inside an event (or is corrupt) ends there: its message is added to
  // warnings() and the other inputs go on.
  event::ReadStatus Next(SourceEvent& out);

  // Names an input's origin (default: the path as given). Call before the first Next.
  void SetInputName(size_t input, std::string name);

  const std::vector<Origin>& origins() const { return origins_; }
  size_t input_count() const { return inputs_.size(); }
  const event::LogReader& reader(size_t input) const;
  const std::vector<Error>& warnings() const { return warnings_; }
  // True when every input's times are wall-clock nanoseconds (each had a wall-clock anchor).
  bool wall_clock() const;

  // Bytes consumed so far over all inputs, and their total size (0 when a size is unknown, as for
  // standard input): for progress bars.
  uint64_t bytes_read() const;
  uint64_t total_bytes() const { return total_bytes_; }

 private:
  struct Input;
  MergedStream() = default;
  void Start();
  void Advance(size_t input);
  bool Later(size_t a, size_t b) const;

  std::vector<std::unique_ptr<Input>> inputs_;
  std::vector<Origin> origins_;
  std::vector<size_t> heap_;  // inputs that hold an event, earliest on top
  std::vector<Error> warnings_;
  uint64_t total_bytes_ = 0;
  bool started_ = false;
  bool pending_advance_ = false;  // the input of the last event returned moves on at the next call
  size_t last_input_ = 0;
};

}  // namespace rastrace::exporter
