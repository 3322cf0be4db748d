// Assembles the data of one tracepoint hit exactly as the TSF declares it, in declaration order:
// REGS as raw little-endian values without prefix; MEM32 and ASCIIZ32 each as a data record with
// the 3-byte prefix status:1 length:2 (seed 001). An unreadable address stores its status and the
// pointer, and ends the data of that hit.
#pragma once

#include <cstdint>
#include <vector>

#include "dyntrace/compiled_tracepoint.h"
#include "dyntrace/target_memory.h"
#include "dyntrace/x86_registers.h"

namespace rastrace::dyntrace {

inline constexpr size_t kPrefixSize = 3;
inline constexpr size_t kPointerSize = 8;

struct BuiltRecord {
  // MAXDATALENGTH cut the data short (STDA trailer flag "incomplete dynamic record").
  bool incomplete = false;
  // A prefix with a non-zero status was stored.
  bool faulted = false;
};

// Replaces the contents of `out` with the hit's data. `out` keeps its capacity between calls, so
// steady-state hits do not allocate.
BuiltRecord BuildRecord(const CompiledTracepoint& tracepoint, const RegisterFile& registers,
                        TargetMemory& memory, std::vector<uint8_t>& out);

// Follows `address` for this hit. On failure returns the status and sets `address` to the
// pointer that could not be read.
ReadStatus EvaluateAddress(const CompiledAddress& address, const RegisterFile& registers,
                           TargetMemory& memory, uint64_t& result);

}  // namespace rastrace::dyntrace
