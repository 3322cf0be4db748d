#include "dyntrace/resolver.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include "dyntrace/test_support.h"

extern "C" int DyntraceElfProbeMe(int x);  // elf_module_test.cc
extern "C" {
__attribute__((used)) char DyntraceResolverBuffer[32] = "resolver";
}

namespace rastrace::dyntrace {
namespace {

using testing::ParseModule;
using testing::ResolveInProcess;

// Resolves TSF text against this very test process (MODNAME dyntrace_test).
Result<std::vector<CompiledTracepoint>> ResolveHere(const std::string& text,
                                                    const Selection& selection = {}) {
  return ResolveInProcess(ParseModule(text), getpid(), selection);
}

std::string Header() {
  return "MODNAME = dyntrace_test\nMAJOR = 0x40\n";
}

TEST(Resolver, ResolvesSitesAndDataToRunTimeAddresses) {
  auto compiled = ResolveHere(Header() +
                              "TRACE MINOR=5, TP=.DyntraceElfProbeMe+1, "
                              "MEM32=(.DyntraceResolverBuffer+2,INDIRECT*+4,8), REGS=(EIP)\n");
  ASSERT_TRUE(compiled) << compiled.error().message;
  ASSERT_EQ(compiled->size(), 1u);
  const CompiledTracepoint& tracepoint = (*compiled)[0];
  EXPECT_EQ(tracepoint.major, 0x40);
  EXPECT_EQ(tracepoint.minor, 5);
  EXPECT_EQ(tracepoint.site.address, reinterpret_cast<uint64_t>(&DyntraceElfProbeMe) + 1);
  EXPECT_FALSE(tracepoint.site.retep);
  ASSERT_EQ(tracepoint.data.size(), 2u);
  const CompiledAddress& address = tracepoint.data[0].address;
  EXPECT_EQ(address.base_address, reinterpret_cast<uint64_t>(DyntraceResolverBuffer));
  EXPECT_EQ(address.displacement, 2);
  EXPECT_EQ(address.levels, 1);
  EXPECT_EQ(address.level_offsets, std::vector<int64_t>{4});
  EXPECT_EQ(tracepoint.data[1].registers[0].reg, Reg::kRip);
  EXPECT_FALSE(tracepoint.RegistersOnly());
}

TEST(Resolver, RefusesSegmentedFormsClearly) {
  auto compiled = ResolveHere(Header() +
                              "TRACE TP=.DyntraceElfProbeMe,\n"
                              "  MEM=(.DyntraceResolverBuffer,DIRECT,4)\n");
  ASSERT_FALSE(compiled);
  EXPECT_NE(compiled.error().message.find("test.tsf:4:"), std::string::npos)
      << compiled.error().message;
  EXPECT_NE(compiled.error().message.find("segmented"), std::string::npos);
}

// trcust keeps OS/2's segment register addresses and IS pointers; attaching them is refused
// with the same message. IF on MEM32 follows one flat pointer, as INDIRECT does, and attaches.
TEST(Resolver, RefusesSegmentRegisterAddressesAndIsPointers) {
  for (const char* statement :
       {"MEM32=(RDS+DI,DIRECT,4)", "ASCIIZ32=(RSS+SP+2,DIRECT,8)", "MEM32=(SS:BP+6,DIRECT,2)",
        "MEM32=(.DyntraceResolverBuffer,IS,4)", "ASCIIZ=(RDS+SI,IF,8)"}) {
    auto compiled = ResolveHere(Header() + "TRACE TP=.DyntraceElfProbeMe,\n  " + statement + "\n");
    ASSERT_FALSE(compiled) << statement;
    EXPECT_NE(compiled.error().message.find("test.tsf:4:3"), std::string::npos)
        << compiled.error().message;
    EXPECT_NE(compiled.error().message.find("segmented"), std::string::npos)
        << compiled.error().message;
  }
  auto flat = ResolveHere(Header() +
                          "TRACE TP=.DyntraceElfProbeMe, MEM32=(.DyntraceResolverBuffer,IF,4)\n");
  ASSERT_TRUE(flat) << flat.error().message;
  EXPECT_EQ((*flat)[0].data[0].address.levels, 1);
}

TEST(Resolver, RefusesStaticTracepointsAndUnknownSymbolsWithTheirPosition) {
  auto static_tp = ResolveHere(Header() + "TRACE TP=@STATIC, REGS=(EAX)\n");
  ASSERT_FALSE(static_tp);
  EXPECT_NE(static_tp.error().message.find("test.tsf:3:1: TP=@STATIC"), std::string::npos)
      << static_tp.error().message;
  auto unknown = ResolveHere(Header() + "TRACE TP=.NoSuchFunction, REGS=(EAX)\n");
  ASSERT_FALSE(unknown);
  EXPECT_NE(unknown.error().message.find("no symbol 'NoSuchFunction'"), std::string::npos);
  auto outside = ResolveHere(Header() + "TRACE TP=.DyntraceElfProbeMe+100000, REGS=(EAX)\n");
  ASSERT_FALSE(outside);
  EXPECT_NE(outside.error().message.find("outside"), std::string::npos);
  auto data = ResolveHere(Header() + "TRACE TP=.DyntraceElfProbeMe, MEM32=(.Nothing,DIRECT,4)\n");
  ASSERT_FALSE(data);
  EXPECT_NE(data.error().message.find("no symbol 'Nothing'"), std::string::npos);
}

TEST(Resolver, NeedsTheModuleMapped) {
  auto compiled = ResolveHere("MODNAME = doscall1.dll\nMAJOR = 1\nTRACE TP=.DosOpen, REGS=(EAX)\n");
  ASSERT_FALSE(compiled);
  EXPECT_NE(compiled.error().message.find("doscall1.dll is not mapped"), std::string::npos);
}

TEST(Resolver, SelectsByTypeGroupAndMinor) {
  tsf::Module module =
      ParseModule(Header() +
                  "TYPELIST NAME=PRE,ID=1, NAME=POST,ID=2\nGROUPLIST NAME=DOS,ID=3, NAME=FS,ID=4\n"
                  "TRACE MINOR=1, TP=.DyntraceElfProbeMe, TYPE=PRE, GROUP=DOS, REGS=(EAX)\n"
                  "TRACE MINOR=2, TP=.DyntraceElfProbeMe, TYPE=(PRE,POST), GROUP=FS, REGS=(EAX)\n"
                  "TRACE MINOR=3, TP=.DyntraceElfProbeMe, TYPE=POST, REGS=(EAX)\n");
  auto minors = [&](const Selection& selection) {
    std::vector<int> out;
    auto picked = SelectTracepoints(module, selection);
    if (picked) {
      for (const tsf::Tracepoint* t : *picked) out.push_back(t->minor);
    }
    return out;
  };
  EXPECT_EQ(minors({}), (std::vector<int>{1, 2, 3}));
  EXPECT_EQ(minors({{"post"}, {}, {}}), (std::vector<int>{2, 3}));
  EXPECT_EQ(minors({{}, {"dos", "FS"}, {}}), (std::vector<int>{1, 2}));
  EXPECT_EQ(minors({{"PRE"}, {"FS"}, {}}), (std::vector<int>{2}));
  EXPECT_EQ(minors({{}, {}, {3}}), (std::vector<int>{3}));
  auto unknown = SelectTracepoints(module, {{"API"}, {}, {}});
  ASSERT_FALSE(unknown);
  EXPECT_NE(unknown.error().message.find("TYPE API is not in the TYPELIST"), std::string::npos);
  auto none = SelectTracepoints(module, {{}, {}, {9}});
  ASSERT_FALSE(none);
  EXPECT_NE(none.error().message.find("picks no tracepoint"), std::string::npos);
}

}  // namespace
}  // namespace rastrace::dyntrace
