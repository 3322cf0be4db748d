#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "tsf/tsf.h"

namespace rastrace::tsf {
namespace {

using ::testing::HasSubstr;

std::string Golden(const std::string& name) {
  return std::string(RASTRACE_SOURCE_DIR) + "/tests/golden/os2/" + name;
}

// Parses `text` and returns all diagnostics joined, one per line.
std::string Diagnostics(std::string_view text) {
  auto out = ParseTsf(text, "t.tsf");
  std::string all;
  for (const auto& d : out.diagnostics) all += d.ToString() + "\n";
  return all;
}

Module MustParse(std::string_view text) {
  auto out = ParseTsf(text, "t.tsf");
  std::string all;
  for (const auto& d : out.diagnostics) all += d.ToString() + "\n";
  EXPECT_TRUE(out.module.has_value()) << all;
  return out.module.value_or(Module{});
}

// The 100-error limit holds for the whole-file checks too: 1,000 duplicate MINORs print 100
// errors and one line counting the rest (they printed 999).
TEST(TsfParser, TheErrorLimitCoversTheWholeFileChecks) {
  std::string text = "MAJOR=1\n";
  for (int i = 0; i < 1000; ++i) text += "TRACE MINOR=1,TP=@STATIC\n";
  auto out = ParseTsf(text, "t.tsf");
  EXPECT_FALSE(out.module.has_value());
  ASSERT_EQ(out.diagnostics.size(), 101u);
  EXPECT_EQ(out.diagnostics.back().ToString(),
            "t.tsf:103:13: error: 899 more errors and 0 more warnings not shown (at most 100 of "
            "each are)");
}

TEST(TsfParser, Seed004SampleCompiles) {
  auto out = ParseTsfFile(Golden("sample.tsf"));
  ASSERT_TRUE(out.ok());
  for (const auto& d : out->diagnostics) ADD_FAILURE() << d.ToString();
  ASSERT_TRUE(out->module.has_value());
  const Module& m = *out->module;
  EXPECT_EQ(m.modname, "doscall1.dll");
  EXPECT_EQ(m.major, 100);
  EXPECT_EQ(m.max_data_length, 200);
  ASSERT_EQ(m.types.size(), 4u);
  EXPECT_EQ(m.types[1].name, "SYS");
  EXPECT_EQ(m.types[1].id, 0x40u);
  EXPECT_EQ(m.types[3].id, 0x8000u);
  ASSERT_EQ(m.groups.size(), 4u);
  EXPECT_EQ(m.groups[3].id, 0x2Bu);
  ASSERT_EQ(m.tracepoints.size(), 3u);

  const Tracepoint& open = m.tracepoints[0];
  EXPECT_EQ(open.minor, 1);
  EXPECT_EQ(open.site.kind, TracepointSite::Kind::kSymbol);
  EXPECT_EQ(open.site.symbol, "DosOpen");
  EXPECT_FALSE(open.site.retep);
  EXPECT_EQ(open.type_mask, 0x81u);
  EXPECT_EQ(open.group_id, 0x2Bu);
  EXPECT_EQ(open.desc, "(OS) DosOpen    Pre-Invocation");
  ASSERT_EQ(open.fmt.size(), 3u);
  EXPECT_EQ(open.fmt[2].text, "            FileName = %P%S");
  ASSERT_EQ(open.data.size(), 2u);
  EXPECT_EQ(open.data[0].kind, DataKind::kRegs);
  ASSERT_EQ(open.data[0].registers.size(), 1u);
  EXPECT_EQ(open.data[0].registers[0].name, "EAX");
  EXPECT_EQ(open.data[0].registers[0].size, 4);
  EXPECT_EQ(open.data[1].kind, DataKind::kAsciiz32);
  EXPECT_EQ(open.data[1].address.symbol, "FileName");
  EXPECT_EQ(open.data[1].indirection, Indirection::kDirect);
  EXPECT_EQ(open.data[1].length, 128u);

  const Tracepoint& check = m.tracepoints[1];
  EXPECT_EQ(check.minor, 0x7001);
  EXPECT_EQ(check.site.kind, TracepointSite::Kind::kFileLine);
  EXPECT_EQ(check.site.file, "dosopen1.c");
  EXPECT_EQ(check.site.line, 28u);

  const Tracepoint& post = m.tracepoints[2];
  EXPECT_EQ(post.minor, 0x8001);
  EXPECT_TRUE(post.site.retep);
  EXPECT_EQ(post.site.symbol, "DosOpenC");
  ASSERT_EQ(post.data.size(), 3u);
  EXPECT_EQ(post.data[1].kind, DataKind::kLen);
  EXPECT_EQ(post.data[1].address.base, Address::Base::kSymbol);
  EXPECT_EQ(post.data[1].address.symbol, "var_struct");
  EXPECT_EQ(post.data[1].address.displacement, 2);
  EXPECT_TRUE(post.data[2].length_from_len);
  EXPECT_EQ(m.FindMinor(0x8001), &post);
}

TEST(TsfParser, KeywordsAreCaseInsensitiveAndOrderFree) {
  Module m = MustParse(R"(modname=a.out major=0x10 maxdatalen=100
    typelist name=pre,id=2
    trace fmt="%p%w", mem32=(.x,d,2), Type=Pre, tp=.f+0x10, minor=5, desc="d")");
  ASSERT_EQ(m.tracepoints.size(), 1u);
  EXPECT_EQ(m.max_data_length, 100);
  EXPECT_EQ(m.tracepoints[0].minor, 5);
  EXPECT_EQ(m.tracepoints[0].site.offset, 0x10);
  EXPECT_EQ(m.tracepoints[0].type_mask, 2u);
}

TEST(TsfParser, WithoutMinorTracepointsAreNumberedInOrder) {
  Module m = MustParse("MAJOR=1\nTRACE TP=@STATIC\nTRACE TP=.b\nTRACE TP=@f.c,3");
  ASSERT_EQ(m.tracepoints.size(), 3u);
  EXPECT_EQ(m.tracepoints[0].minor, 1);
  EXPECT_EQ(m.tracepoints[0].site.kind, TracepointSite::Kind::kStatic);
  EXPECT_EQ(m.tracepoints[2].minor, 3);
  EXPECT_EQ(m.max_data_length, 512);
}

TEST(TsfParser, AddressFormsAndFlags) {
  Module m = MustParse(R"(MAJOR=2
    TRACE TP=.f-4,
      MEM32=(.s_ptr+4-1-(6),INDIRECT*+6*-8*,10),
      MEM32=(EBP+8,I,4),
      MEM32=(.p,IS,4),
      MEM=(SS:BP+6,IF,2),
      MEM=(DS:0x10,DIRECT,2),
      ASCIIZ=(DS:SI,D,20),
      REGS=(AX,rip,DS,.rv),
      FMT="%P%W%P%W%P%W%P%W%P%W%P%S%W%Q%W%F"
  )");
  const auto& d = m.tracepoints[0].data;
  ASSERT_EQ(d.size(), 7u);
  EXPECT_EQ(m.tracepoints[0].site.offset, -4);
  EXPECT_EQ(d[0].address.displacement, 3);
  EXPECT_EQ(d[0].address.final_displacement, -6);
  EXPECT_EQ(d[0].indirection, Indirection::kIndirect);
  EXPECT_EQ(d[0].indirect_offsets, (std::vector<int64_t>{6, -8, 0}));
  EXPECT_FALSE(d[0].Segmented());
  EXPECT_EQ(d[1].address.base, Address::Base::kRegister);
  EXPECT_EQ(d[1].address.reg->name, "EBP");
  EXPECT_EQ(d[1].address.displacement, 8);
  EXPECT_TRUE(d[2].Segmented());
  EXPECT_EQ(d[3].address.base, Address::Base::kSegmentRegister);
  EXPECT_EQ(d[3].address.segment, "SS");
  ASSERT_EQ(d[3].address.offset_registers.size(), 1u);
  EXPECT_EQ(d[3].address.offset_registers[0].reg.name, "BP");
  EXPECT_EQ(d[3].indirection, Indirection::kIndirectFlat);
  EXPECT_TRUE(d[3].Segmented());
  EXPECT_EQ(d[4].address.displacement, 0x10);
  EXPECT_TRUE(d[4].address.offset_registers.empty());
  ASSERT_EQ(d[6].registers.size(), 4u);
  EXPECT_EQ(d[6].registers[1].name, "RIP");
  EXPECT_EQ(d[6].registers[1].size, 8);
  EXPECT_TRUE(d[6].registers[2].segment);
  EXPECT_TRUE(d[6].registers[3].variable);
}

// Spec os2.md: the segmented forms "are parsed and kept in format files". OS/2's segment
// register form is Rsreg[{+|-}dreg]...[{+|-}n]...[{+|-}(n)]: RDS is DS:0.
TEST(TsfParser, SegmentedFormsAreParsed) {
  Module m = MustParse(R"(MAJOR=3
    TRACE TP=.f,
      MEM=(RDS+DI,DIRECT,4),
      ASCIIZ=(RSS+SP+2,INDIRECT,16),
      MEM=(SS:BP+6,DIRECT,2),
      MEM32=(res+BX-SI+0x10+(4),IS,8),
      ASCIIZ=(SS:BP+SI-2,IF,8),
      MEM=(RGS,D,1),
      FMT="%P%F %P%S %P%W %P%Q %P%S %P%B"
  )");
  const auto& d = m.tracepoints[0].data;
  ASSERT_EQ(d.size(), 6u);
  for (const DataStatement& s : d) {
    EXPECT_EQ(s.address.base, Address::Base::kSegmentRegister);
    EXPECT_TRUE(s.Segmented());
  }
  EXPECT_EQ(d[0].address.segment, "DS");
  ASSERT_EQ(d[0].address.offset_registers.size(), 1u);
  EXPECT_EQ(d[0].address.offset_registers[0].reg.name, "DI");
  EXPECT_FALSE(d[0].address.offset_registers[0].subtract);
  EXPECT_EQ(d[0].address.displacement, 0);
  EXPECT_EQ(d[1].address.segment, "SS");
  EXPECT_EQ(d[1].address.offset_registers[0].reg.name, "SP");
  EXPECT_EQ(d[1].address.displacement, 2);
  EXPECT_EQ(d[2].address.offset_registers[0].reg.name, "BP");
  EXPECT_EQ(d[2].address.displacement, 6);
  EXPECT_EQ(d[3].address.segment, "ES");
  ASSERT_EQ(d[3].address.offset_registers.size(), 2u);
  EXPECT_EQ(d[3].address.offset_registers[1].reg.name, "SI");
  EXPECT_TRUE(d[3].address.offset_registers[1].subtract);
  EXPECT_EQ(d[3].address.displacement, 0x10);
  EXPECT_EQ(d[3].address.final_displacement, 4);
  EXPECT_EQ(d[4].address.offset_registers.size(), 2u);
  EXPECT_EQ(d[4].address.displacement, -2);
  EXPECT_EQ(d[5].address.segment, "GS");
  EXPECT_TRUE(d[5].address.offset_registers.empty());
  // `.RDS` is a symbol; RSI stays the x86-64 register.
  Module symbols = MustParse(
      "MAJOR=3 TRACE TP=.f, MEM32=(.RDS,D,4), MEM32=(RSI+8,D,4), "
      "FMT=\"%P%F %P%F\"");
  EXPECT_EQ(symbols.tracepoints[0].data[0].address.base, Address::Base::kSymbol);
  EXPECT_EQ(symbols.tracepoints[0].data[0].address.symbol, "RDS");
  EXPECT_EQ(symbols.tracepoints[0].data[1].address.base, Address::Base::kRegister);
  EXPECT_EQ(symbols.tracepoints[0].data[1].address.reg->name, "RSI");
}

// Spec os2.md lists DIRECT, INDIRECT[*[+-n]]..., IF and IS without restriction.
TEST(TsfParser, EveryFlagOnEveryDataStatement) {
  for (const char* kind : {"MEM32", "MEM", "ASCIIZ32", "ASCIIZ"}) {
    for (const char* flag : {"DIRECT", "D", "INDIRECT", "I", "INDIRECT*+4*-2", "IF", "IS"}) {
      const std::string text =
          fmt::format("MAJOR=1 TRACE TP=.f, {}=(.p,{},4), FMT=\"%P%U\"", kind, flag);
      auto out = ParseTsf(text, "t.tsf");
      EXPECT_TRUE(out.module.has_value()) << text << "\n" << Diagnostics(text);
    }
  }
  for (const char* flag : {"DIRECT", "INDIRECT*+4", "IF", "IS"}) {
    const std::string text =
        fmt::format("MAJOR=1 TRACE TP=.f, LEN=(.n,{}), MEM32=(.p,D,LEN), FMT=\"%P%U\"", flag);
    EXPECT_TRUE(ParseTsf(text, "t.tsf").module.has_value()) << text << "\n" << Diagnostics(text);
  }
  // IF from flat code follows one flat pointer: that is INDIRECT, and can be attached.
  Module m = MustParse(
      "MAJOR=1 TRACE TP=.f, MEM32=(.p,IF,4), ASCIIZ32=(.s,IF,9), "
      "MEM=(.q,IF,2), ASCIIZ=(.t,IS,3), FMT=\"%P%F %P%S %P%W %P%S\"");
  const auto& d = m.tracepoints[0].data;
  EXPECT_EQ(d[0].indirection, Indirection::kIndirect);
  EXPECT_FALSE(d[0].Segmented());
  EXPECT_EQ(d[1].indirection, Indirection::kIndirect);
  EXPECT_EQ(d[2].indirection, Indirection::kIndirectFlat);
  EXPECT_EQ(d[3].indirection, Indirection::kIndirectSegmented);
}

// Data records are in the order of the data statements, whatever it is (seed 004 lists REGS
// first only as an example).
TEST(TsfParser, DataInDeclarationOrder) {
  Module m = MustParse(R"(MAJOR=1
    TRACE TP=.DosOpen,
      FMT="FileName = %P%S",
      FMT="AX = %W",
      ASCIIZ32=(.FileName,DIRECT,128),
      REGS=(AX)
    TRACE TP=.g, FMT="%P%W %F %P%S %W", MEM32=(.a,D,2), REGS=(EAX), ASCIIZ=(RDS+SI,D,8), REGS=(BX)
  )");
  ASSERT_EQ(m.tracepoints[0].data.size(), 2u);
  EXPECT_EQ(m.tracepoints[0].data[0].kind, DataKind::kAsciiz32);
  EXPECT_EQ(m.tracepoints[0].data[1].kind, DataKind::kRegs);
  EXPECT_THAT(Diagnostics("MAJOR=1 TRACE TP=.f, FMT=\"%W %P%S\", ASCIIZ32=(.s,D,8), REGS=(AX)"),
              HasSubstr("%W here, but the next data is the ASCIIZ32 record"));
}

// LEN= right before the MEM32=/MEM= it sizes, whatever that statement's flags.
TEST(TsfParser, LenBeforeItsMemWithAnyFlags) {
  for (const char* mem :
       {"MEM32=(.p,DIRECT,LEN)", "MEM32=(.p,INDIRECT,LEN)", "MEM32=(.p,INDIRECT*+6*-2,LEN)",
        "MEM32=(.p,I*,LEN)", "MEM32=(.p,IS,LEN)", "MEM32=(.p,IF,LEN)", "MEM=(RDS+DI,D,LEN)",
        "MEM=(SS:BP+4,INDIRECT*+2,LEN)", "MEM=(.p,IF,LEN)", "MEM=(.p,IS,LEN)"}) {
    const std::string text =
        fmt::format("MAJOR=1 TRACE TP=.f, LEN=(.p,INDIRECT*+4), {}, FMT=\"%P%U\"", mem);
    auto out = ParseTsf(text, "t.tsf");
    ASSERT_TRUE(out.module.has_value()) << text << "\n" << Diagnostics(text);
    EXPECT_TRUE(out.module->tracepoints[0].data[1].length_from_len) << text;
  }
}

TEST(TsfParser, StaticTracepointWithoutDataStatementsTakesAnyFmt) {
  // The program records the data itself (DosSysTrace); only the FMT syntax is checked.
  Module m = MustParse("MAJOR=1 TRACE TP=@STATIC, FMT=\"%W %P%S %D\"");
  EXPECT_EQ(m.tracepoints[0].fmt.size(), 1u);
  EXPECT_THAT(Diagnostics("MAJOR=1 TRACE TP=@STATIC, FMT=\"%W %Z\""),
              HasSubstr("t.tsf:1:35: error: in FMT: unknown control '%Z'"));
  // A dynamic tracepoint records exactly its data statements.
  EXPECT_THAT(Diagnostics("MAJOR=1 TRACE TP=.f, FMT=\"%W\""),
              HasSubstr("t.tsf:1:27: error: %W here, but the data statements record no more data"));
}

TEST(TsfParser, StringEscapes) {
  Module m = MustParse(R"(MAJOR=1 TRACE TP=@STATIC, DESC="a \"q\" b\\c \n")");
  EXPECT_EQ(m.tracepoints[0].desc, R"(a "q" b\c \n)");
}

TEST(TsfParser, SemicolonAndBlockComments) {
  Module m = MustParse("; header\nMAJOR=1 /* c\n c */ TRACE TP=@STATIC ; x\n, DESC=\"a;b\"");
  EXPECT_EQ(m.tracepoints[0].desc, "a;b");
}

struct ErrorCase {
  const char* name;
  const char* text;
  const char* where;    // "line:col"
  const char* message;  // part of the message
};

class TsfErrors : public ::testing::TestWithParam<ErrorCase> {};

TEST_P(TsfErrors, ReportsFileLineColumn) {
  const ErrorCase& c = GetParam();
  auto out = ParseTsf(c.text, "t.tsf");
  EXPECT_FALSE(out.module.has_value());
  EXPECT_TRUE(out.HasErrors());
  std::string all;
  for (const auto& d : out.diagnostics) all += d.ToString() + "\n";
  EXPECT_THAT(all, HasSubstr(std::string("t.tsf:") + c.where + ": error: ")) << all;
  EXPECT_THAT(all, HasSubstr(c.message)) << all;
}

INSTANTIATE_TEST_SUITE_P(
    Rules, TsfErrors,
    ::testing::Values(
        ErrorCase{"MissingMajor", "TRACE TP=@STATIC", "1:1", "MAJOR= is required"},
        ErrorCase{"MajorZero", "MAJOR=0", "1:1", "MAJOR must be 1 to 0xFFFF"},
        ErrorCase{"MajorTooBig", "MAJOR=0x10000", "1:1", "MAJOR must be 1 to 0xFFFF"},
        ErrorCase{"MaxDataTooSmall", "MAJOR=1\nMAXDATALENGTH=19", "2:1", "20 to 4099"},
        ErrorCase{"MaxDataTooBig", "MAJOR=1\nMAXDATALEN=4100", "2:1", "20 to 4099"},
        ErrorCase{"MajorTwice", "MAJOR=1\nMAJOR=2", "2:1", "given twice"},
        ErrorCase{"TypeNotPowerOfTwo", "MAJOR=1 TYPELIST NAME=A,ID=3", "1:28",
                  "not a power of two"},
        ErrorCase{"TypeIdZero", "MAJOR=1 TYPELIST NAME=A,ID=0", "1:28", "not a power of two"},
        ErrorCase{"NameTooLong", "MAJOR=1 GROUPLIST NAME=ABCDEFGHI,ID=1", "1:24", "longer than 8"},
        ErrorCase{"NameNotUnique", "MAJOR=1 TYPELIST NAME=A,ID=1\nGROUPLIST NAME=a,ID=1", "2:16",
                  "already defined at line 1"},
        ErrorCase{"MinorSomeNotAll", "MAJOR=1\nTRACE MINOR=1,TP=@STATIC\nTRACE TP=@STATIC", "3:1",
                  "MINOR on every TRACE or on none"},
        ErrorCase{"MinorDuplicate", "MAJOR=1\nTRACE MINOR=1,TP=@STATIC\nTRACE MINOR=1,TP=.x",
                  "3:13", "already used by the TRACE at line 2"},
        ErrorCase{"MinorZero", "MAJOR=1\nTRACE MINOR=0,TP=@STATIC", "2:13",
                  "MINOR must be 1 to 0xFFFF"},
        ErrorCase{"MinorTooBig", "MAJOR=1\nTRACE MINOR=0x10000,TP=@STATIC", "2:13",
                  "MINOR must be 1 to 0xFFFF"},
        ErrorCase{"NoTp", "MAJOR=1\nTRACE DESC=\"x\"", "2:1", "TRACE needs TP="},
        ErrorCase{"UnknownType", "MAJOR=1\nTRACE TP=@STATIC, TYPE=(NOPE)", "2:25",
                  "unknown type 'NOPE'"},
        ErrorCase{"UnknownGroup", "MAJOR=1\nTRACE TP=@STATIC, GROUP=G", "2:25",
                  "unknown group 'G'"},
        ErrorCase{"UnknownKeyword", "MAJOR=1\nTRACE TP=@STATIC, COLOR=1", "2:19",
                  "unknown keyword 'COLOR'"},
        ErrorCase{"UnknownRegister", "MAJOR=1\nTRACE TP=@STATIC, REGS=(EAX,XYZ)", "2:29",
                  "unknown register 'XYZ'"},
        ErrorCase{"UnclosedString", "MAJOR=1\nTRACE TP=@STATIC, DESC=\"abc", "2:24", "not closed"},
        ErrorCase{"UnclosedComment", "MAJOR=1 /* abc", "1:9", "not closed"},
        ErrorCase{"ZeroLength", "MAJOR=1\nTRACE TP=@STATIC, MEM32=(.x,DIRECT,0)", "2:36",
                  "length of 0"},
        ErrorCase{"BadFlag", "MAJOR=1\nTRACE TP=@STATIC, MEM32=(.x,SIDEWAYS,2)", "2:29",
                  "expected DIRECT, INDIRECT"},
        ErrorCase{"RegisterTermOnSymbol", "MAJOR=1\nTRACE TP=@STATIC, MEM32=(.x+DI,D,2)", "2:29",
                  "register terms (+DI) belong to segment-register addresses"},
        ErrorCase{"SegmentRegisterInOffset", "MAJOR=1\nTRACE TP=@STATIC, MEM=(RDS+ES,D,2)", "2:28",
                  "expected a general register"},
        ErrorCase{"RegisterAfterFinalTerm", "MAJOR=1\nTRACE TP=@STATIC, MEM=(RDS+(2)+SI,D,2)",
                  "2:31", "must be the last term"},
        ErrorCase{"LenWithoutLen", "MAJOR=1\nTRACE TP=@STATIC, MEM32=(.x,DIRECT,LEN)", "2:19",
                  "needs a LEN= statement"},
        ErrorCase{"LenNotBeforeMem", "MAJOR=1\nTRACE TP=@STATIC, LEN=(.n,DIRECT), REGS=(AX)",
                  "2:19", "LEN= must come right before"},
        ErrorCase{"RetepOnStatic", "MAJOR=1\nTRACE TP=@STATIC,RETEP", "2:18",
                  "RETEP needs a procedure"},
        ErrorCase{"MissingComma", "MAJOR=1\nTRACE TP=@STATIC DESC=\"x\"", "2:18", "expected ','"},
        ErrorCase{"HeaderAfterTrace", "MAJOR=1\nTRACE TP=@STATIC\nMODNAME=x", "3:1",
                  "must come before the first TRACE"},
        ErrorCase{"BadNumber", "MAJOR=12z", "1:9", "unexpected 'z'"},
        ErrorCase{"SegmentWithoutColon", "MAJOR=1\nTRACE TP=@STATIC, MEM=(DS,DIRECT,2)", "2:24",
                  "needs ':'"},
        ErrorCase{"FmtUnknownControl", "MAJOR=1\nTRACE TP=@STATIC, FMT=\"ab %Z\"", "2:27",
                  "unknown control '%Z'"},
        ErrorCase{"FmtPercentAtEnd", "MAJOR=1\nTRACE TP=@STATIC, FMT=\"ab %\"", "2:27",
                  "at the end of the FMT string"},
        ErrorCase{"FmtMissingP", "MAJOR=1\nTRACE TP=@STATIC, FMT=\"v=%W\", MEM32=(.x,D,2)", "2:26",
                  "code %P before it"},
        ErrorCase{"FmtTooManyP", "MAJOR=1\nTRACE TP=@STATIC, FMT=\"%P%W %P%W\", MEM32=(.x,D,2)",
                  "2:29", "no more MEM32"},
        ErrorCase{"FmtTooFewP",
                  "MAJOR=1\nTRACE TP=@STATIC, FMT=\"%P%W\", MEM32=(.x,D,2), MEM32=(.y,D,2)", "2:23",
                  "1 %P controls, but the tracepoint records 2"},
        ErrorCase{"FmtReadsTooMuch", "MAJOR=1\nTRACE TP=@STATIC, FMT=\"%P%F\", MEM32=(.x,D,2)",
                  "2:24", "%F reads 4 bytes, but only 2"},
        ErrorCase{"FmtRegsLeftBeforeP",
                  "MAJOR=1\nTRACE TP=@STATIC, FMT=\"%W %P%W\", REGS=(EAX), MEM32=(.x,D,2)", "2:27",
                  "2 bytes of REGS data (line 2) come first"},
        ErrorCase{"FmtBeyondData", "MAJOR=1\nTRACE TP=@STATIC, FMT=\"%W %W\", REGS=(AX)", "2:27",
                  "record no more data"},
        ErrorCase{"TypeIdReused", "MAJOR=1 TYPELIST NAME=A,ID=1, NAME=B,ID=1", "1:41",
                  "type ID 0x1 of B is already used by A"},
        ErrorCase{"GroupIdRange", "MAJOR=1 GROUPLIST NAME=G,ID=0x10000", "1:29",
                  "group ID of G must be 1 to 0xFFFF"},
        ErrorCase{"ListWithoutName", "MAJOR=1 TYPELIST ID=1", "1:18", "expected NAME= in TYPELIST"},
        ErrorCase{"KeywordOutsideTrace", "MAJOR=1\nDESC=\"x\"", "2:1",
                  "DESC= outside a TRACE statement"},
        ErrorCase{"UnknownTopKeyword", "MAJOR=1\nFOO=1", "2:1", "unknown keyword 'FOO'"},
        ErrorCase{"KeywordTwice", "MAJOR=1\nTRACE TP=@STATIC, TP=.x", "2:19", "TP= given twice"},
        ErrorCase{"GroupTwoNames",
                  "MAJOR=1 GROUPLIST NAME=A,ID=1, NAME=B,ID=2\n"
                  "TRACE TP=@STATIC, GROUP=(A,B)",
                  "2:28", "GROUP= takes one group name"},
        ErrorCase{"LenOnAsciiz", "MAJOR=1\nTRACE TP=@STATIC, ASCIIZ32=(.s,D,LEN)", "2:34",
                  "maximum length"},
        ErrorCase{"FinalDisplacementNotLast", "MAJOR=1\nTRACE TP=@STATIC, MEM32=(.s+(2)+4,D,2)",
                  "2:32", "must be the last term"},
        ErrorCase{"TwoFinalDisplacements", "MAJOR=1\nTRACE TP=@STATIC, MEM32=(.s+(2)+(4),D,2)",
                  "2:32", "only one (n) displacement"},
        ErrorCase{"TpWithoutLine", "MAJOR=1\nTRACE TP=@a.c", "2:14", "expected ','"},
        ErrorCase{"NumberTooBig", "MAJOR=1\nTRACE TP=.f+0x100000000", "2:13",
                  "does not fit 32 bits"},
        ErrorCase{"FmtSkipDigits", "MAJOR=1\nTRACE TP=@STATIC, FMT=\"%I123456\"", "2:24",
                  "1 to 5 decimal digits"}),
    [](const auto& info) { return info.param.name; });

TEST(TsfParser, WarnsOnDataBeyondMaxDataLength) {
  auto out =
      ParseTsf("MAJOR=1 MAXDATALENGTH=20\nTRACE TP=@STATIC,\n MEM32=(.x,DIRECT,30)", "t.tsf");
  ASSERT_TRUE(out.module.has_value());  // warnings do not stop the compile
  std::string all;
  for (const auto& d : out.diagnostics) all += d.ToString() + "\n";
  EXPECT_THAT(all, HasSubstr("t.tsf:3:2: warning: MEM32 length 30 is beyond MAXDATALENGTH 20"));
  EXPECT_EQ(out.module->tracepoints[0].data[0].length, 20u);
  EXPECT_THAT(all, HasSubstr("t.tsf:2:1: warning: the data of this tracepoint can reach 23"));
}

TEST(TsfParser, OneMistakeGivesOneErrorAndTheRestIsChecked) {
  std::string all = Diagnostics(
      "MAJOR=1\nTRACE TP=@STATIC, OPCODE=0x100, DESC=\"ok\"\nTRACE TP=.f, GROUP=NONE\n");
  EXPECT_THAT(all, HasSubstr("t.tsf:2:26: error: OPCODE is one instruction byte"));
  EXPECT_THAT(all, HasSubstr("t.tsf:3:20: error: unknown group 'NONE'"));
  EXPECT_EQ(std::count(all.begin(), all.end(), '\n'), 2) << all;
}

}  // namespace
}  // namespace rastrace::tsf
