// Test helper: the Trace Event format's rules a Chrome export must follow (tests only).
#pragma once

#include <gtest/gtest.h>

#include <map>
#include <utility>

#include "export/test_json.h"

namespace rastrace::exporter::testing {

// The Trace Event format's rules that Perfetto relies on: required keys per phase, timestamps in
// file order, B/E balanced and nested per thread. Returns the number of B events.
inline int CheckTraceEvents(const Json& doc) {
  const auto& events = doc["traceEvents"].array();
  double last_ts = -1;
  std::map<std::pair<uint64_t, uint64_t>, int> depth;
  int begins = 0;
  for (const Json& e : events) {
    const std::string& ph = e["ph"].str();
    EXPECT_TRUE(e.has("pid") && e.has("tid"));
    const auto track = std::make_pair(e["pid"].u64(), e["tid"].u64());
    if (ph == "M") {
      const std::string& name = e["name"].str();
      EXPECT_TRUE(name == "process_name" || name == "thread_name") << name;
      EXPECT_FALSE(e["args"]["name"].str().empty());
      continue;
    }
    const double ts = e["ts"].number();
    EXPECT_GE(ts, last_ts) << "timestamps go backwards";
    last_ts = ts;
    if (ph == "i") {
      EXPECT_EQ(e["s"].str(), "t");
      EXPECT_FALSE(e["name"].str().empty());
    } else if (ph == "B") {
      EXPECT_FALSE(e["name"].str().empty());
      ++depth[track];
      ++begins;
    } else if (ph == "E") {
      EXPECT_GT(depth[track], 0) << "E without B";
      --depth[track];
    } else if (ph == "C") {
      EXPECT_FALSE(e["name"].str().empty());
      EXPECT_TRUE(e["args"].has(e["name"].str())) << "a counter's value is under its name";
    } else {
      ADD_FAILURE() << "unexpected phase " << ph;
    }
  }
  for (const auto& [track, open] : depth) EXPECT_EQ(open, 0) << "slice left open";
  return begins;
}

}  // namespace rastrace::exporter::testing
