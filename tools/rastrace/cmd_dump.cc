// `rastrace dump LOG...`: every event of a log, undecorated by templates (like `trcrpt -r`).
#include <fmt/format.h>

#include <memory>
#include <string>
#include <vector>

#include "command.h"
#include "common/output_file.h"
#include "event/raw_dump.h"
#include "event/reader.h"

namespace rastrace::cli {
namespace {

struct DumpOptions {
  std::vector<std::string> logs;
  bool reformat = false;
};

int RunDump(const DumpOptions& options) {
  int status = 0;
  for (const std::string& path : options.logs) {
    if (options.logs.size() > 1) fmt::print("# {}\n", path);
    auto reader = event::LogReader::Open(path, {.reformat = options.reformat});
    if (!reader) {
      std::fflush(stdout);
      fmt::print(stderr, "rastrace dump: {}\n", reader.error().message);
      status = 1;
      continue;
    }
    fmt::print("# {}-bit events, {}-endian\n", static_cast<int>(reader->layout()),
               reader->byte_order() == ByteOrder::kBig ? "big" : "little");
    std::fflush(stdout);
    if (auto dumped = event::DumpRaw(*reader, stdout); !dumped) {
      std::fflush(stdout);
      fmt::print(stderr, "rastrace dump: {}\n", dumped.error().message);
      status = 1;
    }
  }
  if (auto finished = FinishOutput(stdout); !finished) {
    fmt::print(stderr, "rastrace dump: {}\n", finished.error().message);
    return 1;
  }
  return status;
}

const CommandRegistration kDump{Command{
    "dump", "Print every event of trace logs raw: offset, header fields and bytes in hex",
    [](CLI::App& sub) -> std::function<int()> {
      auto options = std::make_shared<DumpOptions>();
      sub.add_option("logs", options->logs, "Trace log files (- for standard input)")->required();
      sub.add_flag("-R,--reformat", options->reformat,
                   "Show events as templates see them (32-bit app data on a 64-bit kernel in the "
                   "32-bit layout, hook 00B in the 64-bit layout)");
      return [options] { return RunDump(*options); };
    }}};

}  // namespace
}  // namespace rastrace::cli
