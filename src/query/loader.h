// Fills the tables of a database from trace logs, in passes over the logs: a pass reads every
// event once (merged in time order, as `rastrace export` does) and feeds the fillers of the
// parts asked for that are not filled yet. A statement that reads a part not loaded yet triggers
// another pass, so a query pays only for the tables it reads (the template text of every event
// costs more than everything else together).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "common/result.h"
#include "query/database.h"
#include "query/event_store.h"
#include "query/schema_names.h"
#include "query/tables.h"

namespace rastrace::exporter {
class TemplateText;
}

namespace rastrace::query {

struct LoadInputs {
  std::vector<std::string> paths;  // "-" is standard input
  // The sources' names, in the order of the paths (-n); a log without one is named by its path.
  std::vector<std::string> names;
  // The template file for the text and schema columns; empty: no text, no schema names.
  std::string templates;
  // Draw a progress bar on standard error (only when it is a terminal, and only once a pass has
  // run for a while).
  bool progress = false;
};

// What a command line loads: the logs and their names, the templates of `-t` (else the installed
// trcfmt; none with `no_text`), a progress bar on a terminal.
LoadInputs CommandInputs(std::vector<std::string> paths, std::vector<std::string> names,
                         const std::string& templates, bool no_text);

struct PassSummary {
  uint64_t events = 0;
  double seconds = 0;
};

class Loader {
 public:
  // `db` must have the tables (CreateTables). Loads the templates; fails when the file cannot
  // be read. Template diagnostics go to `diagnostics`.
  // Standard input ("-") is copied to a temporary file first, so that it can be read again.
  static Result<std::unique_ptr<Loader>> Create(Database& db, EventStore& store,
                                                RecordTables& tables, LoadInputs inputs,
                                                std::vector<std::string>& diagnostics);
  ~Loader();

  // Runs a pass when `wanted` holds a part not loaded yet (sources is filled by the first pass,
  // whatever is wanted). Logs that end inside an event are loaded up to there: their messages
  // ("FILE: offset 0x1234: truncated event ...") are in warnings() after the first pass.
  Result<PassSummary> Load(Parts wanted);

  Parts loaded() const { return loaded_; }
  const std::vector<Error>& warnings() const { return warnings_; }
  // Warnings the templates raised while text was loaded (unsupported built-ins).
  std::vector<std::string> TakeTemplateWarnings();

 private:
  Loader(Database& db, EventStore& store, RecordTables& tables, LoadInputs inputs);
  Result<PassSummary> Pass(Parts parts);

  Database& db_;
  EventStore& store_;
  RecordTables& tables_;
  LoadInputs inputs_;
  std::vector<int> stdin_copies_;           // descriptors of standard input's copies
  std::vector<std::string> display_paths_;  // "-" for those, in the sources table
  Parts loaded_;
  bool sources_loaded_ = false;
  std::vector<Error> warnings_;
  SchemaNames schemas_;
  std::unique_ptr<exporter::TemplateText> text_;
};

}  // namespace rastrace::query
