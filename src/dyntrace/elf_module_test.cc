#include "dyntrace/elf_module.h"

#include <dlfcn.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include "dyntrace/test_support.h"

extern "C" __attribute__((noinline, used)) int DyntraceElfProbeMe(int x) {
  return x + 1;
}

namespace rastrace::dyntrace {
namespace {

using testing::MarkerLine;
using testing::TestProgram;

class ElfModuleTest : public ::testing::TestWithParam<const char*> {};

TEST_P(ElfModuleTest, FindsFunctionsDataAndTheirFileBytes) {
  auto elf = ElfModule::Open(TestProgram(GetParam()));
  ASSERT_TRUE(elf) << elf.error().message;
  EXPECT_EQ(elf->position_independent(), std::string(GetParam()) == "dt_sample");
  auto dos_open = elf->FindSymbol("DosOpen");
  ASSERT_TRUE(dos_open) << dos_open.error().message;
  EXPECT_TRUE(dos_open->function);
  EXPECT_GT(dos_open->size, 8u);
  auto file_name = elf->FindSymbol("FileName");
  ASSERT_TRUE(file_name);
  EXPECT_FALSE(file_name->function);
  EXPECT_EQ(file_name->size, 128u);
  // -O0 with a frame pointer: every function starts with push %rbp (or endbr64).
  auto code = elf->ReadBytes(dos_open->value, 1);
  ASSERT_TRUE(code) << code.error().message;
  EXPECT_TRUE((*code)[0] == 0x55 || (*code)[0] == 0xF3) << int((*code)[0]);
  ASSERT_TRUE(elf->VaddrToFileOffset(dos_open->value));
  auto missing = elf->FindSymbol("DosClose");
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.error().message.find("no symbol 'DosClose'"), std::string::npos);
}

TEST_P(ElfModuleTest, MapsASourceLineIntoItsFunction) {
  auto elf = ElfModule::Open(TestProgram(GetParam()));
  ASSERT_TRUE(elf);
  int line = MarkerLine("sample.c", "after_createhandle");
  auto found = elf->FindLine("sample.c", line);
  ASSERT_TRUE(found) << found.error().message;
  EXPECT_EQ(found->line, line);
  auto dos_open = elf->FindSymbol("DosOpen");
  ASSERT_TRUE(dos_open);
  EXPECT_GT(found->address, dos_open->value);
  EXPECT_LT(found->address, dos_open->value + dos_open->size);
  // A path suffix names the same file.
  auto by_path = elf->FindLine("dyntrace/testdata/sample.c", line);
  ASSERT_TRUE(by_path) << by_path.error().message;
  EXPECT_EQ(by_path->address, found->address);
}

TEST_P(ElfModuleTest, ALineWithoutCodeMovesToTheNextThatHasSome) {
  auto elf = ElfModule::Open(TestProgram(GetParam()));
  ASSERT_TRUE(elf);
  auto found = elf->FindLine("sample.c", 1);  // the opening comment
  ASSERT_TRUE(found) << found.error().message;
  EXPECT_GT(found->line, 1);
  auto past_end = elf->FindLine("sample.c", 100000);
  ASSERT_FALSE(past_end);
  EXPECT_NE(past_end.error().message.find("no code at or after line 100000"), std::string::npos);
  auto other = elf->FindLine("dosopen1.c", 28);
  ASSERT_FALSE(other);
  EXPECT_NE(other.error().message.find("no source file 'dosopen1.c'"), std::string::npos);
}

INSTANTIATE_TEST_SUITE_P(PieAndNonPie, ElfModuleTest,
                         ::testing::Values("dt_sample", "dt_sample_nopie"));

TEST(ElfModule, LoadBiasGivesRunTimeAddressesOfTheExecutable) {
  char exe[4096] = {};
  ASSERT_GT(readlink("/proc/self/exe", exe, sizeof exe - 1), 0);
  auto elf = ElfModule::Open(exe);
  ASSERT_TRUE(elf) << elf.error().message;
  auto maps = ReadMaps(getpid());
  ASSERT_TRUE(maps);
  auto bias = elf->LoadBias(*maps);
  ASSERT_TRUE(bias) << bias.error().message;
  auto symbol = elf->FindSymbol("DyntraceElfProbeMe");
  ASSERT_TRUE(symbol) << symbol.error().message;
  EXPECT_EQ(symbol->value + *bias, reinterpret_cast<uint64_t>(&DyntraceElfProbeMe));
}

TEST(ElfModule, LoadBiasGivesRunTimeAddressesOfASharedObject) {
  auto maps = ReadMaps(getpid());
  ASSERT_TRUE(maps);
  auto libc = FindModulePath(*maps, "libc.so", getpid());
  ASSERT_TRUE(libc) << libc.error().message;
  auto elf = ElfModule::Open(*libc);
  ASSERT_TRUE(elf) << elf.error().message;
  EXPECT_TRUE(elf->position_independent());
  auto bias = elf->LoadBias(*maps);
  ASSERT_TRUE(bias);
  auto symbol = elf->FindSymbol("getpid");
  ASSERT_TRUE(symbol) << symbol.error().message;
  EXPECT_EQ(symbol->value + *bias, reinterpret_cast<uint64_t>(dlsym(RTLD_DEFAULT, "getpid")));
}

TEST(ElfModule, RefusesFilesThatAreNotElf) {
  auto source = ElfModule::Open(testing::TestSource("sample.c"));
  ASSERT_FALSE(source);
  EXPECT_NE(source.error().message.find("not an ELF file"), std::string::npos);
  auto missing = ElfModule::Open("/nonexistent/prog");
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.error().message.find("cannot open"), std::string::npos);
}

}  // namespace
}  // namespace rastrace::dyntrace
