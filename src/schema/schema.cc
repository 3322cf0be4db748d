#include "schema/schema.h"

#include <fmt/format.h>

namespace rastrace::schema {

std::string_view FieldTypeName(FieldType type) {
  switch (type) {
    case FieldType::kSigned:
      return "int";
    case FieldType::kUnsigned:
      return "uint";
    case FieldType::kHex:
      return "hex";
    case FieldType::kFloat:
      return "float";
    case FieldType::kString:
      return "string";
    case FieldType::kBytes:
      return "bytes";
  }
  return "?";
}

std::string_view FamilyName(Family family) {
  switch (family) {
    case Family::kTemplate:
      return "template";
    case Family::kSyscall:
      return "syscall";
    case Family::kPosix:
      return "posix";
    case Family::kTracepoint:
      return "tracepoint";
    case Family::kRaw:
      return "raw";
  }
  return "?";
}

const Schema* Catalog::Find(std::string_view name) const {
  const auto it = by_name_.find(std::string(name));
  return it == by_name_.end() ? nullptr : schemas_[it->second].get();
}

const Schema& Catalog::Add(Schema schema) {
  if (Find(schema.name) != nullptr) {
    for (int n = 2;; ++n) {
      std::string candidate = fmt::format("{}_{}", schema.name, n);
      if (Find(candidate) == nullptr) {
        schema.name = std::move(candidate);
        break;
      }
    }
  }
  schema.id = static_cast<uint32_t>(schemas_.size());
  by_name_.emplace(schema.name, schema.id);
  schemas_.push_back(std::make_unique<Schema>(std::move(schema)));
  return *schemas_.back();
}

}  // namespace rastrace::schema
