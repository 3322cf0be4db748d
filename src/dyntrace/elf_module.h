// Symbols, load segments and DWARF line tables of one ELF file (an executable or a shared
// object, PIE or not), read with libelf and libdw; a stripped file's .symtab and DWARF come from
// its separate debug file when libdwfl's standard search finds one.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"
#include "dyntrace/process_maps.h"

namespace rastrace::dyntrace {

struct ElfSymbol {
  std::string name;
  uint64_t value = 0;  // link-time virtual address
  uint64_t size = 0;
  bool function = false;
};

struct LoadSegment {
  uint64_t vaddr = 0;
  uint64_t file_offset = 0;
  uint64_t file_size = 0;
  uint64_t memory_size = 0;
  bool executable = false;
};

struct SourceLine {
  std::string file;  // as the line table names it
  int line = 0;
  uint64_t address = 0;  // link-time virtual address
};

class ElfModule {
 public:
  static Result<ElfModule> Open(const std::string& path);
  ElfModule(ElfModule&&) noexcept;
  ElfModule& operator=(ElfModule&&) noexcept;
  ~ElfModule();

  const std::string& path() const;
  // The separate debug file (.gnu_debuglink or build-id) the symbols or DWARF came from, or empty.
  const std::string& debug_path() const;
  bool position_independent() const;  // ET_DYN: PIE executables and shared objects
  const std::vector<LoadSegment>& segments() const;

  // A defined symbol of .symtab, else of .dynsym.
  Result<ElfSymbol> FindSymbol(std::string_view name) const;
  // The file offset holding link-time address `vaddr` (for uprobes), if it is file-backed.
  std::optional<uint64_t> VaddrToFileOffset(uint64_t vaddr) const;
  // The difference between run-time and link-time addresses of this file in `maps` (0 for a
  // non-PIE executable), or an error when the file is not mapped.
  Result<uint64_t> LoadBias(const std::vector<Mapping>& maps) const;
  // The first instruction of source line `line` of `file` (matched by file name, or by path
  // suffix when `file` has a '/'). When the line has no code, the next line of that file that
  // has; an error when there is none or the module has no DWARF line table.
  Result<SourceLine> FindLine(std::string_view file, int line) const;
  // The bytes of the file at link-time address `vaddr` (for OPCODE= checks before a process
  // runs).
  Result<std::vector<uint8_t>> ReadBytes(uint64_t vaddr, size_t count) const;

 private:
  struct Impl;
  explicit ElfModule(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace rastrace::dyntrace
