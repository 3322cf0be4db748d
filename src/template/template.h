// The trcfmt template language (seed 002, docs/spec trcrpt.md): loading template files into a
// compiled form, and running a template on one event. Interface between the template part (which
// implements it) and the report part (which calls it).
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/byte_order.h"
#include "common/result.h"
#include "event/event.h"

namespace rastrace::tmpl {

// L= indentation. The text of an event starts at the APPL column + (level-1)*8; kZero prints from
// column 0 with no prefix; kNoPrint prints nothing.
enum class Level : uint8_t { kZero = 0, kAppl = 1, kSvc = 2, kKern = 3, kInt = 4, kNoPrint = 5 };

struct Diagnostic {
  std::string file;
  int line = 0;
  int column = 0;
  std::string message;  // what was expected / what is wrong
  bool warning = false;
  // "file:line:col: error: message" (or "warning:")
  std::string ToString() const;
};

struct CompiledTemplate;  // opaque compiled descriptors

struct Template {
  uint16_t id16 = 0;    // "hhh" -> hhh0; "hhhh" -> hhhh
  std::string id_text;  // as written: "00A", "1234"
  int version_major = 0;
  int version_minor = 0;
  Level level = Level::kKern;
  std::string label;   // the first string; a leading '@' means not printed
  std::string file;
  int line = 0;
  std::shared_ptr<const CompiledTemplate> compiled;
};

// A set of templates loaded from one or more files; later definitions of an id replace earlier.
class TemplateSet {
 public:
  TemplateSet();
  ~TemplateSet();
  TemplateSet(TemplateSet&&) noexcept;
  TemplateSet& operator=(TemplateSet&&) noexcept;

  // Parses `text`; every template that parses is added, every one that does not adds diagnostics
  // and is skipped (the rest of the file still loads). Returns the number of templates added.
  size_t AddText(std::string_view text, std::string_view file_name,
                 std::vector<Diagnostic>& diagnostics, int first_line = 1);
  // Reads and parses a file. Fails only when the file cannot be read.
  Result<size_t> AddFile(const std::string& path, std::vector<Diagnostic>& diagnostics);

  const Template* Find(uint16_t id16) const;
  // All templates, ordered by id.
  std::vector<const Template*> All() const;
  bool Remove(uint16_t id16);
  size_t size() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  friend class Evaluator;
};

// Per-event facts the report supplies for the special macros of seed 002 section VI.
struct EventContext {
  const event::Event* event = nullptr;
  ByteOrder byte_order = ByteOrder::kLittle;
  event::Layout trace_layout = event::Layout::k64;  // $TRACEENV
  std::string_view logfile;                         // $LOGFILE
  uint64_t rel_line_no = 0;                         // $RELLINENO
  uint64_t pid = 0, tid = 0, cpuid = 0, priority = 0;
  std::string_view exec_path;  // $EXECPATH
  std::string_view svc;        // $SVC: name of the current system call
  uint64_t time_ns = 0;        // event time in ns since the first timestamp (timers)
  uint32_t total_cpus = 1, traced_cpus = 1, reported_cpus = 1;
  uint32_t ip_address = 0;     // $IPADDR
  uint32_t buffer_scheme = 1;  // $BUFF: 1 = kernel heap, 2 = separate segment
};

// What the evaluator asks of the report beyond EventContext.
class ReportHost {
 public:
  virtual ~ReportHost() = default;
  // Pm: the executable path of `pid` from the process table; empty when unknown.
  virtual std::string_view ExecPathOf(uint64_t pid) = 0;
  // pidinstall built-in: adds to the process table.
  virtual void InstallProcess(uint64_t pid, std::string_view path) = 0;
  // Reported once per built-in name that is parsed but not supported.
  virtual void Warn(std::string_view message) = 0;
};

enum class EvalStatus {
  kOk,     // printed normally (also after $BREAK)
  kError,  // an $ERROR line ends `text`; the report goes on
  kSkip,   // $SKIP: print nothing for this event
  kStop,   // $STOP: end the report after this event's text
};

struct EvalOutput {
  // The event's text, lines separated by '\n', without the per-event prefix and without the
  // indentation (the report adds both; tab stops are already expanded relative to the APPL column
  // as seed 002 says). Reused between events to avoid allocation.
  std::string text;
  EvalStatus status = EvalStatus::kOk;
  Level level = Level::kKern;  // the level of the template that ran (L=)
};

// Runs templates. Holds state that lives across events (timers, warnings already given).
class Evaluator {
 public:
  Evaluator(const TemplateSet& templates, ReportHost& host);
  ~Evaluator();
  // Runs `tmpl` (which must belong to the set) on ctx.event. Never throws or crashes on any
  // event bytes: out-of-range reads, division by zero, runaway loops and nesting past 10 levels
  // end the event with "***ERROR: TRACEID hhh LOGFILE name OFFSET hhhhhh***".
  void Run(const Template& tmpl, const EventContext& ctx, EvalOutput& out);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace rastrace::tmpl
