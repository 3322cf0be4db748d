// Which parts of the tables a statement reads, from SQLite's own name resolution: while a
// statement is prepared, an authorizer sees every column it reads (through views too), so the
// loader fills only those parts. Robust where scanning SQL text would not be: aliases, `*`,
// subqueries, user views and CTEs all resolve to the same column reads.
#pragma once

#include <string_view>

#include "common/result.h"
#include "query/database.h"
#include "query/tables.h"

namespace rastrace::query {

// Prepares the first statement of `sql` while recording the parts it reads into `parts`.
// `tail` receives what follows the statement.
Result<Statement> PrepareRecordingParts(Database& db, std::string_view sql, Parts& parts,
                                        std::string_view* tail = nullptr);

}  // namespace rastrace::query
