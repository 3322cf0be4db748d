#include "tsf/static_header.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace rastrace::tsf {
namespace {

using ::testing::HasSubstr;

Module Parse(std::string_view text) {
  auto out = ParseTsf(text, "s.tsf");
  EXPECT_TRUE(out.module.has_value());
  return out.module.value_or(Module{});
}

TEST(StaticHeader, OneFunctionPerStaticTracepoint) {
  Module m = Parse(R"(MODNAME=bin/My-App.elf MAJOR=0x42 MAXDATALEN=64
    TRACE MINOR=1, TP=@STATIC, FMT="%W %P%S", REGS=(AX), ASCIIZ32=(.name,DIRECT,32)
    TRACE MINOR=2, TP=.not_static
    TRACE MINOR=0x10, TP=@STATIC, FMT="%P%U", LEN=(.rec+2,DIRECT), MEM32=(.rec,DIRECT,LEN))");
  auto header = GenerateStaticHeader(m);
  ASSERT_TRUE(header.ok()) << header.error().message;
  EXPECT_EQ(StaticFunctionName(m, m.tracepoints[0]), "trace_my_app_0001");
  EXPECT_THAT(*header, HasSubstr("static inline int trace_my_app_0001(uint16_t ax, const void* "
                                 "name)"));
  EXPECT_THAT(*header, HasSubstr("rastrace_tsf_string(&r, (uintptr_t)(name), 32);"));
  EXPECT_THAT(*header, HasSubstr("uint8_t buf[64];"));
  EXPECT_THAT(*header, Not(HasSubstr("_0002")));
  // LEN and MEM32 share the parameter; the length is read at the LEN address.
  EXPECT_THAT(*header, HasSubstr("static inline int trace_my_app_0010(const void* rec)"));
  EXPECT_THAT(*header,
              HasSubstr("len = rastrace_tsf_len(&r, ((uintptr_t)(rec) + (uintptr_t)(2)));"));
  EXPECT_THAT(*header, HasSubstr("rastrace_os2_sys_trace(0x42, 0x10, buf, r.n, 1)"));
}

TEST(StaticHeader, RejectsWhatOnlyDynamicTracepointsHave) {
  auto segmented = GenerateStaticHeader(Parse("MAJOR=1 TRACE TP=@STATIC, MEM=(DS:SI,D,2)"));
  ASSERT_FALSE(segmented.ok());
  EXPECT_THAT(segmented.error().message, HasSubstr("s.tsf:1:27: error: MEM cannot be recorded"));
  auto reg = GenerateStaticHeader(Parse("MAJOR=1 TRACE TP=@STATIC, MEM32=(EBP+8,D,2)"));
  ASSERT_FALSE(reg.ok());
  EXPECT_THAT(reg.error().message, HasSubstr("register-form addresses need a dynamic"));
}

// Majors above 0xFF do not fit an STDA trailer: the function records generic hook 00C into a
// rastrace log (subhook = minor, word = major | flags << 16 | pid << 32), like trace on --log.
TEST(StaticHeader, MajorAboveFFRecordsIntoARastraceLog) {
  Module m = Parse(R"(MODNAME=big MAJOR=0x1234 MAXDATALEN=32
    TRACE MINOR=7, TP=@STATIC, FMT="%P%F", MEM32=(.value,DIRECT,4))");
  auto header = GenerateStaticHeader(m);
  ASSERT_TRUE(header.ok()) << header.error().message;
  EXPECT_THAT(*header, HasSubstr("#include <rastrace/trchk.h>"));
  EXPECT_THAT(*header, HasSubstr("if (!RASTRACE_CHANNEL_ON(0)) return 0;"));
  EXPECT_THAT(
      *header,
      HasSubstr(
          "rastrace_gent(RASTRACE_TSF_LOG_HOOK | 0x7u, (uint64_t)0x1234u | "
          "(uint64_t)0x01u << 16 | (uint64_t)(uint32_t)(r.pid != 0 ? r.pid : getpid()) << 32, "
          "r.n, buf);"));
  EXPECT_THAT(*header, Not(HasSubstr("rastrace_os2_sys_trace(0x1234")));
  auto small = GenerateStaticHeader(Parse("MAJOR=0xFF TRACE MINOR=1, TP=@STATIC"));
  ASSERT_TRUE(small.ok());
  EXPECT_THAT(*small, Not(HasSubstr("rastrace/trchk.h")));
  EXPECT_THAT(*small, HasSubstr("rastrace_os2_sys_trace(0xff, 0x1, buf, r.n, 1)"));
}

// Memory is read with process_vm_readv: an unreadable pointer, even one on the way (INDIRECT),
// is recorded with status 2 instead of faulting.
TEST(StaticHeader, PointersAreFollowedWithoutFaulting) {
  Module m = Parse(R"(MAJOR=0x42 TRACE MINOR=4, TP=@STATIC, MEM32=(.holder,INDIRECT,4))");
  auto header = GenerateStaticHeader(m);
  ASSERT_TRUE(header.ok()) << header.error().message;
  EXPECT_THAT(*header,
              HasSubstr("rastrace_tsf_mem(&r, rastrace_tsf_follow(&r, (uintptr_t)(holder), "
                        "0), 4);"));
  EXPECT_THAT(*header, HasSubstr("process_vm_readv(r->pid, &local, 1, &remote, 1, 0)"));
}

}  // namespace
}  // namespace rastrace::tsf
