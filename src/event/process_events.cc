#include "event/process_events.h"

#include "event/format.h"
#include "event/s2.h"

namespace rastrace::event {

namespace {

constexpr size_t kProcessIdsBytes = 16;  // ppid:8 tid:8 before the path of a 0x100 event

}  // namespace

std::optional<ProcessEvent> DecodeProcessEvent(const Event& e, ByteOrder order) {
  ProcessEvent out;
  if (e.hook_id == kHookExec && e.generic) {
    out.kind = ProcessEvent::Kind::kExec;
    out.pid = e.generic_word;
    out.text = ReadS2(e.buffer, 0, order);
    return out;
  }
  if (e.hook_id == kHookFork && !e.generic && e.word_count >= 2) {
    out.kind = ProcessEvent::Kind::kFork;
    out.pid = e.words[0];
    out.parent = e.words[1];
    return out;
  }
  if (e.hook_id != kHookUtil || !e.generic) return std::nullopt;
  switch (e.subhook) {
    case kUtilProcess:
      if (e.buffer.size() < kProcessIdsBytes) return std::nullopt;
      out.kind = ProcessEvent::Kind::kProcess;
      out.pid = e.generic_word;
      out.parent = Load64(e.buffer.data(), order);
      out.tid = Load64(e.buffer.data() + 8, order);
      out.text = ReadS2(e.buffer, kProcessIdsBytes, order);
      return out;
    case kUtilExec:
      out.kind = ProcessEvent::Kind::kExec;
      out.pid = e.generic_word;
      out.text = ReadS2(e.buffer, 0, order);
      return out;
    case kUtilThreadName:
      out.kind = ProcessEvent::Kind::kThreadName;
      out.tid = e.generic_word;
      out.text = ReadS2(e.buffer, 0, order);
      // Recorders since 00A/104 carried it: the thread's pid after the name.
      if (const auto end = S2End(e.buffer, 0, order); end && e.buffer.size() >= *end + 8) {
        out.thread_pid = Load64(e.buffer.data() + *end, order);
      }
      return out;
    default:
      return std::nullopt;
  }
}

}  // namespace rastrace::event
