#include "dyntrace/elf_module.h"

#include <dlfcn.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

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

// A stripped program finds its symbols and lines in the separate debug file its .gnu_debuglink
// names, through libdwfl's standard search.
TEST(ElfModuleDebugFileTest, SymbolsAndLinesComeFromTheDebugLink) {
  namespace fs = std::filesystem;
  fs::path dir = fs::temp_directory_path() / fmt::format("dyntrace-debuglink-{}", getpid());
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::string reason;
  std::string stripped = testing::StripWithDebugLink("dt_sample", dir.string(), reason);
  if (stripped.empty()) {
    fs::remove_all(dir);
    GTEST_SKIP() << reason;
  }
  auto original = ElfModule::Open(TestProgram("dt_sample"));
  ASSERT_TRUE(original);
  EXPECT_EQ(original->debug_path(), "");
  auto elf = ElfModule::Open(stripped);
  ASSERT_TRUE(elf) << elf.error().message;
  EXPECT_EQ(fs::path(elf->debug_path()).filename(), "dt_sample.debug");
  for (const char* name : {"DosOpen", "DosOpenC", "FileName", "handle"}) {
    auto symbol = elf->FindSymbol(name);
    ASSERT_TRUE(symbol) << symbol.error().message;
    EXPECT_EQ(symbol->value, original->FindSymbol(name)->value) << name;
    EXPECT_EQ(symbol->size, original->FindSymbol(name)->size) << name;
  }
  int line = MarkerLine("sample.c", "after_createhandle");
  auto found = elf->FindLine("sample.c", line);
  ASSERT_TRUE(found) << found.error().message;
  EXPECT_EQ(found->address, original->FindLine("sample.c", line)->address);
  // The code itself still comes from the stripped file (the debug file's .text is NOBITS).
  EXPECT_EQ(elf->ReadBytes(found->address, 4)->size(), 4u);

  // Without the debug file the stripped program has neither.
  fs::remove(dir / "dt_sample.debug");
  auto alone = ElfModule::Open(stripped);
  ASSERT_TRUE(alone);
  EXPECT_EQ(alone->debug_path(), "");
  EXPECT_FALSE(alone->FindSymbol("DosOpen"));
  auto no_line = alone->FindLine("sample.c", line);
  ASSERT_FALSE(no_line);
  EXPECT_NE(no_line.error().message.find("separate debug file"), std::string::npos);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace rastrace::dyntrace
