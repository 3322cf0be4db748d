#include "report/update_file.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <random>

namespace rastrace::report {
namespace {

constexpr std::string_view kFile =
    "# a template file\n"
    "010 1.0 \"START\"\n"
    "* comment between\n"
    "015 2.1 \"LONG\" \\\n"
    "   X4 X4\n"
    "020 1.0 \"LAST\"\n";

TEST(UpdateFile, SplitsTemplatesWithContinuations) {
  auto chunks = SplitTemplateFile(kFile);
  ASSERT_EQ(chunks.size(), 5u);
  EXPECT_FALSE(chunks[0].is_template);
  EXPECT_TRUE(chunks[1].is_template);
  EXPECT_EQ(chunks[1].head.id16, 0x0100);
  EXPECT_EQ(chunks[3].head.major, 2);
  EXPECT_EQ(chunks[3].head.minor, 1);
  EXPECT_EQ(chunks[3].text, "015 2.1 \"LONG\" \\\n   X4 X4\n");
}

TEST(UpdateFile, FirstLineMustNameTrcfmt) {
  auto r = ParseUpdateFile("+ 010 1.0 \"X\"\n", "u.trc");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("u.trc:1:1"), std::string::npos);
  EXPECT_NE(r.error().message.find("* /etc/trcfmt"), std::string::npos);
}

TEST(UpdateFile, ParsesAddDeleteAndComments) {
  auto r = ParseUpdateFile(
      "* /etc/trcfmt\n"
      "# comment\n"
      "* another\n"
      "+ 15A 1.0 new_fmt \\\n"
      "  X4\n"
      "-1B3 1.0 old label\n"
      "- A14\n",
      "u.trc");
  ASSERT_TRUE(r.ok()) << r.error().message;
  ASSERT_EQ(r->size(), 3u);
  EXPECT_EQ((*r)[0].kind, UpdateOp::Kind::kAdd);
  EXPECT_EQ((*r)[0].head.id16, 0x15A0);
  EXPECT_EQ((*r)[0].text, "15A 1.0 new_fmt \\\n  X4\n");
  EXPECT_EQ((*r)[1].kind, UpdateOp::Kind::kDelete);
  EXPECT_EQ((*r)[1].head.id16, 0x1B30);
  EXPECT_EQ((*r)[2].head.id16, 0xA140);
}

TEST(UpdateFile, BadLinesNameLineAndColumn) {
  auto r = ParseUpdateFile("* /etc/trcfmt\n+ 15A x.y label\n", "u.trc");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("u.trc:2:7"), std::string::npos) << r.error().message;
  r = ParseUpdateFile("* /etc/trcfmt\nhello\n", "u.trc");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("u.trc:2:1"), std::string::npos) << r.error().message;
  r = ParseUpdateFile("* /etc/trcfmt\n- 1\n", "u.trc");
  ASSERT_FALSE(r.ok());
}

UpdateOutcome Apply(std::string_view update, bool override_versions = false) {
  auto ops = ParseUpdateFile(update, "u.trc");
  EXPECT_TRUE(ops.ok()) << ops.error().message;
  return ApplyUpdates(kFile, ops.ok() ? *ops : std::vector<UpdateOp>{}, override_versions, "u.trc");
}

TEST(UpdateFile, AddGoesInIdOrder) {
  auto out = Apply("* /etc/trcfmt\n+012 1.0 \"NEW\"\n");
  EXPECT_FALSE(out.refused);
  EXPECT_EQ(out.text,
            "# a template file\n010 1.0 \"START\"\n* comment between\n012 1.0 \"NEW\"\n"
            "015 2.1 \"LONG\" \\\n   X4 X4\n020 1.0 \"LAST\"\n");
}

TEST(UpdateFile, ReplaceWhenNotOlder) {
  auto out = Apply("* /etc/trcfmt\n+015 2.1 \"SAME VERSION\"\n+010 1.1 \"NEWER\"\n");
  EXPECT_FALSE(out.refused);
  EXPECT_NE(out.text.find("015 2.1 \"SAME VERSION\"\n"), std::string::npos);
  EXPECT_NE(out.text.find("010 1.1 \"NEWER\"\n"), std::string::npos);
  EXPECT_EQ(out.text.find("LONG"), std::string::npos);
  EXPECT_EQ(out.text.find("START"), std::string::npos);
}

TEST(UpdateFile, OlderVersionIsRefusedUnlessOverridden) {
  auto out = Apply("* /etc/trcfmt\n+015 1.9 \"OLDER\"\n");
  EXPECT_TRUE(out.refused);
  EXPECT_EQ(out.text, kFile);
  ASSERT_EQ(out.messages.size(), 1u);
  EXPECT_NE(out.messages[0].text.find("2.1"), std::string::npos);
  out = Apply("* /etc/trcfmt\n+015 1.9 \"OLDER\"\n", true);
  EXPECT_FALSE(out.refused);
  EXPECT_NE(out.text.find("015 1.9 \"OLDER\"\n020"), std::string::npos);
}

TEST(UpdateFile, DeleteRemovesTheWholeTemplate) {
  auto out = Apply("* /etc/trcfmt\n-015\n-0FF\n");
  EXPECT_EQ(out.text,
            "# a template file\n010 1.0 \"START\"\n* comment between\n020 1.0 \"LAST\"\n");
  EXPECT_NE(out.messages.back().text.find("0FF"), std::string::npos);
}

// What ApplyUpdates does, written the plain quadratic way: the indexed version must give the same
// file for any template file (ids out of order and repeated included) and any operations.
std::string ReferenceApply(std::string_view file_text, const std::vector<UpdateOp>& ops) {
  auto chunks = SplitTemplateFile(file_text);
  for (const UpdateOp& op : ops) {
    auto existing = chunks.end();
    for (auto it = chunks.begin(); it != chunks.end(); ++it) {
      if (it->is_template && it->head.id16 == op.head.id16) existing = it;
    }
    if (op.kind == UpdateOp::Kind::kDelete) {
      std::erase_if(chunks, [&](const TemplateFileChunk& c) {
        return c.is_template && c.head.id16 == op.head.id16;
      });
      continue;
    }
    TemplateFileChunk added{true, op.head, op.text};
    if (existing != chunks.end()) {
      *existing = added;
      continue;
    }
    auto before = std::find_if(chunks.begin(), chunks.end(), [&](const TemplateFileChunk& c) {
      return c.is_template && c.head.id16 > op.head.id16;
    });
    chunks.insert(before, added);
  }
  std::string text;
  for (const auto& chunk : chunks) text += chunk.text;
  return text;
}

TEST(UpdateFile, IndexedUpdatesMatchThePlainOnes) {
  std::mt19937 random(19);
  for (int round = 0; round < 300; ++round) {
    std::string file = "# templates\n";
    for (int i = random() % 12; i > 0; --i) {
      file += random() % 4 == 0 ? std::string("* comment\n")
                                : fmt::format("{:03X} 1.0 \"T{}\"\n", random() % 16, i);
    }
    std::string update = "* /etc/trcfmt\n";
    for (int i = random() % 12; i > 0; --i) {
      if (random() % 3 == 0) {
        update += fmt::format("-{:03X}\n", random() % 16);
      } else {
        update += fmt::format("+{:03X} 9.{} \"U{}\"\n", random() % 16, i, i);
      }
    }
    auto ops = ParseUpdateFile(update, "u.trc");
    ASSERT_TRUE(ops.ok()) << ops.error().message;
    EXPECT_EQ(ApplyUpdates(file, *ops, true, "u.trc").text, ReferenceApply(file, *ops))
        << "file:\n" << file << "update:\n" << update;
  }
}

TEST(UpdateFile, ExtractWritesAnUpdateFile) {
  IdSet ids;
  ASSERT_TRUE(ParseIdList("015,020", ids).ok());
  EXPECT_EQ(ExtractTemplates(kFile, ids),
            "* /etc/trcfmt\n+015 2.1 \"LONG\" \\\n   X4 X4\n+020 1.0 \"LAST\"\n");
}

}  // namespace
}  // namespace rastrace::report
