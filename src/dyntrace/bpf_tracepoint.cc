#include "dyntrace/bpf_tracepoint.h"

#include <cstring>
#include <set>
#include <utility>

namespace rastrace::dyntrace {
namespace {

uint8_t OpKind(tsf::DataKind kind) {
  switch (kind) {
    case tsf::DataKind::kMem32:
      return RT_OP_MEM;
    case tsf::DataKind::kAsciiz32:
      return RT_OP_STR;
    case tsf::DataKind::kLen:
      return RT_OP_LEN;
    default:
      return 0;  // segmented kinds: the resolver refuses them before this
  }
}

// Whether the record depends on where in the return it is taken: RIP and RSP (and addresses
// based on them) differ between the `ret` and the instruction after it; every other register
// and memory are the same.
bool DependsOnTheReturnPoint(const CompiledTracepoint& tracepoint) {
  auto moves = [](Reg reg) { return reg == Reg::kRsp || reg == Reg::kRip; };
  for (const CompiledData& data : tracepoint.data) {
    for (RegisterSlot slot : data.registers) {
      if (moves(slot.reg)) return true;
    }
    if (data.kind != tsf::DataKind::kRegs && data.address.register_base &&
        moves(data.address.base_register)) {
      return true;
    }
  }
  return false;
}

Result<void> Describe(const CompiledTracepoint& tracepoint, rt_tracepoint& out) {
  std::memset(&out, 0, sizeof out);
  if (tracepoint.max_data_length > RT_MAX_RECORD) {
    return MakeError("{}: MAXDATALENGTH {} is above the BPF engine's {}", tracepoint.name,
                     tracepoint.max_data_length, RT_MAX_RECORD);
  }
  out.max_data_length = tracepoint.max_data_length;
  // Symbols are given as link-time addresses of the probed module: the program adds the load
  // bias it finds at the hit, so a module mapped again elsewhere is still read right.
  int64_t bias = static_cast<int64_t>(tracepoint.site.address - tracepoint.site.link_address);
  size_t count = 0;
  auto next_op = [&]() -> Result<rt_op*> {
    if (count == RT_MAX_OPS) {
      return MakeError(
          "{}: more than {} registers and data statements, the BPF engine's limit; use -e "
          "ptrace",
          tracepoint.name, RT_MAX_OPS);
    }
    return &out.ops[count++];
  };
  for (const CompiledData& data : tracepoint.data) {
    if (data.kind == tsf::DataKind::kRegs) {
      for (RegisterSlot slot : data.registers) {
        auto op = next_op();
        if (!op) return op.error();
        (*op)->kind = RT_OP_REG;
        (*op)->reg = static_cast<uint8_t>(slot.reg);
        (*op)->size = slot.size;
        if (slot.reg >= Reg::kDs) out.needs_segments = 1;
      }
      continue;
    }
    uint8_t kind = OpKind(data.kind);
    if (kind == 0) {
      return MakeError("{}: a segmented data statement cannot be traced in a flat process",
                       tracepoint.name);
    }
    const CompiledAddress& address = data.address;
    if (address.levels > RT_MAX_LEVELS) {
      return MakeError("{}: {} INDIRECT levels; the BPF engine follows at most {}; use -e ptrace",
                       tracepoint.name, address.levels, RT_MAX_LEVELS);
    }
    auto op = next_op();
    if (!op) return op.error();
    rt_op& o = **op;
    o.kind = kind;
    o.length = data.length;
    o.length_from_len = data.length_from_len ? 1 : 0;
    o.levels = address.levels;
    if (address.register_base) {
      o.base_is_reg = 1;
      o.reg = static_cast<uint8_t>(address.base_register);
    } else {
      o.base = static_cast<int64_t>(address.base_address) - bias;
      out.needs_bias = 1;
    }
    o.displacement = address.displacement;
    for (size_t level = 0; level < address.level_offsets.size() && level < RT_MAX_LEVELS; ++level) {
      o.level_offsets[level] = address.level_offsets[level];
    }
    o.final_displacement = address.final_displacement;
  }
  out.op_count = static_cast<uint16_t>(count);
  return Ok();
}

}  // namespace

Result<BpfDescription> DescribeForBpf(std::span<const CompiledTracepoint> tracepoints) {
  // A uretprobe replaces the return address on the stack while the procedure runs, so a RETEP
  // that reads the stack at the `ret` would see it: when one RETEP of a procedure is recorded at
  // its `ret`s, all of them are.
  std::set<std::pair<std::string, uint64_t>> at_rets;
  for (const CompiledTracepoint& tracepoint : tracepoints) {
    const ProbeSite& site = tracepoint.site;
    if (site.retep && !site.return_sites.empty() && DependsOnTheReturnPoint(tracepoint)) {
      at_rets.insert({site.module_path, site.file_offset});
    }
  }
  BpfDescription description;
  description.tracepoints.resize(tracepoints.size());
  for (size_t i = 0; i < tracepoints.size(); ++i) {
    const CompiledTracepoint& tracepoint = tracepoints[i];
    auto described = Describe(tracepoint, description.tracepoints[i]);
    if (!described) return described.error();
    const ProbeSite& site = tracepoint.site;
    auto add = [&](uint64_t address, bool retprobe) {
      // The function's code lies in one segment: its addresses and file offsets move together.
      uint64_t delta = address - site.address;
      rt_probe probe{};
      probe.tracepoint = static_cast<uint32_t>(i);
      probe.link_address = site.link_address + delta;
      description.probes.push_back(probe);
      description.sites.push_back({site.module_path, site.file_offset + delta, retprobe});
    };
    if (!site.retep) {
      add(site.address, false);
    } else if (!site.return_sites.empty() &&
               at_rets.count({site.module_path, site.file_offset}) != 0) {
      // At each `ret`, before the return, as the ptrace engine records it: a uprobe on a `ret`
      // is single-stepped (two traps, ~5 us a hit here).
      for (uint64_t address : site.return_sites) add(address, false);
    } else {
      // After the return (one trap at the entry, a system call at the return: ~2 us), as the
      // ptrace engine's fallback records it; without RIP or RSP in the record it equals what
      // the ptrace engine records at the `ret`.
      add(site.address, true);
    }
  }
  return description;
}

}  // namespace rastrace::dyntrace
