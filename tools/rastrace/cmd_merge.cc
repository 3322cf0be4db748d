// `rastrace merge LOG... -o OUT`: logs from several processes or machines into one log, in time
// order, each source named by a 00A/0x105 event before its events (docs/exporting.md).
#include <fmt/format.h>

#include <memory>
#include <string>
#include <vector>

#include "command.h"
#include "event/writer.h"
#include "export/merge_writer.h"
#include "export/merged_stream.h"
#include "export/progress.h"

namespace rastrace::cli {
namespace {

struct MergeOptions {
  std::vector<std::string> logs;
  std::string output;
  bool force = false;
  std::vector<std::string> names;
};

void PrintMergeMessage(std::string_view message) {
  fmt::print(stderr, "rastrace merge: {}\n", message);
}

int RunMerge(const MergeOptions& options) {
  if (options.names.size() > options.logs.size()) {
    PrintMergeMessage(fmt::format("{} names (-n) for {} logs: give at most one name per log",
                                  options.names.size(), options.logs.size()));
    return 2;
  }
  auto stream = exporter::MergedStream::Open(options.logs);
  if (!stream) {
    PrintMergeMessage(stream.error().message);
    return 1;
  }
  for (size_t i = 0; i < options.names.size(); ++i) {
    stream->SetInputName(i, options.names[i]);
  }
  auto order = exporter::CommonByteOrder(*stream);
  if (!order) {
    PrintMergeMessage(order.error().message);
    return 1;
  }
  auto writer = event::LogWriter::Create(
      options.output,
      {.layout = event::Layout::k64, .byte_order = *order, .overwrite = options.force});
  if (!writer) {
    PrintMergeMessage(writer.error().message);
    return 1;
  }
  auto progress = exporter::Progress::ForStderr("merge", stream->total_bytes());
  auto stats = exporter::WriteMergedLog(*stream, *writer, &progress);
  if (!stats) {
    PrintMergeMessage(stats.error().message);
    return 1;
  }
  if (auto closed = writer->Close(); !closed) {
    PrintMergeMessage(closed.error().message);
    return 1;
  }
  for (const auto& warning : stream->warnings())
    PrintMergeMessage(fmt::format("warning: {}", warning.message));
  return stream->warnings().empty() ? 0 : 1;
}

const CommandRegistration kMerge{Command{
    "merge", "Merge trace logs of several processes or machines into one, in time order",
    [](CLI::App& sub) -> std::function<int()> {
      auto options = std::make_shared<MergeOptions>();
      sub.add_option("logs", options->logs, "Trace log files to merge")->required();
      sub.add_option("-o,--output", options->output, "The merged log (- for standard output)")
          ->required();
      sub.add_flag("--force", options->force, "Replace the output file when it exists");
      sub.add_option("-n,--name", options->names,
                     "Name of each log's source, in the order of the logs (default: its path)");
      return [options] { return RunMerge(*options); };
    }}};

}  // namespace
}  // namespace rastrace::cli
