// Chrome JSON: dynamic tracepoint slices (00A/109 definitions + 00C hits), whole generic buffers
// in args, and the CPU of each event's thread (00A/108).
#include "export/chrome_exporter.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "event/format.h"
#include "event/log_builder.h"
#include "event/temp_dir.h"
#include "export/export_run.h"
#include "export/test_json.h"
#include "export/text_escape.h"
#include "export/trace_event_check.h"

namespace rastrace::exporter {
namespace {

using event::testing::LogBuilder;
using event::testing::TempDir;
using testing::CheckTraceEvents;
using testing::Json;
using testing::ParseJson;
using testing::ReadFile;

constexpr uint16_t kMajor = 0x64;
constexpr uint16_t kEntryMinor = 1;
constexpr uint16_t kReturnMinor = 2;
constexpr uint16_t kInsideMinor = 3;
constexpr uint16_t kOtherEntryMinor = 4;
constexpr uint16_t kOtherReturnMinor = 5;

Json ExportChrome(const LogBuilder& log, const TempDir& dir) {
  EXPECT_TRUE(log.WriteTo(dir.File("t.trc")).ok());
  auto stream = MergedStream::Open(std::vector<std::string>{dir.File("t.trc")});
  EXPECT_TRUE(stream.ok());
  auto exporter = CreateExporter(Format::kChrome, dir.File("t.json"), {.stream = &stream.value()});
  EXPECT_TRUE(exporter.ok());
  EXPECT_TRUE(RunExport(*stream, **exporter, nullptr).ok());
  return ParseJson(ReadFile(dir.File("t.json")));
}

// "B name" / "E" / "i name" per non-metadata event, in file order, for one thread.
std::vector<std::string> Phases(const Json& doc, uint64_t tid) {
  std::vector<std::string> out;
  for (const Json& e : doc["traceEvents"].array()) {
    const std::string& ph = e["ph"].str();
    if (ph == "M" || e["tid"].u64() != tid) continue;
    out.push_back(ph == "E" ? "E" : ph + " " + e["name"].str());
  }
  return out;
}

LogBuilder DefinedTracepoints() {
  LogBuilder log;
  log.TimeConversion(1, 1)
      .TracepointDef(kMajor, kEntryMinor, 1, "DosOpen")
      .TracepointDef(kMajor, kReturnMinor, 2, "DosOpen")
      .TracepointDef(kMajor, kInsideMinor, 0, "open.c:42")
      .TracepointDef(kMajor, kOtherEntryMinor, 1, "DosRead")
      .TracepointDef(kMajor, kOtherReturnMinor, 2, "DosRead");
  return log;
}

TEST(ExportChromeTracepoints, EntryAndReturnHitsPairPerThreadIntoSlicesNamedAfterTheProcedure) {
  TempDir dir;
  LogBuilder log = DefinedTracepoints();
  log.TracepointHit(kMajor, kEntryMinor, 50, 7, 1000)        // DosOpen
      .TracepointHit(kMajor, kEntryMinor, 50, 8, 1100)       // DosOpen on another thread
      .TracepointHit(kMajor, kOtherEntryMinor, 50, 7, 1200)  // DosRead inside DosOpen
      .TracepointHit(kMajor, kInsideMinor, 50, 7, 1300)
      .TracepointHit(kMajor, kEntryMinor, 50, 7, 1400)  // DosOpen again: recursion
      .TracepointHit(kMajor, kReturnMinor, 50, 7, 1500)
      .TracepointHit(kMajor, kOtherReturnMinor, 50, 7, 1600)
      .TracepointHit(kMajor, kReturnMinor, 50, 7, 1700)
      .TracepointHit(kMajor, kReturnMinor, 50, 8, 1800)
      .TracepointHit(kMajor, kOtherReturnMinor, 50, 8, 1900);  // never entered on thread 8
  const Json doc = ExportChrome(log, dir);
  EXPECT_EQ(CheckTraceEvents(doc), 4);
  EXPECT_EQ(Phases(doc, 7), (std::vector<std::string>{"B DosOpen", "B DosRead", "i open.c:42",
                                                      "B DosOpen", "E", "E", "E"}));
  EXPECT_EQ(Phases(doc, 8), (std::vector<std::string>{"B DosOpen", "E", "i DosRead"}));
  for (const Json& e : doc["traceEvents"].array()) {
    if (e["ph"].str() == "M") continue;
    EXPECT_EQ(e["pid"].u64(), 50u) << "the hit's pid names the process";
    // The 00A/109 definitions are metadata: no event of their own.
    EXPECT_NE(e["args"].has("end") ? e["args"]["end"]["hook"].str() : e["args"]["hook"].str(),
              "00A");
  }
}

TEST(ExportChromeTracepoints, AReturnClosesItsProcedureAndEndsSlicesLeftOpenAboveIt) {
  TempDir dir;
  LogBuilder log = DefinedTracepoints();
  log.TracepointHit(kMajor, kEntryMinor, 50, 7, 1000)
      .TracepointHit(kMajor, kOtherEntryMinor, 50, 7, 1100)  // its return was lost
      .TracepointHit(kMajor, kReturnMinor, 50, 7, 1200)
      .TracepointHit(kMajor, kEntryMinor, 50, 7, 1300);  // never returns
  const Json doc = ExportChrome(log, dir);
  EXPECT_EQ(CheckTraceEvents(doc), 3);
  std::vector<std::string> unterminated;
  for (const Json& e : doc["traceEvents"].array()) {
    if (e["ph"].str() == "E" && e["args"].has("unterminated")) {
      unterminated.push_back(e["args"]["unterminated"].str());
    }
  }
  EXPECT_EQ(unterminated, (std::vector<std::string>{"ended by the end of an enclosing slice",
                                                    "open at the end of the trace"}));
}

TEST(ExportChromeTracepoints, HitsWithoutDefinitionsStayInstantsNamedByMajorAndMinor) {
  TempDir dir;
  LogBuilder log;
  log.TracepointDef(kMajor, kEntryMinor, 1, "DosOpen")
      .TracepointHit(kMajor, 9, 50, 7, 1000)  // a minor the log did not define
      .TracepointHit(kMajor, kReturnMinor, 50, 7, 1100);
  const Json doc = ExportChrome(log, dir);
  EXPECT_EQ(CheckTraceEvents(doc), 0);
  EXPECT_EQ(Phases(doc, 7),
            (std::vector<std::string>{"i tracepoint_0064_0009", "i tracepoint_0064_0002"}));
}

TEST(ExportChrome, ArgsHoldTheWholeGenericBuffer) {
  TempDir dir;
  std::string big(60'000, '\0');
  for (size_t i = 0; i < big.size(); ++i) big[i] = static_cast<char>(i * 7 + 3);
  LogBuilder log;
  log.Generic(0x4560, 1, 0x1234, big, 7, 100).Hook(0x1230, 0, {1}, 7, 200);
  const Json doc = ExportChrome(log, dir);
  CheckTraceEvents(doc);
  std::string expected;
  AppendHex(expected, std::span(reinterpret_cast<const uint8_t*>(big.data()), big.size()));
  int found = 0;
  for (const Json& e : doc["traceEvents"].array()) {
    if (e["ph"].str() != "i" || e["name"].str() != "hook_456") continue;
    ++found;
    EXPECT_EQ(e["args"]["fields"]["buffer"].str().size(), 120'000u);
    EXPECT_TRUE(e["args"]["fields"]["buffer"].str() == expected);
    EXPECT_FALSE(e["args"].has("buffer_bytes"));
  }
  EXPECT_EQ(found, 1);
}

TEST(ExportChrome, ArgsCarryTheCpuOfTheEventsThread) {
  TempDir dir;
  LogBuilder log;
  log.Hook(0x1230, 0, {1}, 7, 100)  // before its thread's first 00A/108: unknown
      .Cpu(7, 2, 150)
      .Hook(0x1230, 0, {2}, 7, 200)
      .Hook(0x1230, 0, {3}, 8, 250)  // another thread: still unknown
      .Cpu(7, 0, 300)
      .Hook(0x1230, 0, {4}, 7, 400);
  const Json doc = ExportChrome(log, dir);
  std::vector<std::string> cpus;
  for (const Json& e : doc["traceEvents"].array()) {
    if (e["ph"].str() != "i") continue;
    cpus.push_back(e["args"].has("cpu") ? e["args"]["cpu"].number_text : "-");
  }
  EXPECT_EQ(cpus, (std::vector<std::string>{"-", "2", "-", "0"}));
}

}  // namespace
}  // namespace rastrace::exporter
