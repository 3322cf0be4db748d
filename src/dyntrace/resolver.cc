#include "dyntrace/resolver.h"

#include <strings.h>

#include <algorithm>

#include "dyntrace/elf_module.h"
#include "dyntrace/x86_length.h"

namespace rastrace::dyntrace {
namespace {

bool SameName(std::string_view a, std::string_view b) {
  return a.size() == b.size() && strncasecmp(a.data(), b.data(), a.size()) == 0;
}

std::string At(const tsf::Module& module, tsf::Location where) {
  return fmt::format("{}:{}:{}", module.file, where.line, where.column);
}

std::string SiteName(const tsf::TracepointSite& site) {
  switch (site.kind) {
    case tsf::TracepointSite::Kind::kStatic:
      return "@STATIC";
    case tsf::TracepointSite::Kind::kFileLine:
      return fmt::format("@{},{}", site.file, site.line);
    case tsf::TracepointSite::Kind::kSymbol:
      break;
  }
  std::string name = "." + site.symbol;
  if (site.offset > 0) name += fmt::format("+{}", site.offset);
  if (site.offset < 0) name += fmt::format("{}", site.offset);
  if (site.retep) name += ",RETEP";
  return name;
}

struct ModuleContext {
  const tsf::Module& module;
  const ElfModule& elf;
  uint64_t bias;
};

// Link-time addresses of the `ret`s of `symbol`, or none when its code cannot be swept safely.
std::vector<uint64_t> FindReturnSites(const ElfModule& elf, const ElfSymbol& symbol) {
  auto code = elf.ReadBytes(symbol.value, symbol.size);
  if (!code) return {};
  auto offsets = FindReturns(*code);
  if (!offsets) return {};
  std::vector<uint64_t> addresses;
  for (size_t offset : *offsets) addresses.push_back(symbol.value + offset);
  return addresses;
}

Result<ProbeSite> ResolveSite(const ModuleContext& context, const tsf::Tracepoint& tracepoint) {
  const tsf::TracepointSite& site = tracepoint.site;
  std::string where = At(context.module, tracepoint.where);
  uint64_t link_address = 0;
  std::vector<uint64_t> returns;
  switch (site.kind) {
    case tsf::TracepointSite::Kind::kStatic:
      return MakeError(
          "{}: TP=@STATIC is a tracepoint compiled into the program; trace on "
          "attaches only dynamic tracepoints",
          where);
    case tsf::TracepointSite::Kind::kFileLine: {
      auto line = context.elf.FindLine(site.file, static_cast<int>(site.line));
      if (!line) return MakeError("{}: {}", where, line.error().message);
      link_address = line->address;
      break;
    }
    case tsf::TracepointSite::Kind::kSymbol: {
      auto symbol = context.elf.FindSymbol(site.symbol);
      if (!symbol) return MakeError("{}: {}", where, symbol.error().message);
      if (site.retep && site.offset != 0) {
        return MakeError("{}: RETEP applies to a procedure's entry symbol; drop the offset", where);
      }
      if (!symbol->function && site.retep) {
        return MakeError("{}: RETEP needs a function; '{}' is not one", where, site.symbol);
      }
      if (site.offset < 0 ||
          (symbol->size != 0 && static_cast<uint64_t>(site.offset) >= symbol->size)) {
        return MakeError("{}: offset {} is outside '{}' ({} bytes)", where, site.offset,
                         site.symbol, symbol->size);
      }
      link_address = symbol->value + static_cast<uint64_t>(site.offset);
      if (site.retep && symbol->size != 0) returns = FindReturnSites(context.elf, *symbol);
      break;
    }
  }
  auto file_offset = context.elf.VaddrToFileOffset(link_address);
  bool executable = std::any_of(
      context.elf.segments().begin(), context.elf.segments().end(), [&](const LoadSegment& s) {
        return s.executable && link_address >= s.vaddr && link_address - s.vaddr < s.file_size;
      });
  if (!file_offset || !executable) {
    return MakeError("{}: {} (0x{:x}) is not in an executable segment of {}", where, SiteName(site),
                     link_address, context.elf.path());
  }
  ProbeSite probe;
  probe.module_path = context.elf.path();
  probe.link_address = link_address;
  probe.file_offset = *file_offset;
  probe.address = link_address + context.bias;
  probe.retep = site.retep;
  for (uint64_t address : returns) probe.return_sites.push_back(address + context.bias);
  return probe;
}

Result<CompiledAddress> ResolveAddress(const ModuleContext& context,
                                       const tsf::DataStatement& statement) {
  const tsf::Address& address = statement.address;
  std::string where = At(context.module, statement.where);
  CompiledAddress compiled;
  if (address.base == tsf::Address::Base::kRegister) {
    auto slot = address.reg ? LookupRegister(address.reg->name) : std::nullopt;
    if (!slot) {
      return MakeError("{}: '{}' is not an x86-64 register", where,
                       address.reg ? address.reg->name : std::string("?"));
    }
    compiled.register_base = true;
    compiled.base_register = slot->reg;
  } else {
    auto symbol = context.elf.FindSymbol(address.symbol);
    if (!symbol) return MakeError("{}: {}", where, symbol.error().message);
    compiled.base_address = symbol->value + context.bias;
  }
  compiled.displacement = address.displacement;
  compiled.final_displacement = address.final_displacement.value_or(0);
  if (statement.indirection == tsf::Indirection::kIndirect) {
    compiled.levels = static_cast<uint8_t>(std::max<size_t>(1, statement.indirect_offsets.size()));
    compiled.level_offsets = statement.indirect_offsets;
  }
  return compiled;
}

Result<CompiledData> ResolveData(const ModuleContext& context,
                                 const tsf::DataStatement& statement) {
  std::string where = At(context.module, statement.where);
  if (statement.Segmented()) {
    return MakeError(
        "{}: MEM, ASCIIZ, segment-register addresses and IS/IF pointers need 16:16 segmented "
        "memory, which a flat x86-64 Linux process does not have; use MEM32/ASCIIZ32 with "
        "DIRECT or INDIRECT",
        where);
  }
  CompiledData data;
  data.kind = statement.kind;
  data.length = statement.length;
  data.length_from_len = statement.length_from_len;
  if (statement.kind == tsf::DataKind::kRegs) {
    for (const tsf::Register& reg : statement.registers) {
      if (reg.variable) {
        return MakeError(
            "{}: register variable '{}' cannot be located without a DWARF "
            "location list; name the register instead",
            where, reg.name);
      }
      auto slot = LookupRegister(reg.name);
      if (!slot) return MakeError("{}: '{}' is not an x86-64 register", where, reg.name);
      data.registers.push_back(*slot);
    }
    return data;
  }
  auto address = ResolveAddress(context, statement);
  if (!address) return address.error();
  data.address = std::move(*address);
  return data;
}

}  // namespace

bool CompiledTracepoint::RegistersOnly() const {
  return std::all_of(data.begin(), data.end(),
                     [](const CompiledData& d) { return d.kind == tsf::DataKind::kRegs; });
}

Result<std::vector<const tsf::Tracepoint*>> SelectTracepoints(const tsf::Module& module,
                                                              const Selection& selection) {
  uint32_t type_mask = 0;
  for (const std::string& name : selection.types) {
    auto it = std::find_if(module.types.begin(), module.types.end(),
                           [&](const tsf::NamedId& t) { return SameName(t.name, name); });
    if (it == module.types.end()) {
      return MakeError("{}: TYPE {} is not in the TYPELIST", module.file, name);
    }
    type_mask |= it->id;
  }
  for (const std::string& name : selection.groups) {
    bool known = std::any_of(module.groups.begin(), module.groups.end(),
                             [&](const tsf::NamedId& g) { return SameName(g.name, name); });
    if (!known) return MakeError("{}: GROUP {} is not in the GROUPLIST", module.file, name);
  }
  std::vector<const tsf::Tracepoint*> picked;
  for (const tsf::Tracepoint& tracepoint : module.tracepoints) {
    if (type_mask != 0 && (tracepoint.type_mask & type_mask) == 0) continue;
    if (!selection.groups.empty()) {
      bool in_group =
          tracepoint.group &&
          std::any_of(selection.groups.begin(), selection.groups.end(),
                      [&](const std::string& g) { return SameName(g, *tracepoint.group); });
      if (!in_group) continue;
    }
    if (!selection.minors.empty() && std::find(selection.minors.begin(), selection.minors.end(),
                                               tracepoint.minor) == selection.minors.end()) {
      continue;
    }
    picked.push_back(&tracepoint);
  }
  if (picked.empty()) return MakeError("{}: the selection picks no tracepoint", module.file);
  return picked;
}

namespace {

Result<std::vector<CompiledTracepoint>> Compile(
    const ModuleContext& context, std::span<const tsf::Tracepoint* const> tracepoints) {
  const tsf::Module& module = context.module;
  std::vector<CompiledTracepoint> compiled;
  for (const tsf::Tracepoint* tracepoint : tracepoints) {
    CompiledTracepoint out;
    out.major = module.major;
    out.minor = tracepoint->minor;
    out.name = fmt::format("minor 0x{:04X} ({})", tracepoint->minor, SiteName(tracepoint->site));
    out.opcode = tracepoint->opcode;
    const tsf::TracepointSite& where = tracepoint->site;
    if (where.kind == tsf::TracepointSite::Kind::kFileLine) {
      out.kind = SiteKind::kInside;
      out.procedure = fmt::format("{}:{}", where.file, where.line);
    } else {
      out.kind = where.retep         ? SiteKind::kReturn
                 : where.offset != 0 ? SiteKind::kInside
                                     : SiteKind::kEntry;
      out.procedure = where.symbol;
    }
    out.max_data_length = module.max_data_length;
    auto site = ResolveSite(context, *tracepoint);
    if (!site) return site.error();
    out.site = std::move(*site);
    for (const tsf::DataStatement& statement : tracepoint->data) {
      auto data = ResolveData(context, statement);
      if (!data) return data.error();
      out.data.push_back(std::move(*data));
    }
    compiled.push_back(std::move(out));
  }
  return compiled;
}

}  // namespace

std::string ModuleName(const tsf::Module& module, const std::string& default_module) {
  return module.modname.empty() ? default_module : module.modname;
}

Result<std::vector<CompiledTracepoint>> ResolveTracepoints(
    const tsf::Module& module, std::span<const tsf::Tracepoint* const> tracepoints, pid_t pid,
    const std::vector<Mapping>& maps, const std::string& default_module) {
  auto path = FindModulePath(maps, ModuleName(module, default_module), pid);
  if (!path) return MakeError("{}: {}", module.file, path.error().message);
  auto elf = ElfModule::Open(*path);
  if (!elf) return elf.error();
  auto bias = elf->LoadBias(maps);
  if (!bias) return bias.error();
  return Compile({module, *elf, *bias}, tracepoints);
}

Result<std::vector<CompiledTracepoint>> ResolveTracepointsInFile(
    const tsf::Module& module, std::span<const tsf::Tracepoint* const> tracepoints,
    const std::string& path) {
  auto elf = ElfModule::Open(path);
  if (!elf) return MakeError("{}: MODNAME {}: {}", module.file, path, elf.error().message);
  auto compiled = Compile({module, *elf, 0}, tracepoints);
  if (!compiled) return compiled.error();
  for (CompiledTracepoint& tracepoint : *compiled) {
    // Not mapped yet: OPCODE= is checked against the file, which is what will be mapped.
    if (!tracepoint.opcode) continue;
    auto bytes = elf->ReadBytes(tracepoint.site.link_address, 1);
    if (!bytes) return bytes.error();
    if ((*bytes)[0] != *tracepoint.opcode) {
      return MakeError("{}: OPCODE=0x{:02X} expected at 0x{:x} of {} but the file has 0x{:02X}",
                       tracepoint.name, *tracepoint.opcode, tracepoint.site.link_address, path,
                       (*bytes)[0]);
    }
    tracepoint.opcode.reset();
  }
  return compiled;
}

}  // namespace rastrace::dyntrace
