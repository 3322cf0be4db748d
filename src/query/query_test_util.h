// Helpers of the query tests: logs written to a scratch directory, a database over them, and
// query results as CSV text.
#pragma once

#include <gtest/gtest.h>

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "event/temp_dir.h"
#include "query/result_printer.h"
#include "query/test_logs.h"
#include "query/trace_database.h"

namespace rastrace::query::testing {

// The source tree's default templates (text and schema columns).
inline std::string SourceTemplates() {
  return std::string(RASTRACE_SOURCE_DIR) + "/templates/trcfmt";
}

// Writes the test logs `names` into `dir` and returns their paths.
inline std::vector<std::string> WriteLogs(const event::testing::TempDir& dir,
                                          const std::vector<std::string>& names) {
  std::vector<std::string> paths;
  for (const auto& name : names) {
    paths.push_back(dir.File(TestInputFileName(name)));
    auto written = WriteTestInput(name, paths.back());
    EXPECT_TRUE(written) << (written ? "" : written.error().message);
  }
  return paths;
}

inline std::unique_ptr<TraceDatabase> OpenLogs(const std::vector<std::string>& paths,
                                               std::string templates = SourceTemplates()) {
  LoadInputs inputs;
  inputs.paths = paths;
  if (!templates.empty()) inputs.templates = {std::move(templates)};
  // The system call formats of a real kernel, checked in: arguments get their names and types.
  inputs.tracefs_events = std::string(RASTRACE_SOURCE_DIR) + "/tests/golden/schema/tracefs";
  std::vector<std::string> diagnostics;
  auto db = TraceDatabase::Open(inputs, diagnostics);
  EXPECT_TRUE(db) << (db ? "" : db.error().message);
  // Template and format file problems: the test's own descriptions have none.
  for (const auto& d : diagnostics) ADD_FAILURE() << d;
  return db ? std::move(db).value() : nullptr;
}

// The rows of `sql` in `mode` (CSV by default, with a header); "ERROR: message" when it fails.
inline std::string Query(TraceDatabase& db, const std::string& sql,
                         OutputMode mode = OutputMode::kCsv) {
  char* data = nullptr;
  size_t size = 0;
  std::FILE* out = open_memstream(&data, &size);
  ResultPrinter printer(out, mode);
  auto ran = db.Run(sql, printer);
  std::fclose(out);
  std::string text(data, size);
  std::free(data);
  if (!ran) return "ERROR: " + ran.error().message;
  return text;
}

}  // namespace rastrace::query::testing
