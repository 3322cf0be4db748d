#include "query/result_printer.h"

#include <fmt/format.h>

#include <algorithm>

#include "export/text_escape.h"

namespace rastrace::query {

namespace {

// Rows a text result holds to size its columns; later rows use those widths (a longer value
// pushes its line out, never the memory up).
constexpr size_t kSizingRows = 1000;
constexpr std::string_view kNullText = "NULL";

size_t DisplayWidth(std::string_view text) {
  // UTF-8: count the bytes that start a character.
  size_t width = 0;
  for (char c : text) width += (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  return width;
}

bool IsNumber(int type) {
  return type == SQLITE_INTEGER || type == SQLITE_FLOAT;
}

// A value as text: integers and reals as SQLite prints them, blobs in lowercase hex, NULL empty
// (the caller decides what NULL looks like).
void AppendValue(const Statement& statement, int column, std::string& out) {
  switch (statement.ColumnType(column)) {
    case SQLITE_NULL:
      return;
    case SQLITE_INTEGER: {
      const fmt::format_int text(statement.ColumnInt(column));
      out.append(text.data(), text.size());
      return;
    }
    case SQLITE_BLOB:
      exporter::AppendHex(out, statement.ColumnBlob(column));
      return;
    default:
      out.append(statement.ColumnText(column));
  }
}

}  // namespace

Result<OutputMode> ParseOutputMode(std::string_view name) {
  if (name == "text" || name == "column" || name == "table") return OutputMode::kText;
  if (name == "csv") return OutputMode::kCsv;
  if (name == "json") return OutputMode::kJson;
  return MakeError("unknown output format '{}' (expected text, csv or json)", name);
}

std::string_view OutputModeName(OutputMode mode) {
  switch (mode) {
    case OutputMode::kText:
      return "text";
    case OutputMode::kCsv:
      return "csv";
    case OutputMode::kJson:
      return "json";
  }
  return "text";
}

void ResultPrinter::Write(std::string_view text) {
  if (text.empty() || failed_) return;
  if (std::fwrite(text.data(), 1, text.size(), out_) != text.size()) failed_ = true;
}

Result<void> ResultPrinter::Flush() {
  if (std::fflush(out_) != 0) failed_ = true;
  if (failed_) return Error{"writing the results failed"};
  return Ok();
}

Result<uint64_t> ResultPrinter::Print(Statement& statement) {
  uint64_t rows = 0;
  Result<void> status = Ok();
  if (statement.ColumnCount() == 0) {
    // Not a query: run it to its end.
    for (;;) {
      auto step = statement.Step();
      if (!step) return step.error();
      if (!*step) break;
    }
    return rows;
  }
  switch (mode_) {
    case OutputMode::kText:
      PrintText(statement, rows, status);
      break;
    case OutputMode::kCsv:
      PrintCsv(statement, rows, status);
      break;
    case OutputMode::kJson:
      PrintJson(statement, rows, status);
      break;
  }
  if (!status) return status.error();
  return rows;
}

void ResultPrinter::PrintText(Statement& statement, uint64_t& rows, Result<void>& status) {
  const int columns = statement.ColumnCount();
  struct Cell {
    std::string text;
    bool number = false;
  };
  std::vector<std::vector<Cell>> held;
  std::vector<size_t> widths(static_cast<size_t>(columns), 0);
  std::vector<bool> numeric(static_cast<size_t>(columns), false);
  if (headers_) {
    for (int c = 0; c < columns; ++c) {
      widths[static_cast<size_t>(c)] = DisplayWidth(statement.ColumnName(c));
    }
  }
  auto take_row = [&] {
    std::vector<Cell> row(static_cast<size_t>(columns));
    for (int c = 0; c < columns; ++c) {
      Cell& cell = row[static_cast<size_t>(c)];
      const int type = statement.ColumnType(c);
      if (type == SQLITE_NULL) {
        cell.text = kNullText;
      } else {
        AppendValue(statement, c, cell.text);
      }
      cell.number = IsNumber(type);
    }
    return row;
  };
  auto print_row = [&](const std::vector<Cell>& row) {
    line_.clear();
    for (size_t c = 0; c < row.size(); ++c) {
      const Cell& cell = row[c];
      const size_t width = DisplayWidth(cell.text);
      const size_t pad = widths[c] > width ? widths[c] - width : 0;
      if (c > 0) line_.append("  ");
      const bool last = c + 1 == row.size();
      if (numeric[c] && cell.number) {
        line_.append(pad, ' ');
        line_.append(cell.text);
      } else {
        line_.append(cell.text);
        if (!last) line_.append(pad, ' ');
      }
    }
    line_.push_back('\n');
    Write(line_);
  };

  bool more = true;
  while (held.size() < kSizingRows) {
    auto step = statement.Step();
    if (!step) {
      status = step.error();
      more = false;
      break;
    }
    if (!*step) {
      more = false;
      break;
    }
    held.push_back(take_row());
    for (size_t c = 0; c < held.back().size(); ++c) {
      const Cell& cell = held.back()[c];
      widths[c] = std::max(widths[c], DisplayWidth(cell.text));
      // A column is right-aligned when its values are numbers (NULLs aside).
      if (cell.number) numeric[c] = true;
    }
  }
  if (headers_) {
    line_.clear();
    std::string rule;
    for (int c = 0; c < columns; ++c) {
      const auto i = static_cast<size_t>(c);
      const std::string_view name = statement.ColumnName(c);
      const size_t pad = widths[i] - std::min(widths[i], DisplayWidth(name));
      if (c > 0) {
        line_.append("  ");
        rule.append("  ");
      }
      if (numeric[i]) line_.append(pad, ' ');
      line_.append(name);
      if (!numeric[i] && c + 1 < columns) line_.append(pad, ' ');
      rule.append(widths[i], '-');
    }
    line_.push_back('\n');
    rule.push_back('\n');
    Write(line_);
    Write(rule);
  }
  for (const auto& row : held) print_row(row);
  rows += held.size();
  held.clear();
  while (more) {
    auto step = statement.Step();
    if (!step) {
      status = step.error();
      break;
    }
    if (!*step) break;
    print_row(take_row());
    ++rows;
  }
}

void ResultPrinter::PrintCsv(Statement& statement, uint64_t& rows, Result<void>& status) {
  if (headers_) {
    line_.clear();
    AppendCsvHeader(statement, line_);
    Write(line_);
  }
  for (;;) {
    auto step = statement.Step();
    if (!step) {
      status = step.error();
      return;
    }
    if (!*step) return;
    line_.clear();
    AppendCsvRow(statement, line_);
    Write(line_);
    ++rows;
  }
}

void ResultPrinter::PrintJson(Statement& statement, uint64_t& rows, Result<void>& status) {
  const std::vector<std::string> keys = JsonKeys(statement);
  Write("[");
  for (;;) {
    auto step = statement.Step();
    if (!step) {
      status = step.error();
      break;
    }
    if (!*step) break;
    line_.assign(rows == 0 ? "\n" : ",\n");
    AppendJsonObject(statement, keys, line_);
    Write(line_);
    ++rows;
  }
  Write(rows == 0 ? "]\n" : "\n]\n");
}

void AppendCsvHeader(const Statement& statement, std::string& line, int first) {
  for (int c = first; c < statement.ColumnCount(); ++c) {
    if (c > first) line.push_back(',');
    exporter::AppendCsvField(line, statement.ColumnName(c));
  }
  line.push_back('\n');
}

void AppendCsvRow(const Statement& statement, std::string& line, int first) {
  std::string value;
  for (int c = first; c < statement.ColumnCount(); ++c) {
    if (c > first) line.push_back(',');
    if (statement.ColumnType(c) == SQLITE_TEXT) {
      value.clear();
      AppendValue(statement, c, value);
      exporter::AppendCsvField(line, value);
    } else {
      AppendValue(statement, c, line);
    }
  }
  line.push_back('\n');
}

std::vector<std::string> JsonKeys(const Statement& statement, int first) {
  std::vector<std::string> keys;
  for (int c = first; c < statement.ColumnCount(); ++c) {
    std::string key;
    exporter::AppendJsonString(key, statement.ColumnName(c));
    key.push_back(':');
    keys.push_back(std::move(key));
  }
  return keys;
}

void AppendJsonObject(const Statement& statement, const std::vector<std::string>& keys,
                      std::string& line, int first) {
  std::string value;
  line.push_back('{');
  for (int c = first; c < statement.ColumnCount(); ++c) {
    if (c > first) line.push_back(',');
    line.append(keys[static_cast<size_t>(c - first)]);
    const int type = statement.ColumnType(c);
    if (type == SQLITE_NULL) {
      line.append("null");
    } else if (type == SQLITE_INTEGER) {
      AppendValue(statement, c, line);
    } else if (type == SQLITE_FLOAT) {
      value.clear();
      AppendValue(statement, c, value);
      // JSON has no infinities or NaN.
      const bool finite = value.find_first_of("In") == std::string::npos;
      line.append(finite ? value : "null");
    } else {
      value.clear();
      AppendValue(statement, c, value);
      exporter::AppendJsonString(line, value);
    }
  }
  line.push_back('}');
}

}  // namespace rastrace::query
