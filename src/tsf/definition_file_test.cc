#include "tsf/definition_file.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace rastrace::tsf {
namespace {

using ::testing::HasSubstr;

TEST(DefinitionFile, RoundTripsEveryForm) {
  auto parsed = ParseTsf(R"(MODNAME=/usr/lib/libx.so.1 MAJOR=0x21 MAXDATALEN=300
    TYPELIST NAME=PRE,ID=1, NAME=POST,ID=0x8000
    GROUPLIST NAME=IO,ID=7
    TRACE MINOR=3, TP=.ns::open-4, OPCODE=0x55, TYPE=(PRE,POST), GROUP=IO, DESC="a \"b\" \\",
      FMT="%P%W %P%S %P%U %P%U %D",
      MEM32=(.s_ptr+4-(6),INDIRECT*+6*-8,10), ASCIIZ32=(EBP-8,D,20),
      LEN=(n+2,IS), MEM32=(.v,DIRECT,LEN), MEM=(SS:BP+6,IF,2), REGS=(EAX,.rv)
    TRACE MINOR=4, TP=.close,RETEP
    TRACE MINOR=5, TP=@src/a.c,77)",
                         "in.tsf");
  ASSERT_TRUE(parsed.module.has_value()) << parsed.diagnostics[0].ToString();
  const std::string text = WriteDefinitionText(*parsed.module);
  EXPECT_EQ(text.substr(0, 17), "; RASTRACE-TDF 1\n");
  auto back = ParseDefinitionText(text, "out.tdf");
  ASSERT_TRUE(back.ok()) << back.error().message << "\n" << text;
  const std::string again = WriteDefinitionText(*back);
  // A fixed point, after the "written from" line.
  EXPECT_EQ(again.substr(again.find("\nMODNAME")), text.substr(text.find("\nMODNAME")));
  const Tracepoint& tp = back->tracepoints[0];
  EXPECT_EQ(back->modname, "/usr/lib/libx.so.1");
  EXPECT_EQ(back->max_data_length, 300);
  EXPECT_EQ(tp.site.symbol, "ns::open");
  EXPECT_EQ(tp.site.offset, -4);
  EXPECT_EQ(tp.opcode, 0x55);
  EXPECT_EQ(tp.type_mask, 0x8001u);
  EXPECT_EQ(tp.desc, "a \"b\" \\");
  ASSERT_EQ(tp.data.size(), 6u);
  EXPECT_EQ(tp.data[0].indirect_offsets, (std::vector<int64_t>{6, -8}));
  EXPECT_EQ(tp.data[0].address.final_displacement, -6);
  EXPECT_EQ(tp.data[1].address.reg->name, "EBP");
  EXPECT_EQ(tp.data[1].address.displacement, -8);
  EXPECT_EQ(tp.data[2].indirection, Indirection::kIndirectSegmented);
  EXPECT_EQ(tp.data[4].address.segment, "SS");
  EXPECT_TRUE(tp.data[5].registers[1].variable);
  EXPECT_TRUE(back->tracepoints[1].site.retep);
  EXPECT_EQ(back->tracepoints[2].site.file, "src/a.c");
  EXPECT_EQ(back->tracepoints[2].site.line, 77u);
}

// The segmented forms are kept in the definition file as written, in a form the parser reads
// back (and the parser of files written before them still reads every older form).
TEST(DefinitionFile, KeepsTheSegmentedForms) {
  auto parsed = ParseTsf(R"(MAJOR=7
    TRACE TP=.f, FMT="%P%F %P%S %P%W %P%Q %P%B",
      MEM=(RDS+DI,DIRECT,4), ASCIIZ=(RSS+SP+2,IF,16), MEM=(SS:BP+6,INDIRECT*+2,2),
      MEM32=(RES-SI+BX+0x10+(4),IS,8), MEM=(RGS,D,1))",
                         "in.tsf");
  ASSERT_TRUE(parsed.module.has_value()) << parsed.diagnostics[0].ToString();
  const std::string text = WriteDefinitionText(*parsed.module);
  auto back = ParseDefinitionText(text, "out.tdf");
  ASSERT_TRUE(back.ok()) << back.error().message << "\n" << text;
  const std::string again = WriteDefinitionText(*back);
  EXPECT_EQ(again.substr(again.find("\nMAJOR")), text.substr(text.find("\nMAJOR")));
  EXPECT_THAT(text, HasSubstr("MEM=(DS:DI,DIRECT,4)"));
  EXPECT_THAT(text, HasSubstr("ASCIIZ=(SS:SP+0x2,IF,16)"));
  EXPECT_THAT(text, HasSubstr("MEM=(SS:BP+0x6,INDIRECT*+0x2,2)"));
  EXPECT_THAT(text, HasSubstr("MEM32=(ES:0-SI+BX+0x10+(0x4),IS,8)"));
  EXPECT_THAT(text, HasSubstr("MEM=(GS:0,DIRECT,1)"));
  const auto& d = back->tracepoints[0].data;
  ASSERT_EQ(d.size(), 5u);
  ASSERT_EQ(d[3].address.offset_registers.size(), 2u);
  EXPECT_TRUE(d[3].address.offset_registers[0].subtract);
  EXPECT_EQ(d[3].address.offset_registers[1].reg.name, "BX");
  EXPECT_EQ(d[3].address.final_displacement, 4);
  for (const DataStatement& s : d) EXPECT_TRUE(s.Segmented());
}

TEST(DefinitionFile, RejectsOtherFilesAndVersions) {
  EXPECT_THAT(ParseDefinitionText("MAJOR=1\n", "x.tdf").error().message,
              HasSubstr("not a trace definition file"));
  EXPECT_THAT(ParseDefinitionText("; RASTRACE-TDF 9\nMAJOR=1\n", "x.tdf").error().message,
              HasSubstr("version '9' is not supported"));
  EXPECT_THAT(ParseDefinitionText("; RASTRACE-TDF 1\nMAJOR=0\n", "x.tdf").error().message,
              HasSubstr("x.tdf:2:1: error: MAJOR must be"));
  EXPECT_EQ(DefinitionFileName(0x64), "TRC0064.TDF");
}

}  // namespace
}  // namespace rastrace::tsf
