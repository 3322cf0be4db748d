#include "report/event_source.h"

#include <sys/stat.h>

#include <deque>

#include "event/format.h"
#include "stda/trace_input.h"

namespace rastrace::report {

struct EventSource::Input {
  explicit Input(event::LogReader r) : reader(std::move(r)) {}
  event::LogReader reader;
  // Which threads a thread id names: this log's, or in a merged log those of the source the last
  // 00A/105 event named. Log number in the high half, source number in the low.
  uint64_t thread_space = 0;
  event::Event pending;
  bool has_pending = false;
  bool ended = false;
  event::TimeBase timebase;
  event::LogClock clock;  // places this log's times in wall-clock time, when it says how
  uint64_t last_ns = 0;  // time of the last timestamped event: untimestamped ones share it
  bool have_time = false;
  std::optional<int64_t> start_seconds;  // from the 003 header
  uint64_t first_ns = 0;
  bool have_first = false;
  // Raw ticks behind last_ns and first_ns: a time conversion that comes after them (typically
  // in the same first event batch) converts them again.
  uint64_t last_ticks = 0;
  uint64_t first_ticks = 0;
  uint64_t key_ns = 0;  // merge key of `pending`
  // Leading TRACE ON events held back until the header block (003 and 00A events) has been
  // returned (see LogStart).
  size_t hold_before_header = 0;
  struct HeldEvent {
    event::Event event;
    std::vector<uint8_t> bytes, buffer;
  };
  std::deque<HeldEvent> held;
  bool holding = false;  // held TRACE ONs wait for the end of the header block
  HeldEvent current;     // owns the bytes of `pending` when it came from `held`
};

EventSource::~EventSource() = default;

namespace {

// What the first events of a log tell before reporting starts (its time conversion and wall clock
// come from event/log_clock.h: rastrace writes the conversion right after the header, whose own
// timestamp would otherwise be converted differently from every later one). The recorder writes
// TRACE ON (001) just before the 003 header, which would put the column header and TRACE ON above
// the header: they are reported after the header block instead, where AIX reports show them.
struct LogStart {
  size_t trace_ons_before_header = 0;  // 001 events that come before the first 003
};

LogStart ScanLogStart(const std::string& path) {
  LogStart start;
  auto reader = event::LogReader::Open(path, event::ReaderOptions{.reformat = false});
  if (!reader) return start;
  event::Event e;
  size_t trace_ons = 0;
  bool header_seen = false, leading = true;
  for (int i = 0; i < 64 && reader->Next(e) == event::ReadStatus::kEvent; ++i) {
    if (leading && !header_seen) {
      if (e.hook_id == event::kHookTraceOn) {
        ++trace_ons;
      } else if (e.hook_id == event::kHookHeader) {
        header_seen = true;
        start.trace_ons_before_header = trace_ons;
      } else {
        leading = false;
      }
    }
    if (header_seen || !leading) break;
  }
  return start;
}

}  // namespace

Result<std::unique_ptr<EventSource>> EventSource::Open(const std::vector<std::string>& paths,
                                                       std::FILE* verbose, bool reformat) {
  std::unique_ptr<EventSource> source(new EventSource());
  for (const std::string& path : paths) {
    if (verbose != nullptr) std::fprintf(verbose, "trcrpt: reading %s\n", path.c_str());
    auto opened = stda::OpenTraceInput(path, event::ReaderOptions{.reformat = reformat});
    if (!opened) return opened.error();
    auto& reader = opened->reader;
    for (auto& problem : opened->problems) source->warnings_.push_back(std::move(problem));
    struct stat st {};
    if (path != "-" && ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode)) {
      source->total_bytes_ += static_cast<uint64_t>(st.st_size);
    }
    source->inputs_.push_back(std::make_unique<Input>(std::move(reader)));
    Input& input = *source->inputs_.back();
    input.thread_space = uint64_t{source->inputs_.size() - 1} << 32;
    input.clock = opened->clock;
    if (input.clock.conversion) input.timebase.Set(*input.clock.conversion);
    if (path != "-" && !opened->save_file) {
      input.hold_before_header = ScanLogStart(path).trace_ons_before_header;
    }
  }
  std::vector<event::LogClock> clocks;
  for (const auto& input : source->inputs_) clocks.push_back(input->clock);
  event::PlaceOnOneTimeLine(clocks);
  for (size_t i = 0; i < clocks.size(); ++i) source->inputs_[i]->clock = clocks[i];
  return source;
}

uint64_t EventSource::bytes_read() const {
  uint64_t total = 0;
  for (const auto& input : inputs_) total += input->reader.offset();
  return total;
}

bool EventSource::Fill(Input& input) {
  if (input.has_pending) return true;
  if (input.hold_before_header != 0) HoldTraceOns(input);
  if (input.holding) {
    // Header material (003, 00A) passes the held TRACE ONs; the first other event releases them.
    event::Event e;
    switch (input.reader.Next(e)) {
      case event::ReadStatus::kEvent:
        if (e.hook_id == event::kHookHeader || e.hook_id == event::kHookUtil) {
          input.pending = e;
          input.has_pending = true;
          SetKey(input);
          return true;
        }
        input.held.push_back(
            {e, {e.bytes.begin(), e.bytes.end()}, {e.buffer.begin(), e.buffer.end()}});
        break;
      case event::ReadStatus::kError:
        warnings_.push_back(input.reader.error().message);
        input.ended = true;
        break;
      case event::ReadStatus::kEnd:
        input.ended = true;
        break;
    }
    input.holding = false;
  }
  if (!input.held.empty()) {
    input.current = std::move(input.held.front());
    input.held.pop_front();
    input.pending = input.current.event;
    input.pending.bytes = input.current.bytes;
    input.pending.buffer = input.current.buffer;
    input.has_pending = true;
    SetKey(input);
    return true;
  }
  if (input.ended) return false;
  switch (input.reader.Next(input.pending)) {
    case event::ReadStatus::kEvent:
      input.has_pending = true;
      SetKey(input);
      return true;
    case event::ReadStatus::kError:
      warnings_.push_back(input.reader.error().message);
      input.ended = true;
      return false;
    case event::ReadStatus::kEnd:
      input.ended = true;
      return false;
  }
  return false;
}

void EventSource::SetKey(Input& input) {
  input.key_ns = input.pending.timestamped
                     ? input.clock.ToWall(input.timebase.ToNanoseconds(input.pending.timestamp))
                     : input.last_ns;
}

void EventSource::HoldTraceOns(Input& input) {
  // Copies the leading TRACE ON events aside (the scan counted them) until the header block has
  // been returned.
  size_t to_hold = input.hold_before_header;
  input.hold_before_header = 0;
  for (size_t i = 0; i < to_hold; ++i) {
    event::Event e;
    event::ReadStatus status = input.reader.Next(e);
    if (status == event::ReadStatus::kError) warnings_.push_back(input.reader.error().message);
    if (status != event::ReadStatus::kEvent) {
      input.ended = true;
      return;
    }
    input.held.push_back({e, {e.bytes.begin(), e.bytes.end()}, {e.buffer.begin(), e.buffer.end()}});
    // The file is not what the scan saw: give the events back in log order.
    if (e.hook_id != event::kHookTraceOn) return;
  }
  input.holding = true;
}

void EventSource::Learn(Input& input, const event::Event& event) {
  ByteOrder order = input.reader.byte_order();
  if (event.hook_id == event::kHookUtil) {
    if (event.subhook == event::kUtilTimeConversion) {
      if (input.timebase.Observe(event, order)) {
        input.last_ns = input.clock.ToWall(input.timebase.ToNanoseconds(input.last_ticks));
        input.first_ns = input.clock.ToWall(input.timebase.ToNanoseconds(input.first_ticks));
        if (first_input_ == &input) first_ns_ = input.first_ns;
      }
    } else if (event.subhook == event::kUtilCpus && !event.generic && event.word_count >= 2) {
      total_cpus_ = static_cast<uint32_t>(event.words[0]);
      traced_cpus_ = static_cast<uint32_t>(event.words[1]);
    } else if (event.subhook == event::kUtilCpu && !event.generic && event.word_count >= 1) {
      cpus_.Move(input.thread_space, event.thread_id, static_cast<uint32_t>(event.words[0]));
    } else {
      if (event.subhook == event::kUtilSource && event.generic) {
        input.thread_space =
            (input.thread_space & ~uint64_t{0xFFFF'FFFF}) | (event.generic_word & 0xFFFF'FFFF);
      }
      processes_.Observe(event, order, sequence_);
    }
  } else if (event.hook_id == event::kHookHeader && event.generic && !input.start_seconds) {
    input.start_seconds = static_cast<int64_t>(event.generic_word);
  } else if (event.hook_id == event::kHookExec || event.hook_id == event::kHookFork ||
             event.hook_id == event::kHookDynamicTracepoint) {
    processes_.Observe(event, order, sequence_);
  } else if (event.hook_id == event::kHookDispatch && !event.generic && event.word_count >= 2) {
    // Words: the thread dispatched, its priority, ... (docs/session.md).
    uint32_t previous = 0;
    priorities_.Set(input.thread_space, event.words[0], static_cast<uint32_t>(event.words[1]),
                    previous);
  }
}

bool EventSource::Next(SourcedEvent& out) {
  Input* chosen = nullptr;
  for (auto& input : inputs_) {
    if (!Fill(*input)) continue;
    // Ties keep the order of the command line.
    if (chosen == nullptr || input->key_ns < chosen->key_ns) chosen = input.get();
  }
  if (chosen == nullptr) return false;
  Input& input = *chosen;
  const event::Event& event = input.pending;
  input.has_pending = false;
  ++sequence_;

  if (event.timestamped) {
    input.last_ns = input.key_ns;
    input.last_ticks = event.timestamp;
    input.have_time = true;
    if (!input.have_first) {
      input.have_first = true;
      input.first_ns = input.key_ns;
      input.first_ticks = event.timestamp;
    }
    if (!have_first_) {
      have_first_ = true;
      first_ns_ = input.key_ns;
      first_input_ = &input;
    }
  }
  Learn(input, event);

  out.event = &event;
  out.logfile = input.reader.name();
  out.byte_order = input.reader.byte_order();
  out.trace_layout = input.reader.layout();
  out.sequence = sequence_;
  out.timestamped = event.timestamped;
  uint64_t now_ns = input.have_time ? input.last_ns : first_ns_;
  out.elapsed_ns = have_first_ ? static_cast<int64_t>(now_ns - first_ns_) : 0;
  out.tid = event.thread_id;
  out.cpu = cpus_.CpuOf(input.thread_space, event.thread_id);
  out.priority = priorities_.Get(input.thread_space, event.thread_id);
  out.wall_seconds.reset();
  if (input.start_seconds) {
    int64_t since_start =
        input.have_first ? static_cast<int64_t>(input.last_ns - input.first_ns) : 0;
    out.wall_seconds = *input.start_seconds + since_start / 1'000'000'000;
  } else if (input.clock.anchor != event::WallClockAnchor::kNone) {
    // No header (POSIX streams, trace on --log, save files): the time itself is real time.
    out.wall_seconds = static_cast<int64_t>(now_ns / 1'000'000'000);
  }
  return true;
}

}  // namespace rastrace::report
