// Test helpers for exports: a small JSON reader to check what the exporters write.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace rastrace::exporter::testing {

// A parsed JSON value (tests only: no performance or error-position concerns).
struct Json {
  using Array = std::vector<Json>;
  using Object = std::vector<std::pair<std::string, Json>>;  // in file order
  std::variant<std::nullptr_t, bool, double, std::string, Array, Object> value;
  std::string number_text;  // numbers as written, for exact 64-bit comparisons

  // Declared here, defined in test_json.cc where Json is complete: with libstdc++, clang checks
  // std::pair<std::string, Json>'s default constructor while Json is still incomplete, and
  // implicit members would make that check instantiate the variant's destructor (gcc accepts
  // either).
  Json();
  Json(const Json&);
  Json(Json&&) noexcept;
  Json& operator=(const Json&);
  Json& operator=(Json&&) noexcept;
  ~Json();

  bool is_null() const { return std::holds_alternative<std::nullptr_t>(value); }
  const std::string& str() const { return std::get<std::string>(value); }
  const Array& array() const { return std::get<Array>(value); }
  const Object& object() const { return std::get<Object>(value); }
  bool boolean() const { return std::get<bool>(value); }
  double number() const { return std::get<double>(value); }
  uint64_t u64() const { return std::stoull(number_text); }
  bool has(std::string_view key) const;
  const Json& operator[](std::string_view key) const;  // throws when missing
};

// Parses one JSON text; throws std::runtime_error with the offset on invalid JSON.
Json ParseJson(std::string_view text);

std::string ReadFile(const std::string& path);

}  // namespace rastrace::exporter::testing
