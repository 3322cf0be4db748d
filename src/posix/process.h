// The traced side of a process: its registry (where controllers attach streams), the streams it
// records into, its event-type names, and what happens to all of them across fork.
#pragma once

#include <sys/types.h>

#include <atomic>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "posix/layout.h"
#include "posix/stream.h"

namespace rastrace::posix {

// A stream this process records into. `xlate` maps this process's event ids to the stream's
// (kUnresolved: not looked up yet): processes sharing a stream may number names differently.
// The id is stored as is, so that the hot path indexes the filter with it directly.
inline constexpr uint16_t kUnresolved = 0xFFFF;
struct Attachment {
  std::atomic<StreamShared*> stream{nullptr};
  size_t map_bytes = 0;
  char name[kShmNameMax] = {};
  std::atomic<uint16_t> xlate[kMaxLocalIds];
};

struct ThreadIdentity {
  uint64_t thread = 0;  // pthread_self()
  int32_t kernel_tid = 0;
};

// This process's registry lives at a fixed address inside the library: its shared memory
// object is mapped over this page-aligned static (or, without shared memory, the static itself
// is used). posix_trace_event then reads the `hot` word with one load from a constant address,
// with no pointer to follow first.
struct alignas(4096) RegistryPage {
  RegistryShared r;
};
static_assert(sizeof(RegistryPage) % 4096 == 0);

// Hot-path state, read without locks by posix_trace_event.
extern RegistryPage g_registry_page;
extern Attachment g_attachments[TRACE_SYS_MAX];
extern int32_t g_pid;
extern thread_local ThreadIdentity t_me __attribute__((tls_model("initial-exec")));

// The `hot` word of this process's registry: attachment bits and kRegistryDirty.
inline std::atomic<uint32_t>& HotWord() {
  return g_registry_page.r.hot;
}

void InitThreadIdentity();
inline const ThreadIdentity& Me() {
  if (t_me.kernel_tid == 0) [[unlikely]]
    InitThreadIdentity();
  return t_me;
}

// Brings the attachments in line with the registry (after a controller changed it).
void RefreshAttachments();
// The stream of attachment `slot` was shut down: stop using it.
void DropShutDownStream(unsigned slot);
// Looks up this process's id `local_id` in the stream of `slot`; returns the stream id + 1, or 0
// when `local_id` names no event type of this process.
uint16_t ResolveEventId(unsigned slot, unsigned local_id);

// Registers stream `shm_name` with the registry of `pid` (this process when pid is ours) and
// adds the event types that process opened so far to `stream`.
// Returns 0 or ESRCH (no such process, or one not using the library), EPERM (another user's),
// EAGAIN (TRACE_SYS_MAX streams already trace it).
int AttachStreamTo(pid_t pid, const std::string& shm_name, StreamShared& stream);
void DetachStreamFrom(pid_t pid, const std::string& shm_name);

// This process's event-type names. A new name is added to every stream tracing the process.
int OpenLocalEventId(std::string_view name, unsigned& id);
bool LocalEventName(unsigned id, std::string& out);

// Maps a stream's shared memory object; nullptr with `error` set when it cannot be used.
StreamShared* MapStream(const std::string& shm_name, size_t& map_bytes, int& error);

}  // namespace rastrace::posix
