#include "export/chrome_exporter.h"

#include <fmt/format.h>

#include <iterator>

#include "event/format.h"
#include "event/s2.h"
#include "export/field_text.h"
#include "export/text_escape.h"

namespace rastrace::exporter {

namespace {

// Several sources share one JSON file: their ids are moved apart (source n: n * 10^7 + id), ids
// below 10^7 staying readable inside.
constexpr uint64_t kOriginIdStride = 10'000'000;

bool IsMetadataOnly(const event::Event& e) {
  const auto subhook = UtilitySubhook(e);
  if (!subhook) return false;
  switch (*subhook) {
    case event::kUtilTimeConversion:
    case event::kUtilProcess:
    case event::kUtilExec:
    case event::kUtilThreadName:
    case event::kUtilSource:
    case event::kUtilCpu:
    case event::kUtilTracepointDef:
    case event::kUtilRenumbered:
    case event::kUtilWallClock:
      return true;
    default:
      return false;
  }
}

void AppendMicroseconds(std::string& out, uint64_t ns) {
  const fmt::format_int micros(ns / 1000);
  out.append(micros.data(), micros.size());
  const unsigned fraction = static_cast<unsigned>(ns % 1000);
  out.push_back('.');
  out.push_back(static_cast<char>('0' + fraction / 100));
  out.push_back(static_cast<char>('0' + fraction / 10 % 10));
  out.push_back(static_cast<char>('0' + fraction % 10));
}

}  // namespace

ChromeExporter::ChromeExporter(OutputFile file, PairTable pairs, const MergedStream* stream,
                               const schema::Declarations* declarations)
    : file_(std::move(file)), pairs_(std::move(pairs)), stream_(stream) {
  file_.Write("{\"traceEvents\":[\n");
  if (declarations == nullptr) return;
  for (const auto& d : declarations->counters) {
    Counter c{d.name, {}, d.value};
    if (d.on.hook_id) {
      c.on.hook_id = *d.on.hook_id;
      c.on.subhook = d.on.subhook.value_or(0);
      c.on.subhook_mask = d.on.subhook ? 0xFFFF : 0;
      hooks_with_counters_[c.on.hook_id] = true;
    } else {
      c.on.schema = d.on.schema;
      schema_counters_ = true;
    }
    counters_.push_back(std::move(c));
  }
}

uint64_t ChromeExporter::MapId(size_t origin, uint64_t id) const {
  const size_t origins = stream_ != nullptr ? stream_->origins().size() : 1;
  if (origins <= 1 || id >= kOriginIdStride) return id;
  return (origin + 1) * kOriginIdStride + id;
}

void ChromeExporter::Flush() {
  file_.Write(line_);
  line_.clear();
}

void ChromeExporter::BeginEvent(char phase, std::string_view name, const Track& track,
                                uint64_t ts_ns) {
  line_.append(first_event_ ? "" : ",\n");
  first_event_ = false;
  line_.append("{\"ph\":\"");
  line_.push_back(phase);
  line_.push_back('"');
  if (!name.empty()) {
    line_.append(",\"name\":");
    AppendJsonString(line_, name);
  }
  if (phase != 'M') {
    line_.append(",\"ts\":");
    AppendMicroseconds(line_, ts_ns);
  }
  line_.append(",\"pid\":");
  const fmt::format_int pid(track.pid);
  line_.append(pid.data(), pid.size());
  line_.append(",\"tid\":");
  const fmt::format_int tid(track.tid);
  line_.append(tid.data(), tid.size());
}

void ChromeExporter::EmitMetadata(std::string_view what, uint64_t pid, uint64_t tid,
                                  std::string_view name) {
  BeginEvent('M', what, Track{pid, tid}, 0);
  line_.append(",\"args\":{\"name\":");
  AppendJsonString(line_, name);
  line_.append("}}");
}

void ChromeExporter::EmitNames(const ExportRecord& record, const Track& track) {
  const size_t origin = record.item->origin;
  if (seen_generation_.size() <= origin) seen_generation_.resize(origin + 1, UINT64_MAX);
  const uint64_t generation = record.processes != nullptr ? record.processes->generation() : 0;
  if (seen_generation_[origin] != generation) {
    // The table changed: every thread's names are checked again when it next shows up.
    seen_generation_[origin] = generation;
    seen_tids_.clear();
  }
  if (!seen_tids_.insert(track.tid).second) return;

  const bool several = stream_ != nullptr && stream_->origins().size() > 1;
  const auto named = [&](std::string_view name) -> std::string_view {
    if (!several) return name;
    name_scratch_ = fmt::format("{}: {}", record.origin_name, name);
    return name_scratch_;
  };
  if (!record.exec_path.empty()) {
    const std::string_view process = named(BaseName(record.exec_path));
    auto& emitted = process_names_[track.pid];
    if (emitted != process) {
      emitted = std::string(process);
      EmitMetadata("process_name", track.pid, 0, process);
    }
  }
  std::string_view thread = record.thread_name;
  // Linux names a process's main thread after the program.
  if (thread.empty() && record.pid && *record.pid == record.item->event->thread_id) {
    thread = BaseName(record.exec_path);
  }
  if (!thread.empty()) {
    auto& emitted = thread_names_[track.tid];
    if (emitted != thread) {
      emitted = std::string(thread);
      EmitMetadata("thread_name", track.pid, track.tid, thread);
    }
  }
}

void ChromeExporter::AppendArgs(const ExportRecord& record, std::string_view end_key) {
  const event::Event& e = *record.item->event;
  line_.append(",\"args\":{");
  if (!end_key.empty()) {
    AppendJsonString(line_, end_key);
    line_.append(":{");
  }
  line_.append("\"hook\":");
  line_.push_back('"');
  AppendTemplateId(line_, e.hook_id);
  line_.push_back('"');
  line_.append(",\"subhook\":\"");
  AppendHex4(line_, e.subhook);
  line_.append("\",\"offset\":");
  const fmt::format_int offset(e.offset);
  line_.append(offset.data(), offset.size());
  // The named fields of the event's schema (a raw schema holds the data words, or the data word
  // and the whole buffer: at most 65535 bytes, so a line stays bounded).
  if (record.schema != nullptr && AnyPresent(record.values)) {
    line_.append(",\"fields\":{");
    AppendJsonFields(line_, *record.schema, record.values, /*skip_absent=*/true);
    line_.push_back('}');
  }
  if (record.cpu) fmt::format_to(std::back_inserter(line_), ",\"cpu\":{}", *record.cpu);
  if (record.has_text) {
    line_.append(",\"text\":");
    AppendJsonString(line_, record.text);
  }
  line_.append(end_key.empty() ? "}" : "}}");
}

void ChromeExporter::EndSlice(const Track& track, uint64_t ts_ns, std::string_view reason) {
  BeginEvent('E', {}, track, ts_ns);
  line_.append(",\"args\":{\"unterminated\":");
  AppendJsonString(line_, reason);
  line_.append("}}");
}

void ChromeExporter::BeginSlice(const ExportRecord& record, const Track& track, uint64_t ts_ns,
                                std::string_view name, OpenSlice slice) {
  BeginEvent('B', name, track, ts_ns);
  line_.append(",\"cat\":\"slice\"");
  AppendArgs(record, {});
  line_.push_back('}');
  open_[track].push_back(slice);
}

bool ChromeExporter::CloseSlice(const ExportRecord& record, const Track& track, uint64_t ts_ns,
                                OpenSlice slice) {
  const auto it = open_.find(track);
  if (it == open_.end()) return false;
  auto& stack = it->second;
  size_t match = stack.size();
  while (match > 0 && !(stack[match - 1] == slice)) --match;
  if (match == 0) return false;
  // Slices opened above the one this event closes never saw their end (events lost): they end
  // here too, so slices stay nested.
  while (stack.size() > match) {
    EndSlice(track, ts_ns, "ended by the end of an enclosing slice");
    stack.pop_back();
  }
  BeginEvent('E', {}, track, ts_ns);
  AppendArgs(record, "end");
  line_.push_back('}');
  stack.pop_back();
  return true;
}

void ChromeExporter::Instant(const ExportRecord& record, const Track& track, uint64_t ts_ns,
                             std::string_view name) {
  BeginEvent('i', name, track, ts_ns);
  line_.append(",\"s\":\"t\",\"cat\":\"hook\"");
  AppendArgs(record, {});
  line_.push_back('}');
}

uint64_t ChromeExporter::ProcedureKey(std::string_view name) {
  const auto [it, added] = procedure_keys_.try_emplace(std::string(name), procedure_keys_.size());
  return it->second;
}

Result<void> ChromeExporter::Write(const ExportRecord& record) {
  const event::Event& e = *record.item->event;
  const size_t origin = record.item->origin;
  if (!have_base_ && e.timestamped) {
    have_base_ = true;
    base_ns_ = record.item->time_ns;
  }
  uint64_t ts = have_base_ && record.item->time_ns > base_ns_ ? record.item->time_ns - base_ns_ : 0;
  ts = std::max(ts, last_ts_ns_);
  last_ts_ns_ = ts;

  const uint64_t pid = record.pid.value_or(e.thread_id);
  Track track{MapId(origin, pid), MapId(origin, e.thread_id)};
  EmitNames(record, track);
  if (tracepoints_.size() <= origin) tracepoints_.resize(origin + 1);
  if (IsMetadataOnly(e)) {
    tracepoints_[origin].Observe(e, record.item->byte_order);
    Flush();
    return Ok();
  }

  // A dynamic tracepoint the log defined (00A/109): an entry opens a slice named after its
  // procedure on the hitting thread, the next return of that procedure there closes it; other
  // hits are instants named after the procedure.
  if (const TracepointDef* def = tracepoints_[origin].FindHit(e)) {
    const OpenSlice slice{kTracepointRule, ProcedureKey(def->name)};
    if (def->kind == TracepointKind::kEntry) {
      BeginSlice(record, track, ts, def->name, slice);
    } else if (def->kind != TracepointKind::kReturn || !CloseSlice(record, track, ts, slice)) {
      Instant(record, track, ts, def->name);
    }
    Flush();
    return Ok();
  }

  // Every event is named by its schema (src/schema): the template's label, the POSIX event type,
  // the tracepoint's DESC, the system call.
  const std::string_view name = record.schema->name;
  if (!counters_.empty()) Counters(record, track, ts);

  const auto role = pairs_.Find(e, record.schema, record.values);
  if (role) {
    const PairRule& rule = pairs_.rule(role->rule);
    if (rule.scope == PairScope::kGlobal) {
      track = Track{kGlobalPid - origin, role->key + 1};
      if (global_tracks_.insert(track).second) {
        const bool several = stream_ != nullptr && stream_->origins().size() > 1;
        EmitMetadata("process_name", track.pid, 0,
                     several ? fmt::format("{}: {}", record.origin_name, rule.name) : rule.name);
        EmitMetadata("thread_name", track.pid, track.tid,
                     fmt::format("{} {}", rule.name, role->key));
      }
    }
    const OpenSlice slice{role->rule, role->key};
    if (role->begins) {
      // The rule names the slice ("tracing" from TRACE ON to TRACE OFF); the begin event's own
      // label stays in its args' text.
      std::string_view slice_name = rule.name;
      if (rule.name_in_buffer && e.generic) {
        const auto named = event::ReadS2(e.buffer, *rule.name_in_buffer, record.item->byte_order);
        if (named && !named->empty()) slice_name = *named;
      }
      if (!rule.title_field.empty()) {
        const auto& fields = record.schema->fields;
        for (size_t i = 0; i < fields.size() && i < record.values.size(); ++i) {
          if (fields[i].name == rule.title_field && record.values[i].present &&
              fields[i].type == schema::FieldType::kString && !record.values[i].text.empty()) {
            slice_name = record.values[i].text;
          }
        }
      }
      BeginSlice(record, track, ts, slice_name, slice);
      Flush();
      return Ok();
    }
    if (CloseSlice(record, track, ts, slice)) {
      Flush();
      return Ok();
    }
    // An end without its begin (the begin was before the trace started): an instant.
  }
  Instant(record, track, ts, name);
  Flush();
  return Ok();
}

void ChromeExporter::Counters(const ExportRecord& record, const Track& track, uint64_t ts_ns) {
  const event::Event& e = *record.item->event;
  if (!hooks_with_counters_[e.hook_id] && !schema_counters_) return;
  for (const Counter& c : counters_) {
    if (!c.on.Matches(e, record.schema)) continue;
    const auto& fields = record.schema->fields;
    for (size_t i = 0; i < fields.size() && i < record.values.size(); ++i) {
      const schema::Field& f = fields[i];
      if (f.name != c.field || !record.values[i].present || f.type == schema::FieldType::kString ||
          f.type == schema::FieldType::kBytes) {
        continue;
      }
      // A counter track per process: Perfetto draws it under the process.
      BeginEvent('C', c.name, Track{track.pid, 0}, ts_ns);
      line_.append(",\"args\":{");
      AppendJsonString(line_, c.name);
      line_.push_back(':');
      if (f.type == schema::FieldType::kFloat) {
        AppendJsonValue(line_, f, record.values[i]);
      } else if (f.type == schema::FieldType::kSigned) {
        fmt::format_to(std::back_inserter(line_), "{}", record.values[i].as_signed());
      } else {
        fmt::format_to(std::back_inserter(line_), "{}", record.values[i].integer);
      }
      line_.append("}}");
    }
  }
}

Result<void> ChromeExporter::Finish() {
  // Slices still open at the end close at the last timestamp, marked, so the JSON nests.
  for (auto& [track, stack] : open_) {
    while (!stack.empty()) {
      EndSlice(track, last_ts_ns_, "open at the end of the trace");
      stack.pop_back();
    }
  }
  line_.append(
      "\n],\n\"displayTimeUnit\":\"ns\",\n\"otherData\":{\"producer\":\"rastrace export\"");
  fmt::format_to(std::back_inserter(line_), ",\"time_base_ns\":\"{}\"", base_ns_);
  if (stream_ != nullptr) {
    line_.append(",\"sources\":[");
    bool first = true;
    for (const Origin& origin : stream_->origins()) {
      if (!first) line_.push_back(',');
      first = false;
      AppendJsonString(line_, origin.name);
    }
    line_.push_back(']');
  }
  line_.append("}}\n");
  Flush();
  return file_.Close();
}

}  // namespace rastrace::exporter
