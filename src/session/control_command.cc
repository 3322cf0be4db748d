#include "session/control_command.h"

#include <cstdio>
#include <cstring>
#include <string_view>

#include "recorder/session_page.h"
#include "session/session_daemon.h"
#include "session/trace_line.h"

namespace rastrace::session {

int RunControlCommand(const char* name, Command command, int argc, char** argv) {
  unsigned channel = 0;
  for (int i = 1; i < argc; ++i) {
    std::string_view arg = argv[i];
    if (arg == "-h" || arg == "--help") {
      std::printf("usage: %s [-N]\n  -N  the trace channel (0-7, default 0: the system trace)\n",
                  name);
      return 0;
    }
    std::string_view digits = arg.starts_with('-') ? arg.substr(1) : arg;
    auto value = ParseNumber(digits);
    if (!value || *value >= recorder::kSessionChannels) {
      std::fprintf(stderr, "%s: '%s' is not a channel (expected -0 to -7)\n", name, argv[i]);
      return 2;
    }
    channel = static_cast<unsigned>(*value);
  }
  auto reply = SendRequest(recorder::SessionBaseDir(), channel, command);
  if (!reply) {
    std::fprintf(stderr, "%s: %s\n", name, reply.error().message.c_str());
    return 1;
  }
  if (!reply->ok) {
    std::fprintf(stderr, "%s: %s\n", name, reply->text.c_str());
    return 1;
  }
  if (command == Command::kStop) std::fprintf(stderr, "%s: %s\n", name, reply->text.c_str());
  return 0;
}

}  // namespace rastrace::session
