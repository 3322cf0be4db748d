#include "event/raw_dump.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "event/test_util.h"

namespace rastrace::event {
namespace {

// DumpRaw's output and error message ("" at a clean end) for `log`.
std::pair<std::string, std::string> Dump(const std::vector<uint8_t>& log,
                                         ReaderOptions options = {}) {
  auto reader = LogReader::FromBytes(log, "d.log", options);
  EXPECT_TRUE(reader.ok()) << reader.error().message;
  char* text = nullptr;
  size_t size = 0;
  std::FILE* out = ::open_memstream(&text, &size);
  auto dumped = DumpRaw(*reader, out);
  std::fclose(out);
  std::string result(text, size);
  std::free(text);
  return {result, dumped ? std::string() : dumped.error().message};
}

TEST(RawDumpTest, OneLinePerEventWithHeaderFieldsAndBytes) {
  auto [text, status] =
      Dump(testing::Log(Layout::k64, ByteOrder::kBig,
                        "8000000800100000 0000000000000005 00000000000004d2 000000000000162e "
                        "4000000212340006 0000000000000001 \"hi\" =000000000000 0000000000000007"));
  EXPECT_EQ(status, "");
  EXPECT_EQ(text,
            "00000004  ID 0010 SUB 0000 T G- B- len 8  tid 1234 ts 5678  | 8000000800100000 "
            "0000000000000005 00000000000004d2 000000000000162e\n"
            "00000024  ID 1234 SUB 0006 T- G B- len 2  tid 7 ts 0  | 4000000212340006 "
            "0000000000000001 6869000000000000 0000000000000007\n");
}

TEST(RawDumpTest, ThirtyTwoBitEventsShowTheirTypeAndFourByteWords) {
  auto [text, status] =
      Dump(testing::Log(Layout::k32, ByteOrder::kLittle, "500a0005 00000011 00000007 00000009"));
  EXPECT_EQ(status, "");
  EXPECT_EQ(text,
            "00000004  ID 5000 SUB 0005 type A len 4  tid 7 ts 9  | 05000a50 11000000 "
            "07000000 09000000\n");
}

TEST(RawDumpTest, MarksReformattedEvents) {
  auto [text, status] = Dump(testing::Log(Layout::k64, ByteOrder::kBig,
                                          "2000000450000005 00000009 =00000000 0000000000000007"));
  EXPECT_EQ(status, "");
  EXPECT_EQ(text,
            "00000004  ID 5000 SUB 0005 type 2 len 4  tid 7 ts 0  R  | 50020005 00000009 "
            "00000000 00000007\n");
}

TEST(RawDumpTest, PrintsWhatCameBeforeATruncationAndFails) {
  auto [text, status] = Dump(testing::Log(Layout::k64, ByteOrder::kBig,
                                          "0000000000100000 0000000000000005 8000000800100000"));
  EXPECT_EQ(text,
            "00000004  ID 0010 SUB 0000 T- G- B- len 0  tid 5 ts 0  | 0000000000100000 "
            "0000000000000005\n");
  EXPECT_EQ(status, "d.log: offset 0x14: truncated event (need 32 bytes, 8 left)");
}

}  // namespace
}  // namespace rastrace::event
