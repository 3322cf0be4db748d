#include "export/text_escape.h"

#include <fmt/format.h>

#include "event/format.h"

namespace rastrace::exporter {

namespace {

constexpr char kHexDigits[] = "0123456789abcdef";

// Length of the valid UTF-8 sequence starting at text[i], or 0 when it is not one.
size_t Utf8SequenceLength(std::string_view text, size_t i) {
  const auto byte = [&](size_t k) { return static_cast<uint8_t>(text[k]); };
  const uint8_t lead = byte(i);
  size_t length = 0;
  uint32_t min_code = 0;
  uint32_t code = 0;
  if (lead >= 0xC2 && lead <= 0xDF) {
    length = 2, min_code = 0x80, code = lead & 0x1F;
  } else if (lead >= 0xE0 && lead <= 0xEF) {
    length = 3, min_code = 0x800, code = lead & 0x0F;
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    length = 4, min_code = 0x10000, code = lead & 0x07;
  } else {
    return 0;
  }
  if (i + length > text.size()) return 0;
  for (size_t k = 1; k < length; ++k) {
    const uint8_t next = byte(i + k);
    if ((next & 0xC0) != 0x80) return 0;
    code = (code << 6) | (next & 0x3F);
  }
  // Overlong forms, surrogates and values past U+10FFFF are not valid UTF-8.
  if (code < min_code || (code >= 0xD800 && code <= 0xDFFF) || code > 0x10FFFF) return 0;
  return length;
}

// Appends `text` with every byte that is not part of valid UTF-8 replaced by U+FFFD; runs of
// printable ASCII other than `special1` and `special2` are copied as they are, every other ASCII
// byte goes through `ascii` (which appends it, escaped as the format needs).
template <class Ascii>
void AppendUtf8(std::string& out, std::string_view text, char special1, char special2,
                Ascii ascii) {
  size_t i = 0;
  while (i < text.size()) {
    size_t run = i;
    while (run < text.size()) {
      const char r = text[run];
      if (r < 0x20 || r > 0x7E || r == special1 || r == special2) break;
      ++run;
    }
    if (run > i) {
      out.append(text.data() + i, run - i);
      i = run;
      continue;
    }
    const auto c = static_cast<uint8_t>(text[i]);
    if (c < 0x80) {
      ascii(c);
      ++i;
      continue;
    }
    const size_t length = Utf8SequenceLength(text, i);
    if (length == 0) {
      out.append("\xEF\xBF\xBD");  // U+FFFD
      ++i;
    } else {
      out.append(text.substr(i, length));
      i += length;
    }
  }
}

}  // namespace

void AppendJsonString(std::string& out, std::string_view text) {
  out.push_back('"');
  AppendUtf8(out, text, '"', '\\', [&](uint8_t c) {
    switch (c) {
      case '"':
        out.append("\\\"");
        break;
      case '\\':
        out.append("\\\\");
        break;
      case '\n':
        out.append("\\n");
        break;
      case '\r':
        out.append("\\r");
        break;
      case '\t':
        out.append("\\t");
        break;
      default:
        if (c < 0x20 || c == 0x7F) {
          out.append("\\u00");
          out.push_back(kHexDigits[c >> 4]);
          out.push_back(kHexDigits[c & 0xF]);
        } else {
          out.push_back(static_cast<char>(c));
        }
    }
  });
  out.push_back('"');
}

void AppendUtf8Text(std::string& out, std::string_view text) {
  AppendUtf8(out, text, '\0', '\0', [&](uint8_t c) {
    if (c == 0) {
      out.append("\xEF\xBF\xBD");
    } else {
      out.push_back(static_cast<char>(c));
    }
  });
}

void AppendHex(std::string& out, std::span<const uint8_t> bytes) {
  const size_t start = out.size();
  out.resize(start + bytes.size() * 2);
  char* p = out.data() + start;
  for (uint8_t b : bytes) {
    *p++ = kHexDigits[b >> 4];
    *p++ = kHexDigits[b & 0xF];
  }
}

void AppendHexWord(std::string& out, uint64_t value) {
  out.append("0x");
  const size_t start = out.size();
  out.resize(start + 16);
  for (int i = 15; i >= 0; --i) {
    out[start + static_cast<size_t>(i)] = kHexDigits[value & 0xF];
    value >>= 4;
  }
}

void AppendCsvField(std::string& out, std::string_view text) {
  const bool quoted = text.find_first_of(",\"\r\n") != std::string_view::npos;
  if (quoted) out.push_back('"');
  AppendUtf8(out, text, '"', '"', [&](uint8_t c) {
    if (c == 0) {
      out.append("\xEF\xBF\xBD");  // a NUL ends the text for many CSV readers
      return;
    }
    if (c == '"') out.push_back('"');
    out.push_back(static_cast<char>(c));
  });
  if (quoted) out.push_back('"');
}

void AppendHex4(std::string& out, uint16_t value) {
  constexpr char kUpper[] = "0123456789ABCDEF";
  const char text[4] = {kUpper[value >> 12], kUpper[(value >> 8) & 0xF], kUpper[(value >> 4) & 0xF],
                        kUpper[value & 0xF]};
  out.append(text, sizeof text);
}

void AppendTemplateId(std::string& out, uint16_t hook_id) {
  if (!event::IsTwelveBitId(hook_id)) {
    AppendHex4(out, hook_id);
    return;
  }
  AppendHex4(out, hook_id);
  out.pop_back();  // hhh0 prints as hhh
}

std::string TemplateIdText(uint16_t hook_id) {
  std::string out;
  AppendTemplateId(out, hook_id);
  return out;
}

}  // namespace rastrace::exporter
