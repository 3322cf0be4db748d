// Reads the records the BPF hit program sends through the ring buffer (struct rt_record of
// bpf/hit_abi.h, then the data). The kernel wrote them, but a reader of binary input checks
// every length all the same.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <span>

#include "common/result.h"
#include "dyntrace/record_builder.h"

namespace rastrace::dyntrace {

struct BpfHit {
  uint32_t probe = 0;
  pid_t pid = 0;
  pid_t tid = 0;
  uint64_t monotonic_ns = 0;
  std::span<const uint8_t> data;  // inside the bytes given to DecodeBpfRecord
  BuiltRecord built;
  // The kernel could not look up the mapping of a failed read (its lock was held): the status
  // byte at data[fault_status_at] is to be decided from the process's maps.
  bool unclassified = false;
  uint64_t fault_address = 0;
  uint16_t fault_status_at = 0;
};

Result<BpfHit> DecodeBpfRecord(std::span<const uint8_t> bytes);

}  // namespace rastrace::dyntrace
