// Counts what a session log holds, for the session bench scripts: prints
//   <events of HOOK> <lost by programs' threads> <kernel events> <lost by the kernel> <all events>
// (lost counts from the 006 events: word 2 is the thread for a program's loss, 0 for the
// kernel's). Usage: session_log_counts LOG [HOOK16 (hex, default 0200)] [MORE LOGS...]
#include <cstdio>
#include <cstdlib>
#include <string>

#include "event/format.h"
#include "event/reader.h"

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s LOG [HOOK16] [MORE LOGS...]\n", argv[0]);
    return 2;
  }
  const unsigned long hook = argc > 2 ? std::strtoul(argv[2], nullptr, 16) : 0x0200;
  uint64_t hooks = 0, lost = 0, kernel = 0, kernel_lost = 0, all = 0;
  for (int i = 1; i < argc; ++i) {
    if (i == 2) continue;
    auto reader = rastrace::event::LogReader::Open(argv[i]);
    if (!reader) {
      std::fprintf(stderr, "%s\n", reader.error().message.c_str());
      return 1;
    }
    rastrace::event::Event ev;
    rastrace::event::ReadStatus status;
    while ((status = reader->Next(ev)) == rastrace::event::ReadStatus::kEvent) {
      ++all;
      if (ev.hook_id == hook) ++hooks;
      if (ev.hook_id == rastrace::event::kHookLost) {
        (ev.words[1] != 0 ? lost : kernel_lost) += ev.words[0];
      } else if (ev.hook_id >= 0x1000 && ev.hook_id < 0x4700) {
        ++kernel;
      }
    }
    if (status != rastrace::event::ReadStatus::kEnd) {
      std::fprintf(stderr, "%s: %s\n", argv[i], reader->error().message.c_str());
      return 1;
    }
  }
  std::printf("%llu %llu %llu %llu %llu\n", static_cast<unsigned long long>(hooks),
              static_cast<unsigned long long>(lost), static_cast<unsigned long long>(kernel),
              static_cast<unsigned long long>(kernel_lost), static_cast<unsigned long long>(all));
  return 0;
}
