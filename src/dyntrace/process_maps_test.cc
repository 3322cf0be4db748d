#include "dyntrace/process_maps.h"

#include <gtest/gtest.h>
#include <unistd.h>

namespace rastrace::dyntrace {
namespace {

constexpr char kMaps[] =
    "555555554000-555555555000 r--p 00000000 08:01 1234    /usr/bin/prog\n"
    "555555555000-555555556000 r-xp 00001000 08:01 1234    /usr/bin/prog\n"
    "7ffff7dd0000-7ffff7df5000 r-xp 00028000 08:01 99      /usr/lib/x86_64-linux-gnu/libc.so.6\n"
    "7ffff7ff0000-7ffff7ff1000 rw-p 00000000 00:00 0 \n"
    "7ffffffde000-7ffffffff000 rw-p 00000000 00:00 0       [stack]\n";

TEST(ProcessMaps, ParsesEveryField) {
  auto maps = ParseMaps(kMaps);
  ASSERT_TRUE(maps) << maps.error().message;
  ASSERT_EQ(maps->size(), 5u);
  const Mapping& text = (*maps)[1];
  EXPECT_EQ(text.start, 0x555555555000u);
  EXPECT_EQ(text.end, 0x555555556000u);
  EXPECT_EQ(text.file_offset, 0x1000u);
  EXPECT_TRUE(text.readable);
  EXPECT_FALSE(text.writable);
  EXPECT_TRUE(text.executable);
  EXPECT_EQ(text.path, "/usr/bin/prog");
  EXPECT_EQ((*maps)[3].path, "");
  EXPECT_EQ((*maps)[4].path, "[stack]");
}

TEST(ProcessMaps, RejectsGarbageNamingTheLine) {
  auto maps = ParseMaps("555555554000-555555555000 r--p 00000000 08:01 1 /a\nnot a map line\n");
  ASSERT_FALSE(maps);
  EXPECT_NE(maps.error().message.find("line 2"), std::string::npos) << maps.error().message;
}

TEST(ProcessMaps, ModuleNamesMatchByFileNameVersionOrPath) {
  EXPECT_TRUE(ModuleMatches("/usr/bin/prog", "prog"));
  EXPECT_TRUE(ModuleMatches("/usr/lib/libc.so.6", "libc.so"));
  EXPECT_TRUE(ModuleMatches("/usr/lib/libc.so.6", "libc.so.6"));
  EXPECT_TRUE(ModuleMatches("/usr/bin/prog", "/usr/bin/prog"));
  EXPECT_FALSE(ModuleMatches("/usr/bin/prog", "/bin/prog"));
  EXPECT_FALSE(ModuleMatches("/usr/bin/program", "prog"));
  EXPECT_FALSE(ModuleMatches("[stack]", "stack"));
}

TEST(ProcessMaps, FindsModulesAndTranslatesOffsets) {
  auto maps = ParseMaps(kMaps);
  ASSERT_TRUE(maps);
  auto libc = FindModulePath(*maps, "libc.so", 42);
  ASSERT_TRUE(libc);
  EXPECT_EQ(*libc, "/usr/lib/x86_64-linux-gnu/libc.so.6");
  auto missing = FindModulePath(*maps, "doscall1.dll", 42);
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.error().message.find("doscall1.dll is not mapped in process 42"),
            std::string::npos);
  EXPECT_EQ(FileOffsetToAddress(*maps, "/usr/bin/prog", 0x1010), 0x555555555010u);
  EXPECT_EQ(FileOffsetToAddress(*maps, "/usr/bin/prog", 0x5000), std::nullopt);
  ASSERT_NE(FindMapping(*maps, 0x7ffffffde100), nullptr);
  EXPECT_EQ(FindMapping(*maps, 0x1000), nullptr);
}

TEST(ProcessMaps, ReadsALiveProcess) {
  auto maps = ReadMaps(getpid());
  ASSERT_TRUE(maps) << maps.error().message;
  const Mapping* here = FindMapping(*maps, reinterpret_cast<uint64_t>(&ReadMaps));
  ASSERT_NE(here, nullptr);
  EXPECT_TRUE(here->executable);
  EXPECT_FALSE(ReadMaps(-5));
}

}  // namespace
}  // namespace rastrace::dyntrace
