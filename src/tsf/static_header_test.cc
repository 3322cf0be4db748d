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
  EXPECT_THAT(*header, HasSubstr("len = rastrace_tsf_len(((uintptr_t)(rec) + (uintptr_t)(2)));"));
  EXPECT_THAT(*header, HasSubstr("rastrace_os2_sys_trace(0x42, 0x10, buf, r.n, 1)"));
}

TEST(StaticHeader, RejectsWhatOnlyDynamicTracepointsHave) {
  auto segmented = GenerateStaticHeader(Parse("MAJOR=1 TRACE TP=@STATIC, MEM=(DS:SI,D,2)"));
  ASSERT_FALSE(segmented.ok());
  EXPECT_THAT(segmented.error().message, HasSubstr("s.tsf:1:27: error: MEM cannot be recorded"));
  auto reg = GenerateStaticHeader(Parse("MAJOR=1 TRACE TP=@STATIC, MEM32=(EBP+8,D,2)"));
  ASSERT_FALSE(reg.ok());
  EXPECT_THAT(reg.error().message, HasSubstr("register-form addresses need a dynamic"));
  auto major = GenerateStaticHeader(Parse("MAJOR=0x100 TRACE TP=@STATIC"));
  ASSERT_FALSE(major.ok());
  EXPECT_THAT(major.error().message, HasSubstr("does not fit an STDA record"));
}

}  // namespace
}  // namespace rastrace::tsf
