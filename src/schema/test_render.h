// Test helper: a decoded event as one line ("name: a=1 b=0x2 c='text' d=null"), so tests compare
// schemas and values in one assertion.
#pragma once

#include <fmt/format.h>

#include <string>

#include "schema/decoder.h"

namespace rastrace::schema::testing {

inline std::string Render(const Decoder::Decoded& d) {
  std::string out = d.schema->name + ":";
  for (size_t i = 0; i < d.schema->fields.size(); ++i) {
    const Field& f = d.schema->fields[i];
    const Value& v = d.values[i];
    out += " " + f.name + "=";
    if (!v.present) {
      out += "null";
      continue;
    }
    switch (f.type) {
      case FieldType::kSigned:
        out += fmt::format("{}", v.as_signed());
        break;
      case FieldType::kUnsigned:
        out += fmt::format("{}", v.integer);
        break;
      case FieldType::kHex:
        out += fmt::format("{:#x}", v.integer);
        break;
      case FieldType::kFloat:
        out += fmt::format("{}", v.real);
        break;
      case FieldType::kString:
        out += "'" + std::string(v.text) + "'";
        break;
      case FieldType::kBytes:
        for (unsigned char c : v.text) out += fmt::format("{:02x}", c);
        break;
    }
  }
  return out;
}

// "name(a:int4 b:hex8 c:string)"
inline std::string Describe(const Schema& s) {
  std::string out = s.name + "(";
  for (size_t i = 0; i < s.fields.size(); ++i) {
    const Field& f = s.fields[i];
    if (i > 0) out += " ";
    out += fmt::format("{}:{}", f.name, FieldTypeName(f.type));
    if (f.size != 0) out += fmt::format("{}", f.size);
  }
  return out + ")";
}

}  // namespace rastrace::schema::testing
