#include "query/loader.h"

#include <fcntl.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <chrono>
#include <cstring>

#include "event/format.h"
#include "event/s2.h"
#include "export/merged_stream.h"
#include "export/progress.h"
#include "export/template_text.h"
#include "query/fillers.h"
#include "query/text_rows.h"
#include "template/template.h"

namespace rastrace::query {

LoadInputs CommandInputs(std::vector<std::string> paths, std::vector<std::string> names,
                         const std::string& templates, bool no_text) {
  LoadInputs inputs;
  inputs.paths = std::move(paths);
  inputs.names = std::move(names);
  inputs.progress = true;
  if (!no_text) inputs.templates = templates.empty() ? exporter::DefaultTemplatePath() : templates;
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
  for (int fd : stdin_copies_) close(fd);
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

}  // namespace

Result<std::unique_ptr<Loader>> Loader::Create(Database& db, EventStore& store,
                                               RecordTables& tables, LoadInputs inputs,
                                               std::vector<std::string>& diagnostics) {
  std::unique_ptr<Loader> loader(new Loader(db, store, tables, std::move(inputs)));
  for (size_t i = 0; i < loader->inputs_.paths.size(); ++i) {
    std::string& path = loader->inputs_.paths[i];
    if (path != "-") continue;
    auto fd = CopyStandardInput();
    if (!fd) return fd.error();
    loader->stdin_copies_.push_back(*fd);
    loader->display_paths_.resize(loader->inputs_.paths.size());
    loader->display_paths_[i] = "-";
    if (loader->inputs_.names.size() <= i) loader->inputs_.names.resize(i + 1);
    if (loader->inputs_.names[i].empty()) loader->inputs_.names[i] = "-";
    path = fmt::format("/proc/self/fd/{}", *fd);
  }
  const std::string& path = loader->inputs_.templates;
  if (!path.empty()) {
    auto text = exporter::TemplateText::Load(path, diagnostics);
    if (!text) return text.error();
    loader->text_ = std::move(text).value();
    auto set = std::make_shared<tmpl::TemplateSet>();
    std::vector<tmpl::Diagnostic> ignored;  // the same file: TemplateText reported them
    if (auto added = set->AddFile(path, ignored); !added) return added.error();
    loader->schemas_.UseTemplates(std::move(set));
  }
  return loader;
}

std::vector<std::string> Loader::TakeTemplateWarnings() {
  return text_ ? text_->TakeWarnings() : std::vector<std::string>();
}

Result<PassSummary> Loader::Load(Parts wanted) {
  // Without templates there is no text to load.
  if (!text_) wanted.reset(static_cast<size_t>(Part::kEventText));
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
  if (has(Part::kEvents)) {
    std::vector<EventStore::Input> logs;
    for (size_t i = 0; i < stream->input_count(); ++i) {
      const event::LogReader& reader = stream->reader(i);
      logs.push_back({inputs_.paths[i], reader.layout(), reader.byte_order()});
    }
    if (auto set = store_.SetInputs(std::move(logs)); !set) return set.error();
    auto filler = MakeEventFiller(db_, store_, schemas_);
    if (!filler) return filler.error();
    fillers.push_back(std::move(filler).value());
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
    for (auto& filler : fillers) {
      if (auto added = filler->Add(row); !added) return added.error();
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
    warnings_ = stream->warnings();
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
