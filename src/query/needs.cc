#include "query/needs.h"

namespace rastrace::query {

namespace {

int RecordRead(void* user, int action, const char* table, const char* column, const char*,
               const char* view) {
  if (action == SQLITE_READ && table != nullptr) {
    // Our views read every column behind them whatever the statement uses; the statement's own
    // reads of the view's columns are reported separately (with no view, or a user's view).
    if (view == nullptr || !IsOurView(view)) {
      *static_cast<Parts*>(user) |= PartsForRead(table, column != nullptr ? column : "");
    }
  }
  return SQLITE_OK;
}

}  // namespace

Result<Statement> PrepareRecordingParts(Database& db, std::string_view sql, Parts& parts,
                                        std::string_view* tail) {
  sqlite3_set_authorizer(db.get(), RecordRead, &parts);
  auto statement = db.Prepare(sql, tail);
  sqlite3_set_authorizer(db.get(), nullptr, nullptr);
  return statement;
}

}  // namespace rastrace::query
