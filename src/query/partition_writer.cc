#include "query/partition_writer.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <map>
#include <memory>
#include <set>

namespace rastrace::query {

namespace {

// Files kept open at once; rows of a table come in time order, so few partitions are written
// at a time and a closed one is rarely opened again (then appended to).
constexpr size_t kMaxOpenFiles = 64;
constexpr std::string_view kNullPartition = "__HIVE_DEFAULT_PARTITION__";

// The time (ns since the trace start) that places a row of `table` in an hour; the events view
// has its wall-clock time already, sources its start.
std::string_view TimeOf(std::string_view table) {
  // A process or thread only the process table names: the trace start.
  if (table == "processes" || table == "threads") return "coalesce(t.start_ts, t.first_ts, 0)";
  if (table == "syscalls" || table == "slices") return "coalesce(t.ts, t.end_ts)";
  return "t.ts";
}

// The tables a partition holds: every table but the storage behind views and `schemas`, which
// describes the events of one database (its ids are that database's) and has no time to place.
bool Partitioned(const TableInfo& table) {
  return !table.internal && table.name != "schemas";
}

std::string SelectSql(std::string_view table) {
  std::string wall;
  std::string source = "t.source";
  if (table == "sources") {
    wall = "t.start_wall";
    source = "t.id";
  } else if (table == "events") {
    wall = "t.wall";
  } else {
    wall = fmt::format("{} + s.wall_offset", TimeOf(table));
  }
  return fmt::format(
      "SELECT coalesce(?1, s.node, 'unknown'), "
      "strftime('%Y-%m-%dT%H', ({}) / 1000000000, 'unixepoch'), t.* "
      "FROM {} t LEFT JOIN sources s ON s.id = {}",
      wall, table, source);
}

struct FileCloser {
  void operator()(std::FILE* file) const { std::fclose(file); }
};

class PartitionFiles {
 public:
  explicit PartitionFiles(const PartitionOptions& options) : options_(options) {}

  // The open file for `path`, made (with `header` written) when new.
  Result<std::FILE*> Get(const std::filesystem::path& path, std::string_view header) {
    const std::string key = path.string();
    if (auto it = open_.find(key); it != open_.end()) return it->second.get();
    if (open_.size() >= kMaxOpenFiles) {
      if (auto closed = CloseAll(); !closed) return closed.error();
    }
    const bool made = made_.contains(key);
    if (!made) {
      std::error_code ec;
      std::filesystem::create_directories(path.parent_path(), ec);
      if (ec)
        return MakeError("{}: cannot create it: {}", path.parent_path().string(), ec.message());
    }
    int flags = O_WRONLY | O_CLOEXEC | O_NOFOLLOW;
    flags |= made ? O_APPEND : O_CREAT | (options_.force ? O_TRUNC : O_EXCL);
    const int fd = ::open(key.c_str(), flags, 0644);
    if (fd < 0) {
      if (errno == EEXIST) return MakeError("{}: exists; use --force to replace it", key);
      return MakeError("{}: cannot open it: {}", key, std::strerror(errno));
    }
    std::FILE* file = ::fdopen(fd, "w");
    if (file == nullptr) {
      ::close(fd);
      return MakeError("{}: {}", key, std::strerror(errno));
    }
    open_[key].reset(file);
    if (!made) {
      made_.insert(key);
      if (std::fwrite(header.data(), 1, header.size(), file) != header.size()) {
        return MakeError("{}: write error: {}", key, std::strerror(errno));
      }
    }
    return file;
  }

  Result<void> CloseAll() {
    Result<void> status = Ok();
    for (auto& [path, file] : open_) {
      const bool failed = std::ferror(file.get()) != 0;
      if (std::fclose(file.release()) != 0 || failed) {
        if (status) status = MakeError("{}: write error: {}", path, std::strerror(errno));
      }
    }
    open_.clear();
    return status;
  }

  size_t made() const { return made_.size(); }

 private:
  const PartitionOptions& options_;
  std::map<std::string, std::unique_ptr<std::FILE, FileCloser>> open_;
  std::set<std::string> made_;
};

Result<void> WriteSchema(const std::filesystem::path& dir) {
  std::string text =
      "-- The tables of `rastrace export --partition` (docs/sql.md): one file per table, machine\n"
      "-- and hour under TABLE/machine=NAME/hour=YYYY-MM-DDTHH/.\n";
  for (const TableInfo& table : Tables()) {
    if (!Partitioned(table)) continue;
    // The files hold a blob as its hex digits.
    std::string columns = TypedColumns(table);
    for (size_t at = 0; (at = columns.find(" BLOB", at)) != std::string::npos;) {
      columns.replace(at, 5, " TEXT");
    }
    text += fmt::format("CREATE TABLE {}({});\n", table.name, columns);
  }
  const std::string path = (dir / "schema.sql").string();
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);
  if (fd < 0) return MakeError("{}: cannot create it: {}", path, std::strerror(errno));
  const ssize_t wrote = ::write(fd, text.data(), text.size());
  const int saved_errno = errno;
  const bool closed = ::close(fd) == 0;
  if (wrote != static_cast<ssize_t>(text.size()) || !closed) {
    return MakeError("{}: write error: {}", path, std::strerror(saved_errno));
  }
  return Ok();
}

}  // namespace

std::string PartitionValue(std::string_view text) {
  std::string out;
  for (char c : text) {
    const auto u = static_cast<unsigned char>(c);
    const bool plain = std::isalnum(u) != 0 || c == '-' || c == '_' || c == '.' || u >= 0x80;
    out.push_back(plain ? c : '_');
  }
  if (out.empty() || out == "." || out == "..") out = "_" + out;
  return out;
}

Result<PartitionSummary> WritePartitions(TraceDatabase& db, const PartitionOptions& options) {
  if (options.format != OutputMode::kCsv && options.format != OutputMode::kJson) {
    return Error{"partitions are written as csv or jsonl"};
  }
  if (auto loaded = db.Ensure(AllParts()); !loaded) return loaded.error();
  const std::filesystem::path dir = options.dir;
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return MakeError("{}: cannot create it: {}", options.dir, ec.message());
  if (auto schema = WriteSchema(dir); !schema) return schema.error();

  const std::string file_name =
      PartitionValue(options.part_name.empty() ? "part" : options.part_name) +
      (options.format == OutputMode::kCsv ? ".csv" : ".jsonl");
  PartitionFiles files(options);
  PartitionSummary summary;
  std::string line;
  for (const TableInfo& table : Tables()) {
    if (!Partitioned(table)) continue;
    auto statement = db.db().Prepare(SelectSql(table.name));
    if (!statement) return MakeError("{}: {}", table.name, statement.error().message);
    if (!options.machine.empty()) statement->BindText(1, options.machine);
    std::string header;
    if (options.format == OutputMode::kCsv) AppendCsvHeader(*statement, header, 2);
    const std::vector<std::string> keys = JsonKeys(*statement, 2);
    // The partition of the previous row: consecutive rows mostly share it.
    std::string last_machine, last_hour;
    std::FILE* file = nullptr;
    for (;;) {
      auto step = statement->Step();
      if (!step) return MakeError("{}: {}", table.name, step.error().message);
      if (!*step) break;
      const std::string_view machine = statement->ColumnText(0);
      const std::string_view hour =
          statement->ColumnType(1) == SQLITE_NULL ? kNullPartition : statement->ColumnText(1);
      if (file == nullptr || machine != last_machine || hour != last_hour) {
        last_machine = machine;
        last_hour = hour;
        auto got = files.Get(dir / table.name / ("machine=" + PartitionValue(machine)) /
                                 ("hour=" + PartitionValue(hour)) / file_name,
                             header);
        if (!got) return got.error();
        file = *got;
      }
      line.clear();
      if (options.format == OutputMode::kCsv) {
        AppendCsvRow(*statement, line, 2);
      } else {
        AppendJsonObject(*statement, keys, line, 2);
        line.push_back('\n');
      }
      if (std::fwrite(line.data(), 1, line.size(), file) != line.size()) {
        return MakeError("{}: write error: {}", table.name, std::strerror(errno));
      }
      ++summary.rows;
    }
    // The next table has other files.
    if (auto closed = files.CloseAll(); !closed) return closed.error();
  }
  summary.files = files.made();
  return summary;
}

}  // namespace rastrace::query
