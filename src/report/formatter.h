// Stage B of a report: the text of one event, from its template (or its bytes in hex for -r).
// One Formatter per thread; they share the template set, the id index and the process table.
#pragma once

#include <array>
#include <memory>
#include <mutex>
#include <set>
#include <string>

#include "report/prepared_event.h"
#include "report/process_table.h"
#include "template/template.h"
#include "tsf/format_path.h"

namespace rastrace::report {

// The template of every 16-bit id, looked up once: its own, else 004 for id 0, else 007
// (undefined trace id), else 008 (default). Null when none of them exists.
class TemplateIndex {
 public:
  explicit TemplateIndex(const tmpl::TemplateSet& templates);
  const tmpl::Template* For(uint16_t id16) const { return by_id_[id16]; }

 private:
  std::vector<const tmpl::Template*> by_id_;
};

// Warnings from the evaluator, each printed once on stderr whatever thread gives it.
class WarningOnce {
 public:
  void Warn(std::string_view message);

 private:
  std::mutex mutex_;
  std::set<std::string, std::less<>> given_;
};

class Formatter {
 public:
  // `tracepoints` (may be null): the TFF format files OS/2 tracepoint hits (00C) are formatted
  // with.
  Formatter(const tmpl::TemplateSet& templates, const TemplateIndex& index, ProcessTable& processes,
            WarningOnce& warnings, bool raw, const tsf::FormatPath* tracepoints = nullptr);
  ~Formatter();
  void Format(const PreparedEvent& event, tmpl::EvalOutput& out);

 private:
  class Host;
  bool FormatTracepoint(const PreparedEvent& event, tmpl::EvalOutput& out);

  const TemplateIndex& index_;
  bool raw_;
  const tsf::FormatPath* tracepoints_;
  uint32_t ip_address_;  // $IPADDR
  std::unique_ptr<Host> host_;
  std::unique_ptr<tmpl::Evaluator> evaluator_;
};

// -r: the event's bytes in hex, as words of the event's layout read in the log's byte order (the
// seed's notation "ffffllllhhhhssss 1111111111111111 ...").
void AppendRawHex(const event::Event& event, ByteOrder order, std::string& out);

}  // namespace rastrace::report
