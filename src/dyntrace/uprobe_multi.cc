#include "dyntrace/uprobe_multi.h"

#include <linux/bpf.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace rastrace::dyntrace {
namespace {

// union bpf_attr for BPF_LINK_CREATE with link_create.uprobe_multi (include/uapi/linux/bpf.h,
// Linux 6.6 and later: path, offsets, ref_ctr_offsets, cookies, cnt, flags, pid at 16..60).
struct UprobeMultiAttr {
  uint32_t prog_fd;
  uint32_t target_fd;
  uint32_t attach_type;
  uint32_t flags;
  uint64_t path;
  uint64_t offsets;
  uint64_t ref_ctr_offsets;
  uint64_t cookies;
  uint32_t cnt;
  uint32_t multi_flags;
  uint32_t pid;
  uint32_t pad;
};
static_assert(sizeof(UprobeMultiAttr) == 64);
static_assert(offsetof(UprobeMultiAttr, path) == 16 && offsetof(UprobeMultiAttr, pid) == 56);

constexpr uint32_t kReturn = 1;  // BPF_F_UPROBE_MULTI_RETURN

}  // namespace

Result<int> AttachUprobeMulti(int program_fd, pid_t pid, const std::string& path,
                              std::span<const uint64_t> offsets, std::span<const uint64_t> cookies,
                              bool retprobe) {
  if (offsets.size() != cookies.size() || offsets.empty()) {
    return MakeError("uprobe_multi: {} offsets and {} cookies", offsets.size(), cookies.size());
  }
  UprobeMultiAttr attr;
  std::memset(&attr, 0, sizeof attr);
  attr.prog_fd = static_cast<uint32_t>(program_fd);
  attr.attach_type = kUprobeMultiAttachType;
  attr.path = reinterpret_cast<uint64_t>(path.c_str());
  attr.offsets = reinterpret_cast<uint64_t>(offsets.data());
  attr.cookies = reinterpret_cast<uint64_t>(cookies.data());
  attr.cnt = static_cast<uint32_t>(offsets.size());
  attr.multi_flags = retprobe ? kReturn : 0;
  attr.pid = static_cast<uint32_t>(pid);
  long fd = syscall(SYS_bpf, BPF_LINK_CREATE, &attr, sizeof attr);
  if (fd < 0) {
    return MakeError("{} {} ({} offsets) for process {}: {}",
                     retprobe ? "uretprobe.multi" : "uprobe.multi", path, offsets.size(), pid,
                     std::strerror(errno));
  }
  return static_cast<int>(fd);
}

}  // namespace rastrace::dyntrace
