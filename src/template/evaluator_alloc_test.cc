// The evaluator's hot path allocates nothing once EvalOutput::text has grown: this binary counts
// every operator new.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <new>
#include <vector>

#include "template/template.h"
#include "template/test_event.h"

namespace {
std::atomic<size_t> g_allocations{0};
}  // namespace

void* operator new(size_t size) {
  g_allocations.fetch_add(1, std::memory_order_relaxed);
  if (void* p = std::malloc(size == 0 ? 1 : size)) return p;
  throw std::bad_alloc();
}
void operator delete(void* p) noexcept {
  std::free(p);
}
void operator delete(void* p, size_t) noexcept {
  std::free(p);
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

}  // namespace
}  // namespace rastrace::tmpl
