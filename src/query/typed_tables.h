// The typed tables: one per schema of the loaded events (src/schema: the names and typed fields
// every export uses), named after the schema, with the event's id, ts, source, pid, tid and cpu
// and one column per field (docs/sql.md, "Typed tables"). They are virtual tables over the event
// store: a row is the event read again from its log and decoded by the same schema::Decoder that
// named it during the load, so they cost nothing until a statement reads them.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "common/result.h"
#include "query/database.h"
#include "query/event_store.h"
#include "schema/decoder.h"

namespace rastrace::query {

// The columns every typed table has before the schema's fields.
inline constexpr std::string_view kTypedEventColumns[] = {"id",  "ts",  "source",
                                                          "pid", "tid", "cpu"};

// "INTEGER" for the integer types, "REAL", "TEXT", "BLOB".
std::string_view SqlTypeOf(schema::FieldType type);

// `name` as an SQL identifier in double quotes.
std::string QuoteIdentifier(std::string_view name);

// The column names of a schema's table: kTypedEventColumns, then the fields; a field named like
// one of those gets "field_" before its name (`field_pid`), and a clash left after that `_2`.
std::vector<std::string> TypedColumnNames(const schema::Schema& schema);

// "id INTEGER, ts INTEGER, ..., "field" TYPE, ...": the typed columns of `schema`'s table.
std::string TypedColumnDefinitions(const schema::Schema& schema);

class TypedTables {
 public:
  // Registers the module `rastrace_schema` on `db`: `store` and `decoder` must outlive the
  // connection's use of the tables.
  static Result<std::unique_ptr<TypedTables>> Register(Database& db, EventStore& store,
                                                       schema::Decoder& decoder);

  // The table name of schema `id` (given on first use): the schema's name, with "event_" before
  // it when it starts with "sqlite_" (SQLite's own), and "_event" after it when that is one of
  // rastrace sql's own tables and views or another schema's table (compared without case), then
  // `_2`, `_3`... while that is taken too.
  const std::string& NameOf(uint32_t schema_id);

  // Creates the tables of the schemas named since the last call (after a pass that named them).
  Result<void> CreateNew(Database& db);

  // The table of schema `id` (NameOf gave it); its schema.
  const std::string& TableOf(uint32_t schema_id) const { return names_[schema_id]; }
  const schema::Schema& SchemaOf(uint32_t schema_id) const { return catalog_.at(schema_id); }

  // The schemas with a table, in order of their ids.
  const std::vector<uint32_t>& created() const { return created_; }

 private:
  explicit TypedTables(const schema::Catalog& catalog) : catalog_(catalog) {}
  const schema::Catalog& catalog_;
  std::vector<std::string> names_;  // by schema id; empty: not named yet
  std::unordered_set<std::string> taken_;
  std::vector<uint32_t> created_;
  std::vector<uint32_t> pending_;
};

}  // namespace rastrace::query
