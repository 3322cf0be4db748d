// Any bytes read as a log (alone, and beside a second copy of themselves) into every table, and
// every table read back whole through SQLite (which decodes each event again from the log): never
// a crash; a damaged log is an error value or a shorter table.
#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "query/result_printer.h"
#include "query/tables.h"
#include "query/trace_database.h"

namespace {

using rastrace::query::TraceDatabase;

void LoadAndReadEverything(const std::vector<std::string>& paths) {
  rastrace::query::LoadInputs inputs;
  inputs.paths = paths;
  std::vector<std::string> diagnostics;
  auto db = TraceDatabase::Open(inputs, diagnostics);
  if (!db.ok()) __builtin_trap();  // nothing read yet: only the temporary files can fail
  std::FILE* out = std::fopen("/dev/null", "w");
  if (out == nullptr) return;
  rastrace::query::ResultPrinter printer(out, rastrace::query::OutputMode::kCsv);
  std::string sql;
  for (const auto& table : rastrace::query::Tables()) {
    sql += "SELECT * FROM " + std::string(table.name) + ";";
  }
  // A log that is not one fails the first statement: that is an answer, not a finding.
  (void)(*db)->Run(sql, printer);
  (void)(*db)->Run("SELECT * FROM events WHERE id BETWEEN 2 AND 5 OR ts > 1000 ORDER BY ts DESC",
                   printer);
  std::fclose(out);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const int fd = memfd_create("query_fuzzer", MFD_CLOEXEC);
  if (fd < 0) return 0;
  for (size_t done = 0; done < size;) {
    const ssize_t n = write(fd, data + done, size - done);
    if (n <= 0) {
      close(fd);
      return 0;
    }
    done += static_cast<size_t>(n);
  }
  const std::string path = "/proc/self/fd/" + std::to_string(fd);
  LoadAndReadEverything({path});
  LoadAndReadEverything({path, path});
  close(fd);
  return 0;
}
