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
#include "query/tables.h"
#include "query/typed_tables.h"
#include "schema/decoder.h"

namespace rastrace::exporter {
class TemplateText;
}
namespace rastrace::schema {
struct Descriptions;
}

namespace rastrace::query {

struct LoadInputs {
  std::vector<std::string> paths;  // "-" is standard input
  // The sources' names, in the order of the paths (-n); a log without one is named by its path.
  std::vector<std::string> names;
  // What describes the events (every -t value, in order, as trcrpt and `rastrace export` take
  // them: template files, directories of TFF format files, or ':'-separated lists of them): the
  // templates of the text column and, with the format files and the system calls' tracefs
  // formats, the schemas of the schema column and the typed tables. None: only
  // `default_templates`.
  std::vector<std::string> templates;
  // Loaded when `templates` names no template file; empty: none.
  std::string default_templates;
  // Searched for TFF format files when `templates` names no directory.
  std::vector<std::string> default_format_dirs;
  // A tracefs events directory for the system calls' argument names; empty: none.
  std::string tracefs_events;
  // Fill the text column (false: it stays NULL; the schemas remain).
  bool text = true;
  // Draw a progress bar on standard error (only when it is a terminal, and only once a pass has
  // run for a while).
  bool progress = false;
};

// What a command line loads: the logs and their names, the descriptions of every `-t` (else the
// installed trcfmt; TFF files of the current directory; the running kernel's tracefs formats), the
// text unless `no_text`, a progress bar on a terminal.
LoadInputs CommandInputs(std::vector<std::string> paths, std::vector<std::string> names,
                         std::vector<std::string> templates, bool no_text);

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
  // The tables of the schemas the events pass found.
  const TypedTables& typed() const { return *typed_; }

 private:
  Loader(Database& db, EventStore& store, RecordTables& tables, LoadInputs inputs);
  Result<PassSummary> Pass(Parts parts);

  Database& db_;
  EventStore& store_;
  RecordTables& tables_;
  LoadInputs inputs_;
  std::vector<int> temporary_logs_;         // standard input's copy, save files' logs
  std::vector<std::string> display_paths_;  // "-" and the save files' paths, in sources
  Parts loaded_;
  bool sources_loaded_ = false;
  std::vector<Error> warnings_;
  // Save files read as the logs of their records (in temporary files, as standard input is):
  // their problems, given as the warnings of the first pass.
  std::vector<Error> save_file_problems_;
  std::unique_ptr<schema::Descriptions> descriptions_;
  std::unique_ptr<schema::Decoder> decoder_;
  std::unique_ptr<TypedTables> typed_;
  std::unique_ptr<exporter::TemplateText> text_;
};

}  // namespace rastrace::query
