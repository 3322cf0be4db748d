// tracefmt: formats a TRACEFMT save file (an STDA snapshot) with trace format files.
// Exit status: 0 when the buffer was read to a normal end, 2 when corruption was reported, 1 when
// the save file could not be read or a format file is broken.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <tuple>

#include "filters.h"
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
  app.add_option("savefile", save_path, "the unformatted save file")->required();
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
    return app.exit(e) == 0 ? 0 : 1;
  }

  rastrace::tracefmt::Filters filters;
  for (auto [list, out, max, what] : {std::tuple{&majors, &filters.majors, 0xFFu, "major"},
                                      std::tuple{&minors, &filters.minors, 0xFFFFu, "minor"},
                                      std::tuple{&pids, &filters.pids, 0xFFFFFFFFu, "pid"}}) {
    auto parsed = rastrace::tracefmt::ParseNumberList(*list, max, what);
    if (!parsed) {
      fmt::print(stderr, "tracefmt: {}\n", parsed.error().message);
      return 1;
    }
    *out = std::move(parsed.value());
  }

  std::ifstream in(save_path, std::ios::binary);
  if (!in) {
    fmt::print(stderr, "tracefmt: {}: cannot open the save file\n", save_path);
    return 1;
  }
  const std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)),
                                   std::istreambuf_iterator<char>());
  const rastrace::stda::SaveFile save = rastrace::stda::ReadSaveFile(bytes);
  const auto& c = save.contents;
  for (const auto& p : c.problems) {
    fmt::print(stderr, "tracefmt: {}: offset {:#x} ({}): {}\n", save_path, p.offset, p.offset,
               p.message);
  }

  std::string out;
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
  size_t shown = 0, formatted = 0;
  std::map<uint8_t, size_t> by_major;
  for (size_t i = 0; i < c.records.size(); ++i) {
    const auto& r = c.records[i];
    if (!filters.Accepts(r)) continue;
    ++shown;
    ++by_major[r.major];
    const rastrace::tsf::FormatFile* file = library.Find(r.major);
    const rastrace::tsf::TracepointFormat* entry = file ? file->Find(r.minor) : nullptr;
    formatted += rastrace::stda::AppendRecordText(i + 1, r, c.format, entry, out) ? 1 : 0;
  }
  if (!no_summary) {
    out += fmt::format(
        "\nSummary: {} record{} in the buffer, {} shown ({} formatted, {} in "
        "hex), {} filtered out\n",
        c.records.size(), c.records.size() == 1 ? "" : "s", shown, formatted, shown - formatted,
        c.records.size() - shown);
    for (const auto& [major, count] : by_major) {
      out += fmt::format("  major {:#04x}: {} record{}\n", major, count, count == 1 ? "" : "s");
    }
    if (c.corrupt()) {
      out +=
          fmt::format("Corruption: {} problem{}; the records that could be read are shown above\n",
                      c.problems.size(), c.problems.size() == 1 ? "" : "s");
      for (const auto& p : c.problems) {
        out += fmt::format("  offset {:#x} ({}): {}\n", p.offset, p.offset, p.message);
      }
    }
  }
  fmt::print("{}", out);
  for (const std::string& e : library.errors()) fmt::print(stderr, "tracefmt: {}\n", e);
  if (c.corrupt()) return 2;
  return library.errors().empty() ? 0 : 1;
}
