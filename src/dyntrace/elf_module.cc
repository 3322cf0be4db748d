#include "dyntrace/elf_module.h"

#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace rastrace::dyntrace {
namespace {

struct ElfCloser {
  void operator()(Elf* elf) const { elf_end(elf); }
};
struct DwarfCloser {
  void operator()(Dwarf* dwarf) const { dwarf_end(dwarf); }
};

std::string_view BaseName(std::string_view path) {
  size_t slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

// True when `table_file` (a line-table path) is the file a TSF names with `wanted`.
bool SourceMatches(std::string_view table_file, std::string_view wanted) {
  if (wanted.find('/') == std::string_view::npos) return BaseName(table_file) == wanted;
  if (table_file == wanted) return true;
  return table_file.size() > wanted.size() &&
         table_file.substr(table_file.size() - wanted.size()) == wanted &&
         table_file[table_file.size() - wanted.size() - 1] == '/';
}

// The separate debug file of `path` (.gnu_debuglink next to it, in its .debug/ or under
// /usr/lib/debug, or by build-id), found by libdwfl's standard search, which also checks the
// link's CRC; empty when there is none.
std::string FindDebugFile(const std::string& path) {
  static char* debuginfo_path = nullptr;  // libdwfl's default search path
  Dwfl_Callbacks callbacks{};
  callbacks.find_elf = dwfl_build_id_find_elf;
  callbacks.find_debuginfo = dwfl_standard_find_debuginfo;
  callbacks.section_address = dwfl_offline_section_address;
  callbacks.debuginfo_path = &debuginfo_path;
  std::unique_ptr<Dwfl, void (*)(Dwfl*)> dwfl(dwfl_begin(&callbacks), dwfl_end);
  if (!dwfl) return {};
  Dwfl_Module* module = dwfl_report_offline(dwfl.get(), "", path.c_str(), -1);
  dwfl_report_end(dwfl.get(), nullptr, nullptr);
  Dwarf_Addr bias = 0;
  if (module == nullptr || dwfl_module_getdwarf(module, &bias) == nullptr) return {};
  const char* debug_file = nullptr;
  dwfl_module_info(module, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, &debug_file);
  if (debug_file == nullptr || path == debug_file) return {};
  return debug_file;
}

// Defined symbols of `elf`'s symbol tables of type `type` (SHT_SYMTAB or SHT_DYNSYM).
void ReadSymbols(Elf* elf, uint32_t type, std::vector<ElfSymbol>& table) {
  for (Elf_Scn* scn = elf_nextscn(elf, nullptr); scn != nullptr; scn = elf_nextscn(elf, scn)) {
    GElf_Shdr shdr;
    if (gelf_getshdr(scn, &shdr) == nullptr || shdr.sh_type != type) continue;
    Elf_Data* data = elf_getdata(scn, nullptr);
    if (data == nullptr || shdr.sh_entsize == 0) continue;
    size_t count = shdr.sh_size / shdr.sh_entsize;
    for (size_t i = 0; i < count; ++i) {
      GElf_Sym sym;
      if (gelf_getsym(data, static_cast<int>(i), &sym) == nullptr) continue;
      if (sym.st_shndx == SHN_UNDEF) continue;
      int kind = GELF_ST_TYPE(sym.st_info);
      if (kind != STT_FUNC && kind != STT_OBJECT && kind != STT_NOTYPE && kind != STT_GNU_IFUNC) {
        continue;
      }
      const char* name = elf_strptr(elf, shdr.sh_link, sym.st_name);
      if (name == nullptr || *name == '\0') continue;
      table.push_back({name, sym.st_value, sym.st_size, kind == STT_FUNC});
    }
  }
}

}  // namespace

struct ElfModule::Impl {
  std::string path;
  int fd = -1;
  std::unique_ptr<Elf, ElfCloser> elf;
  std::unique_ptr<Dwarf, DwarfCloser> dwarf;  // null when the file has no DWARF
  // The separate debug file, when the file itself has no .symtab or no DWARF.
  std::string debug_path;
  int debug_fd = -1;
  std::unique_ptr<Elf, ElfCloser> debug_elf;
  bool pic = false;
  std::vector<LoadSegment> segments;
  std::vector<ElfSymbol> symtab;
  std::vector<ElfSymbol> dynsym;

  ~Impl() {
    dwarf.reset();
    debug_elf.reset();
    elf.reset();
    if (debug_fd >= 0) ::close(debug_fd);
    if (fd >= 0) ::close(fd);
  }
};

ElfModule::ElfModule(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
ElfModule::ElfModule(ElfModule&&) noexcept = default;
ElfModule& ElfModule::operator=(ElfModule&&) noexcept = default;
ElfModule::~ElfModule() = default;

const std::string& ElfModule::path() const {
  return impl_->path;
}
const std::string& ElfModule::debug_path() const {
  return impl_->debug_path;
}
bool ElfModule::position_independent() const {
  return impl_->pic;
}
const std::vector<LoadSegment>& ElfModule::segments() const {
  return impl_->segments;
}

Result<ElfModule> ElfModule::Open(const std::string& path) {
  elf_version(EV_CURRENT);
  auto impl = std::make_unique<Impl>();
  impl->path = path;
  impl->fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (impl->fd < 0) return MakeError("{}: cannot open: {}", path, std::strerror(errno));
  impl->elf.reset(elf_begin(impl->fd, ELF_C_READ_MMAP, nullptr));
  if (!impl->elf || elf_kind(impl->elf.get()) != ELF_K_ELF) {
    return MakeError("{}: not an ELF file", path);
  }
  GElf_Ehdr ehdr;
  if (gelf_getehdr(impl->elf.get(), &ehdr) == nullptr) {
    return MakeError("{}: bad ELF header: {}", path, elf_errmsg(-1));
  }
  if (ehdr.e_machine != EM_X86_64) {
    return MakeError("{}: not an x86-64 ELF file (e_machine {})", path, ehdr.e_machine);
  }
  if (ehdr.e_type != ET_EXEC && ehdr.e_type != ET_DYN) {
    return MakeError("{}: neither an executable nor a shared object (e_type {})", path,
                     ehdr.e_type);
  }
  impl->pic = ehdr.e_type == ET_DYN;

  size_t phnum = 0;
  elf_getphdrnum(impl->elf.get(), &phnum);
  for (size_t i = 0; i < phnum; ++i) {
    GElf_Phdr phdr;
    if (gelf_getphdr(impl->elf.get(), static_cast<int>(i), &phdr) == nullptr) continue;
    if (phdr.p_type != PT_LOAD) continue;
    impl->segments.push_back(
        {phdr.p_vaddr, phdr.p_offset, phdr.p_filesz, phdr.p_memsz, (phdr.p_flags & PF_X) != 0});
  }
  if (impl->segments.empty()) return MakeError("{}: no PT_LOAD segment", path);

  ReadSymbols(impl->elf.get(), SHT_SYMTAB, impl->symtab);
  ReadSymbols(impl->elf.get(), SHT_DYNSYM, impl->dynsym);

  // libdw reads the same Elf handle; a missing .debug_info is not an error until a line is asked
  // for.
  impl->dwarf.reset(dwarf_begin_elf(impl->elf.get(), DWARF_C_READ, nullptr));
  if (!impl->dwarf || impl->symtab.empty()) {
    // A stripped file: its .symtab and DWARF may live in a separate debug file.
    std::string debug_path = FindDebugFile(path);
    int debug_fd = debug_path.empty() ? -1 : ::open(debug_path.c_str(), O_RDONLY | O_CLOEXEC);
    if (debug_fd >= 0) {
      impl->debug_path = debug_path;
      impl->debug_fd = debug_fd;
      impl->debug_elf.reset(elf_begin(debug_fd, ELF_C_READ_MMAP, nullptr));
    }
    if (impl->debug_elf && elf_kind(impl->debug_elf.get()) == ELF_K_ELF) {
      if (impl->symtab.empty()) ReadSymbols(impl->debug_elf.get(), SHT_SYMTAB, impl->symtab);
      if (!impl->dwarf) {
        impl->dwarf.reset(dwarf_begin_elf(impl->debug_elf.get(), DWARF_C_READ, nullptr));
      }
    }
  }
  return ElfModule(std::move(impl));
}

Result<ElfSymbol> ElfModule::FindSymbol(std::string_view name) const {
  for (const auto* table : {&impl_->symtab, &impl_->dynsym}) {
    // Prefer a function or object over a NOTYPE label of the same name.
    const ElfSymbol* found = nullptr;
    for (const ElfSymbol& symbol : *table) {
      if (symbol.name != name) continue;
      if (found == nullptr || (found->size == 0 && symbol.size != 0)) found = &symbol;
    }
    if (found != nullptr) return *found;
  }
  return MakeError("{}: no symbol '{}' in .symtab or .dynsym", impl_->path, name);
}

std::optional<uint64_t> ElfModule::VaddrToFileOffset(uint64_t vaddr) const {
  for (const LoadSegment& segment : impl_->segments) {
    if (vaddr >= segment.vaddr && vaddr - segment.vaddr < segment.file_size) {
      return segment.file_offset + (vaddr - segment.vaddr);
    }
  }
  return std::nullopt;
}

Result<uint64_t> ElfModule::LoadBias(const std::vector<Mapping>& maps) const {
  // The mapping of the lowest file offset and the segment that covers it fix the bias; the
  // kernel and ld.so keep vaddr - file offset constant within a segment.
  const Mapping* lowest = nullptr;
  for (const Mapping& mapping : maps) {
    if (mapping.path != impl_->path) continue;
    if (lowest == nullptr || mapping.file_offset < lowest->file_offset) lowest = &mapping;
  }
  if (lowest == nullptr) return MakeError("{} is not mapped in the process", impl_->path);
  if (!impl_->pic) return uint64_t{0};
  const LoadSegment& first = impl_->segments.front();
  uint64_t link_address = first.vaddr - first.file_offset + lowest->file_offset;
  return lowest->start - link_address;
}

Result<SourceLine> ElfModule::FindLine(std::string_view file, int line) const {
  if (!impl_->dwarf) {
    return MakeError(
        "{}: no DWARF debug information for @{},{} (build with -g, or install its separate debug "
        "file)",
        impl_->path, file, line);
  }
  std::optional<SourceLine> exact;
  std::optional<SourceLine> next;
  bool file_seen = false;
  Dwarf_Off offset = 0;
  Dwarf_Off next_offset = 0;
  size_t header_size = 0;
  while (dwarf_nextcu(impl_->dwarf.get(), offset, &next_offset, &header_size, nullptr, nullptr,
                      nullptr) == 0) {
    Dwarf_Die cu_die;
    Dwarf_Die* die = dwarf_offdie(impl_->dwarf.get(), offset + header_size, &cu_die);
    offset = next_offset;
    Dwarf_Lines* lines = nullptr;
    size_t count = 0;
    if (die == nullptr || dwarf_getsrclines(die, &lines, &count) != 0) continue;
    for (size_t i = 0; i < count; ++i) {
      Dwarf_Line* entry = dwarf_onesrcline(lines, i);
      const char* name = dwarf_linesrc(entry, nullptr, nullptr);
      if (name == nullptr || !SourceMatches(name, file)) continue;
      file_seen = true;
      bool statement = false;
      bool end_sequence = false;
      int number = 0;
      Dwarf_Addr address = 0;
      dwarf_linebeginstatement(entry, &statement);
      dwarf_lineendsequence(entry, &end_sequence);
      dwarf_lineno(entry, &number);
      dwarf_lineaddr(entry, &address);
      if (!statement || end_sequence || number < line) continue;
      SourceLine candidate{name, number, address};
      std::optional<SourceLine>& slot = number == line ? exact : next;
      if (!slot || number < slot->line || (number == slot->line && address < slot->address)) {
        slot = candidate;
      }
    }
  }
  if (exact) return *exact;
  if (next) return *next;
  if (!file_seen) {
    return MakeError("{}: no source file '{}' in the DWARF line table", impl_->path, file);
  }
  return MakeError("{}: no code at or after line {} of {}", impl_->path, line, file);
}

Result<std::vector<uint8_t>> ElfModule::ReadBytes(uint64_t vaddr, size_t count) const {
  auto offset = VaddrToFileOffset(vaddr);
  if (!offset) return MakeError("{}: address 0x{:x} is not in the file", impl_->path, vaddr);
  std::vector<uint8_t> bytes(count);
  ssize_t got = ::pread(impl_->fd, bytes.data(), count, static_cast<off_t>(*offset));
  if (got != static_cast<ssize_t>(count)) {
    return MakeError("{}: cannot read {} bytes at file offset 0x{:x}", impl_->path, count, *offset);
  }
  return bytes;
}

}  // namespace rastrace::dyntrace
