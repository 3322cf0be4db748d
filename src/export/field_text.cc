#include "export/field_text.h"

#include <fmt/format.h>

#include <cmath>
#include <iterator>

#include "export/text_escape.h"

namespace rastrace::exporter {

namespace {

void AppendNumber(std::string& out, const schema::Field& field, const schema::Value& value) {
  switch (field.type) {
    case schema::FieldType::kSigned: {
      const fmt::format_int text(value.as_signed());
      out.append(text.data(), text.size());
      return;
    }
    case schema::FieldType::kUnsigned: {
      const fmt::format_int text(value.integer);
      out.append(text.data(), text.size());
      return;
    }
    case schema::FieldType::kHex: {
      static constexpr char kDigits[] = "0123456789abcdef";
      const unsigned digits = (field.size == 0 || field.size > 8 ? 8u : field.size) * 2u;
      char text[18] = {'0', 'x'};
      uint64_t v = value.integer;
      for (unsigned i = digits; i > 0; --i, v >>= 4) text[1 + i] = kDigits[v & 0xF];
      out.append(text, digits + 2);
      return;
    }
    default:
      return;
  }
}

std::span<const uint8_t> Bytes(std::string_view text) {
  return {reinterpret_cast<const uint8_t*>(text.data()), text.size()};
}

}  // namespace

void AppendJsonValue(std::string& out, const schema::Field& field, const schema::Value& value) {
  if (!value.present) {
    out.append("null");
    return;
  }
  switch (field.type) {
    case schema::FieldType::kSigned:
    case schema::FieldType::kUnsigned:
      AppendNumber(out, field, value);
      return;
    case schema::FieldType::kHex:
      out.push_back('"');
      AppendNumber(out, field, value);
      out.push_back('"');
      return;
    case schema::FieldType::kFloat:
      if (std::isfinite(value.real)) {
        fmt::format_to(std::back_inserter(out), "{}", value.real);
      } else {
        out.append("null");
      }
      return;
    case schema::FieldType::kString:
      AppendJsonString(out, value.text);
      return;
    case schema::FieldType::kBytes:
      out.push_back('"');
      AppendHex(out, Bytes(value.text));
      out.push_back('"');
      return;
  }
}

void AppendCsvValue(std::string& out, const schema::Field& field, const schema::Value& value) {
  if (!value.present) return;
  switch (field.type) {
    case schema::FieldType::kFloat:
      if (std::isfinite(value.real)) fmt::format_to(std::back_inserter(out), "{}", value.real);
      return;
    case schema::FieldType::kString:
      AppendCsvField(out, value.text);
      return;
    case schema::FieldType::kBytes:
      AppendHex(out, Bytes(value.text));
      return;
    default:
      AppendNumber(out, field, value);
      return;
  }
}

bool AnyPresent(std::span<const schema::Value> values) {
  for (const auto& v : values) {
    if (v.present) return true;
  }
  return false;
}

void AppendJsonFields(std::string& out, const schema::Schema& schema,
                      std::span<const schema::Value> values, bool skip_absent) {
  bool first = true;
  for (size_t i = 0; i < schema.fields.size() && i < values.size(); ++i) {
    if (skip_absent && !values[i].present) continue;
    if (!first) out.push_back(',');
    first = false;
    out.push_back('"');
    out.append(schema.fields[i].name);  // an identifier: nothing to escape
    out.append("\":");
    AppendJsonValue(out, schema.fields[i], values[i]);
  }
}

}  // namespace rastrace::exporter
