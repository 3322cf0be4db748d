#include "schema/decoder.h"

#include <gtest/gtest.h>

#include <cstring>
#include <fstream>

#include "event/format.h"
#include "event/log_builder.h"
#include "event/reader.h"
#include "event/temp_dir.h"
#include "posix/log_format.h"
#include "schema/test_render.h"

namespace rastrace::schema {
namespace {

using event::testing::LogBuilder;
using testing::Describe;
using testing::Render;

// Decodes every event of a log built in memory.
class DecodeTest : public ::testing::Test {
 protected:
  void LoadTemplates(std::string_view text) {
    std::vector<tmpl::Diagnostic> diagnostics;
    templates_.AddText(text, "test.trcfmt", diagnostics);
    for (const auto& d : diagnostics) ADD_FAILURE() << d.ToString();
  }

  std::vector<std::string> DecodeAll(const LogBuilder& log) {
    DecoderSources sources;
    sources.templates = &templates_;
    sources.declarations = &declarations_;
    sources.tracepoints = &tracepoints_;
    sources.syscalls = syscalls_.get();
    decoder_ = std::make_unique<Decoder>(sources);
    // Identify, on a decoder of its own, names every event as Decode does.
    Decoder identifier(sources);
    auto reader = event::LogReader::FromBytes(log.bytes(), "test", {.reformat = false});
    EXPECT_TRUE(reader) << reader.error().message;
    std::vector<std::string> out;
    event::Event e;
    while (reader->Next(e) == event::ReadStatus::kEvent) {
      const auto decoded = decoder_->Decode(e, reader->byte_order(), reader->layout());
      out.push_back(Render(decoded));
      const Schema& identified = identifier.Identify(e, reader->byte_order(), reader->layout());
      EXPECT_EQ(identified.name, decoded.schema->name);
      EXPECT_EQ(identified.id, decoded.schema->id);
    }
    return out;
  }

  const Schema& Named(std::string_view name) {
    const Schema* s = decoder_->catalog().Find(name);
    EXPECT_NE(s, nullptr) << name;
    static const Schema kNone;
    return s != nullptr ? *s : kNone;
  }

  tmpl::TemplateSet templates_;
  Declarations declarations_;
  tsf::FormatPath tracepoints_;
  std::unique_ptr<SyscallFormats> syscalls_;
  std::unique_ptr<Decoder> decoder_;
};

TEST_F(DecodeTest, LabelsBeforeCodesNameTypedFields) {
  LoadTemplates(
      "106 1.0 L=KERN \"DISPATCH\" \"tid=\" W1 U8 \"priority=\" W2 U8 \"old_tid=\" W3 U8 "
      "\"old_state=\" W4 A1 \"CPUID=\" W5 U8\n"
      "200 1.0 \"TYPES\" \"count\" W1 D8 \"mask\" X8 \"small\" U4 \"ratio\" W4 F8\n");
  LogBuilder log;
  log.Hook(0x1060, 0, {77, 120, 76, 'R', 1}, 77, 100);
  uint64_t two_and_a_half = 0;
  const double value = 2.5;
  std::memcpy(&two_and_a_half, &value, sizeof value);
  log.Hook(0x2000, 0, {static_cast<uint64_t>(-5), 0xff00, 0x1'0000'0007, two_and_a_half}, 1, 200);
  const auto lines = DecodeAll(log);
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0], "dispatch: tid=77 priority=120 old_tid=76 old_state='R' cpuid=1");
  // D8 signed, X8 hex, U4 the low half of word 3 (a little-endian log), F8 a double.
  EXPECT_EQ(lines[1], "types: count=-5 mask=0xff00 small=7 ratio=2.5");
  EXPECT_EQ(Describe(Named("types")), "types(count:int8 mask:hex8 small:uint4 ratio:float8)");
  EXPECT_EQ(Named("dispatch").title, "DISPATCH");
  EXPECT_EQ(Named("dispatch").described_by, "test.trcfmt:1");
}

TEST_F(DecodeTest, UnnamedCodesGetNamesByWhereTheyRead) {
  LoadTemplates(
      "012 1.0 L=APPL \"FIVE WORDS\" W1 UW UW UW UW UW\n"
      "014 1.0 L=APPL \"GENERIC\" W1 XW LOOP HB {X1}\n"
      "015 1.0 L=APPL \"TEXT\" \"word\" W1 UW \"string\" LOOP HB {A1}\n"
      "016 1.0 L=APPL \"SPARSE\" G16 X4 \"(\" X2\n");
  LogBuilder log;
  log.Hook(0x0120, 0, {1, 2, 3, 4, 5}, 1, 1);
  log.Generic(0x0140, 0, 42, std::string_view("\x01\x02\x03", 3), 1, 2);
  log.Generic(0x0150, 0, 42, std::string_view("hello\0", 6), 1, 3);
  log.Generic(0x0160, 0, 0x1122334455667788, std::string_view("\x0a\x0b\x0c\x0d\x0e\x0f", 6), 1, 4);
  const auto lines = DecodeAll(log);
  ASSERT_EQ(lines.size(), 4u);
  EXPECT_EQ(lines[0], "five_words: d1=1 d2=2 d3=3 d4=4 d5=5");
  EXPECT_EQ(lines[1], "generic: data_word=0x2a buffer=010203");
  EXPECT_EQ(lines[2], "text: word=42 string='hello'");
  EXPECT_EQ(lines[3], "sparse: buffer_0=0xd0c0b0a buffer_4=0xf0e");
}

TEST_F(DecodeTest, MacrosAssignedFromCodesAreFieldsAndCountLoops) {
  LoadTemplates(
      "300 1.0 \"REQ\" W1 {{ $addr = XW }} {{ $len = U2 }} \"id\" U2 \"body\" LOOP $len {X1} "
      "\"after\" U1\n");
  LogBuilder log;
  const std::vector<uint8_t> buffer = {3, 0, 9, 0, 0xaa, 0xbb, 0xcc, 7};
  log.Generic(0x3000, 0, 0xdead, buffer, 1, 1);
  const auto lines = DecodeAll(log);
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0], "req: addr=0xdead len=3 id=9 body=aabbcc after=7");
}

TEST_F(DecodeTest, TheWalkStopsWhereOnlyRunningTheTemplateCouldTell) {
  LoadTemplates(
      "400 1.0 \"CALLS\" \"first\" W1 U8 $401 \"second\" U8\n"
      "401 1.0 \"SUB\" U8\n"
      "402 1.0 \"SWITCH\" \"kind\" W1 U8, 1 { \"one\" U8 }, \\* { \"other\" } \"next\" U8\n"
      "403 1.0 \"TEXTCASES\" \"kind\" W1 U8, 1 \"one\", \\* \"other\" \"next\" U8\n");
  LogBuilder log;
  log.Hook(0x4000, 0, {1, 2}, 1, 1);
  log.Hook(0x4020, 0, {1, 2, 3}, 1, 2);
  log.Hook(0x4030, 0, {1, 2}, 1, 3);
  const auto lines = DecodeAll(log);
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[0], "calls: first=1");
  EXPECT_EQ(lines[1], "switch: kind=1");
  EXPECT_EQ(lines[2], "textcases: kind=1 next=2");
}

TEST_F(DecodeTest, ASubhookSwitchGivesASchemaPerCaseNamedByDeclarations) {
  LoadTemplates(
      "00A 1.0 L=0 \"@UTILITY\" G6 X2, \\\n"
      "  0100 { \"process\" W1 U8 \"ppid\" U8 \"tid\" U8 \"exec\" S2 }, \\\n"
      "  0101 { \"The system contains\" W1 U8 \"cpus, of which\" U8 \"were traced.\" }, \\\n"
      "  0108 { $SKIP }, \\\n"
      "  \\* { \"utility subhook\" G6 X2 $DEFAULT }\n");
  ASSERT_TRUE(ParseDeclaration("event 00A/0100 process pid", "t", declarations_));
  ASSERT_TRUE(ParseDeclaration("event 00A/0101 cpus total traced", "t", declarations_));
  LogBuilder log;
  log.Process(100, 1, 100, "/bin/prog");
  log.Hook(0x00A0, 0x0101, {8, 2}, 0, 5);
  log.Cpu(100, 3, 6);
  log.Hook(0x00A0, 0x0777, {1}, 0, 7);
  const auto lines = DecodeAll(log);
  ASSERT_EQ(lines.size(), 4u);
  EXPECT_EQ(lines[0], "process: pid=100 ppid=1 tid=100 exec='/bin/prog'");
  EXPECT_EQ(lines[1], "cpus: total=8 traced=2");
  EXPECT_EQ(lines[2], "utility_0108:");
  // The other case calls $DEFAULT (a subroutine): it describes the subhook it prints, then stops.
  EXPECT_EQ(lines[3], "utility: utility_subhook=0x777");
  EXPECT_EQ(Named("cpus").title, "UTILITY 0101");
}

TEST_F(DecodeTest, ShortEventsLeaveFieldsAbsentAndIdsWithoutTemplatesAreRaw) {
  LoadTemplates("500 1.0 \"THREE\" W1 U8 U8 U8\n");
  LogBuilder log;
  log.Hook(0x5000, 0, {1}, 1, 1);
  log.Hook(0x5010, 0, {9, 8}, 1, 2);
  log.Generic(0x5020, 3, 7, std::string_view("ab"), 1, 3);
  const auto lines = DecodeAll(log);
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[0], "three: d1=1 d2=null d3=null");
  EXPECT_EQ(lines[1], "hook_501: d1=0x9 d2=0x8 d3=null d4=null d5=null");
  EXPECT_EQ(lines[2], "hook_502: data_word=0x7 buffer=6162");
  EXPECT_EQ(Named("hook_501").family, Family::kRaw);
}

TEST_F(DecodeTest, BigEndianLogsAnd32BitDataReadAsTemplatesSeeThem) {
  LoadTemplates("600 1.0 \"PAIR\" \"a\" W1 XW \"b\" XW \"sub\" G6 X2\n");
  LogBuilder big(event::Layout::k64, ByteOrder::kBig);
  big.Hook(0x6000, 0x1234, {0x11, 0x22}, 1, 1);
  // A 32-bit application on a 64-bit kernel (B): templates see the 32-bit layout, word 4 bytes.
  big.Hook32BitData(0x6000, 0x1234, {0x33, 0x44}, 1, 2);
  const auto lines = DecodeAll(big);
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0], "pair: a=0x11 b=0x22 sub=0x1234");
  // The 32-bit layout has no subhook at byte 6: it is the low half of word 1 there.
  EXPECT_EQ(lines[1], "pair: a=0x33 b=0x44 sub=0x33");
}

TEST_F(DecodeTest, PosixEventsAreNamedByTheirTypeName) {
  LogBuilder log;
  for (const char* name : {"request start", "posix_trace_start", "request start"}) {
    posix::EventRecord r;
    r.event_id = 5;
    r.pid = 4242;
    r.thread = 0x77;
    r.prog_address = 0x401000;
    r.realtime_ns = 1'700'000'000'000'000'000;
    r.kernel_tid = 4243;
    r.data = {1, 2};
    std::vector<uint8_t> bytes;
    posix::EncodePosixEvent(r, name, ByteOrder::kLittle, bytes);
    log.Raw(bytes);
  }
  const auto lines = DecodeAll(log);
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[0],
            "request_start: pid=4242 thread=0x77 prog_address=0x401000 truncation=0 data=0102");
  EXPECT_EQ(lines[1].substr(0, lines[1].find(':')), "posix_trace_start");
  EXPECT_EQ(lines[2], lines[0]);
  EXPECT_EQ(decoder_->catalog().size(), 2u);
  EXPECT_EQ(Named("request_start").title, "request start");
  EXPECT_EQ(Named("request_start").family, Family::kPosix);
}

TEST_F(DecodeTest, TracepointsTakeFieldsFromTheirFormatFile) {
  event::testing::TempDir dir;
  {
    std::ofstream out(dir.File("TRC0064.TFF"));
    out << "RASTRACE-TFF 1\nmajor 0x0064\n"
           "tracepoint 0x0001 \"(OS) DosOpen    Pre-Invocation\"\n"
           "fmt \"Major = %X  Minor = %Y\"\n"
           "fmt \"            EAX = %D\"\n"
           "fmt \"            FileName = %P%S\"\n"
           "end\n";
  }
  tracepoints_ = tsf::FormatPath::Load({dir.path()});
  ASSERT_TRUE(tracepoints_.errors().empty());
  LogBuilder log;
  std::string data("\x2c\x4b\x00\x00", 4);
  data += std::string("\x00\x0d\x00", 3) + "C:\\CONFIG.SYS";
  log.TracepointHit(0x64, 1, 4242, 4242, 10, data);
  std::string bad("\x2c\x4b\x00\x00", 4);
  bad += std::string("\x02\x04\x00\xef\xbe\xad\xde", 7);
  log.TracepointHit(0x64, 1, 4242, 4242, 11, bad);
  log.TracepointHit(0x65, 2, 4242, 4242, 12, "xy");
  const auto lines = DecodeAll(log);
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[0], "os_dosopen_pre_invocation: eax=0x4b2c filename='C:\\CONFIG.SYS'");
  EXPECT_EQ(lines[1], "os_dosopen_pre_invocation: eax=0x4b2c filename=null");
  EXPECT_EQ(lines[2], "tracepoint_0065_0002: flags=0x0 data=7879");
  EXPECT_EQ(Named("os_dosopen_pre_invocation").described_by, "TRC0064.TFF");
}

TEST_F(DecodeTest, SystemCallsAreNamedAndTheirArgumentsTypedByTracefsFormats) {
  if (!SyscallFormats::Available()) {
    GTEST_SKIP() << "built without the session part: no tracefs format parser";
  }
  syscalls_ = std::make_unique<SyscallFormats>(std::string(RASTRACE_SOURCE_DIR) +
                                               "/tests/golden/schema/tracefs");
  LogBuilder log;
  const auto entry = [&](std::string_view name, uint64_t nr, std::initializer_list<uint64_t> args) {
    std::vector<uint8_t> buffer;
    size_t n = 0;
    for (uint64_t a : args) {
      const auto word = log.Word64(a);
      buffer.insert(buffer.end(), word.begin(), word.end());
      ++n;
    }
    for (; n < 6; ++n) buffer.resize(buffer.size() + 8, 0);
    const auto s2 = log.S2(name);
    buffer.insert(buffer.end(), s2.begin(), s2.end());
    log.Generic(event::kHookSystemCall, 0, nr, buffer, 10, 1);
  };
  entry("openat", 257, {static_cast<uint64_t>(-100), 0x7ffd0000, 0x80000, 0});
  entry("read", 0, {3, 0x5000, 4096});
  entry("getpid", 39, {});
  log.Generic(event::kHookSyscallReturn, 0, static_cast<uint64_t>(-2), log.S2("openat"), 10, 2);
  const auto lines = DecodeAll(log);
  ASSERT_EQ(lines.size(), 4u);
  EXPECT_EQ(lines[0],
            "syscall_entry_openat: nr=257 dfd=-100 filename=0x7ffd0000 flags=524288 mode=0");
  EXPECT_EQ(lines[1], "syscall_entry_read: nr=0 fd=3 buf=0x5000 count=4096");
  EXPECT_EQ(lines[2],
            "syscall_entry_getpid: nr=39 arg1=0x0 arg2=0x0 arg3=0x0 arg4=0x0 arg5=0x0 arg6=0x0");
  EXPECT_EQ(lines[3], "syscall_exit_openat: ret=-2");
  EXPECT_EQ(Describe(Named("syscall_entry_openat")),
            "syscall_entry_openat(nr:uint8 dfd:int4 filename:hex8 flags:int4 mode:uint2)");
  EXPECT_EQ(Named("syscall_entry_read").described_by, "tracefs syscalls/sys_enter_read");
}

TEST_F(DecodeTest, OneSchemaPerDescriptionWhateverTheLayout) {
  LoadTemplates("700 1.0 \"ONE\" \"value\" W1 UW\n");
  LogBuilder log64;
  log64.Hook(0x7000, 0, {5}, 1, 1);
  LogBuilder log32(event::Layout::k32);
  log32.Hook(0x7000, 0, {6}, 1, 1);
  EXPECT_EQ(DecodeAll(log64), std::vector<std::string>{"one: value=5"});
  EXPECT_EQ(DecodeAll(log32), std::vector<std::string>{"one: value=6"});
}

}  // namespace
}  // namespace rastrace::schema
