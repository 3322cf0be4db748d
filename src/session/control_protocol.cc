#include "session/control_protocol.h"

namespace rastrace::session {

namespace {

Result<std::string_view> OneLine(std::string_view line, std::string_view what) {
  if (line.size() > kMaxLine) return MakeError("{} longer than {} bytes", what, kMaxLine);
  if (line.empty() || line.back() != '\n') return MakeError("{} does not end with a newline", what);
  line.remove_suffix(1);
  if (line.find('\n') != std::string_view::npos) return MakeError("{} holds several lines", what);
  for (char c : line) {
    if (static_cast<unsigned char>(c) < 0x20 && c != '\t') {
      return MakeError("{} holds a control character", what);
    }
  }
  return line;
}

}  // namespace

Result<Command> ParseRequest(std::string_view line) {
  auto text = OneLine(line, "request");
  if (!text) return text.error();
  if (*text == "on") return Command::kOn;
  if (*text == "off") return Command::kOff;
  if (*text == "stop") return Command::kStop;
  if (*text == "status") return Command::kStatus;
  return MakeError("unknown request '{}' (expected on, off, stop or status)", text->substr(0, 64));
}

std::string FormatRequest(Command command) {
  switch (command) {
    case Command::kOn:
      return "on\n";
    case Command::kOff:
      return "off\n";
    case Command::kStop:
      return "stop\n";
    case Command::kStatus:
      return "status\n";
  }
  return "status\n";
}

Result<Reply> ParseReply(std::string_view line) {
  auto text = OneLine(line, "reply");
  if (!text) return text.error();
  Reply reply;
  std::string_view rest;
  if (text->starts_with("ok")) {
    reply.ok = true;
    rest = text->substr(2);
  } else if (text->starts_with("error")) {
    rest = text->substr(5);
  } else {
    return MakeError("malformed reply '{}'", text->substr(0, 64));
  }
  if (!rest.empty() && rest.front() != ' ')
    return MakeError("malformed reply '{}'", text->substr(0, 64));
  if (!rest.empty()) rest.remove_prefix(1);
  reply.text = rest;
  return reply;
}

std::string FormatReply(const Reply& reply) {
  std::string text = reply.text.substr(0, kMaxLine - 8);
  for (char& c : text) {
    if (c == '\n' || (static_cast<unsigned char>(c) < 0x20 && c != '\t')) c = ' ';
  }
  return std::string(reply.ok ? "ok" : "error") + (text.empty() ? "" : " ") + text + "\n";
}

}  // namespace rastrace::session
