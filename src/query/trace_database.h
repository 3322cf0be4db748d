// A database of trace tables over a set of logs, loaded as statements need: the object behind
// `rastrace sql`. Runs SQL text statement by statement, loading the parts each one reads first.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"
#include "query/database.h"
#include "query/event_store.h"
#include "query/loader.h"
#include "query/result_printer.h"
#include "query/tables.h"

namespace rastrace::query {

// A new, empty file for a database: created 0600, never through a symbolic link; an existing
// file is replaced only with `force` (and only a regular file).
Result<void> CreateDatabaseFile(const std::string& path, bool force);

class TraceDatabase {
 public:
  // Creates the database and its tables; loads nothing yet. Template diagnostics go to
  // `diagnostics`.
  // The database is a private temporary one that SQLite deletes on close: its pages stay in
  // memory up to the cache size, then go to a file in $SQLITE_TMPDIR or $TMPDIR (else /var/tmp,
  // /tmp), and the events' records to a temporary file in $TMPDIR, so memory stays bounded for
  // logs larger than RAM.
  static Result<std::unique_ptr<TraceDatabase>> Open(LoadInputs inputs,
                                                     std::vector<std::string>& diagnostics);

  // Loads the parts not loaded yet.
  Result<void> Ensure(Parts parts);

  // Runs every statement of `sql` in order, printing the rows of each; stops at the first that
  // fails, with SQLite's message and, when SQLite knows it, where in the statement.
  Result<void> Run(std::string_view sql, ResultPrinter& printer);

  // The message for a failed statement: SQLite's message, then the statement's text with a
  // caret under the point of failure when SQLite gives one.
  std::string DescribeFailure(std::string_view statement, const std::string& message) const;

  // Writes every table into a new SQLite database file (loading what is not loaded yet): plain
  // tables and the same views, for any SQLite client.
  Result<void> Save(const std::string& path, bool force);

  Database& db() { return db_; }
  Loader& loader() { return *loader_; }
  // Logs that ended inside an event, once the first pass has run: "FILE: offset 0x..: ...".
  const std::vector<Error>& warnings() const { return loader_->warnings(); }

 private:
  TraceDatabase(std::unique_ptr<EventStore> store, RecordTables tables, Database db)
      : store_(std::move(store)), tables_(std::move(tables)), db_(std::move(db)) {}
  // Declared before the connection, which reads them through virtual tables, so they outlive it.
  std::unique_ptr<EventStore> store_;
  RecordTables tables_;
  Database db_;
  std::unique_ptr<Loader> loader_;
};

}  // namespace rastrace::query
