// Where a session may write its log (trace -o FILE, and FILE-N of -C): checked when the session
// starts, so that a path the root daemon must not write is refused then, not after the whole
// session ran. The log itself is created new when it is written (event::LogWriter: an existing
// regular file is unlinked and the log created O_EXCL, 0600), so a hard link to another file is
// never written through.
#pragma once

#include <string>

#include "common/result.h"

namespace rastrace::session {

// Refuses a symlink, a directory or anything but a regular file, a path on a kernel file system
// (proc, sysfs, tracefs, debugfs, cgroup, ...), and a directory the daemon cannot write in.
// Absent is fine.
Result<void> CheckLogPath(const std::string& path);

}  // namespace rastrace::session
