// The shared control page of a system-wide trace session and the files around it (docs/session.md).
//
// The session daemon (src/session) creates <base>/wake (see MapWakeWord) and, for its channel N,
// the directory <base>/chN/ (mode 0700) holding:
//   page     this struct, in a 0600 file every attached process maps read-only;
//   control  the daemon's Unix socket (trcon, trcoff, trcstop);
//   lock     flock-ed by the daemon while the session lives (a second session is refused);
//   procs/   one log per attached process (p<pid>-<id>.trc) and the lock file it holds while it
//            records (p<pid>-<id>.lock): the daemon knows a process has drained its buffers when
//            it can take that lock, whether the process stopped cleanly or died; and the
//            directory p<pid>-<id>.shm/ of its flight-recorder rings, from which the daemon
//            recovers the committed events of a process that died (session/process_recovery.h).
// Both sides include this header: the daemon in src/session, the attaching side in librastrace.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "common/result.h"

namespace rastrace::recorder {

inline constexpr uint64_t kSessionPageMagic = 0x5241535452414345;  // "RASTRACE"
inline constexpr uint32_t kSessionPageVersion = 2;
inline constexpr unsigned kSessionChannels = 8;

enum SessionState : uint32_t {
  kSessionStarting = 0,
  kSessionRunning = 1,
  kSessionStopping = 2,
  kSessionStopped = 3,
};

// Written only by the daemon; every field is read with __atomic loads by attached processes.
// `generation` is a futex word: the daemon bumps it and wakes all waiters after every change.
struct SessionPage {
  uint64_t magic;
  uint32_t version;
  uint32_t channel;       // 0: the system trace; 1-7: a generic channel (trace -g)
  uint32_t generation;    // futex word
  uint32_t state;         // SessionState
  uint32_t channels_on;   // bit `channel` while tracing is on (trcon / trcoff)
  uint32_t mode;          // buffer::Mode of every attached process's rings
  uint64_t buffer_bytes;  // -T, per thread
  uint32_t daemon_pid;
  uint32_t filter_active;  // -j / -k given: only ids whose bit is set in `allowed` are recorded
  uint32_t clock;          // ClockChoice every attached process uses (the kernel's clock too)
  uint32_t unused;
  uint64_t allowed[65536 / 64];
};

// RASTRACE_SESSION_DIR, else $XDG_RUNTIME_DIR/rastrace, else SessionFallbackDir("/dev/shm",
// "/tmp").
std::string SessionBaseDir();
// `memory_dir`/rastrace-<uid> when `memory_dir` is a tmpfs of at least 1 GiB (the ring files are
// then memory, not a disk the kernel writes them back to), else `disk_dir`/rastrace-<uid>.
std::string SessionFallbackDir(const std::string& memory_dir, const std::string& disk_dir);
// <base>/ch<channel>
std::string SessionChannelDir(const std::string& base, unsigned channel);

// The directory exists, is not a symlink, belongs to the effective user and has no group or
// other permission bits.
Result<void> CheckPrivateDir(const std::string& path);
// Opens an existing file without following a symlink and checks that it is a regular file of the
// effective user with no group or other permission bits.
Result<int> OpenPrivateFile(const std::string& path, int flags);

// <base>/wake: a 0600 file whose first word every idle process of the user (linked with
// librastrace, not attached) sleeps on with FUTEX_WAIT; a daemon bumps it and wakes them all once
// its page is in place. Maps it (kWakeBytes, MAP_SHARED; the caller unmaps), creating the base
// directory (0700) and the file when needed.
inline constexpr size_t kWakeBytes = 4096;
Result<uint32_t*> MapWakeWord(const std::string& base);
void WakeSessionWaiters(const std::string& base);

// Called once when librastrace loads in a process that has no RASTRACE_LOG: attaches the process
// to the running session of its user, if there is one (session_attach.cc).
void AttachToSession();

}  // namespace rastrace::recorder
