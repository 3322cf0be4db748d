// The TemplateSet API: what a loaded template records, replacement, removal, files.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "template/template.h"

namespace rastrace::tmpl {
namespace {

TEST(TemplateSetTest, RecordsHeaderAndLabel) {
  TemplateSet set;
  std::vector<Diagnostic> diags;
  size_t added = set.AddText(
      "# comment\n"
      "* also a comment\n"
      "\n"
      "1AB 2.15 L=INT \"stray interrupt\" X4 \\\n"
      "  X2\n",
      "sys.fmt", diags);
  EXPECT_EQ(added, 1u);
  EXPECT_TRUE(diags.empty());
  const Template* t = set.Find(0x1AB0);
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(t->id_text, "1AB");
  EXPECT_EQ(t->version_major, 2);
  EXPECT_EQ(t->version_minor, 15);
  EXPECT_EQ(t->level, Level::kInt);
  EXPECT_EQ(t->label, "stray interrupt");
  EXPECT_EQ(t->file, "sys.fmt");
  EXPECT_EQ(t->line, 4);
}

TEST(TemplateSetTest, DefaultLevelIsKern) {
  TemplateSet set;
  std::vector<Diagnostic> diags;
  set.AddText("010 1.0 new_fmt X4\n", "f", diags);
  const Template* t = set.Find(0x0100);
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(t->level, Level::kKern);
  EXPECT_EQ(t->label, "new_fmt");  // a bare word label, as in trcupdate's example
}

TEST(TemplateSetTest, LaterDefinitionsReplaceAndRemoveWorks) {
  TemplateSet set;
  std::vector<Diagnostic> diags;
  set.AddText("010 1.0 \"a\"\n011 1.0 \"b\"\n", "f", diags);
  set.AddText("010 1.1 \"c\"\n1234 1.0 \"d\"\n", "g", diags);
  EXPECT_EQ(set.size(), 3u);
  EXPECT_EQ(set.Find(0x0100)->label, "c");
  std::vector<const Template*> all = set.All();
  ASSERT_EQ(all.size(), 3u);
  EXPECT_EQ(all[0]->id16, 0x0100);
  EXPECT_EQ(all[1]->id16, 0x0110);
  EXPECT_EQ(all[2]->id16, 0x1234);
  EXPECT_TRUE(set.Remove(0x0110));
  EXPECT_FALSE(set.Remove(0x0110));
  EXPECT_EQ(set.Find(0x0110), nullptr);
  EXPECT_EQ(set.size(), 2u);
}

TEST(TemplateSetTest, ContinuationAtEndOfFileStillParses) {
  TemplateSet set;
  std::vector<Diagnostic> diags;
  EXPECT_EQ(set.AddText("010 1.0 \"a\" \\", "f", diags), 1u);
  EXPECT_TRUE(diags.empty());
}

TEST(TemplateSetTest, AddFileReadsAndReportsMissingFiles) {
  std::filesystem::path path = std::filesystem::temp_directory_path() / "rastrace_tmpl_test.fmt";
  {
    std::ofstream out(path);
    out << "010 1.0 \"from file\"\n011 1.0 X99\n";
  }
  TemplateSet set;
  std::vector<Diagnostic> diags;
  auto added = set.AddFile(path.string(), diags);
  ASSERT_TRUE(added.ok());
  EXPECT_EQ(*added, 1u);
  ASSERT_EQ(diags.size(), 1u);
  EXPECT_EQ(diags[0].file, path.string());
  EXPECT_EQ(diags[0].line, 2);
  EXPECT_EQ(diags[0].column, 9);
  std::filesystem::remove(path);

  auto missing = set.AddFile("/nonexistent/trcfmt", diags);
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.error().message.find("/nonexistent/trcfmt"), std::string::npos);
}

TEST(TemplateSetTest, DiagnosticToString) {
  Diagnostic d{"a.fmt", 3, 7, "expected X", false};
  EXPECT_EQ(d.ToString(), "a.fmt:3:7: error: expected X");
  d.warning = true;
  EXPECT_EQ(d.ToString(), "a.fmt:3:7: warning: expected X");
}

}  // namespace
}  // namespace rastrace::tmpl
