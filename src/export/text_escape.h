// Escaping of text for the JSON and CSV exporters. Appends to a caller-owned string so a line is
// built without allocating once its capacity has grown.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace rastrace::exporter {

// Appends `text` as a JSON string with quotes. Control characters are escaped; bytes that are not
// valid UTF-8 (program paths and template text can hold anything) become U+FFFD, so the output
// is always valid JSON.
void AppendJsonString(std::string& out, std::string_view text);

// Appends `text` as valid UTF-8 without NULs: invalid bytes and NULs become U+FFFD (for formats
// whose strings end at a NUL, as CTF's do).
void AppendUtf8Text(std::string& out, std::string_view text);

// Appends `bytes` as lowercase hex digits, two per byte, no separators.
void AppendHex(std::string& out, std::span<const uint8_t> bytes);

// Appends `value` as "0x" and 16 lowercase hex digits: exact in every JSON/CSV engine, where a
// 64-bit number may not be (JavaScript and Spark lose integers above 2^53 / 2^63).
void AppendHexWord(std::string& out, uint64_t value);

// Appends one CSV field (RFC 4180): quoted when it holds a comma, quote, CR or LF, with quotes
// doubled.
void AppendCsvField(std::string& out, std::string_view text);

// The template id as trcrpt prints it: "hhh" for a 16-bit id hhh0, else the 4 digits.
std::string TemplateIdText(uint16_t hook_id);
// The same, appended (no allocation once `out` has grown).
void AppendTemplateId(std::string& out, uint16_t hook_id);
// The 16-bit value as 4 uppercase hex digits.
void AppendHex4(std::string& out, uint16_t value);

}  // namespace rastrace::exporter
