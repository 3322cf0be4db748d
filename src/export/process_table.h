// The process table a log carries as 00A utility events (process 0x100, exec 0x103, thread name
// 0x104) and, from system-wide sessions, kernel EXEC (134) and FORK (139) events: which process a
// thread belongs to, and the names to show for both.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>

#include "common/byte_order.h"
#include "event/event.h"

namespace rastrace::exporter {

class ProcessTable {
 public:
  // Applies a process-table event; other events are ignored. Returns true when the table changed.
  // A malformed buffer (a string longer than the buffer) is ignored, never read past.
  bool Observe(const event::Event& event, ByteOrder order);

  // The pid of `tid`, when a process event named it.
  std::optional<uint64_t> PidOf(uint64_t tid) const;
  // The last executable path recorded for `pid`; empty when unknown.
  std::string_view ExecPath(uint64_t pid) const;
  // The name of thread `tid`; empty when unknown.
  std::string_view ThreadName(uint64_t tid) const;

  void InstallProcess(uint64_t pid, std::string_view path);

  // Changes whenever the table does: lets exporters re-check names only after a change.
  uint64_t generation() const { return generation_; }

 private:
  std::unordered_map<uint64_t, uint64_t> pid_of_tid_;
  std::unordered_map<uint64_t, std::string> exec_path_;
  std::unordered_map<uint64_t, std::string> thread_name_;
  uint64_t generation_ = 0;
};

// The subhook of a 00A utility event; nullopt for other events. A recorded 32-bit generic event has
// no subhook field (its hook data is the buffer length): there the subhook is the data word.
std::optional<uint16_t> UtilitySubhook(const event::Event& e);

// The last component of a path ("/usr/bin/ls" -> "ls").
std::string_view BaseName(std::string_view path);

}  // namespace rastrace::exporter
