// Test helpers: the tracefs files of a real kernel (6.18), copied from /sys/kernel/tracing into
// tests/golden/session/tracefs.
#pragma once

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

#include "session/raw_events.h"

namespace rastrace::session::testing {

// The copied file `name` (for example "sys_enter.format" or "header_page").
inline std::string TracefsGolden(const std::string& name) {
  std::ifstream in(std::string(RASTRACE_SOURCE_DIR) + "/tests/golden/session/tracefs/" + name);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// The parsed format of `event`; an empty one (and a test failure) when it does not parse.
inline RawFormat GoldenFormat(const std::string& event) {
  auto format = ParseEventFormat(TracefsGolden(event + ".format"), event);
  EXPECT_TRUE(format) << (format ? "" : format.error().message);
  return format ? *format : RawFormat{};
}

}  // namespace rastrace::session::testing
