// A uprobe_multi BPF link (Linux 6.6): one link puts a program on many offsets of one file, for
// one process, each with its cookie; closing it removes them all after one kernel grace period,
// where a link per uprobe costs one period each (~0.08 s). Debian 12's libbpf (1.1) and kernel
// headers predate it, so the link is made with the bpf() system call and the UAPI layout of
// union bpf_attr's link_create.uprobe_multi, written out here.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <span>
#include <string>

#include "common/result.h"

namespace rastrace::dyntrace {

// The program's expected attach type for such links (enum bpf_attach_type).
inline constexpr int kUprobeMultiAttachType = 48;  // BPF_TRACE_UPROBE_MULTI

// Returns the link's descriptor (close it to detach). `retprobe`: uretprobes.
Result<int> AttachUprobeMulti(int program_fd, pid_t pid, const std::string& path,
                              std::span<const uint64_t> offsets, std::span<const uint64_t> cookies,
                              bool retprobe);

}  // namespace rastrace::dyntrace
