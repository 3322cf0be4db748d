#include "dyntrace/bpf_record.h"

#include <cstring>

#include "dyntrace/bpf/hit_abi.h"

namespace rastrace::dyntrace {

Result<BpfHit> DecodeBpfRecord(std::span<const uint8_t> bytes) {
  rt_record header;
  if (bytes.size() < sizeof header) {
    return MakeError("BPF record of {} bytes: shorter than its {}-byte header", bytes.size(),
                     sizeof header);
  }
  std::memcpy(&header, bytes.data(), sizeof header);
  if (header.length > RT_MAX_RECORD || sizeof header + header.length > bytes.size()) {
    return MakeError("BPF record of {} bytes: its header claims {} data bytes", bytes.size(),
                     header.length);
  }
  BpfHit hit;
  hit.probe = header.probe;
  hit.pid = static_cast<pid_t>(header.pid);
  hit.tid = static_cast<pid_t>(header.tid);
  hit.monotonic_ns = header.time_ns;
  hit.data = bytes.subspan(sizeof header, header.length);
  hit.built.incomplete = (header.flags & RT_RECORD_INCOMPLETE) != 0;
  hit.built.faulted = (header.flags & RT_RECORD_FAULTED) != 0;
  if ((header.flags & RT_RECORD_UNCLASSIFIED) != 0) {
    if (header.fault_status_at >= header.length) {
      return MakeError("BPF record: the status to classify is at {}, outside its {} data bytes",
                       header.fault_status_at, header.length);
    }
    hit.unclassified = true;
    hit.fault_address = header.fault_address;
    hit.fault_status_at = header.fault_status_at;
  }
  return hit;
}

}  // namespace rastrace::dyntrace
