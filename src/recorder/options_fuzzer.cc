// Trace options from untrusted text (trcstart arguments, RASTRACE_* variables): parsing never
// crashes, and whatever parses survives the trip through the environment unchanged.
#include <cstdint>
#include <cstdlib>
#include <map>
#include <string>
#include <string_view>

#include "recorder/options.h"

namespace {

using rastrace::recorder::RecorderOptions;

bool Same(const RecorderOptions& a, const RecorderOptions& b) {
  return a.log_path == b.log_path && a.mode == b.mode && a.buffer_bytes == b.buffer_bytes &&
         a.buffer_max_bytes == b.buffer_max_bytes && a.log_bytes == b.log_bytes &&
         a.log_full == b.log_full && a.keep_old == b.keep_old && a.channels == b.channels &&
         a.include_hooks == b.include_hooks && a.exclude_hooks == b.exclude_hooks &&
         a.clock == b.clock;
}

void CheckRoundTrip(const RecorderOptions& options) {
  std::map<std::string, std::string> env;
  for (const auto& [name, value] : rastrace::recorder::OptionsToEnvironment(options)) {
    env[name] = value;
  }
  auto back = rastrace::recorder::OptionsFromEnvironment([&](const char* name) -> const char* {
    auto it = env.find(name);
    return it == env.end() ? nullptr : it->second.c_str();
  });
  // A log path with white space or NUL cannot come from ParseTraceString; any other option set
  // must come back as it went.
  if (!back || !Same(*back, options)) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const std::string_view text(reinterpret_cast<const char*>(data + 1), size - 1);
  if (data[0] % 2 == 0) {
    // A trcstart argument string.
    auto options = rastrace::recorder::ParseTraceString(text);
    if (options && options->channels != 0 && options->log_path.find('\0') == std::string::npos) {
      CheckRoundTrip(*options);
    }
    return 0;
  }
  // An environment: NAME=VALUE entries separated by newlines.
  std::map<std::string, std::string> env;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view line = text.substr(start, end - start);
    if (const size_t eq = line.find('='); eq != std::string_view::npos) {
      env[std::string(line.substr(0, eq))] = std::string(line.substr(eq + 1));
    }
    start = end + 1;
  }
  auto options = rastrace::recorder::OptionsFromEnvironment([&](const char* name) -> const char* {
    auto it = env.find(name);
    return it == env.end() ? nullptr : it->second.c_str();
  });
  (void)options;
  return 0;
}
