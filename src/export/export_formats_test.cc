// Chrome JSON, JSON Lines and CSV: golden files, the Trace Event format's rules, and a round trip
// of every field against the reader's view of the log.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <sstream>
#include <thread>

#include "event/format.h"
#include "event/log_builder.h"
#include "event/reader.h"
#include "event/temp_dir.h"
#include "event/timebase.h"
#include "export/chrome_exporter.h"
#include "export/export_run.h"
#include "export/exporter.h"
#include "export/table_exporters.h"
#include "export/template_text.h"
#include "export/test_json.h"
#include "export/trace_event_check.h"

namespace rastrace::exporter {
namespace {

using event::testing::LogBuilder;
using event::testing::TempDir;
using testing::CheckTraceEvents;
using testing::Json;
using testing::ParseJson;
using testing::ReadFile;

constexpr uint16_t kSyscallEntry = 0x1010;   // AIX 101
constexpr uint16_t kSyscallReturn = 0x1040;  // AIX 104

// A small program's life: process table, TRACE ON/OFF, nested and broken system call pairs, a
// generic buffer with bytes JSON must escape, an exec, an event without a timestamp.
LogBuilder SampleLog() {
  LogBuilder log(event::Layout::k64, ByteOrder::kLittle);  // golden bytes the same on every host
  log.TimeConversion(1, 1)
      .Process(100, 1, 100, "/usr/bin/app")
      .Process(100, 1, 101, "/usr/bin/app")
      .ThreadName(101, "worker")
      .Cpu(100, 3, 1'000'000)
      .Hook(event::kHookTraceOn, 0, {0}, 100, 1'000'000)
      .Hook(kSyscallEntry, 0, {3}, 100, 1'000'500)
      .Hook(0x1230, 0x0007, {0x1111, 0xFFFFFFFFFFFFFFFF}, 100, 1'001'000)
      .Hook(kSyscallReturn, 0, {0}, 100, 1'002'000)
      .Hook(kSyscallReturn, 0, {0}, 101, 1'002'100)  // its entry was before the trace
      .Generic(0x4560, 0x0001, 0xABCD, std::string("q\"\\\n\x01\xff", 6), 101, 1'003'000)
      .Hook(0x0150, 0, {}, 101, /*timestamp=*/-1)
      .Exec(100, "/usr/bin/app2")
      .Hook(kSyscallEntry, 0, {4}, 100, 1'004'000)  // never returns
      .Hook(event::kHookTraceOff, 0, {0}, 100, 1'005'000);
  return log;
}

std::string Export(Format format, const std::vector<std::string>& logs, const std::string& out,
                   const std::vector<std::string>& names = {}) {
  auto stream = MergedStream::Open(logs);
  EXPECT_TRUE(stream.ok()) << stream.error().message;
  for (size_t i = 0; i < names.size(); ++i) stream->SetInputName(i, names[i]);
  auto exporter = CreateExporter(format, out, {.stream = &stream.value()});
  EXPECT_TRUE(exporter.ok()) << exporter.error().message;
  auto summary = RunExport(*stream, **exporter, nullptr);
  EXPECT_TRUE(summary.ok()) << summary.error().message;
  return ReadFile(out);
}

// Compares with tests/golden/export/<name>; RASTRACE_UPDATE_GOLDEN=1 rewrites the file instead.
void ExpectGolden(const std::string& actual, const std::string& name) {
  const std::string path = std::string(RASTRACE_SOURCE_DIR) + "/tests/golden/export/" + name;
  if (const char* update = std::getenv("RASTRACE_UPDATE_GOLDEN"); update && *update == '1') {
    std::filesystem::create_directories(std::filesystem::path(path).parent_path());
    std::ofstream(path, std::ios::binary) << actual;
    return;
  }
  EXPECT_EQ(actual, ReadFile(path)) << "differs from " << path;
}

TEST(ExportChrome, SampleMatchesGoldenAndFollowsTheTraceEventFormat) {
  TempDir dir;
  EXPECT_TRUE(SampleLog().WriteTo(dir.File("a.trc")).ok());
  const std::string json =
      Export(Format::kChrome, {dir.File("a.trc")}, dir.File("a.json"), {"sample"});
  ExpectGolden(json, "sample.chrome.json");
  const Json doc = ParseJson(json);
  EXPECT_EQ(CheckTraceEvents(doc), 3);  // tracing, two system calls
  EXPECT_EQ(doc["displayTimeUnit"].str(), "ns");
  EXPECT_EQ(doc["otherData"]["time_base_ns"].str(), "1000000");

  std::vector<std::string> names;
  int instants = 0;
  for (const Json& e : doc["traceEvents"].array()) {
    if (e["ph"].str() == "M") names.push_back(e["args"]["name"].str());
    if (e["ph"].str() == "i") ++instants;
  }
  // Process and thread names from the table; the exec renames the process.
  EXPECT_EQ(names, (std::vector<std::string>{"app", "app", "tracing", "tracing 0", "worker", "app2",
                                             "app2"}));
  // 123, the unmatched return, 456, 015.
  EXPECT_EQ(instants, 4);
}

TEST(ExportChrome, SlicesPairOnTheirThreadAndTimesAreMicroseconds) {
  TempDir dir;
  EXPECT_TRUE(SampleLog().WriteTo(dir.File("a.trc")).ok());
  const Json doc =
      ParseJson(Export(Format::kChrome, {dir.File("a.trc")}, dir.File("a.json"), {"sample"}));
  const Json* begin = nullptr;
  const Json* end = nullptr;
  for (const Json& e : doc["traceEvents"].array()) {
    if (e["ph"].str() == "B" && e["name"].str() == "system call" && begin == nullptr) begin = &e;
    if (e["ph"].str() == "E" && begin != nullptr && end == nullptr &&
        e["tid"].u64() == (*begin)["tid"].u64()) {
      end = &e;
    }
  }
  ASSERT_NE(begin, nullptr);
  ASSERT_NE(end, nullptr);
  EXPECT_EQ((*begin)["ts"].number_text, "0.500");
  EXPECT_EQ((*end)["ts"].number_text, "2.000");
  EXPECT_EQ((*begin)["pid"].u64(), 100u);
  EXPECT_EQ((*end)["args"]["end"]["hook"].str(), "104");
}

// System-wide sessions write 101 as a generic event whose buffer ends in the call's name.
TEST(ExportChrome, SystemCallSlicesAreNamedAfterTheCall) {
  TempDir dir;
  std::string entry(48, '\0');
  entry += std::string("\x04\x00read", 6);
  LogBuilder log(event::Layout::k64, ByteOrder::kLittle);
  log.Generic(kSyscallEntry, 0, 0, entry, 7, 100)
      .Generic(kSyscallReturn, 0, 3, std::string("\x04\x00read", 6), 7, 200);
  EXPECT_TRUE(log.WriteTo(dir.File("s.trc")).ok());
  const Json doc = ParseJson(Export(Format::kChrome, {dir.File("s.trc")}, dir.File("s.json")));
  EXPECT_EQ(CheckTraceEvents(doc), 1);
  bool found = false;
  for (const Json& e : doc["traceEvents"].array()) {
    if (e["ph"].str() == "B") {
      EXPECT_EQ(e["name"].str(), "read");
      found = true;
    }
  }
  EXPECT_TRUE(found);
}

TEST(ExportChrome, SeveralSourcesGetSeparateProcesses) {
  TempDir dir;
  LogBuilder a;
  a.Process(100, 1, 100, "/bin/a").Hook(0x1230, 0, {1}, 100, 10);
  LogBuilder b;
  b.Process(100, 1, 100, "/bin/b").Hook(0x1230, 0, {2}, 100, 20);
  EXPECT_TRUE(a.WriteTo(dir.File("a.trc")).ok());
  EXPECT_TRUE(b.WriteTo(dir.File("b.trc")).ok());
  const Json doc = ParseJson(Export(Format::kChrome, {dir.File("a.trc"), dir.File("b.trc")},
                                    dir.File("ab.json"), {"hostA", "hostB"}));
  CheckTraceEvents(doc);
  std::map<uint64_t, std::string> process_names;
  for (const Json& e : doc["traceEvents"].array()) {
    if (e["ph"].str() == "M" && e["name"].str() == "process_name") {
      process_names[e["pid"].u64()] = e["args"]["name"].str();
    }
  }
  EXPECT_EQ(process_names[10000100], "hostA: a");
  EXPECT_EQ(process_names[20000100], "hostB: b");
}

TEST(ExportJsonLines, SampleMatchesGolden) {
  TempDir dir;
  EXPECT_TRUE(SampleLog().WriteTo(dir.File("a.trc")).ok());
  ExpectGolden(Export(Format::kJsonl, {dir.File("a.trc")}, dir.File("a.jsonl"), {"sample"}),
               "sample.jsonl");
}

TEST(ExportCsv, SampleMatchesGoldenWithOneRowPerEvent) {
  TempDir dir;
  EXPECT_TRUE(SampleLog().WriteTo(dir.File("a.trc")).ok());
  const std::string csv = Export(Format::kCsv, {dir.File("a.trc")}, dir.File("a.csv"), {"sample"});
  ExpectGolden(csv, "sample.csv");
  EXPECT_EQ(csv.rfind(CsvHeader(), 0), 0u);
}

// A CSV export to a pipe (as to /dev/null or a terminal) writes the one table into it and creates
// no per-schema files beside it.
TEST(ExportCsv, APipeGetsTheOneTableAndNothingBesideIt) {
  TempDir dir;
  EXPECT_TRUE(SampleLog().WriteTo(dir.File("a.trc")).ok());
  const std::string fifo = dir.File("pipe");
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  std::string received;
  std::thread reader([&] {
    std::ifstream in(fifo, std::ios::binary);
    received.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  });
  const std::vector<std::string> logs = {dir.File("a.trc")};
  auto stream = MergedStream::Open(logs);
  ASSERT_TRUE(stream.ok()) << stream.error().message;
  auto exporter = CreateExporter(Format::kCsv, fifo, {.stream = &*stream});
  ASSERT_TRUE(exporter.ok()) << exporter.error().message;
  auto summary = RunExport(*stream, **exporter, nullptr);
  exporter->reset();  // closes the pipe, so the reader sees its end
  reader.join();
  ASSERT_TRUE(summary.ok()) << summary.error().message;
  EXPECT_EQ(received.rfind(CsvHeader(), 0), 0u);
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(dir.path())) {
    names.push_back(entry.path().filename().string());
  }
  std::sort(names.begin(), names.end());
  EXPECT_EQ(names, (std::vector<std::string>{"a.trc", "pipe"}));
}

// Every JSON Lines field against what the reader returns for the same log.
TEST(ExportJsonLines, RoundTripKeepsEveryFieldOfEveryEvent) {
  TempDir dir;
  LogBuilder log = SampleLog();
  log.TimeConversion(3, 2).Hook(0x7770, 0x1234, {1, 2, 3, 4, 5}, 0xFFFFFFFFFFFF, 0x123456789ABCDEF);
  EXPECT_TRUE(log.WriteTo(dir.File("a.trc")).ok());
  const std::string jsonl = Export(Format::kJsonl, {dir.File("a.trc")}, dir.File("a.jsonl"));

  auto reader = event::LogReader::Open(dir.File("a.trc"), {.reformat = false});
  ASSERT_TRUE(reader.ok());
  event::TimeBase timebase;
  uint64_t last_ns = 0;
  std::istringstream lines(jsonl);
  std::string line;
  event::Event e;
  uint64_t seq = 0;
  while (reader->Next(e) == event::ReadStatus::kEvent) {
    timebase.Observe(e, reader->byte_order());
    if (e.timestamped) last_ns = timebase.ToNanoseconds(e.timestamp);
    ASSERT_TRUE(std::getline(lines, line)) << "missing line for event " << seq;
    const Json row = ParseJson(line);
    SCOPED_TRACE(line);
    EXPECT_EQ(row["seq"].u64(), seq++);
    EXPECT_EQ(row["source"].str(), dir.File("a.trc"));
    EXPECT_EQ(row["offset"].u64(), e.offset);
    EXPECT_EQ(row["time_ns"].u64(), last_ns);
    EXPECT_EQ(row["timestamped"].boolean(), e.timestamped);
    EXPECT_EQ(row["ticks"].u64(), e.timestamp);
    EXPECT_EQ(std::stoul(row["hook"].str(), nullptr, 16), e.hook_id);
    EXPECT_EQ(std::stoul(row["subhook"].str(), nullptr, 16), e.subhook);
    EXPECT_EQ(row["generic"].boolean(), e.generic);
    EXPECT_EQ(row["data32"].boolean(), e.data32);
    EXPECT_EQ(row["tid"].u64(), e.thread_id);
    const auto& words = row["words"].array();
    ASSERT_EQ(words.size(), e.word_count);
    for (size_t i = 0; i < words.size(); ++i) {
      EXPECT_EQ(std::stoull(words[i].str(), nullptr, 16), e.words[i]);
    }
    if (e.generic) {
      EXPECT_EQ(std::stoull(row["data_word"].str(), nullptr, 16), e.generic_word);
      std::string hex;
      for (uint8_t b : e.buffer) hex += fmt::format("{:02x}", b);
      EXPECT_EQ(row["buffer"].str(), hex);
    } else {
      EXPECT_TRUE(row["data_word"].is_null());
      EXPECT_TRUE(row["buffer"].is_null());
    }
    EXPECT_TRUE(row["text"].is_null());  // no template set
  }
  EXPECT_FALSE(std::getline(lines, line)) << "extra line " << line;
  EXPECT_EQ(seq, 17u);
}

// The text column comes from the default template file through src/template's Evaluator.
TEST(ExportJsonLines, TextColumnHoldsWhatTheTemplateGivesEachEvent) {
  const std::string trcfmt = std::string(RASTRACE_SOURCE_DIR) + "/templates/trcfmt";
  tmpl::TemplateSet set;
  std::vector<tmpl::Diagnostic> diagnostics;
  ASSERT_TRUE(set.AddFile(trcfmt, diagnostics).ok());
  auto templates = TemplateText::Create(set);
  TempDir dir;
  EXPECT_TRUE(SampleLog().WriteTo(dir.File("a.trc")).ok());
  auto stream = MergedStream::Open(std::vector<std::string>{dir.File("a.trc")});
  ASSERT_TRUE(stream.ok());
  auto exporter = CreateExporter(Format::kJsonl, dir.File("a.jsonl"), {.stream = &stream.value()});
  ASSERT_TRUE(exporter.ok());
  ASSERT_TRUE(RunExport(*stream, **exporter, templates.get()).ok());
  std::istringstream lines(ReadFile(dir.File("a.jsonl")));
  int trace_on = 0;
  int with_text = 0;
  for (std::string line; std::getline(lines, line);) {
    const Json row = ParseJson(line);
    ASSERT_FALSE(row["text"].is_null()) << line;
    if (!row["text"].str().empty()) ++with_text;
    if (row["hook"].str() == "0010") {
      ++trace_on;
      EXPECT_EQ(row["label"].str(), "TRACE ON");
      EXPECT_NE(row["text"].str().find("channel"), std::string::npos) << line;
    }
  }
  EXPECT_EQ(trace_on, 1);
  EXPECT_GT(with_text, 1);
}

}  // namespace
}  // namespace rastrace::exporter
