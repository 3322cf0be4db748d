// The interactive prompt of `rastrace sql` (and SQL read from a pipe): statements end with ';'
// and may span lines; lines starting with '.' outside a statement are the SQLite shell's habits:
// .tables, .schema, .mode, .headers, .timer, .read, .save, .help, .quit.
#pragma once

#include <cstdio>
#include <string>
#include <string_view>

#include "query/result_printer.h"
#include "query/trace_database.h"

namespace rastrace::query {

class Shell {
 public:
  // `prompt`: print prompts (a terminal); otherwise the input is a script and the first failing
  // statement ends it.
  Shell(TraceDatabase& trace, ResultPrinter& printer, std::FILE* out, std::FILE* err, bool prompt)
      : trace_(trace), printer_(printer), out_(out), err_(err), prompt_(prompt) {}

  // Reads `in` to its end (or .quit). Returns the exit status: 0, or 1 when a statement or
  // command failed.
  int Run(std::FILE* in);

  // One dot command (".tables" ...); false when it asks to quit.
  bool Command(std::string_view line);

 private:
  void Tables(std::string_view pattern);
  void Schema(std::string_view name);
  void Save(std::string_view path);
  void Help();
  void RunSql(std::string_view sql);
  void Fail(std::string_view message);

  TraceDatabase& trace_;
  ResultPrinter& printer_;
  std::FILE* out_;
  std::FILE* err_;
  bool prompt_;
  bool timer_ = false;
  bool failed_ = false;
  int read_depth_ = 0;
};

}  // namespace rastrace::query
