// Evaluator behaviour that the golden cases do not show: levels, reuse, odd inputs.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "template/template.h"
#include "template/test_event.h"

namespace rastrace::tmpl {
namespace {

class EvaluatorTest : public ::testing::Test {
 protected:
  void Load(std::string_view text) {
    std::vector<Diagnostic> diagnostics;
    set_.AddText(text, "t.fmt", diagnostics);
    for (const Diagnostic& d : diagnostics) ADD_FAILURE() << d.ToString();
  }
  EvalOutput Run(uint16_t id16, const event::Event* ev, ByteOrder order = ByteOrder::kBig) {
    EventContext ctx;
    ctx.event = ev;
    ctx.byte_order = order;
    ctx.logfile = "log";
    EvalOutput out;
    const Template* t = set_.Find(id16);
    EXPECT_NE(t, nullptr);
    if (t != nullptr) evaluator_.Run(*t, ctx, out);
    return out;
  }
  std::unique_ptr<testing::OwnedEvent> Event(uint16_t hook, std::vector<uint64_t> words,
                                             event::Layout layout = event::Layout::k64,
                                             ByteOrder order = ByteOrder::kBig) {
    event::EventFields f;
    f.hook_id = hook;
    f.word_count = static_cast<uint8_t>(words.size());
    std::copy(words.begin(), words.end(), f.words.begin());
    auto owned = testing::OwnedEvent::Make(f, layout, order);
    EXPECT_TRUE(owned.ok());
    return std::move(*owned);
  }

  TemplateSet set_;
  testing::RecordingHost host_;
  Evaluator evaluator_{set_, host_};
};

TEST_F(EvaluatorTest, ReportsTheTemplatesLevel) {
  Load("010 1.0 L=NOPRINT \"quiet\" {{ pidinstall(5, \"/bin/x\") }}\n011 1.0 L=APPL \"a\"\n");
  auto ev = Event(0x0100, {});
  EvalOutput out = Run(0x0100, &ev->event());
  EXPECT_EQ(out.level, Level::kNoPrint);
  EXPECT_EQ(out.text, "quiet");  // the report prints nothing; side effects still happen
  ASSERT_EQ(host_.log.size(), 1u);
  EXPECT_EQ(host_.log[0], "install: 5 /bin/x");
  EXPECT_EQ(Run(0x0110, &ev->event()).level, Level::kAppl);
}

TEST_F(EvaluatorTest, ALongLiteralObeysTheOutputCap) {
  // 16 KiB + 16 per event byte: an event of 8 bytes may print about 16.5 KB, not 1 MB.
  Load("010 1.0 \"" + std::string(1 << 20, 'x') + "\"\n");
  auto ev = Event(0x0100, {});
  EvalOutput out = Run(0x0100, &ev->event());
  EXPECT_EQ(out.status, EvalStatus::kError);
  EXPECT_LT(out.text.size(), 17000u);
  EXPECT_NE(out.text.find("***ERROR: TRACEID 010"), std::string::npos);
}

TEST_F(EvaluatorTest, MacrosStartAtZeroForEveryEvent) {
  Load("010 1.0 $n {{ $n = $n + 1 }} $n\n");
  auto ev = Event(0x0100, {});
  EXPECT_EQ(Run(0x0100, &ev->event()).text, "0000 0001");
  EXPECT_EQ(Run(0x0100, &ev->event()).text, "0000 0001");
}

TEST_F(EvaluatorTest, NoEventIsAnErrorNotACrash) {
  Load("010 1.0 \"x\" X4\n");
  EvalOutput out = Run(0x0100, nullptr);
  EXPECT_EQ(out.status, EvalStatus::kError);
  EXPECT_EQ(out.text, "x\n***ERROR: TRACEID 000 LOGFILE log OFFSET 000000***");
}

TEST_F(EvaluatorTest, HookwordReadsTheSameInBothByteOrders) {
  Load("010 1.0 X2 G0 X8 G3.4 B0.12\n");
  auto big = Event(0x0100, {1}, event::Layout::k64, ByteOrder::kBig);
  auto little = Event(0x0100, {1}, event::Layout::k64, ByteOrder::kLittle);
  std::string b = Run(0x0100, &big->event(), ByteOrder::kBig).text;
  EXPECT_EQ(b, "0000 0000000801000000 100000000001");
  EXPECT_EQ(Run(0x0100, &little->event(), ByteOrder::kLittle).text, b);
}

TEST_F(EvaluatorTest, DataWordsReadInTheLogsOrder) {
  Load("010 1.0 W1 X4 $D1\n");
  auto big = Event(0x0100, {0x11223344}, event::Layout::k32, ByteOrder::kBig);
  auto little = Event(0x0100, {0x11223344}, event::Layout::k32, ByteOrder::kLittle);
  EXPECT_EQ(Run(0x0100, &big->event(), ByteOrder::kBig).text, "11223344 11223344");
  EXPECT_EQ(Run(0x0100, &little->event(), ByteOrder::kLittle).text, "11223344 11223344");
}

TEST_F(EvaluatorTest, LoopsOverTheLargestGenericBufferFit) {
  Load("010 1.0 W2 LOOP HB {X1}\n");
  std::vector<uint8_t> buffer(65535, 0xAB);
  event::EventFields f;
  f.hook_id = 0x0100;
  f.generic = true;
  f.buffer = buffer;
  auto owned = testing::OwnedEvent::Make(f, event::Layout::k64, ByteOrder::kBig);
  ASSERT_TRUE(owned.ok());
  EvalOutput out = Run(0x0100, &(*owned)->event());
  EXPECT_EQ(out.status, EvalStatus::kOk);
  EXPECT_EQ(out.text.size(), 65535u * 3 - 1);
}

TEST_F(EvaluatorTest, RunawayLoopOnASmallEventEndsWithTheErrorLine) {
  Load("010 1.0 LOOP $D1 {\"a\"}\n");
  auto ev = Event(0x0100, {0xFFFFFFFFFFFF});
  EvalOutput out = Run(0x0100, &ev->event());
  EXPECT_EQ(out.status, EvalStatus::kError);
  EXPECT_LT(out.text.size(), 64u * 1024);
  EXPECT_TRUE(out.text.ends_with("***ERROR: TRACEID 010 LOGFILE log OFFSET 000000***"));
}

TEST_F(EvaluatorTest, TemplatesChangedAfterLoadingAreSeenByCalls) {
  Load("010 1.0 \"a\" $011\n011 1.0 \"b\"\n");
  auto ev = Event(0x0100, {});
  EXPECT_EQ(Run(0x0100, &ev->event()).text, "a b");
  Load("011 1.1 \"c\"\n");
  EXPECT_EQ(Run(0x0100, &ev->event()).text, "a c");
}

}  // namespace
}  // namespace rastrace::tmpl
