// What a system-wide session records: the `trace` command's flags, parsed (trace_options.cc).
#pragma once

#include <bitset>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "common/result.h"
#include "recorder/options.h"

namespace rastrace::session {

struct SessionConfig {
  // -o (made absolute), -l / -f, -T, -L, -s, -c. `channels`, `clock` and the hook lists of
  // RecorderOptions are not used: see below.
  recorder::RecorderOptions log;
  bool background = false;           // -a
  bool defer = false;                // -d: tracing starts off, trcon turns it on
  bool generic = false;              // -g: take the lowest free generic channel 1-7
  bool per_cpu = false;              // -C: one buffer set and log per cpu
  std::vector<unsigned> cpus;        // -C list; empty = every cpu
  bool symbols = false;              // -n
  bool kernel = true;                // record kernel events when privileged (channel 0 only)
  std::vector<std::string> command;  // -x: run and trace this command, stop when it ends
  // -j / -k: only these 16-bit hook ids are recorded.
  bool filter_active = false;
  std::bitset<65536> allowed;
  std::string command_line;  // as typed, for the 003 header
};

// The AIX flags: -a -d -f -l -s -c -n -g -o FILE|- -T SIZE -L SIZE -j LIST -k LIST
// -C all|LIST -x 'COMMAND ARGS'. `args` excludes the program name.
Result<SessionConfig> ParseTraceArgs(std::span<const std::string> args);

// A -j / -k list: items separated by commas or blanks; 3 hex digits are one AIX id hhh (the 16-bit
// id hhh0), 2 digits hh are the 16 ids hh0-hhF, 4 digits one 16-bit id.
Result<std::vector<uint16_t>> ParseEventList(std::string_view text, std::string_view what);

}  // namespace rastrace::session
