// tracefmt: formats a TRACEFMT save file (an STDA snapshot), or the tracepoint hits of a rastrace
// log (hook 00C), with trace format files.
// Exit status: 0 when the buffer was read to a normal end, 2 when corruption was reported (or the
// command line is wrong), 1 when the save file could not be read, a format file is broken or the
// output could not be written.
#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <map>
#include <optional>
#include <tuple>

#include "common/output_file.h"
#include "common/usage_exit.h"
#include "filters.h"
#include "log_input.h"
#include "stda/report.h"
#include "stda/stda.h"

namespace {

using rastrace::stda::Format;

std::string SavedText(const rastrace::stda::DateTime& d) {
  return fmt::format("{:04}-{:02}-{:02} {:02}:{:02}:{:02}.{:02}", d.year, d.month, d.day, d.hours,
                     d.minutes, d.seconds, d.hundredths);
}

std::string StampText(const rastrace::stda::Stamp& s) {
  return fmt::format("{:04}-{:02}-{:02} {:02}:{:02}:{:02}.{:02}", s.year, s.month, s.day, s.hour,
                     s.minute, s.second, s.hundredths);
}

// The largest save file: its header and an STDA, whose 2-byte offsets address at most 64 KiB.
constexpr size_t kMaxSaveFileBytes = rastrace::stda::kSaveHeaderSize + 0x10000;

// What tracefmt prints goes out in pieces of about this size, so a log of any size is formatted
// in bounded memory.
constexpr size_t kFlushBytes = size_t{1} << 20;

class Output {
 public:
  std::string& text() { return text_; }
  void MaybeFlush() {
    if (text_.size() >= kFlushBytes) Flush();
  }
  void Flush() {
    if (!text_.empty()) std::fwrite(text_.data(), 1, text_.size(), stdout);
    text_.clear();
  }
  // 1 (with a message) when anything could not be written, else `status`.
  int Finish(int status) {
    Flush();
    if (auto finished = rastrace::FinishOutput(stdout); !finished) {
      fmt::print(stderr, "tracefmt: {}\n", finished.error().message);
      return 1;
    }
    return status;
  }

 private:
  std::string text_;
};

// The records that pass the filters, then the summary: the same for a save file and a log.
struct Shown {
  size_t shown = 0, formatted = 0;
  std::map<uint16_t, size_t> by_major;
  uint64_t lost = 0;        // hits the tracer could not record (lost-hits records, 006 events)
  size_t lost_records = 0;  // lost-hits records: not counted as records
};

void AppendRecord(size_t sequence, const rastrace::stda::Record& r, Format format,
                  const rastrace::tracefmt::Filters& filters,
                  rastrace::stda::FormatLibrary& library, Shown& s, std::string& out) {
  if (r.lost_hits()) {
    s.lost += r.lost_count();
    ++s.lost_records;
    return;
  }
  if (!filters.Accepts(r)) return;
  ++s.shown;
  ++s.by_major[r.major];
  const rastrace::tsf::FormatFile* file = library.Find(r.major);
  const rastrace::tsf::TracepointFormat* entry = file ? file->Find(r.minor) : nullptr;
  s.formatted += rastrace::stda::AppendRecordText(sequence, r, format, entry, out) ? 1 : 0;
}

void AppendSummary(const Shown& s, size_t total, std::string_view where, std::string& out) {
  total -= std::min(total, s.lost_records);
  out += fmt::format(
      "\nSummary: {} record{} in the {}, {} shown ({} formatted, {} in "
      "hex), {} filtered out\n",
      total, total == 1 ? "" : "s", where, s.shown, s.formatted, s.shown - s.formatted,
      total - s.shown);
  for (const auto& [major, count] : s.by_major) {
    out += fmt::format("  major {:#04x}: {} record{}\n", major, count, count == 1 ? "" : "s");
  }
  if (s.lost != 0) {
    out += fmt::format("  lost: {} hit{} the tracer could not record (its buffer was full)\n",
                       s.lost, s.lost == 1 ? "" : "s");
  }
}

// A rastrace log: its 00C events (tracepoint hits of majors up to 0xFFFF) formatted like STDA
// records with their timestamps. Exit status as for a save file. The log is read twice, streaming:
// once for the counts of the heading, once to format.
int FormatLog(const std::string& path, const std::string& tff_dir,
              const rastrace::tracefmt::Filters& filters, bool no_summary) {
  const rastrace::tracefmt::LogRecords counted = rastrace::tracefmt::ReadLogRecords(path);
  for (const auto& p : counted.problems) fmt::print(stderr, "tracefmt: {}\n", p.message);
  Output output;
  std::string& out = output.text();
  out += fmt::format("Log file {}: rastrace trace log, {} events, {} tracepoint hits\n", path,
                     counted.events, counted.records);
  rastrace::stda::FormatLibrary library(tff_dir);
  Shown s;
  size_t sequence = 0;
  rastrace::tracefmt::ReadLogRecords(path, [&](const rastrace::stda::Record& r) {
    AppendRecord(++sequence, r, Format::kNew, filters, library, s, out);
    output.MaybeFlush();
  });
  s.lost += counted.lost;
  if (!no_summary) {
    AppendSummary(s, counted.records, "log", out);
    for (const auto& p : counted.problems) out += fmt::format("Corruption: {}\n", p.message);
  }
  int status = library.errors().empty() ? 0 : 1;
  if (!counted.problems.empty()) status = counted.events == 0 ? 1 : 2;
  status = output.Finish(status);
  for (const std::string& e : library.errors()) fmt::print(stderr, "tracefmt: {}\n", e);
  return status;
}

// The first kMaxSaveFileBytes bytes of the input, and whether it holds more (how much, for a
// regular file). A directory, or an input that cannot be read, is an error.
struct SaveInput {
  std::vector<uint8_t> bytes;
  bool more = false;
  std::optional<uint64_t> file_bytes;  // a regular file's size
};

rastrace::Result<SaveInput> ReadSaveInput(const std::string& path) {
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    return rastrace::MakeError("{}: cannot open the save file: {}", path, std::strerror(errno));
  }
  struct Closer {
    int fd;
    ~Closer() { close(fd); }
  } closer{fd};
  struct stat st {};
  if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
    return rastrace::MakeError("{}: is a directory, not a save file", path);
  }
  SaveInput in;
  if (S_ISREG(st.st_mode)) in.file_bytes = static_cast<uint64_t>(st.st_size);
  in.bytes.resize(kMaxSaveFileBytes + 1);
  size_t got = 0;
  while (got < in.bytes.size()) {
    const ssize_t n = read(fd, in.bytes.data() + got, in.bytes.size() - got);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return rastrace::MakeError("{}: read error: {}", path, std::strerror(errno));
    if (n == 0) break;
    got += static_cast<size_t>(n);
  }
  in.more = got > kMaxSaveFileBytes;
  in.bytes.resize(std::min(got, kMaxSaveFileBytes));
  return in;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{
      "tracefmt: format a TRACEFMT save file (OS/2 STDA snapshot) with the trace format "
      "files TRCxxxx.TFF of a directory"};
  std::string tff_dir = ".";
  std::string save_path;
  std::vector<std::string> majors, minors, pids;
  bool no_summary = false;
  app.add_option("-t,--tff-dir", tff_dir, "directory of the TRCxxxx.TFF format files")
      ->check(CLI::ExistingDirectory);
  app.add_option("savefile", save_path,
                 "the unformatted save file, or a rastrace log holding tracepoint hits (hook 00C)")
      ->required();
  app.add_option("-M,--major", majors, "show only these majors (decimal or 0x hex)")
      ->delimiter(',')
      ->allow_extra_args(false);
  app.add_option("-m,--minor", minors, "show only these minors")
      ->delimiter(',')
      ->allow_extra_args(false);
  app.add_option("-p,--pid", pids, "show only records of these process ids")
      ->delimiter(',')
      ->allow_extra_args(false);
  app.add_flag("--no-summary", no_summary, "leave out the summary at the end");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return rastrace::UsageExit(app, e);
  }

  rastrace::tracefmt::Filters filters;
  for (auto [list, out, max, what] : {std::tuple{&majors, &filters.majors, 0xFFFFu, "major"},
                                      std::tuple{&minors, &filters.minors, 0xFFFFu, "minor"},
                                      std::tuple{&pids, &filters.pids, 0xFFFFFFFFu, "pid"}}) {
    auto parsed = rastrace::tracefmt::ParseNumberList(*list, max, what);
    if (!parsed) {
      fmt::print(stderr, "tracefmt: {}\n", parsed.error().message);
      return 2;
    }
    *out = std::move(parsed.value());
  }

  auto input = ReadSaveInput(save_path);
  if (!input) {
    fmt::print(stderr, "tracefmt: {}\n", input.error().message);
    return 1;
  }
  if (rastrace::tracefmt::IsRastraceLog(input->bytes)) {
    return FormatLog(save_path, tff_dir, filters, no_summary);
  }
  rastrace::stda::SaveFile save = rastrace::stda::ReadSaveFile(input->bytes);
  auto& c = save.contents;
  if (input->more) {
    // Past an STDA's 64 KiB there is nothing a save file can hold: only the first part is read.
    c.problems.insert(
        c.problems.begin(),
        {kMaxSaveFileBytes,
         fmt::format("{} larger than any save file ({} bytes: the header and a 64 KiB STDA); "
                     "only its first {} bytes are read",
                     input->file_bytes ? fmt::format("the file is {} bytes,", *input->file_bytes)
                                       : std::string("the input is"),
                     kMaxSaveFileBytes, kMaxSaveFileBytes)});
  }
  for (const auto& p : c.problems) {
    fmt::print(stderr, "tracefmt: {}: offset {:#x} ({}): {}\n", save_path, p.offset, p.offset,
               p.message);
  }

  Output output;
  std::string& out = output.text();
  out += fmt::format(
      "Save file {}: saved {}, {} STDA of {} bytes (FIRST {:#06x} LAST {:#06x} "
      "NEXT {:#06x})\n",
      save_path, SavedText(save.saved), c.format == Format::kGa ? "GA format" : "new format",
      save.stda_length, c.first, c.last, c.next);
  if (c.trace_on && c.trace_on->year != 0) {
    out += fmt::format("Trace on {}", StampText(*c.trace_on));
    if (c.trace_off && c.trace_off->year != 0) {
      out += fmt::format(", trace off {}", StampText(*c.trace_off));
    }
    out += '\n';
  }

  rastrace::stda::FormatLibrary library(tff_dir);
  Shown shown;
  for (size_t i = 0; i < c.records.size(); ++i) {
    AppendRecord(i + 1, c.records[i], c.format, filters, library, shown, out);
  }
  if (!no_summary) {
    AppendSummary(shown, c.records.size(), "buffer", out);
    if (c.corrupt()) {
      out +=
          fmt::format("Corruption: {} problem{}; the records that could be read are shown above\n",
                      c.problems.size(), c.problems.size() == 1 ? "" : "s");
      for (const auto& p : c.problems) {
        out += fmt::format("  offset {:#x} ({}): {}\n", p.offset, p.offset, p.message);
      }
    }
  }
  int status = c.corrupt() ? 2 : library.errors().empty() ? 0 : 1;
  status = output.Finish(status);
  for (const std::string& e : library.errors()) fmt::print(stderr, "tracefmt: {}\n", e);
  return status;
}
