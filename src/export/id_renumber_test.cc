// rastrace merge keeps two machines' equal pids apart: the later source's ids are renumbered in
// every field that carries them, the mapping is in 00A/0x10A events, and exports of the merged
// log show separate processes.
#include "export/id_renumber.h"

#include <gtest/gtest.h>

#include <map>
#include <set>
#include <sstream>

#include "event/format.h"
#include "event/log_builder.h"
#include "event/reader.h"
#include "event/s2.h"
#include "event/temp_dir.h"
#include "export/export_run.h"
#include "export/merge_writer.h"
#include "export/process_table.h"
#include "export/test_json.h"

namespace rastrace::exporter {
namespace {

using event::testing::LogBuilder;
using event::testing::TempDir;
using testing::Json;
using testing::ParseJson;
using testing::ReadFile;

constexpr uint64_t kNew = IdRenumberer::kFirstNewId;

// One machine's log: process 100 (threads 100, 101), which forks 200 and execs; a dynamic
// tracepoint hit of pid 100; kernel events naming the threads.
LogBuilder MachineLog(std::string_view program, uint64_t ticks) {
  LogBuilder log;
  log.TimeConversion(1, 1)
      .Process(100, 1, 100, program)
      .Process(100, 1, 101, program)
      .ThreadName(101, "worker")
      .Hook(0x1230, 0, {1}, 100, ticks)
      .Hook(event::kHookFork, 0, {200, 100}, 100, ticks + 1)
      .Hook(event::kHookDispatch, 0, {101, 120, 100, 'S', 0}, 0, ticks + 2)
      .Generic(event::kHookExec, 0, 200, std::string("\x07\x00/bin/sh", 9), 200, ticks + 3)
      .TracepointHit(0x64, 1, 100, 101, ticks + 4)
      .Hook(0x1230, 0, {2}, 101, ticks + 5);
  return log;
}

std::string MergeTwoMachines(const TempDir& dir) {
  EXPECT_TRUE(MachineLog("/bin/alpha", 1000).WriteTo(dir.File("a.trc")).ok());
  EXPECT_TRUE(MachineLog("/bin/beta", 1100).WriteTo(dir.File("b.trc")).ok());
  auto stream = MergedStream::Open(std::vector<std::string>{dir.File("a.trc"), dir.File("b.trc")});
  EXPECT_TRUE(stream.ok());
  stream->SetInputName(0, "hostA");
  stream->SetInputName(1, "hostB");
  auto writer = event::LogWriter::Create(dir.File("m.trc"), {.byte_order = NativeByteOrder()});
  EXPECT_TRUE(writer.ok());
  auto stats = WriteMergedLog(*stream, *writer);
  EXPECT_TRUE(stats.ok());
  EXPECT_EQ(stats->renumbered, 4u);  // hostB's 100, 1 (the parent), 101, 200
  EXPECT_TRUE(writer->Close().ok());
  return dir.File("m.trc");
}

TEST(ExportIdRenumber, LaterSourcesIdsGetUnusedNumbersInEveryFieldThatCarriesThem) {
  TempDir dir;
  const std::string merged = MergeTwoMachines(dir);
  auto reader = event::LogReader::Open(merged, {.reformat = false});
  ASSERT_TRUE(reader.ok());
  const ByteOrder order = reader->byte_order();
  std::string source;
  std::map<std::string, std::map<uint64_t, uint64_t>> mapping;  // by source: from -> to
  std::map<std::string, std::vector<std::string>> seen;         // by source: "what=id"
  event::Event e;
  while (reader->Next(e) == event::ReadStatus::kEvent) {
    auto& out = seen[source];
    if (e.hook_id == event::kHookUtil) {
      if (e.subhook == event::kUtilSource) source = std::string(*event::ReadS2(e.buffer, 0, order));
      if (e.subhook == event::kUtilRenumbered) {
        mapping[source][e.words[0]] = e.words[1];
        EXPECT_EQ(e.thread_id, 0u);
      }
      if (e.subhook == event::kUtilProcess) {
        out.push_back(fmt::format("process={}/{}/{}", e.generic_word,
                                  Load64(e.buffer.data(), order),
                                  Load64(e.buffer.data() + 8, order)));
      }
      if (e.subhook == event::kUtilThreadName)
        out.push_back(fmt::format("name={}", e.generic_word));
      continue;
    }
    if (e.hook_id == event::kHookFork) {
      out.push_back(fmt::format("fork={}/{}", e.words[0], e.words[1]));
    } else if (e.hook_id == event::kHookDispatch) {
      out.push_back(fmt::format("dispatch={}/{}/{}", e.thread_id, e.words[0], e.words[2]));
    } else if (e.hook_id == event::kHookExec) {
      out.push_back(fmt::format("exec={}/{}", e.thread_id, e.generic_word));
    } else if (e.hook_id == event::kHookDynamicTracepoint) {
      out.push_back(fmt::format("hit={}/{:x}", e.thread_id, e.generic_word));
    } else {
      out.push_back(fmt::format("hook={}", e.thread_id));
    }
  }
  // hostA came first: its ids stay.
  EXPECT_EQ(seen["hostA"],
            (std::vector<std::string>{"process=100/1/100", "process=100/1/101", "name=101",
                                      "hook=100", "fork=200/100", "dispatch=0/101/100",
                                      "exec=200/200", "hit=101/6400000064", "hook=101"}));
  EXPECT_TRUE(mapping["hostA"].empty());
  // hostB's colliding ids are renumbered from 2^22 up, in the order they first appear.
  const std::map<uint64_t, uint64_t> expected{
      {100, kNew}, {1, kNew + 1}, {101, kNew + 2}, {200, kNew + 3}};
  EXPECT_EQ(mapping["hostB"], expected);
  const auto id = [](uint64_t n) { return std::to_string(n); };
  EXPECT_EQ(
      seen["hostB"],
      (std::vector<std::string>{
          "process=" + id(kNew) + "/" + id(kNew + 1) + "/" + id(kNew),
          "process=" + id(kNew) + "/" + id(kNew + 1) + "/" + id(kNew + 2), "name=" + id(kNew + 2),
          "hook=" + id(kNew), "fork=" + id(kNew + 3) + "/" + id(kNew),
          "dispatch=0/" + id(kNew + 2) + "/" + id(kNew),
          "exec=" + id(kNew + 3) + "/" + id(kNew + 3),
          fmt::format("hit={}/{:x}", kNew + 2, (kNew << 32) | 0x64), "hook=" + id(kNew + 2)}));
}

TEST(ExportIdRenumber, MergedLogExportsShowEachMachinesProcessSeparately) {
  TempDir dir;
  const std::string merged = MergeTwoMachines(dir);
  for (const Format format : {Format::kJsonl, Format::kChrome}) {
    auto stream = MergedStream::Open(std::vector<std::string>{merged});
    ASSERT_TRUE(stream.ok());
    const std::string out = dir.File(std::string("m.") + std::string(FormatName(format)));
    auto exporter = CreateExporter(format, out, {.stream = &stream.value()});
    ASSERT_TRUE(exporter.ok());
    ASSERT_TRUE(RunExport(*stream, **exporter, nullptr).ok());
    if (format == Format::kJsonl) {
      std::set<std::pair<std::string, uint64_t>> pids;  // (source, pid) of hook 123
      std::istringstream lines(ReadFile(out));
      for (std::string line; std::getline(lines, line);) {
        const Json row = ParseJson(line);
        if (row["hook"].str() == "1230") pids.emplace(row["source"].str(), row["pid"].u64());
      }
      EXPECT_EQ(pids,
                (std::set<std::pair<std::string, uint64_t>>{{"hostA", 100}, {"hostB", kNew}}));
    } else {
      std::map<uint64_t, std::string> processes;
      const Json doc = ParseJson(ReadFile(out));
      for (const Json& e : doc["traceEvents"].array()) {
        if (e["ph"].str() == "M" && e["name"].str() == "process_name") {
          processes[e["pid"].u64()] = e["args"]["name"].str();
        }
      }
      // Chrome moves each origin's ids apart too (origin n: (n + 1) * 10^7 + id; origin 0 is the
      // merged file itself, hostA and hostB are origins 1 and 2).
      EXPECT_EQ(processes[20'000'100], "hostA: alpha");
      EXPECT_EQ(processes[30'000'000 + kNew], "hostB: beta");
    }
  }
}

TEST(ExportIdRenumber, IdsOfOneSourceAndIdZeroAreNeverRenumbered) {
  IdRenumberer ids;
  std::vector<uint8_t> buffer;
  std::vector<IdRenumberer::Renumbered> added;
  event::EventFields f;
  f.hook_id = 0x1230;
  f.thread_id = 0;
  ids.Apply(1, event::Layout::k64, NativeByteOrder(), f, buffer, added);
  f.thread_id = 5;
  ids.Apply(0, event::Layout::k64, NativeByteOrder(), f, buffer, added);
  EXPECT_EQ(f.thread_id, 5u);
  f.thread_id = 0;
  ids.Apply(1, event::Layout::k64, NativeByteOrder(), f, buffer, added);
  EXPECT_EQ(f.thread_id, 0u);
  EXPECT_TRUE(added.empty());
  f.thread_id = 5;
  ids.Apply(1, event::Layout::k64, NativeByteOrder(), f, buffer, added);
  EXPECT_EQ(f.thread_id, kNew);
  ASSERT_EQ(added.size(), 1u);
  // A source whose own id equals a new id is renumbered too: new ids are never shared.
  added.clear();
  f.thread_id = kNew;
  ids.Apply(0, event::Layout::k64, NativeByteOrder(), f, buffer, added);
  EXPECT_EQ(f.thread_id, kNew + 1);
  ASSERT_EQ(added.size(), 1u);
}

}  // namespace
}  // namespace rastrace::exporter
