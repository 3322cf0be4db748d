// The compiled form of tracepoints the BPF engine's program interprets at every hit
// (bpf/hit_abi.h): one rt_tracepoint per tracepoint, one rt_probe per uprobe, and where each
// uprobe goes. Kept apart from the engine so that it is tested without BPF.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "common/result.h"
#include "dyntrace/bpf/hit_abi.h"
#include "dyntrace/compiled_tracepoint.h"

namespace rastrace::dyntrace {

// Where one uprobe goes; probes[i] of a BpfDescription is attached with cookie i.
struct BpfProbeSite {
  std::string path;
  uint64_t file_offset = 0;
  // A uretprobe: RETEP recorded after the return. Taken unless the record holds RIP or RSP (or
  // memory addressed by them), which differ at the `ret` itself, where the ptrace engine records
  // when it found every `ret`: then the `ret`s are probed (and single-stepped: slower).
  bool retprobe = false;
};

struct BpfDescription {
  std::vector<rt_tracepoint> tracepoints;  // in the order of the CompiledTracepoints
  std::vector<rt_probe> probes;
  std::vector<BpfProbeSite> sites;  // parallel to probes
};

// Fails, naming the tracepoint and the limit, for what the program cannot run: more than
// RT_MAX_OPS registers and data statements, more than RT_MAX_LEVELS INDIRECT levels, a
// MAXDATALENGTH above RT_MAX_RECORD.
Result<BpfDescription> DescribeForBpf(std::span<const CompiledTracepoint> tracepoints);

}  // namespace rastrace::dyntrace
