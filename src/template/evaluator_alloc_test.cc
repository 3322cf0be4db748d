// The evaluator's hot path allocates nothing once EvalOutput::text has grown, and the parser's
// memory is a small multiple of the text it parses: this binary counts every operator new and the
// bytes live at any time.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <malloc.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <new>
#include <string>
#include <vector>

#include "template/template.h"
#include "template/test_event.h"

namespace {
std::atomic<size_t> g_allocations{0};
std::atomic<size_t> g_live_bytes{0};
std::atomic<size_t> g_peak_bytes{0};

void Forget(void* p) {
  if (p != nullptr) g_live_bytes.fetch_sub(malloc_usable_size(p), std::memory_order_relaxed);
  std::free(p);
}
}  // namespace

void* operator new(size_t size) {
  g_allocations.fetch_add(1, std::memory_order_relaxed);
  if (void* p = std::malloc(size == 0 ? 1 : size)) {
    const size_t live = g_live_bytes.fetch_add(malloc_usable_size(p), std::memory_order_relaxed) +
                        malloc_usable_size(p);
    size_t peak = g_peak_bytes.load(std::memory_order_relaxed);
    while (live > peak && !g_peak_bytes.compare_exchange_weak(peak, live)) {
    }
    return p;
  }
  throw std::bad_alloc();
}
void operator delete(void* p) noexcept {
  Forget(p);
}
void operator delete(void* p, size_t) noexcept {
  Forget(p);
}

namespace rastrace::tmpl {
namespace {

TEST(EvaluatorAllocTest, TypicalTemplatesAllocateNothingPerEvent) {
  size_t at_start = g_allocations.load();
  TemplateSet set;
  std::vector<Diagnostic> diagnostics;
  set.AddText(
      "101 1.0 \"read\" X2, 1 \"fd\", 2 \"file\", \\* \"other\" X4 $D1 $D2 \\t D4 U4 \\n "
      "{{ $a = $D1 * 3 + X2 }} $a%X4 BITFLAGS $D2, 1 \"ONE\", & F0 10 \"F\" LOOP 3 {X1} B0.3 "
      "`pid=$PID`\n",
      "f", diagnostics);
  ASSERT_TRUE(diagnostics.empty());
  ASSERT_GT(g_allocations.load(), at_start) << "operator new is not being counted";
  const Template* t = set.Find(0x1010);
  ASSERT_NE(t, nullptr);
  for (ByteOrder order : {ByteOrder::kBig, ByteOrder::kLittle}) {
    event::EventFields f;
    f.hook_id = 0x1010;
    f.subhook = 2;
    f.word_count = 3;
    f.words = {0x11223344, 0x1F1, 3};
    auto owned = testing::OwnedEvent::Make(f, event::Layout::k64, order);
    ASSERT_TRUE(owned.ok());
    EventContext ctx;
    ctx.event = &(*owned)->event();
    ctx.byte_order = order;
    testing::RecordingHost host;
    Evaluator evaluator(set, host);
    EvalOutput out;
    evaluator.Run(*t, ctx, out);  // warms up the output string and scratch buffers
    ASSERT_EQ(out.status, EvalStatus::kOk);
    size_t before = g_allocations.load();
    for (int i = 0; i < 1000; ++i) evaluator.Run(*t, ctx, out);
    EXPECT_EQ(g_allocations.load() - before, 0u);
    EXPECT_NE(out.text.find("read file"), std::string::npos) << out.text;
  }
}

// A template file is parsed in memory within a small multiple of its size, whatever its shape:
// dense codes, words, groups, codes all different, macros, a long expression (it took 100 to 170
// times the file, 5 GB for a 30 MB template, before nodes became 16 bytes with their values,
// texts and children in tables of the template).
TEST(TemplateParserMemoryTest, StaysWithinASmallMultipleOfItsInput) {
  constexpr size_t kBytes = 256 << 10;
  auto repeat = [&](std::string head, auto piece, std::string_view tail = "") {
    for (size_t i = 0; head.size() < kBytes; ++i) head += piece(i);
    return head.append(tail).append("\n");
  };
  const std::vector<std::pair<const char*, std::string>> shapes = {
      {"codes", repeat("010 1.0 \"C\" ", [](size_t) { return "X4 "; })},
      {"words", repeat("010 1.0 \"W\" ", [](size_t) { return "a "; })},
      {"groups", repeat("010 1.0 \"G\" ", [](size_t) { return "{a} "; })},
      {"distinct codes", repeat("010 1.0 \"D\" ",
                                [](size_t i) {
                                  return "A" + std::to_string(i / 1000 + 1) + "." +
                                         std::to_string(i % 1000) + " ";
                                })},
      {"macros", repeat("010 1.0 \"M\" ", [](size_t) { return "$x "; })},
      {"expression", repeat(
                         "010 1.0 \"E\" {{ $x = 1", [](size_t) { return "+1"; }, " }}")},
      {"templates", repeat("",
                           [](size_t i) {
                             return fmt::format("{:04X} 1.0 \"T\" X4 D4 U2 X4 D4 U2\n",
                                                0x100 + i % 0xFE00);
                           })},
  };
  for (const auto& [name, text] : shapes) {
    const size_t live_before = g_live_bytes.load();
    g_peak_bytes.store(live_before);
    size_t added = 0;
    {
      TemplateSet set;
      std::vector<Diagnostic> diagnostics;
      added = set.AddText(text, "big.fmt", diagnostics);
      EXPECT_TRUE(diagnostics.empty()) << name << ": " << diagnostics.front().ToString();
    }
    EXPECT_GE(added, 1u) << name;
    const double multiple = static_cast<double>(g_peak_bytes.load() - live_before) / text.size();
    EXPECT_LT(multiple, 32.0) << name << ": the parser's peak memory is " << multiple
                              << " times its input";
  }
}

}  // namespace
}  // namespace rastrace::tmpl
