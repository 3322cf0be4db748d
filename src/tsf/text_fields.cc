#include "tsf/text_fields.h"

#include <fmt/format.h>

#include <cctype>

namespace rastrace::tsf {

std::string Quote(std::string_view text) {
  std::string out = "\"";
  for (char ch : text) {
    const auto c = static_cast<unsigned char>(ch);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += ch;
    } else if (c < 0x20 || c > 0x7E) {
      out += fmt::format("\\x{:02X}", c);
    } else {
      out += ch;
    }
  }
  out += '"';
  return out;
}

Result<std::vector<std::string>> SplitFields(std::string_view line) {
  std::vector<std::string> fields;
  size_t i = 0;
  while (true) {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t' || line[i] == '\r')) ++i;
    if (i >= line.size()) return fields;
    std::string field;
    if (line[i] != '"') {
      while (i < line.size() && line[i] != ' ' && line[i] != '\t' && line[i] != '\r') {
        field += line[i++];
      }
      fields.push_back(std::move(field));
      continue;
    }
    const size_t open = i++;
    while (true) {
      if (i >= line.size()) return MakeError("column {}: string is not closed", open + 1);
      const char c = line[i++];
      if (c == '"') break;
      if (c != '\\') {
        field += c;
        continue;
      }
      if (i >= line.size()) return MakeError("column {}: '\\' at the end of the line", i);
      const char e = line[i++];
      if (e == '"' || e == '\\') {
        field += e;
      } else if (e == 'x' && i + 1 < line.size() &&
                 std::isxdigit(static_cast<unsigned char>(line[i])) &&
                 std::isxdigit(static_cast<unsigned char>(line[i + 1]))) {
        field += static_cast<char>(std::stoi(std::string(line.substr(i, 2)), nullptr, 16));
        i += 2;
      } else {
        return MakeError("column {}: unknown escape '\\{}' (expected \\\", \\\\ or \\xHH)", i - 1,
                         e);
      }
    }
    if (i < line.size() && line[i] != ' ' && line[i] != '\t' && line[i] != '\r') {
      return MakeError("column {}: expected a blank after the closing quote", i + 1);
    }
    fields.push_back(std::move(field));
  }
}

}  // namespace rastrace::tsf
