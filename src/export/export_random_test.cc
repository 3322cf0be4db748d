// Random events of every shape the reader can return (both layouts and byte orders, generic
// buffers up to the 65535-byte limit, B words, no timestamps, any hook id): every export must stay
// valid. babeltrace2 must read the CTF without a warning; the JSON must parse.
#include <gtest/gtest.h>

#include <cstdlib>
#include <random>
#include <sstream>

#include "event/format.h"
#include "event/log_builder.h"
#include "event/temp_dir.h"
#include "export/export_run.h"
#include "export/exporter.h"
#include "export/test_json.h"

namespace rastrace::exporter {
namespace {

using event::testing::LogBuilder;
using event::testing::TempDir;
using testing::ParseJson;
using testing::ReadFile;

constexpr int kEvents = 400;

LogBuilder RandomLog(uint64_t seed, event::Layout layout, ByteOrder order) {
  std::mt19937_64 random(seed);
  const auto below = [&](uint64_t n) { return random() % n; };
  LogBuilder log(layout, order);
  std::vector<uint8_t> buffer;
  for (int i = 0; i < kEvents; ++i) {
    event::EventFields f;
    do {
      f.hook_id = static_cast<uint16_t>(random());
      if (layout == event::Layout::k32) f.hook_id &= 0xFFF0;
      // 00A is consumed when it names a source; 00B is reformatted for templates only.
    } while (f.hook_id == event::kHookUtil || f.hook_id == event::kHook64On32);
    f.subhook = static_cast<uint16_t>(random());
    f.thread_id = layout == event::Layout::k32 ? random() & 0xFFFFFFFF : random();
    f.timestamped = below(4) != 0;
    f.timestamp =
        f.timestamped ? (layout == event::Layout::k32 ? random() & 0xFFFFFFFF : random()) : 0;
    f.generic = below(3) == 0;
    if (f.generic) {
      f.generic_word = layout == event::Layout::k32 ? random() & 0xFFFFFFFF : random();
      const size_t size = below(20) == 0 ? 65535 - below(8) : below(300);
      buffer.resize(size);
      for (auto& b : buffer) b = static_cast<uint8_t>(random());
      f.buffer = buffer;
      if (layout == event::Layout::k32) f.subhook = static_cast<uint16_t>(size);
    } else {
      f.word_count = static_cast<uint8_t>(below(event::kMaxDataWords + 1));
      if (layout == event::Layout::k32 && f.word_count > 1) f.word_count = event::kMaxDataWords;
      f.data32 = layout == event::Layout::k64 && below(4) == 0;
      for (unsigned w = 0; w < f.word_count; ++w) {
        f.words[w] = (f.data32 || layout == event::Layout::k32) ? random() & 0xFFFFFFFF : random();
      }
    }
    log.Fields(f);
  }
  return log;
}

struct Case {
  event::Layout layout;
  ByteOrder order;
};

class ExportRandom : public ::testing::TestWithParam<Case> {};

uint64_t Export(Format format, const std::string& log, const std::string& out) {
  auto stream = MergedStream::Open(std::vector<std::string>{log});
  EXPECT_TRUE(stream.ok()) << stream.error().message;
  auto exporter = CreateExporter(format, out, {.stream = &stream.value()});
  EXPECT_TRUE(exporter.ok()) << exporter.error().message;
  auto summary = RunExport(*stream, **exporter, nullptr);
  EXPECT_TRUE(summary.ok()) << summary.error().message;
  EXPECT_TRUE(stream->warnings().empty());
  return summary.ok() ? summary->events : 0;
}

TEST_P(ExportRandom, EveryFormatStaysValid) {
  TempDir dir;
  EXPECT_TRUE(RandomLog(1234 + static_cast<uint64_t>(GetParam().layout), GetParam().layout,
                        GetParam().order)
                  .WriteTo(dir.File("r.trc"))
                  .ok());

  EXPECT_EQ(Export(Format::kJsonl, dir.File("r.trc"), dir.File("r.jsonl")), uint64_t{kEvents});
  std::istringstream lines(ReadFile(dir.File("r.jsonl")));
  int rows = 0;
  for (std::string line; std::getline(lines, line); ++rows) {
    EXPECT_NO_THROW(ParseJson(line)) << line.substr(0, 200);
  }
  EXPECT_EQ(rows, kEvents);

  EXPECT_EQ(Export(Format::kChrome, dir.File("r.trc"), dir.File("r.json")), uint64_t{kEvents});
  EXPECT_NO_THROW(ParseJson(ReadFile(dir.File("r.json"))));

  EXPECT_EQ(Export(Format::kCtf, dir.File("r.trc"), dir.File("ctf")), uint64_t{kEvents});
  if (std::system("command -v babeltrace2 >/dev/null 2>&1") != 0) {
    GTEST_SKIP() << "babeltrace2 is not installed (scripts/deps.sh installs it)";
  }
  const int status = std::system(fmt::format("babeltrace2 '{}' >'{}' 2>'{}'", dir.File("ctf"),
                                             dir.File("bt.out"), dir.File("bt.err"))
                                     .c_str());
  EXPECT_EQ(status, 0) << ReadFile(dir.File("bt.err"));
  EXPECT_EQ(ReadFile(dir.File("bt.err")), "");
  const std::string text = ReadFile(dir.File("bt.out"));
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), kEvents);
}

INSTANTIATE_TEST_SUITE_P(Layouts, ExportRandom,
                         ::testing::Values(Case{event::Layout::k64, ByteOrder::kLittle},
                                           Case{event::Layout::k64, ByteOrder::kBig},
                                           Case{event::Layout::k32, ByteOrder::kBig},
                                           Case{event::Layout::k32, ByteOrder::kLittle}),
                         [](const auto& info) {
                           return fmt::format(
                               "Layout{}{}", static_cast<int>(info.param.layout),
                               info.param.order == ByteOrder::kBig ? "Big" : "Little");
                         });

}  // namespace
}  // namespace rastrace::exporter
