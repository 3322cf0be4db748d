// docs/sql.md documents every column of every table and view users query, with its type: the
// test fails when a column is added, renamed or retyped without the documentation.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <regex>
#include <sstream>

#include "query/trace_database.h"

namespace rastrace::query {
namespace {

struct DocColumn {
  std::string name;
  std::string type;
};

// The `name` entries of the first cell: "`a`", "`a`, `b`", "`w1` .. `w5`".
std::vector<std::string> NamesIn(const std::string& cell) {
  std::vector<std::string> names;
  static const std::regex range("`([a-z_]+)([0-9]+)` \\.\\. `[a-z_]+([0-9]+)`");
  std::smatch m;
  if (std::regex_search(cell, m, range)) {
    for (int i = std::stoi(m[2]); i <= std::stoi(m[3]); ++i) {
      names.push_back(m[1].str() + std::to_string(i));
    }
    return names;
  }
  static const std::regex name("`([a-z_0-9]+)`");
  for (auto it = std::sregex_iterator(cell.begin(), cell.end(), name); it != std::sregex_iterator();
       ++it) {
    names.push_back((*it)[1]);
  }
  return names;
}

// Table name -> its documented columns, from the "### name" sections (up to the next "## ").
std::map<std::string, std::vector<DocColumn>> DocumentedColumns() {
  std::ifstream in(std::string(RASTRACE_SOURCE_DIR) + "/docs/sql.md");
  std::map<std::string, std::vector<DocColumn>> out;
  std::string line, table;
  while (std::getline(in, line)) {
    if (line.rfind("### ", 0) == 0) {
      table = line.substr(4);
      continue;
    }
    if (line.rfind("## ", 0) == 0) {  // a section that is no table's (typed tables)
      table.clear();
      continue;
    }
    if (table.empty() || line.rfind("| `", 0) != 0) continue;
    // "| `name` | TYPE | meaning |"
    const size_t second = line.find(" | ", 2);
    if (second == std::string::npos) continue;
    const size_t third = line.find(" | ", second + 3);
    const std::string cell = line.substr(2, second - 2);
    const std::string type = line.substr(second + 3, third - second - 3);
    for (const auto& name : NamesIn(cell)) out[table].push_back({name, type});
  }
  return out;
}

TEST(SqlDocs, EveryColumnOfEveryTableIsDocumentedWithItsType) {
  std::vector<std::string> diagnostics;
  auto trace = TraceDatabase::Open({}, diagnostics);
  ASSERT_TRUE(trace);
  const auto documented = DocumentedColumns();
  for (const TableInfo& table : Tables()) {
    if (table.internal) continue;
    const std::string name(table.name);
    SCOPED_TRACE(name);
    ASSERT_TRUE(documented.contains(name)) << "docs/sql.md has no section ### " << name;
    std::map<std::string, std::string> doc;
    for (const auto& c : documented.at(name)) doc[c.name] = c.type;
    auto columns = (*trace)->db().Prepare("SELECT name, type FROM pragma_table_info(?1)");
    ASSERT_TRUE(columns);
    columns->BindText(1, name);
    size_t count = 0;
    for (;;) {
      auto step = columns->Step();
      ASSERT_TRUE(step);
      if (!*step) break;
      ++count;
      const std::string column(columns->ColumnText(0));
      const std::string type(columns->ColumnText(1));
      ASSERT_TRUE(doc.contains(column)) << column << " is not documented";
      // A view's computed columns have no declared type; the documented one must be SQLite's.
      if (!type.empty()) {
        EXPECT_EQ(doc[column], type) << column;
      } else {
        EXPECT_TRUE(doc[column] == "INTEGER" || doc[column] == "TEXT") << column;
      }
    }
    EXPECT_EQ(count, doc.size()) << "docs/sql.md documents columns " << name << " does not have";
  }
}

// The typed columns a partition's schema.sql declares are the documented ones, in table order.
TEST(SqlDocs, TypedColumnsAreTheDocumentedOnes) {
  const auto documented = DocumentedColumns();
  for (const TableInfo& table : Tables()) {
    if (table.internal) continue;
    SCOPED_TRACE(std::string(table.name));
    std::string expected;
    for (const auto& c : documented.at(std::string(table.name))) {
      if (!expected.empty()) expected += ", ";
      expected += c.name + " " + c.type;
    }
    EXPECT_EQ(TypedColumns(table), expected);
  }
}

}  // namespace
}  // namespace rastrace::query
