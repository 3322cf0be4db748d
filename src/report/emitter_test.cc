#include "report/emitter.h"

#include <gtest/gtest.h>

#include "event/format.h"

namespace rastrace::report {
namespace {

class EmitterTest : public ::testing::Test {
 protected:
  PreparedEvent Event(uint16_t id, int64_t elapsed_ns, bool timestamped = true) {
    events_.push_back(std::make_unique<event::Event>());
    events_.back()->hook_id = id;
    PreparedEvent p;
    p.event = events_.back().get();
    p.elapsed_ns = elapsed_ns;
    p.timestamped = timestamped;
    p.pid = 42;
    p.tid = 43;
    p.process_name = "prog";
    return p;
  }
  tmpl::EvalOutput Text(std::string text, tmpl::Level level = tmpl::Level::kAppl,
                        tmpl::EvalStatus status = tmpl::EvalStatus::kOk) {
    tmpl::EvalOutput out;
    out.text = std::move(text);
    out.level = level;
    out.status = status;
    return out;
  }
  std::vector<std::unique_ptr<event::Event>> events_;
};

TEST_F(EmitterTest, HeaderThenColumnHeaderThenEvents) {
  ReportOptions options;
  std::string out;
  Emitter emitter(options, out);
  emitter.Emit(Event(event::kHookHeader, 0), Text("header line", tmpl::Level::kZero));
  emitter.Emit(Event(event::kHookUtil, 0), Text("", tmpl::Level::kZero));
  emitter.Emit(Event(0x0100, 1'000), Text("START", tmpl::Level::kAppl));
  emitter.Emit(Event(0x0110, 3'000), Text("ITER 1\nsecond", tmpl::Level::kKern));
  EXPECT_EQ(out,
            "header line\n"
            "ID     ELAPSED_SEC     DELTA_MSEC   APPL    SYSCALL KERNEL  INTERRUPT\n"
            "010    0.000001000       0.001000   START\n"
            "011    0.000003000       0.002000                   ITER 1\n"
            "                                                    second\n");
}

TEST_F(EmitterTest, HeaderPrintsWithoutPrefixWhateverItsLevel) {
  ReportOptions options;
  std::string out;
  Emitter emitter(options, out);
  emitter.Emit(Event(event::kHookHeader, 0), Text("HEADER\nsecond", tmpl::Level::kKern));
  emitter.Emit(Event(0x0100, 0), Text("START"));
  EXPECT_EQ(out,
            "HEADER\nsecond\n"
            "ID     ELAPSED_SEC     DELTA_MSEC   APPL    SYSCALL KERNEL  INTERRUPT\n"
            "010    0.000000000       0.000000   START\n");
}

TEST_F(EmitterTest, NoHeaderDropsTemplate003AndTheColumnHeader) {
  ReportOptions options;
  options.no_header = true;
  std::string out;
  Emitter emitter(options, out);
  emitter.Emit(Event(event::kHookHeader, 0), Text("header line", tmpl::Level::kZero));
  emitter.Emit(Event(0x0100, 0), Text("START"));
  EXPECT_EQ(out, "010    0.000000000       0.000000   START\n");
}

TEST_F(EmitterTest, DeltaIsFromThePreviousPrintedEvent) {
  ReportOptions options;
  options.no_header = true;
  std::string out;
  Emitter emitter(options, out);
  emitter.Emit(Event(0x0100, 1'000'000), Text("A"));
  emitter.Emit(Event(0x0110, 2'000'000), Text("", tmpl::Level::kAppl, tmpl::EvalStatus::kSkip));
  emitter.Emit(Event(0x0120, 3'000'000), Text("", tmpl::Level::kNoPrint));
  emitter.Emit(Event(0x0130, 4'000'000, false), Text("C"));
  EXPECT_EQ(out,
            "010    0.001000000       1.000000   A\n"
            "013    0.004000000*      3.000000   C\n");
}

TEST_F(EmitterTest, PagesizeRepeatsTheColumnHeader) {
  ReportOptions options;
  options.layout.pagesize = 3;
  options.layout.timestamp = TimestampStyle::kNone;
  std::string out;
  Emitter emitter(options, out);
  for (int i = 0; i < 5; ++i) emitter.Emit(Event(0x0100, i), Text("E"));
  EXPECT_EQ(out,
            "ID  APPL    SYSCALL KERNEL  INTERRUPT\n010 E\n010 E\n"
            "ID  APPL    SYSCALL KERNEL  INTERRUPT\n010 E\n010 E\n"
            "ID  APPL    SYSCALL KERNEL  INTERRUPT\n010 E\n");
}

TEST_F(EmitterTest, TwoLinePutsTheTextUnderThePrefix) {
  ReportOptions options;
  options.no_header = true;
  options.layout.two_line = true;
  options.layout.pid = true;
  options.layout.timestamp = TimestampStyle::kNone;
  std::string out;
  Emitter emitter(options, out);
  emitter.Emit(Event(0x0100, 0), Text("SVC TEXT", tmpl::Level::kSvc));
  EXPECT_EQ(out,
            "010 42\n"
            "                       SVC TEXT\n");
}

TEST_F(EmitterTest, StopEndsAfterTheEvent) {
  ReportOptions options;
  options.no_header = true;
  options.layout.timestamp = TimestampStyle::kNone;
  std::string out;
  Emitter emitter(options, out);
  EXPECT_TRUE(emitter.Emit(Event(0x0100, 0), Text("A")));
  EXPECT_FALSE(
      emitter.Emit(Event(0x0100, 0), Text("B", tmpl::Level::kAppl, tmpl::EvalStatus::kStop)));
  EXPECT_EQ(out, "010 A\n010 B\n");
}

TEST_F(EmitterTest, ExecPidTidColumns) {
  ReportOptions options;
  options.no_header = true;
  options.layout.exec = options.layout.pid = options.layout.tid = true;
  options.layout.timestamp = TimestampStyle::kElapsedUsec;
  std::string out;
  Emitter emitter(options, out);
  emitter.Emit(Event(0x1234, 2'000), Text("X"));
  EXPECT_EQ(out, "1234 prog           42       43            0.000002   X\n");
}

}  // namespace
}  // namespace rastrace::report
