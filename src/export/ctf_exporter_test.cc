#include "export/ctf_exporter.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <regex>
#include <sstream>

#include "event/format.h"
#include "event/log_builder.h"
#include "event/temp_dir.h"
#include "export/export_run.h"
#include "export/id_renumber.h"
#include "export/merge_writer.h"
#include "export/test_json.h"

namespace rastrace::exporter {
namespace {

using event::testing::LogBuilder;
using event::testing::TempDir;
using testing::ReadFile;

// The log every CTF test exports: a process table, TRACE ON/OFF, data words, a generic buffer and
// an event without a timestamp.
LogBuilder SampleLog() {
  LogBuilder log;
  std::string header;
  for (std::string_view part : {"Linux", "node7", "6.1", "#1", "x86_64", "app --run"}) {
    header.push_back(static_cast<char>(part.size()));
    header.push_back('\0');
    header.append(part);
  }
  log.TimeConversion(1, 1)
      .Generic(event::kHookHeader, 0, 1700000000, header, 100, /*timestamp=*/-1)
      .Process(100, 1, 100, "/usr/bin/app")
      .Process(100, 1, 101, "/usr/bin/app")
      .ThreadName(101, "worker")
      .Hook(event::kHookTraceOn, 0, {0}, 100, 1000)
      .Hook(0x1230, 0x0007, {0x1111, 0x2222, 0xFFFFFFFFFFFFFFFF}, 100, 2000)
      .Generic(0x4560, 0x0001, 0xABCD, "hello", 101, 3000)
      .Hook(0x0150, 0, {}, 102, /*timestamp=*/-1)
      .Hook(event::kHookTraceOff, 0, {0}, 100, 4000);
  return log;
}

Result<ExportSummary> ExportCtf(const std::vector<std::string>& logs, const std::string& out) {
  auto stream = MergedStream::Open(logs);
  if (!stream.ok()) return stream.error();
  auto exporter = CreateExporter(Format::kCtf, out, {.stream = &stream.value()});
  if (!exporter.ok()) return exporter.error();
  return RunExport(*stream, **exporter, nullptr);
}

// Without descriptions every event has a raw schema (hook_ID): one class each.
TEST(ExportCtf, MetadataDeclaresOneClassPerSchema) {
  TempDir dir;
  EXPECT_TRUE(SampleLog().WriteTo(dir.File("a.trc")).ok());
  auto summary = ExportCtf({dir.File("a.trc")}, dir.File("ctf"));
  ASSERT_TRUE(summary.ok()) << summary.error().message;
  EXPECT_EQ(summary->events, 10u);
  const std::string metadata = ReadFile(dir.File("ctf/metadata"));
  EXPECT_EQ(metadata.rfind("/* CTF 1.8 */", 0), 0u);
  EXPECT_NE(metadata.find("name = \"hook_001\";"), std::string::npos);
  EXPECT_NE(metadata.find("name = \"hook_456\";"), std::string::npos);
  EXPECT_NE(metadata.find("name = \"hook_00a\";"), std::string::npos);
  EXPECT_NE(metadata.find("\t\thex64_t _d1;"), std::string::npos);
  EXPECT_NE(metadata.find("\t\tuint16_t _buffer_length;\n\t\thex8_t _buffer[_buffer_length];"),
            std::string::npos);
  // Logs that do not say where they stand in real time keep a clock from 0.
  EXPECT_NE(metadata.find("offset_s = 0;"), std::string::npos);
  EXPECT_NE(metadata.find("source_0 = \""), std::string::npos);
  EXPECT_NE(metadata.find("source_0_hostname = \"node7\";"), std::string::npos);
  EXPECT_NE(metadata.find("\thostname = \"node7\";"), std::string::npos);
  // Every packet starts with the magic and is as long as its context says.
  const std::string stream = ReadFile(dir.File("ctf/stream_0"));
  size_t at = 0;
  int packets = 0;
  while (at < stream.size()) {
    uint32_t magic;
    std::memcpy(&magic, stream.data() + at, 4);
    ASSERT_EQ(magic, kCtfMagic) << "at " << at;
    uint64_t packet_bits;
    std::memcpy(&packet_bits, stream.data() + at + 32 + 24, 8);
    ASSERT_GT(packet_bits, 0u);
    at += packet_bits / 8;
    ++packets;
  }
  EXPECT_EQ(at, stream.size());
  EXPECT_EQ(packets, 1);
}

TEST(ExportCtf, RefusesADirectoryHoldingOtherFiles) {
  TempDir dir;
  EXPECT_TRUE(SampleLog().WriteTo(dir.File("a.trc")).ok());
  std::filesystem::create_directories(dir.File("out"));
  EXPECT_TRUE(LogBuilder().WriteTo(dir.File("out/notes.txt")).ok());
  auto summary = ExportCtf({dir.File("a.trc")}, dir.File("out"));
  ASSERT_FALSE(summary.ok());
  EXPECT_NE(summary.error().message.find("notes.txt"), std::string::npos);
}

TEST(ExportCtf, LargeLogsSplitIntoPacketsThatEachHoldWholeEvents) {
  TempDir dir;
  LogBuilder log;
  const std::string buffer(4000, 'x');
  for (int i = 0; i < 200; ++i) log.Generic(0x4560, 0, i, buffer, 1, 10 + static_cast<uint64_t>(i));
  EXPECT_TRUE(log.WriteTo(dir.File("big.trc")).ok());
  ASSERT_TRUE(ExportCtf({dir.File("big.trc")}, dir.File("ctf")).ok());
  const std::string stream = ReadFile(dir.File("ctf/stream_0"));
  size_t at = 0;
  int packets = 0;
  uint64_t previous_end = 0;
  while (at < stream.size()) {
    uint64_t begin, end, content_bits, packet_bits, sequence;
    std::memcpy(&begin, stream.data() + at + 32, 8);
    std::memcpy(&end, stream.data() + at + 40, 8);
    std::memcpy(&content_bits, stream.data() + at + 48, 8);
    std::memcpy(&packet_bits, stream.data() + at + 56, 8);
    std::memcpy(&sequence, stream.data() + at + 64, 8);
    EXPECT_EQ(sequence, static_cast<uint64_t>(packets));
    EXPECT_LE(content_bits, packet_bits);
    EXPECT_LE(packet_bits / 8, CtfExporter::kPacketBytes);
    EXPECT_LE(begin, end);
    EXPECT_GE(begin, previous_end);
    previous_end = end;
    at += packet_bits / 8;
    ++packets;
  }
  EXPECT_EQ(at, stream.size());
  EXPECT_GT(packets, 2);
}

// --- babeltrace2 reads the export
// -----------------------------------------------------------------

bool HaveBabeltrace() {
  return std::system("command -v babeltrace2 >/dev/null 2>&1") == 0;
}

struct CommandRun {
  int status = -1;
  std::string out;
  std::string err;
};

CommandRun Babeltrace(const TempDir& dir, const std::string& trace) {
  const std::string out = dir.File("bt.out");
  const std::string err = dir.File("bt.err");
  const std::string command = fmt::format("babeltrace2 '{}' >'{}' 2>'{}'", trace, out, err);
  CommandRun run;
  run.status = std::system(command.c_str());
  run.out = ReadFile(out);
  run.err = ReadFile(err);
  return run;
}

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

TEST(ExportCtf, Babeltrace2ReadsEveryEventWithItsFieldsAndNoWarnings) {
  if (!HaveBabeltrace())
    GTEST_SKIP() << "babeltrace2 is not installed (scripts/deps.sh installs it)";
  TempDir dir;
  EXPECT_TRUE(SampleLog().WriteTo(dir.File("a.trc")).ok());
  ASSERT_TRUE(ExportCtf({dir.File("a.trc")}, dir.File("ctf")).ok());
  const CommandRun run = Babeltrace(dir, dir.File("ctf"));
  ASSERT_EQ(run.status, 0) << run.err;
  EXPECT_EQ(run.err, "") << "babeltrace2 warned";
  const auto lines = Lines(run.out);
  ASSERT_EQ(lines.size(), 10u) << run.out;

  // Event 7 (0-based 6): hook 123 subhook 7 on thread 100 of pid 100 at 2000 ns, three words.
  const std::string& words = lines[6];
  EXPECT_NE(words.find("node7 hook_123:"), std::string::npos) << words;
  EXPECT_NE(words.find("tid = 100, pid = 100"), std::string::npos) << words;
  EXPECT_NE(words.find("hook = 0x1230, subhook = 0x7"), std::string::npos) << words;
  EXPECT_NE(words.find("d1 = 0x1111, d2 = 0x2222, d3 = 0xFFFFFFFFFFFFFFFF, d4 = 0x0, d5 = 0x0"),
            std::string::npos)
      << words;
  EXPECT_NE(words.find("00:00:00.000002000"), std::string::npos) << words;

  // Event 8: the generic buffer "hello" on the named thread 101 of pid 100.
  const std::string& generic = lines[7];
  EXPECT_NE(generic.find("hook_456:"), std::string::npos) << generic;
  EXPECT_NE(generic.find("tid = 101, pid = 100"), std::string::npos) << generic;
  EXPECT_NE(generic.find("data_word = 0xABCD, buffer_length = 5, buffer = [ [0] = 0x68, [1] = "
                         "0x65, [2] = 0x6C, [3] = 0x6C, [4] = 0x6F ]"),
            std::string::npos)
      << generic;

  // Event 9: no timestamp, unknown process: shown at its predecessor's time, pid -1.
  const std::string& untimed = lines[8];
  EXPECT_NE(untimed.find("00:00:00.000003000"), std::string::npos) << untimed;
  EXPECT_NE(untimed.find("tid = 102, pid = -1"), std::string::npos) << untimed;
  EXPECT_NE(untimed.find("d1 = 0x0"), std::string::npos) << untimed;
}

// 00A/108 tells the CPU of a thread's following events; -1 while it is unknown.
TEST(ExportCtf, EventContextCarriesTheCpuOfTheEventsThread) {
  if (!HaveBabeltrace())
    GTEST_SKIP() << "babeltrace2 is not installed (scripts/deps.sh installs it)";
  TempDir dir;
  LogBuilder log;
  log.Hook(0x1230, 0, {1}, 7, 100).Cpu(7, 5, 150).Hook(0x1230, 0, {2}, 7, 200);
  EXPECT_TRUE(log.WriteTo(dir.File("a.trc")).ok());
  ASSERT_TRUE(ExportCtf({dir.File("a.trc")}, dir.File("ctf")).ok());
  const CommandRun run = Babeltrace(dir, dir.File("ctf"));
  ASSERT_EQ(run.status, 0) << run.err;
  EXPECT_EQ(run.err, "");
  const auto lines = Lines(run.out);
  ASSERT_EQ(lines.size(), 3u) << run.out;
  EXPECT_NE(lines[0].find("tid = 7, pid = -1, cpu = -1, hook"), std::string::npos) << lines[0];
  EXPECT_NE(lines[1].find("cpu = 5, hook"), std::string::npos) << lines[1];
  EXPECT_NE(lines[2].find("tid = 7, pid = -1, cpu = 5, hook"), std::string::npos) << lines[2];
}

// rastrace merge renumbers the second machine's pid 100: the CTF of the merged log shows two
// processes, each in its source's stream.
TEST(ExportCtf, MergedLogKeepsEqualPidsOfTwoMachinesApart) {
  if (!HaveBabeltrace())
    GTEST_SKIP() << "babeltrace2 is not installed (scripts/deps.sh installs it)";
  TempDir dir;
  for (const char* name : {"a", "b"}) {
    LogBuilder log;
    log.Process(100, 1, 100, "/bin/app").Hook(0x1230, 0, {1}, 100, name[0] == 'a' ? 10 : 20);
    EXPECT_TRUE(log.WriteTo(dir.File(std::string(name) + ".trc")).ok());
  }
  {
    auto stream =
        MergedStream::Open(std::vector<std::string>{dir.File("a.trc"), dir.File("b.trc")});
    ASSERT_TRUE(stream.ok());
    auto writer = event::LogWriter::Create(dir.File("m.trc"), {.byte_order = NativeByteOrder()});
    ASSERT_TRUE(writer.ok());
    ASSERT_TRUE(WriteMergedLog(*stream, *writer).ok());
    ASSERT_TRUE(writer->Close().ok());
  }
  ASSERT_TRUE(ExportCtf({dir.File("m.trc")}, dir.File("ctf")).ok());
  const CommandRun run = Babeltrace(dir, dir.File("ctf"));
  ASSERT_EQ(run.status, 0) << run.err;
  EXPECT_EQ(run.err, "");
  std::vector<std::string> pids;
  const std::regex hook(R"(hook_123: \{ tid = (\d+), pid = (\d+))");
  for (const auto& line : Lines(run.out)) {
    std::smatch m;
    if (std::regex_search(line, m, hook)) pids.push_back(m[1].str() + "/" + m[2].str());
  }
  const std::string renumbered = std::to_string(IdRenumberer::kFirstNewId);
  EXPECT_EQ(pids, (std::vector<std::string>{"100/100", renumbered + "/" + renumbered})) << run.out;
}

TEST(ExportCtf, Babeltrace2ReadsAMergeOfTwoSourcesInTimeOrder) {
  if (!HaveBabeltrace())
    GTEST_SKIP() << "babeltrace2 is not installed (scripts/deps.sh installs it)";
  TempDir dir;
  LogBuilder a;
  a.TimeConversion(10, 1).Hook(0x1230, 0, {1}, 1, 1).Hook(0x1230, 0, {3}, 1, 30);
  LogBuilder b;
  b.TimeConversion(1, 1).Hook(0x4560, 0, {2}, 2, 20).Hook(0x4560, 0, {4}, 2, 400);
  EXPECT_TRUE(a.WriteTo(dir.File("a.trc")).ok());
  EXPECT_TRUE(b.WriteTo(dir.File("b.trc")).ok());
  ASSERT_TRUE(ExportCtf({dir.File("a.trc"), dir.File("b.trc")}, dir.File("ctf")).ok());
  const CommandRun run = Babeltrace(dir, dir.File("ctf"));
  ASSERT_EQ(run.status, 0) << run.err;
  EXPECT_EQ(run.err, "");
  std::vector<std::string> order;
  const std::regex word(R"(d1 = 0x(\d),)");
  for (const auto& line : Lines(run.out)) {
    std::smatch m;
    if (std::regex_search(line, m, word)) order.push_back(m[1]);
  }
  EXPECT_EQ(order, (std::vector<std::string>{"1", "2", "3", "4"})) << run.out;
}

}  // namespace
}  // namespace rastrace::exporter
