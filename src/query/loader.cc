#include "query/loader.h"

#include <fcntl.h>
#include <unistd.h>

#include <array>
#include <bit>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <optional>

#include "event/format.h"
#include "event/s2.h"
#include "export/merged_stream.h"
#include "export/progress.h"
#include "export/template_text.h"
#include "query/fillers.h"
#include "query/text_rows.h"
#include "schema/descriptions.h"
#include "stda/trace_input.h"
#include "template/template.h"

namespace rastrace::query {

LoadInputs CommandInputs(std::vector<std::string> paths, std::vector<std::string> names,
                         std::vector<std::string> templates, bool no_text) {
  LoadInputs inputs;
  inputs.paths = std::move(paths);
  inputs.names = std::move(names);
  inputs.progress = true;
  inputs.templates = std::move(templates);
  inputs.default_templates = exporter::DefaultTemplatePath();
  inputs.default_format_dirs = {"."};  // as tracefmt, trcrpt and `rastrace export`
  inputs.tracefs_events = schema::SyscallFormats::DefaultEventsDir();
  inputs.text = !no_text;
  return inputs;
}

namespace {

// What a source's trace header (003) says: the wall-clock start in seconds (its data word) and
// six S2 strings (uname's five fields and the command line).
struct Header {
  bool seen = false;
  uint64_t start_seconds = 0;
  int64_t ts = 0;  // the header event's time, which the start second belongs to
  std::array<std::string, 6> strings;
};

void ReadHeader(const event::Event& e, ByteOrder order, int64_t ts, Header& out) {
  out.seen = true;
  out.start_seconds = e.generic_word;
  out.ts = ts;
  size_t at = 0;
  for (std::string& s : out.strings) {
    const auto text = event::ReadS2(e.buffer, at, order);
    const auto end = event::S2End(e.buffer, at, order);
    if (!text || !end) break;
    s = std::string(*text);
    at = *end;
  }
}

// A SQLite transaction that rolls back unless committed (a failed pass leaves no half tables).
class Transaction {
 public:
  explicit Transaction(Database& db) : db_(db) {}
  Result<void> Begin() {
    auto begun = db_.Exec("BEGIN");
    open_ = begun.ok();
    return begun;
  }
  Result<void> Commit() {
    open_ = false;
    return db_.Exec("COMMIT");
  }
  ~Transaction() {
    if (open_) (void)db_.Exec("ROLLBACK");
  }

 private:
  Database& db_;
  bool open_ = false;
};

}  // namespace

Loader::Loader(Database& db, EventStore& store, RecordTables& tables, LoadInputs inputs)
    : db_(db), store_(store), tables_(tables), inputs_(std::move(inputs)) {}

Loader::~Loader() {
  for (int fd : temporary_logs_) close(fd);
}

namespace {

// Standard input, copied to a temporary file that later passes (and the event store) read again.
Result<int> CopyStandardInput() {
  auto fd = CreateTemporaryFile();
  if (!fd) return fd.error();
  std::vector<char> buffer(1 << 20);
  for (;;) {
    const ssize_t n = read(STDIN_FILENO, buffer.data(), buffer.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      close(*fd);
      return MakeError("-: read error: {}", std::strerror(errno));
    }
    if (n == 0) break;
    for (ssize_t done = 0; done < n;) {
      const ssize_t w = write(*fd, buffer.data() + done, static_cast<size_t>(n - done));
      if (w < 0) {
        if (errno == EINTR) continue;
        close(*fd);
        return MakeError("copying standard input to a temporary file: {}", std::strerror(errno));
      }
      done += w;
    }
  }
  return *fd;
}

// A save file's log, written to a temporary file that the passes (and the event store) read.
Result<int> WriteTemporaryLog(std::span<const uint8_t> bytes) {
  auto fd = CreateTemporaryFile();
  if (!fd) return fd.error();
  for (size_t done = 0; done < bytes.size();) {
    const ssize_t w = write(*fd, bytes.data() + done, bytes.size() - done);
    if (w < 0) {
      if (errno == EINTR) continue;
      close(*fd);
      return MakeError("writing a save file's log to a temporary file: {}", std::strerror(errno));
    }
    done += static_cast<size_t>(w);
  }
  return *fd;
}

}  // namespace

Result<std::unique_ptr<Loader>> Loader::Create(Database& db, EventStore& store,
                                               RecordTables& tables, LoadInputs inputs,
                                               std::vector<std::string>& diagnostics) {
  std::unique_ptr<Loader> loader(new Loader(db, store, tables, std::move(inputs)));
  LoadInputs& in = loader->inputs_;
  in.names.resize(in.paths.size());
  loader->display_paths_.resize(in.paths.size());
  for (size_t i = 0; i < in.paths.size(); ++i) {
    std::string& path = in.paths[i];
    Result<int> fd = -1;
    if (path == "-") {
      fd = CopyStandardInput();
    } else {
      // A TRACEFMT save file is read as the log of its records (stda::OpenTraceInput), which
      // the event store must find again by offset: it goes to a temporary file.
      auto save = stda::ReadSaveFileLog(path);
      if (!save) return save.error();
      if (!*save) continue;
      for (auto& problem : (*save)->problems) {
        loader->save_file_problems_.push_back(Error{std::move(problem)});
      }
      fd = WriteTemporaryLog((*save)->bytes);
    }
    if (!fd) return fd.error();
    loader->temporary_logs_.push_back(*fd);
    loader->display_paths_[i] = path;
    if (in.names[i].empty()) in.names[i] = path;
    path = fmt::format("/proc/self/fd/{}", *fd);
  }
  schema::DescriptionPaths paths;
  paths.given = in.templates;
  paths.default_template_file = in.default_templates;
  paths.default_format_dirs = in.default_format_dirs;
  paths.tracefs_events = in.tracefs_events;
  schema::DescriptionProblems problems;
  auto descriptions = schema::LoadDescriptions(paths, problems);
  if (!descriptions) return descriptions.error();
  for (auto& message : problems.messages) diagnostics.push_back(std::move(message));
  loader->descriptions_ = std::move(descriptions).value();
  schema::Descriptions& d = *loader->descriptions_;
  if (in.text && !d.template_files.empty()) {
    loader->text_ = exporter::TemplateText::Create(d.templates, &d.tracepoints);
  }
  loader->decoder_ = std::make_unique<schema::Decoder>(d.sources());
  auto typed = TypedTables::Register(db, store, *loader->decoder_);
  if (!typed) return typed.error();
  loader->typed_ = std::move(typed).value();
  return loader;
}

std::vector<std::string> Loader::TakeTemplateWarnings() {
  return text_ ? text_->TakeWarnings() : std::vector<std::string>();
}

Result<PassSummary> Loader::Load(Parts wanted) {
  // Without templates there is no text to load.
  if (!text_) wanted.reset(static_cast<size_t>(Part::kEventText));
  // Names are the events' own.
  if (wanted.test(static_cast<size_t>(Part::kSchemaNames)))
    wanted.set(static_cast<size_t>(Part::kEvents));
  const Parts missing = wanted & ~loaded_;
  if (missing.none() && sources_loaded_) return PassSummary{};
  return Pass(missing);
}

Result<PassSummary> Loader::Pass(Parts parts) {
  const auto started = std::chrono::steady_clock::now();
  auto stream = exporter::MergedStream::Open(inputs_.paths);
  if (!stream) return stream.error();
  for (size_t i = 0; i < inputs_.names.size() && i < inputs_.paths.size(); ++i) {
    if (!inputs_.names[i].empty()) stream->SetInputName(i, inputs_.names[i]);
  }

  auto has = [&](Part p) { return parts.test(static_cast<size_t>(p)); };
  std::vector<std::unique_ptr<Filler>> fillers;
  Transaction transaction(db_);
  if (auto begun = transaction.Begin(); !begun) return begun.error();
  // Naming events costs a third of their load: only when a statement reads their schemas.
  std::optional<SchemaNames> names;
  if (has(Part::kSchemaNames)) {
    auto made = SchemaNames::Create(db_, *decoder_, *typed_);
    if (!made) return made.error();
    names.emplace(std::move(made).value());
  }
  if (has(Part::kEvents)) {
    std::vector<EventStore::Input> logs;
    for (size_t i = 0; i < stream->input_count(); ++i) {
      const event::LogReader& reader = stream->reader(i);
      logs.push_back({inputs_.paths[i], reader.layout(), reader.byte_order()});
    }
    if (auto set = store_.SetInputs(std::move(logs)); !set) return set.error();
    fillers.push_back(MakeEventFiller(store_, names ? &*names : nullptr));
  }
  // Every filler numbers events the same way (from 1, in this order), so parts loaded in
  // different passes agree.
  if (has(Part::kEventText) && text_) {
    fillers.push_back(MakeTextFiller(tables_.text(), *text_, *stream));
  }
  if (has(Part::kProcesses)) {
    fillers.push_back(MakeProcessFiller(tables_.Get("processes"), tables_.Get("threads")));
  }
  if (has(Part::kSyscalls)) fillers.push_back(MakeSyscallFiller(tables_.Get("syscalls")));
  if (has(Part::kSched)) fillers.push_back(MakeSchedFiller(tables_.Get("sched")));
  if (has(Part::kSlices)) {
    fillers.push_back(MakeSliceFiller(tables_.Get("slices"), exporter::PairTable::Default()));
  }
  if (has(Part::kTracepointHits)) {
    fillers.push_back(MakeTracepointHitFiller(tables_.Get("tracepoint_hits")));
  }
  if (has(Part::kLosses)) fillers.push_back(MakeLossFiller(tables_.Get("losses")));

  // By hook id: the fillers whose Add sees its events (bit f: fillers[f]); most fillers want a
  // hook or two, and a call they would return from at once costs as much as the work of some.
  constexpr uint32_t kNotAsked = UINT32_MAX;
  static_assert(kPartCount + 1 < 32);
  std::vector<uint32_t> wanted_by_hook(65536, kNotAsked);
  std::optional<exporter::Progress> progress;
  if (inputs_.progress)
    progress.emplace(exporter::Progress::ForStderr("sql", stream->total_bytes()));
  std::vector<OriginState> origins;
  std::vector<Header> headers;
  exporter::SourceEvent item;
  LoadedEvent row;
  row.item = &item;
  bool have_start = false;
  uint64_t start_ns = 0;
  int64_t last_ts = 0;
  int64_t id = 0;
  while (stream->Next(item) == event::ReadStatus::kEvent) {
    const event::Event& e = *item.event;
    if (origins.size() <= item.origin) {
      origins.resize(stream->origins().size());
      headers.resize(stream->origins().size());
    }
    OriginState& origin = origins[item.origin];
    const ByteOrder order = item.byte_order;
    if (origin.processes.Observe(e, order)) origin.last.valid = false;
    if (e.hook_id == event::kHookUtil) {
      const auto subhook = exporter::UtilitySubhook(e);
      if (subhook == event::kUtilCpu && !e.generic && e.word_count >= 1) {
        if (origin.cpus.size() < kMaxThreads || origin.cpus.contains(e.thread_id)) {
          origin.cpus[e.thread_id] = static_cast<uint32_t>(e.words[0]);
          origin.last.valid = false;
        }
      } else if (subhook == event::kUtilTracepointDef) {
        origin.tracepoints.Observe(e, order);
      }
    }
    if (!have_start && e.timestamped) {
      have_start = true;
      start_ns = item.time_ns;
    }
    row.event = &e;
    row.id = ++id;
    row.ts = have_start ? static_cast<int64_t>(item.time_ns - start_ns) : 0;
    row.source = item.origin;
    row.origin = &origin;
    if (!origin.last.valid || origin.last.tid != e.thread_id) {
      origin.last.valid = true;
      origin.last.tid = e.thread_id;
      origin.last.pid = origin.processes.PidOf(e.thread_id);
      const auto cpu = origin.cpus.find(e.thread_id);
      origin.last.cpu =
          cpu == origin.cpus.end() ? std::nullopt : std::optional<uint32_t>(cpu->second);
    }
    row.pid = origin.last.pid;
    row.cpu = origin.last.cpu;
    if (e.hook_id == event::kHookHeader && e.generic && !headers[item.origin].seen) {
      ReadHeader(e, order, row.ts, headers[item.origin]);
    }
    ++origin.events;
    last_ts = row.ts;
    // The fillers that want this hook: a bit each, worked out the first time the hook shows.
    uint32_t& wanted = wanted_by_hook[e.hook_id];
    if (wanted == kNotAsked) {
      wanted = 0;
      for (size_t f = 0; f < fillers.size(); ++f) {
        if (fillers[f]->Wants(e.hook_id)) wanted |= 1u << f;
      }
    }
    for (uint32_t bits = wanted; bits != 0; bits &= bits - 1) {
      if (auto added = fillers[static_cast<size_t>(std::countr_zero(bits))]->Add(row); !added) {
        return added.error();
      }
    }
    if (progress) progress->Update(stream->bytes_read(), static_cast<uint64_t>(id));
  }
  for (auto& filler : fillers) {
    if (auto finished = filler->Finish(last_ts); !finished) return finished.error();
  }
  if (has(Part::kEvents)) {
    std::vector<size_t> source_inputs;
    for (const auto& origin : stream->origins()) source_inputs.push_back(origin.input);
    if (auto finished = store_.Finish(std::move(source_inputs)); !finished) {
      return finished.error();
    }
  } else if (names) {
    // The events were loaded unnamed by an earlier pass.
    if (auto named = names->NameStored(store_); !named) return named.error();
  }
  if (names) {
    if (auto created = typed_->CreateNew(db_); !created) return created.error();
  }

  if (!sources_loaded_) {
    origins.resize(stream->origins().size());
    headers.resize(stream->origins().size());
    auto insert =
        db_.Prepare("INSERT INTO sources VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
    if (!insert) return insert.error();
    for (size_t o = 0; o < stream->origins().size(); ++o) {
      const exporter::Origin& origin = stream->origins()[o];
      const event::LogReader& reader = stream->reader(origin.input);
      const Header& header = headers[o];
      Statement& s = *insert;
      s.BindInt(1, static_cast<int64_t>(o));
      s.BindText(2, origin.name);
      s.BindText(3, origin.input < display_paths_.size() && !display_paths_[origin.input].empty()
                        ? std::string_view(display_paths_[origin.input])
                        : std::string_view(reader.name()));
      for (int i = 0; i < 6; ++i) {
        if (header.seen) {
          s.BindText(4 + i, header.strings[static_cast<size_t>(i == 0 ? 1 : i == 1 ? 0 : i)]);
        } else {
          s.BindNull(4 + i);
        }
      }
      if (header.seen) {
        const int64_t start_wall = AsSql(header.start_seconds * 1'000'000'000);
        s.BindInt(10, start_wall);
        s.BindInt(11, start_wall - header.ts);
      } else {
        s.BindNull(10);
        s.BindNull(11);
      }
      s.BindText(12, reader.byte_order() == ByteOrder::kBig ? "big" : "little");
      s.BindInt(13, reader.layout() == event::Layout::k64 ? 64 : 32);
      s.BindInt(14, AsSql(origins[o].events));
      const Error& error = reader.error();
      if (error.message.empty()) {
        s.BindNull(15);
        s.BindNull(16);
      } else {
        s.BindInt(15, AsSql(reader.offset()));
        s.BindText(16, error.message);
      }
      if (auto done = s.Run(); !done) return done.error();
    }
    warnings_ = save_file_problems_;
    for (const Error& warning : stream->warnings()) warnings_.push_back(warning);
    sources_loaded_ = true;
  }
  if (auto committed = transaction.Commit(); !committed) return committed.error();
  loaded_ |= parts;
  PassSummary summary;
  summary.events = static_cast<uint64_t>(id);
  summary.seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  return summary;
}

}  // namespace rastrace::query
