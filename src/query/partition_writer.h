// The tables of a trace database as Hive-style partitioned files, for reading a fleet's traces
// with Spark, Trino or DuckDB (docs/sql.md, "Across a fleet"):
//
//   DIR/schema.sql                                  CREATE TABLE of every table, typed
//   DIR/TABLE/machine=NAME/hour=YYYY-MM-DDTHH/PART.csv   (or .jsonl)
//
// A row goes to the machine of its source (the trace header's node name, or the name given) and
// the UTC hour of its wall-clock time; rows without one (a source without a trace header) go to
// hour=__HIVE_DEFAULT_PARTITION__, as Hive and Spark name a NULL partition value.
#pragma once

#include <cstdint>
#include <string>

#include "common/result.h"
#include "query/result_printer.h"
#include "query/trace_database.h"

namespace rastrace::query {

struct PartitionOptions {
  std::string dir;
  OutputMode format = OutputMode::kCsv;  // kCsv, or kJson for JSON Lines
  std::string machine;                   // empty: each source's node name ("unknown" without)
  std::string part_name;                 // the files' name without extension ("part-0")
  bool force = false;                    // replace files of the same name
};

struct PartitionSummary {
  uint64_t rows = 0;
  uint64_t files = 0;
};

// "_" for the characters Hive escapes in a partition value (/, =, %, control characters...):
// a path component that reads back as itself.
std::string PartitionValue(std::string_view text);

// Loads every part not loaded yet and writes every table (not the internal ones). A file that
// exists already is an error unless `force` (then it is replaced): two exports of one log never
// mix their rows.
Result<PartitionSummary> WritePartitions(TraceDatabase& db, const PartitionOptions& options);

}  // namespace rastrace::query
