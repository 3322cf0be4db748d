#include "query/shell.h"

#include <fmt/format.h>

#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <fstream>
#include <memory>
#include <sstream>
#include <vector>

namespace rastrace::query {

namespace {

constexpr int kMaxReadDepth = 8;

std::string_view Strip(std::string_view text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front()))) {
    text.remove_prefix(1);
  }
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) {
    text.remove_suffix(1);
  }
  return text;
}

// The words of a dot command: blank-separated, '...' or "..." quoted.
std::vector<std::string> Words(std::string_view line) {
  std::vector<std::string> words;
  size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && std::isspace(static_cast<unsigned char>(line[i]))) ++i;
    if (i >= line.size()) break;
    std::string word;
    if (line[i] == '\'' || line[i] == '"') {
      const char quote = line[i++];
      while (i < line.size() && line[i] != quote) word.push_back(line[i++]);
      ++i;
    } else {
      while (i < line.size() && !std::isspace(static_cast<unsigned char>(line[i]))) {
        word.push_back(line[i++]);
      }
    }
    words.push_back(std::move(word));
  }
  return words;
}

struct LineReader {
  std::FILE* in;
  char* buffer = nullptr;
  size_t capacity = 0;
  ~LineReader() { std::free(buffer); }
  // The next line without its newline; false at the end.
  bool Next(std::string& line) {
    const ssize_t n = getline(&buffer, &capacity, in);
    if (n < 0) return false;
    line.assign(buffer, static_cast<size_t>(n));
    if (!line.empty() && line.back() == '\n') line.pop_back();
    if (!line.empty() && line.back() == '\r') line.pop_back();
    return true;
  }
};

}  // namespace

void Shell::Fail(std::string_view message) {
  fmt::print(err_, "{}\n", message);
  std::fflush(err_);
  failed_ = true;
}

void Shell::RunSql(std::string_view sql) {
  const auto started = std::chrono::steady_clock::now();
  auto ran = trace_.Run(sql, printer_);
  if (!ran) Fail(fmt::format("Error: {}", ran.error().message));
  if (timer_) {
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    fmt::print(out_, "Run Time: real {:.3f} s\n", seconds);
  }
  std::fflush(out_);
}

int Shell::Run(std::FILE* in) {
  LineReader reader{in};
  std::string line;
  std::string statement;
  for (;;) {
    if (prompt_) {
      fmt::print(out_, "{}", statement.empty() ? "rastrace> " : "     ...> ");
      std::fflush(out_);
    }
    if (!reader.Next(line)) break;
    if (statement.empty()) {
      const std::string_view stripped = Strip(line);
      if (stripped.empty()) continue;
      if (stripped.front() == '.') {
        if (!Command(stripped)) break;
        if (failed_ && !prompt_) break;
        continue;
      }
    }
    statement += line;
    statement.push_back('\n');
    if (sqlite3_complete(statement.c_str())) {
      RunSql(statement);
      statement.clear();
      if (failed_ && !prompt_) break;
    }
  }
  if (!Strip(statement).empty() && !(failed_ && !prompt_)) {
    // A last statement without its ';' still runs, as in the SQLite shell.
    RunSql(statement);
  }
  if (prompt_) fmt::print(out_, "\n");
  std::fflush(out_);
  return failed_ ? 1 : 0;
}

bool Shell::Command(std::string_view line) {
  const std::vector<std::string> words = Words(line.substr(1));
  const std::string command = words.empty() ? "" : words[0];
  const std::string argument = words.size() > 1 ? words[1] : "";
  if (command == "quit" || command == "exit" || command == "q") return false;
  if (command == "tables") {
    Tables(argument);
  } else if (command == "schema") {
    Schema(argument);
  } else if (command == "mode") {
    if (argument.empty()) {
      fmt::print(out_, "current output mode: {}\n", OutputModeName(printer_.mode()));
    } else if (auto mode = ParseOutputMode(argument)) {
      printer_.set_mode(*mode);
    } else {
      Fail(fmt::format("Error: {}", mode.error().message));
    }
  } else if (command == "headers" || command == "timer") {
    if (argument != "on" && argument != "off") {
      Fail(fmt::format("Error: .{} takes on or off", command));
    } else if (command == "headers") {
      printer_.set_headers(argument == "on");
    } else {
      timer_ = argument == "on";
    }
  } else if (command == "read") {
    if (argument.empty()) {
      Fail("Error: .read takes a file name");
    } else if (read_depth_ >= kMaxReadDepth) {
      Fail("Error: .read nested too deep");
    } else {
      std::FILE* file = std::fopen(argument.c_str(), "re");
      if (file == nullptr) {
        Fail(fmt::format("Error: cannot open {}: {}", argument, std::strerror(errno)));
      } else {
        ++read_depth_;
        const bool prompt = prompt_;
        prompt_ = false;
        Run(file);
        prompt_ = prompt;
        --read_depth_;
        std::fclose(file);
      }
    }
  } else if (command == "save") {
    Save(argument);
  } else if (command == "help") {
    Help();
  } else {
    Fail(fmt::format("Error: unknown command .{} (.help lists the commands)", command));
  }
  std::fflush(out_);
  return true;
}

void Shell::Tables(std::string_view pattern) {
  // Our storage tables (a leading '_') stay out of the list; they can still be queried.
  auto statement = trace_.db().Prepare(
      "SELECT name FROM sqlite_schema WHERE type IN ('table', 'view') "
      "AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' AND name NOT LIKE '\\_%' ESCAPE '\\' "
      "AND name LIKE ?1 ORDER BY name");
  if (!statement) return Fail(fmt::format("Error: {}", statement.error().message));
  const std::string like = pattern.empty() ? "%" : std::string(pattern);
  statement->BindText(1, like);
  std::string out;
  size_t column = 0;
  for (;;) {
    auto step = statement->Step();
    if (!step) return Fail(fmt::format("Error: {}", step.error().message));
    if (!*step) break;
    const std::string_view name = statement->ColumnText(0);
    if (column > 0 && column + 2 + name.size() > 80) {
      out.push_back('\n');
      column = 0;
    }
    if (column > 0) {
      out.append("  ");
      column += 2;
    }
    out.append(name);
    column += name.size();
  }
  if (!out.empty()) fmt::print(out_, "{}\n", out);
}

void Shell::Schema(std::string_view name) {
  auto statement = trace_.db().Prepare(
      name.empty()
          ? "SELECT sql FROM sqlite_schema WHERE sql IS NOT NULL "
            "AND name NOT LIKE '\\_%' ESCAPE '\\' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' "
            "ORDER BY rowid"
          : "SELECT sql FROM sqlite_schema WHERE sql IS NOT NULL AND name LIKE ?1 ORDER BY rowid");
  if (!statement) return Fail(fmt::format("Error: {}", statement.error().message));
  const std::string like(name);
  if (!name.empty()) statement->BindText(1, like);
  for (;;) {
    auto step = statement->Step();
    if (!step) return Fail(fmt::format("Error: {}", step.error().message));
    if (!*step) break;
    fmt::print(out_, "{};\n", statement->ColumnText(0));
  }
}

void Shell::Save(std::string_view path) {
  if (path.empty()) return Fail("Error: .save takes a file name");
  if (auto saved = trace_.Save(std::string(path), false); !saved) {
    return Fail(fmt::format("Error: {}", saved.error().message));
  }
}

void Shell::Help() {
  fmt::print(out_,
             "SQL statements end with ';' and may span lines. Tables: .tables; columns: "
             ".schema NAME\n(docs/sql.md documents every column).\n"
             ".tables [PATTERN]       tables and views (LIKE pattern)\n"
             ".schema [NAME]          the CREATE statement of NAME, or of everything\n"
             ".mode [text|csv|json]   output format (no argument: the current one)\n"
             ".headers on|off         column names in text and csv output\n"
             ".timer on|off           time each statement\n"
             ".read FILE              run the statements in FILE\n"
             ".save FILE              write every table into a new SQLite database FILE\n"
             ".help                   this text\n"
             ".quit                   leave (also .exit, end of input)\n");
}

}  // namespace rastrace::query
