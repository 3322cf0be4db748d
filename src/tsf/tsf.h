// The parsed model of an OS/2 trace source file (TSF, seed 004 and docs/spec os2.md) and the
// parser that builds it. Shared by trcust (format and definition files, static headers) and by
// the dynamic tracer (src/dyntrace), which attaches each tracepoint to a running program.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"

namespace rastrace::tsf {

// 1-based position in the source file.
struct Location {
  uint32_t line = 0;
  uint32_t column = 0;
};

struct Diagnostic {
  enum class Severity : uint8_t { kError, kWarning };
  Severity severity = Severity::kError;
  std::string file;
  Location where;
  std::string message;
  bool is_error() const { return severity == Severity::kError; }
  // "file:line:col: error: message" (or "warning:").
  std::string ToString() const;
};

// One entry of TYPELIST or GROUPLIST.
struct NamedId {
  std::string name;  // as written, 1-8 characters; lookups are case-insensitive
  uint32_t id = 0;   // type ids are single bits
  Location where;
};

// A register as REGS records it, or as the base of a register-form address. Names are upper
// case. 16-bit registers record 2 bytes, E-registers 4, R-registers (x86-64 extension) 8.
struct Register {
  std::string name;       // "EAX", "SI", "DS", "RIP", "R12"; for a register variable the C name
  uint8_t size = 0;       // bytes recorded
  bool segment = false;   // CS DS ES SS FS GS
  bool variable = false;  // `.name` in REGS: a C register variable (recorded as 4 bytes)
};

// Looks up a register name (any case): the general, segment, pointer and flags registers of
// REGS and register-form addresses. nullopt for anything else.
std::optional<Register> FindRegister(std::string_view name);

// A register added to (or subtracted from) the offset of a segment-register address.
struct RegisterTerm {
  Register reg;
  bool subtract = false;
};

// The address of memory a data statement records:
//   symbol form            .name[{+|-}n]...[{+|-}(n)]   (the `.` may be omitted)
//   register form          REG[{+|-}n]...[{+|-}(n)]     e.g. EBP+8
//   segment register form  Rsreg[{+|-}dreg]...[{+|-}n]...[{+|-}(n)], e.g. RDS+DI, RSS+SP
//                          (OS/2's form: the segment at offset 0 plus the terms), or
//                          SEG:dreg[...] / SEG:n[...], e.g. SS:BP+6 (segmented only)
struct Address {
  enum class Base : uint8_t { kSymbol, kRegister, kSegmentRegister };
  Base base = Base::kSymbol;
  std::string symbol;           // kSymbol: the name, case kept
  std::string segment;          // kSegmentRegister: "DS", "SS", ...
  std::optional<Register> reg;  // kRegister: the base register
  // kSegmentRegister: the registers of the offset, in the order written (SS:BP+SI: BP, SI).
  std::vector<RegisterTerm> offset_registers;
  int64_t displacement = 0;  // the sum of every {+|-}n term
  // {+|-}(n): added to the final address after INDIRECT/IF/IS dereferencing.
  std::optional<int64_t> final_displacement;
};

// How the address is used: the memory at the address (kDirect), or a pointer stored there that
// is followed. INDIRECT follows max(1, levels) pointers, adding each level's offset after
// following it (`INDIRECT*+6*+8`); IS follows a 16:16 segmented pointer; IF follows a flat
// pointer from segmented code (MEM, ASCIIZ, LEN). Every flag is accepted on every data
// statement; IF on MEM32 or ASCIIZ32 (flat code) is INDIRECT: one flat pointer followed.
enum class Indirection : uint8_t { kDirect, kIndirect, kIndirectFlat, kIndirectSegmented };

enum class DataKind : uint8_t { kRegs, kMem32, kMem, kAsciiz32, kAsciiz, kLen };

// One data statement, in record order. Every kind except kRegs and kLen stores a data record
// with the 3-byte prefix `status:1 length:2` (seed 001); kRegs stores the registers' values
// without prefix; kLen stores nothing (it supplies the length of the MEM/MEM32 right after it,
// read at trace time as a 16-bit word at its address).
struct DataStatement {
  DataKind kind = DataKind::kRegs;
  Location where;
  std::vector<Register> registers;  // kRegs
  Address address;                  // every other kind
  Indirection indirection = Indirection::kDirect;
  std::vector<int64_t> indirect_offsets;  // one per `*` of INDIRECT
  // kMem32/kMem: bytes recorded (0 when length_from_len); kAsciiz32/kAsciiz: maximum length.
  uint32_t length = 0;
  bool length_from_len = false;  // `MEM32=(...,LEN)`: the preceding LEN statement gives it
  // True for the segmented forms (MEM, ASCIIZ, segment-register addresses, IS/IF) that a flat
  // Linux process cannot serve; they are kept for format files and rejected by dyntrace.
  bool Segmented() const;
  // True when the statement stores a prefixed data record (MEM32, MEM, ASCIIZ32, ASCIIZ).
  bool HasPrefix() const;
};

// One FMT= string: one line of formatted output (see src/tsf/fmt.h for its controls).
struct FmtLine {
  std::string text;  // escapes resolved
  Location where;    // of the opening quote
};

// TP=@STATIC | TP=@file,line | TP=.name[{+|-}offset][,RETEP]
struct TracepointSite {
  enum class Kind : uint8_t { kStatic, kSymbol, kFileLine };
  Kind kind = Kind::kStatic;
  std::string symbol;  // kSymbol
  int64_t offset = 0;  // kSymbol: bytes from the symbol
  bool retep = false;  // kSymbol: at every return point of the procedure, not at its entry
  std::string file;    // kFileLine: source file as written (needs debug info)
  uint32_t line = 0;   // kFileLine
};

struct Tracepoint {
  Location where;      // of the TRACE keyword
  uint16_t minor = 0;  // from MINOR=, or 1, 2, 3... in file order without MINOR
  TracepointSite site;
  std::optional<uint8_t> opcode;   // OPCODE=: the first instruction byte expected at the site
  std::vector<std::string> types;  // TYPE= names, as written
  uint32_t type_mask = 0;          // OR of the types' ids
  std::optional<std::string> group;
  uint32_t group_id = 0;
  std::string desc;          // DESC=, may be empty
  std::vector<FmtLine> fmt;  // FMT= strings in order
  std::vector<DataStatement> data;
  // Upper bound of the data bytes one hit stores (prefixes included; LEN-sized records count
  // MAXDATALENGTH).
  uint32_t MaxDataBytes(uint16_t max_data_length) const;
};

struct Module {
  std::string file;     // the TSF path, for messages
  std::string modname;  // MODNAME=: ELF executable or shared object (may be empty)
  uint16_t major = 0;   // 1-0xFFFF; only majors <= 0xFF fit an STDA record
  uint16_t max_data_length = 512;
  std::vector<NamedId> types;
  std::vector<NamedId> groups;
  std::vector<Tracepoint> tracepoints;  // in file order

  const Tracepoint* FindMinor(uint16_t minor) const;
};

struct ParseOutput {
  std::optional<Module> module;         // empty when any error was reported
  std::vector<Diagnostic> diagnostics;  // errors and warnings in source order
  bool HasErrors() const;
};

// Parses and checks every rule of the TSF language. Never throws; every problem is a
// diagnostic with file:line:col.
ParseOutput ParseTsf(std::string_view text, std::string_view file_name);
// Reads `path` and parses it; fails only when the file cannot be read.
Result<ParseOutput> ParseTsfFile(const std::string& path);

}  // namespace rastrace::tsf
