#include "query/trace_database.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "query/events_table.h"
#include "query/needs.h"
#include "query/record_module.h"

namespace rastrace::query {

namespace {

// Pages SQLite may keep in memory (KiB, as PRAGMA cache_size takes negative values): a temporary
// database larger than this goes to its file.
constexpr int kCacheKiB = 256 * 1024;

}  // namespace

Result<void> CreateDatabaseFile(const std::string& path, bool force) {
  if (force) {
    struct stat st {};
    if (lstat(path.c_str(), &st) == 0) {
      if (!S_ISREG(st.st_mode)) return MakeError("{}: exists and is not a regular file", path);
      if (unlink(path.c_str()) != 0) {
        return MakeError("{}: cannot replace it: {}", path, std::strerror(errno));
      }
    }
  }
  const int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0) {
    if (errno == EEXIST) return MakeError("{}: exists; use --force to replace it", path);
    return MakeError("{}: cannot create it: {}", path, std::strerror(errno));
  }
  close(fd);
  return Ok();
}

namespace {

// A statement's text without the blanks and comments SQLite skipped before it.
std::string_view Trimmed(std::string_view sql) {
  while (!sql.empty() && (sql.front() == ' ' || sql.front() == '\n' || sql.front() == '\t' ||
                          sql.front() == '\r')) {
    sql.remove_prefix(1);
  }
  while (!sql.empty() &&
         (sql.back() == ' ' || sql.back() == '\n' || sql.back() == '\t' || sql.back() == '\r')) {
    sql.remove_suffix(1);
  }
  return sql;
}

constexpr size_t kSchemaNamesPart = static_cast<size_t>(Part::kSchemaNames);
Parts NamedEvents() {
  return PartSet({Part::kEvents, Part::kSchemaNames});
}

// A statement naming a table that is not there (yet): a typed table is made by the events pass.
bool NamesAMissingTable(const Error& error) {
  return error.message.find("no such table") != std::string::npos;
}

}  // namespace

Result<std::unique_ptr<TraceDatabase>> TraceDatabase::Open(LoadInputs inputs,
                                                           std::vector<std::string>& diagnostics) {
  auto store = EventStore::Create();
  if (!store) return store.error();
  auto tables = RecordTables::Create();
  if (!tables) return tables.error();
  auto db = Database::Open("");
  if (!db) return db.error();
  std::unique_ptr<TraceDatabase> trace(new TraceDatabase(
      std::move(store).value(), std::move(tables).value(), std::move(db).value()));
  // Loading writes each row once into a database nobody else reads: no journal, no syncs (a
  // crash loses a database that is rebuilt from the logs anyway).
  auto pragmas = trace->db_.Exec(fmt::format(
      "PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF; PRAGMA cache_size = -{};", kCacheKiB));
  if (!pragmas) return pragmas.error();
  if (auto registered = RegisterEventsTable(trace->db_, *trace->store_, trace->tables_.text());
      !registered) {
    return registered.error();
  }
  for (const auto& table : trace->tables_.all()) {
    if (auto registered = RegisterRecordTable(trace->db_, *table); !registered) {
      return registered.error();
    }
  }
  if (auto made = CreateTables(trace->db_, Storage::kLive); !made) return made.error();
  auto loader =
      Loader::Create(trace->db_, *trace->store_, trace->tables_, std::move(inputs), diagnostics);
  if (!loader) return loader.error();
  trace->loader_ = std::move(loader).value();
  return trace;
}

Result<void> TraceDatabase::Save(const std::string& path, bool force) {
  if (auto loaded = Ensure(AllParts()); !loaded) return loaded;
  if (auto created = CreateDatabaseFile(path, force); !created) return created;
  auto attached = db_.Exec(fmt::format("ATTACH DATABASE {} AS saved", QuoteSql(path)));
  if (!attached) return MakeError("{}: {}", path, attached.error().message);
  auto copied = [&]() -> Result<void> {
    if (auto pragmas = db_.Exec("PRAGMA saved.journal_mode = OFF; PRAGMA saved.synchronous = OFF");
        !pragmas) {
      return pragmas;
    }
    if (auto begun = db_.Exec("BEGIN"); !begun) return begun;
    for (const TableInfo& table : Tables()) {
      if (auto made = db_.Exec(CreateSql(table, Storage::kSaved, "saved")); !made) return made;
      if (table.backing == Backing::kView) continue;
      auto rows = db_.Exec(fmt::format("INSERT INTO saved.{0} SELECT * FROM main.{0}", table.name));
      if (!rows) return rows;
    }
    // The typed tables as tables of their own, with their typed columns.
    const TypedTables& typed = loader_->typed();
    for (uint32_t id : typed.created()) {
      const std::string name = QuoteIdentifier(typed.TableOf(id));
      auto made = db_.Exec(fmt::format("CREATE TABLE saved.{}({})", name,
                                       TypedColumnDefinitions(typed.SchemaOf(id))));
      if (!made) return made;
      auto rows = db_.Exec(fmt::format("INSERT INTO saved.{0} SELECT * FROM main.{0}", name));
      if (!rows) return rows;
    }
    return db_.Exec("COMMIT");
  }();
  if (!copied) (void)db_.Exec("ROLLBACK");
  auto detached = db_.Exec("DETACH DATABASE saved");
  if (!copied) return MakeError("{}: {}", path, copied.error().message);
  if (!detached) return MakeError("{}: {}", path, detached.error().message);
  return Ok();
}

Result<void> TraceDatabase::Ensure(Parts parts) {
  auto loaded = loader_->Load(parts);
  if (!loaded) return loaded.error();
  return Ok();
}

std::string TraceDatabase::DescribeFailure(std::string_view statement,
                                           const std::string& message) const {
  std::string out = message;
  const int offset = sqlite3_error_offset(db_.get());
  const std::string_view text = Trimmed(statement);
  if (offset < 0 || text.empty()) return out;
  // The caret points into the statement as SQLite saw it (from its first character).
  const size_t skipped = static_cast<size_t>(text.data() - statement.data());
  size_t at = static_cast<size_t>(offset) >= skipped ? static_cast<size_t>(offset) - skipped : 0;
  if (at > text.size()) return out;
  // Only the line holding the error.
  const size_t line_start = text.rfind('\n', at == 0 ? 0 : at - 1);
  const size_t begin = line_start == std::string_view::npos || at == 0 ? 0 : line_start + 1;
  const size_t end = text.find('\n', at);
  const std::string_view line =
      text.substr(begin, end == std::string_view::npos ? std::string_view::npos : end - begin);
  out += fmt::format("\n  {}\n  {}^--- here", line, std::string(at - begin, ' '));
  return out;
}

Result<void> TraceDatabase::Run(std::string_view sql, ResultPrinter& printer) {
  // First every statement that can be prepared now says what it reads, so that one pass loads
  // it all; a statement that reads what an earlier one creates is looked at when its turn comes.
  Parts wanted;
  for (std::string_view rest = sql; !Trimmed(rest).empty();) {
    std::string_view tail;
    auto statement = PrepareRecordingParts(db_, rest, wanted, &tail);
    if (!statement && NamesAMissingTable(statement.error())) wanted |= NamedEvents();
    if (!statement || tail.size() >= rest.size()) break;
    rest = tail;
  }
  if (auto loaded = Ensure(wanted); !loaded) return loaded.error();

  for (std::string_view rest = sql; !Trimmed(rest).empty();) {
    std::string_view tail;
    Parts parts;
    auto statement = PrepareRecordingParts(db_, rest, parts, &tail);
    if (!statement && NamesAMissingTable(statement.error()) &&
        !loader_->loaded().test(kSchemaNamesPart)) {
      // The typed tables exist once the events are named: name them, and try again.
      if (auto loaded = Ensure(NamedEvents()); !loaded) return loaded.error();
      parts.reset();
      statement = PrepareRecordingParts(db_, rest, parts, &tail);
    }
    if (!statement) {
      const size_t end = rest.find(';');
      return Error{DescribeFailure(rest.substr(0, end), statement.error().message)};
    }
    const std::string_view text = rest.substr(0, rest.size() - tail.size());
    rest = tail.size() < rest.size() ? tail : std::string_view();
    if (!*statement) continue;  // only blanks or comments
    if (auto loaded = Ensure(parts); !loaded) return loaded.error();
    auto printed = printer.Print(*statement);
    if (!printed) return Error{DescribeFailure(text, printed.error().message)};
  }
  return printer.Flush();
}

}  // namespace rastrace::query
