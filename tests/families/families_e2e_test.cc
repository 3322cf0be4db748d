// End to end, with the real trcrpt and rastrace commands: one report and every export over the
// three families at once (issue 21) -- a recorder log (TSC ticks, placed in real time by its
// 00A/10B wall clock), a POSIX trace log and a dynamic tracepoint log (CLOCK_REALTIME ticks), and
// an OS/2 STDA save file (local times of day) -- and what exports reject (issue 19 point 10).
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>

#include "event/encode.h"
#include "event/format.h"
#include "event/log_builder.h"
#include "event/temp_dir.h"
#include "export/test_json.h"
#include "export/trace_event_check.h"
#include "posix/log_format.h"
#include "schema/syscalls.h"
#include "stda/stda.h"

namespace rastrace {
namespace {

using event::testing::LogBuilder;
using event::testing::TempDir;
using exporter::testing::CheckTraceEvents;
using exporter::testing::Json;
using exporter::testing::ParseJson;
using exporter::testing::ReadFile;

// 2026-11-21 07:30:00 UTC: every event below happens a few milliseconds after it.
constexpr uint64_t kWallSeconds = 1795246200;
constexpr uint64_t kWallNs = kWallSeconds * 1'000'000'000ULL;
constexpr uint64_t kMs = 1'000'000;

struct CommandRun {
  int status = -1;
  std::string out;
  std::string err;
};

bool ValidUtf8(std::string_view s) {
  for (size_t i = 0; i < s.size();) {
    const auto c = static_cast<uint8_t>(s[i]);
    size_t n = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
    if (n == 0 || i + n > s.size()) return false;
    for (size_t k = 1; k < n; ++k) {
      if ((static_cast<uint8_t>(s[i + k]) & 0xC0) != 0x80) return false;
    }
    i += n;
  }
  return true;
}

class Families : public ::testing::Test {
 protected:
  void SetUp() override {
    const char* bin = std::getenv("RASTRACE_BIN");
    if (bin == nullptr) GTEST_SKIP() << "RASTRACE_BIN is not set (run through ctest)";
    bin_ = bin;
    for (const char* tool : {"rastrace", "trcrpt"}) {
      if (!std::filesystem::exists(bin_ + "/" + tool)) GTEST_SKIP() << tool << " was not built";
    }
    WriteLogs();
  }

  CommandRun Run(const std::string& tool, const std::string& args) {
    CommandRun run;
    const std::string out = dir_.File("cmd.out");
    const std::string err = dir_.File("cmd.err");
    const std::string command =
        fmt::format("cd '{}' && '{}/{}' {} >'{}' 2>'{}'", dir_.path(), bin_, tool, args, out, err);
    const int raw = std::system(command.c_str());
    run.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
    run.out = ReadFile(out);
    run.err = ReadFile(err);
    return run;
  }

  static bool HaveBabeltrace() { return std::system("babeltrace2 --version >/dev/null 2>&1") == 0; }

  // babeltrace2 with dates, on a CTF export of `inputs`.
  CommandRun Babeltrace(const std::string& inputs, const std::string& name) {
    const auto exported =
        Run("rastrace", fmt::format("export -f ctf -t formats --tracefs '{}' {} -o {}",
                                    TracefsDir(), inputs, name));
    EXPECT_EQ(exported.status, 0) << exported.err;
    CommandRun run;
    const std::string command =
        fmt::format("babeltrace2 --clock-date --clock-gmt '{}' >'{}' 2>'{}'", dir_.File(name),
                    dir_.File("bt.out"), dir_.File("bt.err"));
    const int raw = std::system(command.c_str());
    run.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
    run.out = ReadFile(dir_.File("bt.out"));
    run.err = ReadFile(dir_.File("bt.err"));
    return run;
  }

  static std::string TracefsDir() {
    return std::string(RASTRACE_SOURCE_DIR) + "/tests/golden/schema/tracefs";
  }

  // aix.trc: the recorder's log of a program: ticks at 2 per ns from boot, an 00A/10B saying
  // where they stand in real time; its example hooks, a DISPATCH, and a system call as a session
  // writes one (101 with six arguments and the name, 104 with the return value).
  void WriteAixLog() {
    const auto t = [](uint64_t ns) { return static_cast<int64_t>(2 * (1'000'000'000 + ns)); };
    LogBuilder log;
    log.Hook(event::kHookTraceOn, 0, {0}, 4242, t(0))
        .Header(kWallSeconds, "Linux", "node1", "6.1", "#1", "x86_64", "app", t(0))
        .TimeConversion(1, 2, 2, t(0))
        .Hook(event::kHookUtil, event::kUtilWallClock, {kWallNs}, 4242, t(0))
        .Process(4242, 1, 4242, "/usr/bin/app", t(0))
        .Hook(0x0110, 0, {1}, 4242, t(1 * kMs))
        .Hook(event::kHookDispatch, 0, {77, 120, 4242, 'R', 1}, 4242, t(4 * kMs));
    std::vector<uint8_t> args;
    for (uint64_t a : {static_cast<uint64_t>(-100), uint64_t{0x7ffd1000}, uint64_t{0}, uint64_t{0},
                       uint64_t{0}, uint64_t{0}}) {
      const auto w = log.Word64(a);
      args.insert(args.end(), w.begin(), w.end());
    }
    const auto name = log.S2("openat");
    args.insert(args.end(), name.begin(), name.end());
    log.Generic(event::kHookSystemCall, 0, 257, args, 4242, t(6 * kMs))
        .Generic(event::kHookSyscallReturn, 0, 3, log.S2("openat"), 4242, t(7 * kMs))
        .Hook(event::kHookTraceOff, 0, {0}, 4242, t(8 * kMs));
    ASSERT_TRUE(log.WriteTo(dir_.File("aix.trc")).ok());
  }

  // posix.trc: a POSIX trace log as posix_trace_create_withlog writes it (CLOCK_REALTIME).
  void WritePosixLog() {
    std::vector<uint8_t> bytes;
    event::EncodeMagic(event::Layout::k64, ByteOrder::kLittle, bytes);
    posix::EncodeTimeIsNanoseconds(ByteOrder::kLittle, bytes);
    posix::EncodeProcess(5151, 5151, "/usr/bin/server", ByteOrder::kLittle, bytes);
    uint16_t id = 8;
    for (const auto& [name, at] : std::vector<std::pair<std::string, uint64_t>>{
             {"request start", 2 * kMs}, {"queue depth", 2 * kMs + 500'000}, {"request end", 5 * kMs}}) {
      posix::EventRecord r;
      r.event_id = id++;
      r.pid = 5151;
      r.kernel_tid = 5151;
      r.thread = 0x7f00;
      r.prog_address = 0x401000;
      r.realtime_ns = kWallNs + at;
      r.data = {3, 0, 0, 0};
      posix::EncodePosixEvent(r, name, ByteOrder::kLittle, bytes);
    }
    std::ofstream(dir_.File("posix.trc"), std::ios::binary)
        .write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  }

  // dyn.trc: what `trace on --log` writes: ticks are CLOCK_REALTIME ns, a definition, a hit.
  void WriteDyntraceLog() {
    LogBuilder log;
    std::string data("\x2c\x4b\x00\x00", 4);
    data += std::string("\x00\x0d\x00", 3) + "C:\\CONFIG.SYS";
    log.TimeConversion(1, 1, 0)
        .TracepointDef(0x64, 1, 1, "DosOpen")
        .TracepointHit(0x64, 1, 77, 77, static_cast<int64_t>(kWallNs + 3 * kMs), data);
    ASSERT_TRUE(log.WriteTo(dir_.File("dyn.trc")).ok());
  }

  // save.sav: an STDA snapshot saved at 07:31 UTC holding one record stamped 07:30:00.01.
  void WriteSaveFile() {
    auto buffer = stda::TraceBuffer::Create(stda::Format::kNew, 4096);
    ASSERT_TRUE(buffer.ok());
    const uint8_t data[] = {0x05, 0x00};
    stda::RecordSpec r;
    r.major = 0x65;
    r.minor = 1;
    r.pid = 88;
    r.time = stda::Timestamp{7, 30, 0, 1};
    r.data = data;
    ASSERT_TRUE(buffer->Write(r).ok());
    stda::DateTime saved;
    saved.hours = 7;
    saved.minutes = 31;
    saved.day = 21;
    saved.month = 11;
    saved.year = 2026;
    saved.timezone = 0;
    const auto file = stda::MakeSaveFile(buffer->Snapshot(), saved);
    std::ofstream(dir_.File("save.sav"), std::ios::binary)
        .write(reinterpret_cast<const char*>(file.data()), static_cast<std::streamsize>(file.size()));
  }

  void WriteLogs() {
    WriteAixLog();
    WritePosixLog();
    WriteDyntraceLog();
    WriteSaveFile();
    std::filesystem::create_directories(dir_.File("formats"));
    std::ofstream(dir_.File("formats/TRC0064.TFF"))
        << "RASTRACE-TFF 1\nmajor 0x0064\n"
           "tracepoint 0x0001 \"(OS) DosOpen    Pre-Invocation\"\n"
           "fmt \"            EAX = %D\"\n"
           "fmt \"            FileName = %P%S\"\n"
           "end\n";
    std::ofstream(dir_.File("formats/trc0065.tff"))
        << "RASTRACE-TFF 1\nmajor 0x0065\n"
           "tracepoint 0x0001 \"Saved handle\"\n"
           "fmt \"  Handle = %W\"\n"
           "end\n";
  }

  std::string bin_;
  TempDir dir_;
};

size_t At(const std::string& text, std::string_view what) {
  const size_t at = text.find(what);
  EXPECT_NE(at, std::string::npos) << "no '" << what << "' in:\n" << text;
  return at;
}

TEST_F(Families, OneReportInterleavesAllThreeFamiliesInTime) {
  const auto run =
      Run("trcrpt", "-t formats -O pid=on aix.trc posix.trc dyn.trc save.sav");
  ASSERT_EQ(run.status, 0) << run.err;
  const std::string& report = run.out;
  // 1 ms AIX hook, 2 ms POSIX, 3 ms dynamic tracepoint, 4 ms DISPATCH, 5 ms POSIX, 6-7 ms the
  // system call, 10 ms the saved OS/2 record: one time line whatever clock each log used.
  const size_t loop = At(report, "LOOP ITERATION 1");
  const size_t start = At(report, "request start pid");
  const size_t dosopen = At(report, "(OS) DosOpen    Pre-Invocation");
  const size_t dispatch = At(report, "DISPATCH tid= 77");
  const size_t end = At(report, "request end pid");
  const size_t syscall = At(report, "SYSTEM CALL openat");
  const size_t saved = At(report, "Saved handle");
  EXPECT_LT(loop, start);
  EXPECT_LT(start, dosopen);
  EXPECT_LT(dosopen, dispatch);
  EXPECT_LT(dispatch, end);
  EXPECT_LT(end, syscall);
  EXPECT_LT(syscall, saved);
  // The tracepoints formatted with their format files, line by line as tracefmt does.
  EXPECT_NE(report.find("FileName = C:\\CONFIG.SYS"), std::string::npos) << report;
  EXPECT_NE(report.find("Handle = 0005"), std::string::npos) << report;
  // Elapsed time is real time: the saved record 10 ms after the first hook at 1 ms... from 0.
  EXPECT_NE(report.find("0.010000000"), std::string::npos) << report;
}

TEST_F(Families, ASaveFileIsAnInputOfExportAndMerge) {
  const auto merged = Run("rastrace", "merge save.sav aix.trc -o merged.trc");
  ASSERT_EQ(merged.status, 0) << merged.err;
  const auto report = Run("trcrpt", "-t formats merged.trc");
  ASSERT_EQ(report.status, 0) << report.err;
  EXPECT_LT(At(report.out, "DISPATCH"), At(report.out, "Saved handle"));
  const auto jsonl = Run("rastrace", "export -f jsonl -t formats save.sav -o -");
  ASSERT_EQ(jsonl.status, 0) << jsonl.err;
  std::istringstream lines(jsonl.out);
  std::string line;
  while (std::getline(lines, line) && line.find("\"hook\":\"00C0\"") == std::string::npos) {
  }
  ASSERT_FALSE(line.empty()) << jsonl.out;
  const Json row = ParseJson(line);
  EXPECT_EQ(row["event"].str(), "saved_handle");
  EXPECT_EQ(row["fields"]["handle"].str(), "0x0005");
  EXPECT_EQ(row["time_ns"].u64(), kWallNs + 10 * kMs);
  EXPECT_EQ(row["text"].str(), "Saved handle\n  Handle = 0005");
}

TEST_F(Families, Babeltrace2ShowsNamedFieldsAndRealDatesForEachFamily) {
  if (!HaveBabeltrace()) GTEST_SKIP() << "babeltrace2 is not installed (scripts/deps.sh)";
  const auto aix = Babeltrace("aix.trc", "ctf_aix");
  ASSERT_EQ(aix.status, 0) << aix.err;
  EXPECT_EQ(aix.err, "");
  EXPECT_NE(aix.out.find("[2026-11-21 07:30:00.004000000]"), std::string::npos) << aix.out;
  EXPECT_NE(aix.out.find("dispatch: "), std::string::npos) << aix.out;
  EXPECT_NE(aix.out.find("{ tid = 77, priority = 120, old_tid = 4242, old_state = \"R\", cpuid = 1 }"),
            std::string::npos)
      << aix.out;
  EXPECT_NE(aix.out.find("syscall_entry_openat: "), std::string::npos) << aix.out;
  if (schema::SyscallFormats::Available()) {  // built with the session part's tracefs parser
    EXPECT_NE(aix.out.find("{ nr = 257, dfd = -100, filename = 0x7FFD1000, flags = 0, mode = 0 }"),
              std::string::npos)
        << aix.out;
  } else {
    EXPECT_NE(aix.out.find("{ nr = 257, arg1 = 0xFFFFFFFFFFFFFF9C, arg2 = 0x7FFD1000"),
              std::string::npos)
        << aix.out;
  }
  EXPECT_NE(aix.out.find("syscall_exit_openat: "), std::string::npos) << aix.out;
  EXPECT_NE(aix.out.find("{ ret = 3 }"), std::string::npos) << aix.out;

  const auto posix = Babeltrace("posix.trc", "ctf_posix");
  ASSERT_EQ(posix.status, 0) << posix.err;
  EXPECT_NE(posix.out.find("[2026-11-21 07:30:00.002000000]"), std::string::npos) << posix.out;
  EXPECT_NE(posix.out.find("request_start: "), std::string::npos) << posix.out;
  EXPECT_NE(posix.out.find("{ pid = 5151, thread = 0x7F00, prog_address = 0x401000"),
            std::string::npos)
      << posix.out;

  const auto os2 = Babeltrace("dyn.trc save.sav", "ctf_os2");
  ASSERT_EQ(os2.status, 0) << os2.err;
  EXPECT_NE(os2.out.find("[2026-11-21 07:30:00.003000000]"), std::string::npos) << os2.out;
  EXPECT_NE(os2.out.find("os_dosopen_pre_invocation: "), std::string::npos) << os2.out;
  EXPECT_NE(os2.out.find("{ eax = 0x4B2C, filename = \"C:\\\\CONFIG.SYS\" }"), std::string::npos)
      << os2.out;
  EXPECT_NE(os2.out.find("[2026-11-21 07:30:00.010000000]"), std::string::npos) << os2.out;
  EXPECT_NE(os2.out.find("saved_handle: "), std::string::npos) << os2.out;
}

TEST_F(Families, ChromeSlicesAndCountersAreDeclaredWithoutCode) {
  // The slice and the counter on the command line; the system call slices come from the pair
  // table, TRACE ON/OFF too.
  const auto run = Run("rastrace",
                       "export -f chrome -t formats --slice 'request begin=request_start "
                       "end=request_end' --counter 'depth on=queue_depth value=truncation' "
                       "aix.trc posix.trc dyn.trc save.sav -o trace.json");
  ASSERT_EQ(run.status, 0) << run.err;
  const Json doc = ParseJson(ReadFile(dir_.File("trace.json")));
  EXPECT_GE(CheckTraceEvents(doc), 3);
  std::map<std::string, int> seen;  // "ph name"
  for (const Json& e : doc["traceEvents"].array()) {
    if (e["ph"].str() == "M" || e["ph"].str() == "E") continue;
    ++seen[e["ph"].str() + " " + e["name"].str()];
  }
  EXPECT_EQ(seen["B request"], 1);
  EXPECT_EQ(seen["B openat"], 1);
  EXPECT_EQ(seen["B tracing"], 1);
  EXPECT_EQ(seen["C depth"], 1);
  EXPECT_EQ(seen["i dispatch"], 1);
  EXPECT_EQ(seen["i queue_depth"], 1);
  // A tracepoint the log defines (00A/109, entry of DosOpen) opens a slice named after its
  // procedure; one without a definition is an instant named by its schema.
  EXPECT_EQ(seen["B DosOpen"], 1);
  EXPECT_EQ(seen["i saved_handle"], 1);
  EXPECT_EQ(seen["i hook 011"], 0);  // no event is named by its hook any more

  // The same pair from a template file's #@slice declaration.
  std::ofstream(dir_.File("mine.trcfmt"))
      << ReadFile(std::string(RASTRACE_SOURCE_DIR) + "/templates/trcfmt")
      << "#@slice request begin=request_start end=request_end\n";
  const auto declared =
      Run("rastrace", "export -f chrome -t mine.trcfmt posix.trc -o declared.json");
  ASSERT_EQ(declared.status, 0) << declared.err;
  const Json doc2 = ParseJson(ReadFile(dir_.File("declared.json")));
  int requests = 0;
  for (const Json& e : doc2["traceEvents"].array()) {
    if (e["ph"].str() == "B" && e["name"].str() == "request") ++requests;
  }
  EXPECT_EQ(requests, 1);
}

TEST_F(Families, JsonLinesAndCsvCarryTheSameNamedFields) {
  const auto jsonl = Run("rastrace", "export -f jsonl aix.trc -o out.jsonl");
  ASSERT_EQ(jsonl.status, 0) << jsonl.err;
  std::istringstream lines(ReadFile(dir_.File("out.jsonl")));
  bool found = false;
  for (std::string line; std::getline(lines, line);) {
    const Json row = ParseJson(line);
    if (row["event"].str() != "dispatch") continue;
    found = true;
    EXPECT_EQ(row["fields"]["tid"].u64(), 77u);
    EXPECT_EQ(row["fields"]["old_state"].str(), "R");
  }
  EXPECT_TRUE(found);
  const auto csv = Run("rastrace", "export -f csv aix.trc -o out.csv");
  ASSERT_EQ(csv.status, 0) << csv.err;
  const std::string table = ReadFile(dir_.File("out.dispatch.csv"));
  EXPECT_EQ(table.substr(0, table.find('\n')), "seq,time_ns,tid,priority,old_tid,old_state,cpuid");
  EXPECT_NE(table.find(fmt::format(",{},77,120,4242,R,1\n", kWallNs + 4 * kMs)), std::string::npos)
      << table;
  EXPECT_NE(ReadFile(dir_.File("out.csv")).find(",dispatch,"), std::string::npos);
  // An existing table is kept without --force.
  const auto again = Run("rastrace", "export -f csv aix.trc -o other.csv");
  ASSERT_EQ(again.status, 0) << again.err;
  std::filesystem::remove(dir_.File("other.csv"));
  const auto refused = Run("rastrace", "export -f csv aix.trc -o other.csv");
  EXPECT_EQ(refused.status, 1);
  EXPECT_NE(refused.err.find("other.trace_on.csv: exists (the table of schema trace_on)"),
            std::string::npos)
      << refused.err;
}

// Issue 19 point 10: exports and merges reject what trcrpt rejects.
TEST_F(Families, ExportAndMergeRejectAMalformed00BEventAsTrcrptDoes) {
  LogBuilder log(event::Layout::k32);
  log.Hook(0x0110, 0, {1}, 7, 10);
  const size_t offset = log.bytes().size();
  log.Generic(event::kHook64On32, 0, 0x80000028, std::string_view("\x01\x02", 2), 7, 20);
  log.Hook(0x0110, 0, {2}, 7, 30);
  ASSERT_TRUE(log.WriteTo(dir_.File("bad00b.trc")).ok());
  const std::string where = fmt::format("offset {:#x}", offset);
  const auto report = Run("trcrpt", "bad00b.trc");
  EXPECT_EQ(report.status, 1);
  EXPECT_NE(report.err.find(where), std::string::npos) << report.err;
  for (const char* format : {"jsonl", "csv", "chrome", "ctf"}) {
    SCOPED_TRACE(format);
    const auto run = Run("rastrace", fmt::format("export -f {} bad00b.trc -o out_{}", format, format));
    EXPECT_EQ(run.status, 1) << run.err;
    EXPECT_NE(run.err.find(where), std::string::npos) << run.err;
  }
  const auto merged = Run("rastrace", "merge bad00b.trc -o merged00b.trc");
  EXPECT_EQ(merged.status, 1);
  EXPECT_NE(merged.err.find(where), std::string::npos) << merged.err;
  // Everything before the bad event was exported.
  const auto jsonl = Run("rastrace", "export -f jsonl --force bad00b.trc -o -");
  EXPECT_EQ(std::count(jsonl.out.begin(), jsonl.out.end(), '\n'), 1);
}

TEST_F(Families, TemplateErrorsAndUnusableTemplatePathsFailTheExport) {
  std::ofstream(dir_.File("broken.trcfmt")) << "011 1.0 \"LOOP\" W1 U8\n012 1.0 \"BAD\" {{ $x = }}\n";
  const auto run = Run("rastrace", "export -f jsonl -t broken.trcfmt aix.trc -o out.jsonl");
  EXPECT_EQ(run.status, 1);
  EXPECT_NE(run.err.find("broken.trcfmt:2:"), std::string::npos) << run.err;
  EXPECT_TRUE(std::filesystem::exists(dir_.File("out.jsonl")));  // still exported
  std::filesystem::create_directories(dir_.File("empty"));
  for (const char* tool : {"trcrpt", "rastrace"}) {
    const auto dir = Run(tool, std::string(tool) == "trcrpt" ? "-t empty aix.trc"
                                                            : "export -f jsonl -t empty aix.trc -o -");
    EXPECT_EQ(dir.status, 1) << tool;
    EXPECT_NE(dir.err.find("empty: a directory, but it holds no format file"), std::string::npos)
        << dir.err;
  }
  std::ofstream(dir_.File("baddecl.trcfmt"))
      << ReadFile(std::string(RASTRACE_SOURCE_DIR) + "/templates/trcfmt") << "#@slice x begin=101\n";
  const auto decl = Run("rastrace", "export -f jsonl -t baddecl.trcfmt aix.trc -o -");
  EXPECT_EQ(decl.status, 1);
  EXPECT_NE(decl.err.find("a slice needs end="), std::string::npos) << decl.err;
  const auto option = Run("rastrace", "export -f chrome --slice 'x begin=zz!' aix.trc -o -");
  EXPECT_EQ(option.status, 1);
  EXPECT_NE(option.err.find("--slice 'x begin=zz!'"), std::string::npos) << option.err;
}

TEST_F(Families, CsvIsValidUtf8AsJsonIs) {
  LogBuilder log;
  log.Process(9, 1, 9, std::string_view("/bin/\xff\xfe" "bad\0nul", 14))
      .ThreadName(9, "caf\xc3\xa9 \x80", 5)
      .Hook(0x0110, 0, {1}, 9, 10);
  ASSERT_TRUE(log.WriteTo(dir_.File("utf8.trc")).ok());
  const auto run = Run("rastrace", "export -f csv utf8.trc -o utf8.csv");
  ASSERT_EQ(run.status, 0) << run.err;
  const std::string csv = ReadFile(dir_.File("utf8.csv"));
  EXPECT_TRUE(ValidUtf8(csv)) << csv;
  EXPECT_EQ(csv.find('\0'), std::string::npos);
  EXPECT_NE(csv.find("caf\xc3\xa9 \xef\xbf\xbd"), std::string::npos) << csv;
  for (const auto& entry : std::filesystem::directory_iterator(dir_.path())) {
    const std::string name = entry.path().filename().string();
    if (name.starts_with("utf8.") && name.ends_with(".csv")) {
      EXPECT_TRUE(ValidUtf8(ReadFile(entry.path().string()))) << name;
    }
  }
}

}  // namespace
}  // namespace rastrace
