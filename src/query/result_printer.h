// Query results as aligned text, CSV (RFC 4180) or JSON (one array of objects per statement).
// Streams: memory holds at most the first rows of a text result (to size its columns), never the
// whole result.
#pragma once

#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"
#include "query/database.h"

namespace rastrace::query {

enum class OutputMode : uint8_t { kText, kCsv, kJson };

// "text" (also "column", "table"), "csv", "json".
Result<OutputMode> ParseOutputMode(std::string_view name);
std::string_view OutputModeName(OutputMode mode);

// One row of a stepped `statement` from column `first` on, for writers of rows outside a
// ResultPrinter (partitions): a CSV line ending in '\n' (RFC 4180; NULL empty, blobs in hex) ...
void AppendCsvHeader(const Statement& statement, std::string& line, int first = 0);
void AppendCsvRow(const Statement& statement, std::string& line, int first = 0);
// ... or a JSON object without a newline, its keys from JsonKeys (integers as numbers, NULL as
// null, blobs as hex strings).
std::vector<std::string> JsonKeys(const Statement& statement, int first = 0);
void AppendJsonObject(const Statement& statement, const std::vector<std::string>& keys,
                      std::string& line, int first = 0);

class ResultPrinter {
 public:
  explicit ResultPrinter(std::FILE* out, OutputMode mode = OutputMode::kText)
      : out_(out), mode_(mode) {}

  void set_mode(OutputMode mode) { mode_ = mode; }
  OutputMode mode() const { return mode_; }
  void set_headers(bool on) { headers_ = on; }
  bool headers() const { return headers_; }

  // Steps `statement` to its end, printing every row. A statement without result columns
  // (CREATE, INSERT) prints nothing. Fails with SQLite's message when a step fails (rows before
  // it are printed). Write errors are reported by `Flush`.
  Result<uint64_t> Print(Statement& statement);
  // Fails when a write to the output failed (a full disk, a closed pipe).
  Result<void> Flush();

 private:
  void PrintText(Statement& statement, uint64_t& rows, Result<void>& status);
  void PrintCsv(Statement& statement, uint64_t& rows, Result<void>& status);
  void PrintJson(Statement& statement, uint64_t& rows, Result<void>& status);
  void Write(std::string_view text);

  std::FILE* out_;
  OutputMode mode_;
  bool headers_ = true;
  bool failed_ = false;
  std::string line_;
};

}  // namespace rastrace::query
