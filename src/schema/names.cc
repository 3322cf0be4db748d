#include "schema/names.h"

#include <fmt/format.h>

#include <unordered_set>

namespace rastrace::schema {

namespace {

bool IsAlnum(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

char Lower(char c) {
  return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c;
}

}  // namespace

std::string Identifier(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  bool gap = false;
  for (char c : text) {
    if (!IsAlnum(c)) {
      gap = true;
      continue;
    }
    if (gap && !out.empty()) out.push_back('_');
    gap = false;
    out.push_back(Lower(c));
  }
  if (!out.empty() && out.front() >= '0' && out.front() <= '9') out.insert(out.begin(), '_');
  return out;
}

std::string FieldNameFromLabel(std::string_view label) {
  while (!label.empty()) {
    const char c = label.back();
    if (c == '=' || c == ':' || c == '-' || c == ' ' || c == '\t') {
      label.remove_suffix(1);
    } else {
      break;
    }
  }
  return Identifier(label);
}

void MakeUnique(std::vector<std::string>& names) {
  std::unordered_set<std::string> taken;
  for (size_t i = 0; i < names.size(); ++i) {
    if (names[i].empty()) names[i] = fmt::format("field{}", i + 1);
  }
  for (auto& name : names) {
    if (taken.insert(name).second) continue;
    for (int n = 2;; ++n) {
      std::string candidate = fmt::format("{}_{}", name, n);
      if (taken.insert(candidate).second) {
        name = std::move(candidate);
        break;
      }
    }
  }
}

}  // namespace rastrace::schema
