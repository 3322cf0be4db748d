// Shared between the TSF parser (syntax) and its rule checker (meaning): what the model does not
// keep but the checks need to point at.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "tsf/tsf.h"

namespace rastrace::tsf::internal {

struct TracepointExtras {
  bool has_minor = false;
  Location minor_where;  // of the MINOR= value
  bool has_tp = false;
  std::vector<Location> type_where;  // one per TYPE= name
  Location group_where;
  // For each FMT= string, the source column of each byte of its resolved text (escapes make
  // the two differ), so FMT errors point at the `%` in the file.
  std::vector<std::vector<uint32_t>> fmt_columns;
};

class DiagnosticSink {
 public:
  // At most this many errors, and as many warnings, are kept: past it the parser stops (the rest
  // would mostly be echoes), and the checks after it count what they find without keeping it, so
  // that no file makes trcust print without bound.
  static constexpr size_t kMaxKept = 100;

  DiagnosticSink(std::string_view file, std::vector<Diagnostic>& out) : file_(file), out_(out) {}
  void Error(Location where, std::string message);
  void Warning(Location where, std::string message);
  size_t errors() const { return errors_; }
  bool TooMany() const { return errors_ >= kMaxKept; }
  // The parser gives up: says so, whatever the limit.
  void GiveUp(Location where);
  // Adds one error saying how many were counted but not kept, if any.
  void Finish();

 private:
  std::string file_;
  std::vector<Diagnostic>& out_;
  size_t errors_ = 0;
  size_t warnings_ = 0;
  Location first_dropped_error_, first_dropped_warning_;
};

// Checks what the syntax cannot: ranges that need the header, MINOR all-or-none and unique,
// TYPE/GROUP names, LEN placement, data beyond MAXDATALENGTH, FMT controls against the data.
// Numbers the tracepoints when no MINOR is given and resolves type masks and group ids.
void CheckModule(Module& module, std::vector<TracepointExtras>& extras, bool major_given,
                 DiagnosticSink& sink);

std::string ToUpper(std::string_view s);

}  // namespace rastrace::tsf::internal
