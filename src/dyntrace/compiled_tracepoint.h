// A TSF tracepoint resolved against one process: where the probe goes and the data program that
// runs at every hit, with every symbol already turned into an address.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "dyntrace/x86_registers.h"
#include "tsf/tsf.h"

namespace rastrace::dyntrace {

// Address of the memory a data statement reads: base (a run-time symbol address or a register)
// plus displacement; then `levels` pointers followed, adding level_offsets[i] after following
// level i; then final_displacement.
struct CompiledAddress {
  bool register_base = false;
  Reg base_register = Reg::kRax;  // register_base: the full 64-bit register
  uint64_t base_address = 0;      // !register_base
  int64_t displacement = 0;
  uint8_t levels = 0;  // 0: DIRECT
  std::vector<int64_t> level_offsets;
  int64_t final_displacement = 0;
};

struct CompiledData {
  tsf::DataKind kind = tsf::DataKind::kRegs;
  std::vector<RegisterSlot> registers;  // kRegs
  CompiledAddress address;              // other kinds
  uint32_t length = 0;                  // kMem32: bytes; kAsciiz32: maximum length
  bool length_from_len = false;         // kMem32 sized by the preceding LEN
};

struct ProbeSite {
  std::string module_path;    // the ELF file as the process maps it
  uint64_t link_address = 0;  // in the file's own address space
  uint64_t file_offset = 0;   // for uprobes
  uint64_t address = 0;       // run-time address in the process
  bool retep = false;         // record at every return of the procedure instead of its entry
  // RETEP: run-time addresses of the procedure's `ret` instructions when a linear sweep of its
  // code found every way out (x86_length.h); empty means the ptrace engine arms the return
  // address at each entry instead.
  std::vector<uint64_t> return_sites;
};

// Where in its procedure a tracepoint records; the numbers are the kind of the 00A/109 log event
// (docs/dyntrace.md), which the exporter reads.
enum class SiteKind : uint8_t {
  kInside = 0,  // .symbol+offset with offset != 0, @file,line
  kEntry = 1,   // .symbol, .symbol+0
  kReturn = 2,  // .symbol,RETEP
};

struct CompiledTracepoint {
  uint16_t major = 0;
  uint16_t minor = 0;
  std::string name;  // for messages: "minor 0x0001 (.DosOpen)"
  SiteKind kind = SiteKind::kEntry;
  std::string procedure;  // the symbol name, or "file:line" (as the TSF wrote it) for @file,line
  ProbeSite site;
  std::optional<uint8_t> opcode;  // OPCODE=: checked against the process before patching
  std::vector<CompiledData> data;
  uint16_t max_data_length = 512;
  // Only REGS: a hit's data needs no memory, so the uprobe engine records it exactly.
  bool RegistersOnly() const;
};

}  // namespace rastrace::dyntrace
