// trcust: the trace customizer. Compiles an OS/2 trace source file (TSF) into a trace format file
// (TRCxxxx.TFF) and a trace definition file (TRCxxxx.TDF), or into a C/C++ header of static
// tracepoints; combines format files of one major (`trcust LIST /C=DEST.TFF`).
#include <CLI/CLI.hpp>
#include <cstdio>
#include <string>
#include <vector>

#include "actions.h"
#include "common/output_file.h"
#include "common/usage_exit.h"

namespace {

// What trcust printed must have arrived too.
int Finish(int status) {
  if (auto finished = rastrace::FinishOutput(stdout); !finished) {
    std::fprintf(stderr, "trcust: %s\n", finished.error().message.c_str());
    return rastrace::kExitFailure;
  }
  return status;
}

}  // namespace

int main(int argc, char** argv) {
  // OS/2 spelling: /C=DEST.TFF (or /C:DEST.TFF) is --combine DEST.TFF.
  std::vector<std::string> args;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a.size() > 3 && a[0] == '/' && (a[1] == 'C' || a[1] == 'c') &&
        (a[2] == '=' || a[2] == ':')) {
      args.push_back("--combine=" + a.substr(3));
    } else {
      args.push_back(a);
    }
  }
  std::reverse(args.begin(), args.end());  // CLI11 takes the arguments reversed

  CLI::App app{
      "trcust: compile OS/2 trace source files (TSF) into trace format (TRCxxxx.TFF) "
      "and definition (TRCxxxx.TDF) files, or into a header of static tracepoints"};
  app.name("trcust");
  std::vector<std::string> inputs;
  std::string output_dir, header, combine;
  app.add_option("inputs", inputs,
                 "a TSF file to compile; with --combine, .TFF files or list files of them")
      ->required();
  app.add_option("-o,--output-dir", output_dir,
                 "directory for TRCxxxx.TFF and TRCxxxx.TDF (default: the current directory)");
  app.add_option("--header", header,
                 "write a C/C++ header with one function per TP=@STATIC tracepoint");
  app.add_option("-C,--combine", combine,
                 "combine the input format files (one major) into this file; also /C=FILE");
  try {
    app.parse(args);
  } catch (const CLI::ParseError& e) {
    return rastrace::UsageExit(app, e);
  }
  if (!combine.empty()) {
    if (!header.empty() || !output_dir.empty()) {
      std::fprintf(stderr, "trcust: --combine does not go with -o or --header\n");
      return 2;
    }
    return Finish(rastrace::trcust::Combine(inputs, combine));
  }
  if (inputs.size() != 1) {
    std::fprintf(stderr, "trcust: give one trace source file to compile (got %zu)\n",
                 inputs.size());
    return 2;
  }
  if (header.empty() && output_dir.empty()) output_dir = ".";
  return Finish(rastrace::trcust::Compile(inputs[0], output_dir, header));
}
