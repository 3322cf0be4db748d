#include "report/event_source.h"

#include <sys/stat.h>

#include "event/format.h"

namespace rastrace::report {

struct EventSource::Input {
  explicit Input(event::LogReader r) : reader(std::move(r)) {}
  event::LogReader reader;
  event::Event pending;
  bool has_pending = false;
  bool ended = false;
  event::TimeBase timebase;
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
};

EventSource::~EventSource() = default;

namespace {

// rastrace writes the time conversion right after the header, so the header's own timestamp would
// otherwise be converted differently from every later one. Looking a few events ahead for it
// keeps elapsed times and the merge order consistent from the first event.
event::TimeConversion EarlyTimeConversion(const std::string& path) {
  event::TimeBase timebase;
  auto reader = event::LogReader::Open(path, event::ReaderOptions{.reformat = false});
  if (!reader) return timebase.conversion();
  event::Event e;
  for (int i = 0; i < 64 && reader->Next(e) == event::ReadStatus::kEvent; ++i) {
    if (timebase.Observe(e, reader->byte_order())) break;
  }
  return timebase.conversion();
}

}  // namespace

Result<std::unique_ptr<EventSource>> EventSource::Open(const std::vector<std::string>& paths,
                                                       std::FILE* verbose, bool reformat) {
  std::unique_ptr<EventSource> source(new EventSource());
  for (const std::string& path : paths) {
    if (verbose != nullptr) std::fprintf(verbose, "trcrpt: reading %s\n", path.c_str());
    auto reader = event::LogReader::Open(path, event::ReaderOptions{.reformat = reformat});
    if (!reader) return reader.error();
    struct stat st {};
    if (path != "-" && ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode)) {
      source->total_bytes_ += static_cast<uint64_t>(st.st_size);
    }
    source->inputs_.push_back(std::make_unique<Input>(std::move(reader).value()));
    if (path != "-") source->inputs_.back()->timebase.Set(EarlyTimeConversion(path));
  }
  return source;
}

uint64_t EventSource::bytes_read() const {
  uint64_t total = 0;
  for (const auto& input : inputs_) total += input->reader.offset();
  return total;
}

bool EventSource::Fill(Input& input) {
  if (input.has_pending) return true;
  if (input.ended) return false;
  switch (input.reader.Next(input.pending)) {
    case event::ReadStatus::kEvent:
      input.has_pending = true;
      input.key_ns = input.pending.timestamped
                         ? input.timebase.ToNanoseconds(input.pending.timestamp)
                         : input.last_ns;
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

void EventSource::Learn(Input& input, const event::Event& event) {
  ByteOrder order = input.reader.byte_order();
  if (event.hook_id == event::kHookUtil) {
    if (event.subhook == event::kUtilTimeConversion) {
      if (input.timebase.Observe(event, order)) {
        input.last_ns = input.timebase.ToNanoseconds(input.last_ticks);
        input.first_ns = input.timebase.ToNanoseconds(input.first_ticks);
        if (first_input_ == &input) first_ns_ = input.first_ns;
      }
    } else if (event.subhook == event::kUtilCpus && !event.generic && event.word_count >= 2) {
      total_cpus_ = static_cast<uint32_t>(event.words[0]);
      traced_cpus_ = static_cast<uint32_t>(event.words[1]);
    } else {
      processes_.Observe(event, order, sequence_);
    }
  } else if (event.hook_id == event::kHookHeader && event.generic && !input.start_seconds) {
    input.start_seconds = static_cast<int64_t>(event.generic_word);
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
  out.wall_seconds.reset();
  if (input.start_seconds) {
    int64_t since_start =
        input.have_first ? static_cast<int64_t>(input.last_ns - input.first_ns) : 0;
    out.wall_seconds = *input.start_seconds + since_start / 1'000'000'000;
  }
  return true;
}

}  // namespace rastrace::report
