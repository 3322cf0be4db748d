// `rastrace sql LOG... [-q SQL | -f FILE] [--format text|csv|json] [--save DB]`: SQL over trace
// logs (docs/sql.md). The tables live in src/query; this file only reads the command line.
#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "command.h"
#include "query/result_printer.h"
#include "query/shell.h"
#include "query/trace_database.h"

namespace rastrace::cli {
namespace {

struct SqlOptions {
  std::vector<std::string> logs;
  std::string query;
  std::string file;
  std::string format = "text";
  std::string save;
  bool force = false;
  std::vector<std::string> templates;
  bool no_text = false;
  std::string tracefs;
  std::vector<std::string> names;
};

void PrintSqlMessage(std::string_view message) {
  fmt::print(stderr, "rastrace sql: {}\n", message);
}

Result<std::string> ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return MakeError("{}: cannot open it: {}", path, std::strerror(errno));
  std::stringstream text;
  text << in.rdbuf();
  if (in.bad()) return MakeError("{}: read error", path);
  return text.str();
}

int RunSql(const SqlOptions& options) {
  auto mode = query::ParseOutputMode(options.format);
  if (!mode) {
    PrintSqlMessage(mode.error().message);
    return 2;
  }
  if (!options.query.empty() && !options.file.empty()) {
    PrintSqlMessage("give the SQL with -q or with -f, not both");
    return 2;
  }
  if (options.names.size() > options.logs.size()) {
    PrintSqlMessage(fmt::format("{} names (-n) for {} logs: give at most one name per log",
                                options.names.size(), options.logs.size()));
    return 2;
  }
  bool log_on_stdin = false;
  for (const auto& log : options.logs) log_on_stdin |= log == "-";
  std::string sql = options.query;
  if (!options.file.empty()) {
    auto text = ReadFile(options.file);
    if (!text) {
      PrintSqlMessage(text.error().message);
      return 1;
    }
    sql = std::move(text).value();
  }
  const bool have_sql = !options.query.empty() || !options.file.empty();
  const bool terminal = isatty(STDIN_FILENO) != 0;
  if (!have_sql && options.save.empty() && log_on_stdin) {
    PrintSqlMessage("the log is read from standard input: give the SQL with -q or -f");
    return 2;
  }

  query::LoadInputs inputs =
      query::CommandInputs(options.logs, options.names, options.templates, options.no_text);
  if (!options.tracefs.empty()) inputs.tracefs_events = options.tracefs;
  std::vector<std::string> diagnostics;
  auto trace = query::TraceDatabase::Open(inputs, diagnostics);
  for (const auto& d : diagnostics) PrintSqlMessage(d);
  if (!trace) {
    PrintSqlMessage(trace.error().message);
    return 1;
  }
  query::TraceDatabase& db = **trace;
  bool warned = false;
  auto warn_damaged = [&] {
    if (warned) return;
    warned = true;
    for (const auto& w : db.warnings()) PrintSqlMessage(fmt::format("warning: {}", w.message));
  };

  int status = 0;
  if (!options.save.empty()) {
    if (auto saved = db.Save(options.save, options.force); !saved) {
      warn_damaged();
      PrintSqlMessage(saved.error().message);
      return 1;
    }
  }
  query::ResultPrinter printer(stdout, *mode);
  if (have_sql) {
    auto ran = db.Run(sql, printer);
    warn_damaged();
    if (!ran) {
      PrintSqlMessage(ran.error().message);
      status = 1;
    }
  } else if (options.save.empty()) {
    // A prompt on a terminal; otherwise the SQL comes from standard input.
    if (terminal) {
      query::Parts first = query::AllParts();
      first.reset(static_cast<size_t>(query::Part::kEventText));  // loaded when first read
      if (auto loaded = db.Ensure(first); !loaded) {
        PrintSqlMessage(loaded.error().message);
        return 1;
      }
      warn_damaged();
      fmt::print("rastrace sql: {} log(s) loaded; .tables lists the tables, .help the commands\n",
                 options.logs.size());
    }
    query::Shell shell(db, printer, stdout, stderr, terminal);
    status = shell.Run(stdin);
  }
  warn_damaged();
  for (const auto& w : db.loader().TakeTemplateWarnings())
    PrintSqlMessage(fmt::format("warning: {}", w));
  if (status == 0 && !db.warnings().empty()) status = 1;
  return status;
}

const CommandRegistration kSql{Command{
    "sql", "Answer SQL questions over trace logs (tables: docs/sql.md)",
    [](CLI::App& sub) -> std::function<int()> {
      auto options = std::make_shared<SqlOptions>();
      sub.add_option("logs", options->logs,
                     "Trace log files; several are merged in time order (- for standard input)")
          ->required();
      sub.add_option("-q,--query", options->query, "SQL statements to run (else a prompt)");
      sub.add_option("-f,--file", options->file, "File of SQL statements to run");
      sub.add_option("--format", options->format, "Output: text (aligned), csv or json");
      sub.add_option("--save", options->save, "Write every table into a new SQLite database file");
      sub.add_flag("--force", options->force, "Replace an existing --save file");
      sub.add_option("-t,--templates", options->templates,
                     "What describes the events: a template file or a directory of TFF format "
                     "files; repeatable, or a ':'-separated list (default: the installed trcfmt "
                     "and the format files of the current directory)")
          ->allow_extra_args(false);
      sub.add_flag("--no-text", options->no_text, "No template text (the text column is NULL)");
      sub.add_option("--tracefs", options->tracefs,
                     "tracefs events directory for system call argument names (default: the "
                     "running kernel's)");
      sub.add_option("-n,--name", options->names,
                     "Name of each log's source, in the order of the logs (default: its path)");
      return [options] { return RunSql(*options); };
    }}};

}  // namespace
}  // namespace rastrace::cli
