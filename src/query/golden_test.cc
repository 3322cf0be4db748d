// Golden query results (tests/golden/query): each NAME.case names test logs (query/test_logs.h),
// an output format and SQL; NAME.expected is the exact output. RASTRACE_UPDATE_GOLDEN=1 rewrites
// the expected files from the current build: review every diff before committing it.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "query/query_test_util.h"

namespace rastrace::query::testing {
namespace {

const std::string kDir = std::string(RASTRACE_SOURCE_DIR) + "/tests/golden/query";

std::string ReadText(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

struct Case {
  std::vector<std::string> logs;
  OutputMode mode = OutputMode::kText;
  bool templates = true;
  bool formats = false;  // also the TFF format files of tests/golden/query/formats
  std::string sql;
};

Case ParseCase(const std::string& text) {
  Case c;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (line == "sql:") {
      std::stringstream rest;
      rest << in.rdbuf();
      c.sql = rest.str();
      break;
    }
    if (line.rfind("logs:", 0) == 0) {
      std::istringstream names(line.substr(5));
      std::string name;
      while (names >> name) c.logs.push_back(name);
    } else if (line.rfind("format:", 0) == 0) {
      auto mode = ParseOutputMode(line.substr(line.find_first_not_of(' ', 7)));
      EXPECT_TRUE(mode) << line;
      if (mode) c.mode = *mode;
    } else if (line == "templates: none") {
      c.templates = false;
    } else if (line == "formats: yes") {
      c.formats = true;
    }
  }
  return c;
}

std::vector<std::string> CaseNames() {
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(kDir)) {
    if (entry.path().extension() == ".case") names.push_back(entry.path().stem().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

class QueryGolden : public ::testing::TestWithParam<std::string> {};

TEST_P(QueryGolden, MatchesExpected) {
  const std::string name = GetParam();
  const Case c = ParseCase(ReadText(kDir + "/" + name + ".case"));
  ASSERT_FALSE(c.logs.empty()) << name << ".case names no logs";
  event::testing::TempDir dir;
  std::string descriptions = c.templates ? SourceTemplates() : "";
  if (c.formats) descriptions += (descriptions.empty() ? "" : ":") + kDir + "/formats";
  auto db = OpenLogs(WriteLogs(dir, c.logs), descriptions);
  ASSERT_TRUE(db);
  std::string actual = Query(*db, c.sql, c.mode);
  // Paths of the scratch directory vary from run to run.
  for (size_t at; (at = actual.find(dir.path())) != std::string::npos;) {
    actual.replace(at, dir.path().size(), "{dir}");
  }
  // So does the source tree's (schemas.described_by names the template file).
  const std::string source = RASTRACE_SOURCE_DIR;
  for (size_t at; (at = actual.find(source)) != std::string::npos;) {
    actual.replace(at, source.size(), "{source}");
  }
  const std::string expected_path = kDir + "/" + name + ".expected";
  if (std::getenv("RASTRACE_UPDATE_GOLDEN") != nullptr) {
    std::ofstream(expected_path) << actual;
    return;
  }
  EXPECT_EQ(actual, ReadText(expected_path)) << "case " << name;
}

INSTANTIATE_TEST_SUITE_P(Cases, QueryGolden, ::testing::ValuesIn(CaseNames()),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace rastrace::query::testing
