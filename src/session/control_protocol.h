// The control protocol between trcon / trcoff / trcstop (and the interactive `trace` prompt) and
// a session daemon: one request line, one reply line, over the session's Unix socket.
//   request:  "on" | "off" | "stop" | "status"  followed by '\n'
//   reply:    "ok <text>" | "error <text>"      followed by '\n'
// Lines are at most kMaxLine bytes; anything else is refused with a message, never trusted.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "common/result.h"

namespace rastrace::session {

inline constexpr size_t kMaxLine = 4096;

enum class Command { kOn, kOff, kStop, kStatus };

struct Reply {
  bool ok = false;
  std::string text;
};

Result<Command> ParseRequest(std::string_view line);
std::string FormatRequest(Command command);
Result<Reply> ParseReply(std::string_view line);
std::string FormatReply(const Reply& reply);

}  // namespace rastrace::session
