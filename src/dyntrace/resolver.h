// Turns the tracepoints of a TSF module into probes of one process: finds MODNAME in the
// process's maps, resolves .symbol[+offset], @file,line (DWARF) and data symbols with the ELF
// file, and refuses what a flat x86-64 process cannot serve, naming the TSF file:line:col.
#pragma once

#include <sys/types.h>

#include <span>
#include <string>
#include <vector>

#include "common/result.h"
#include "dyntrace/compiled_tracepoint.h"
#include "dyntrace/process_maps.h"
#include "tsf/tsf.h"

namespace rastrace::dyntrace {

// Which tracepoints of a module to attach, as OS/2's TRACE ON selected them: by TYPE names (a
// tracepoint with any of them), GROUP names and MINOR codes. Empty lists select everything.
struct Selection {
  std::vector<std::string> types;
  std::vector<std::string> groups;
  std::vector<uint16_t> minors;
};

// The tracepoints `selection` picks, in file order; an error names a type or group the module
// does not define.
Result<std::vector<const tsf::Tracepoint*>> SelectTracepoints(const tsf::Module& module,
                                                              const Selection& selection);

// MODNAME, or `default_module` when the TSF has none.
std::string ModuleName(const tsf::Module& module, const std::string& default_module);

// Resolves `tracepoints` against the process `pid` whose memory map is `maps`. MODNAME (or, when
// the TSF has none, `default_module`) must be mapped.
Result<std::vector<CompiledTracepoint>> ResolveTracepoints(
    const tsf::Module& module, std::span<const tsf::Tracepoint* const> tracepoints, pid_t pid,
    const std::vector<Mapping>& maps, const std::string& default_module);

// Resolves `tracepoints` against the ELF file `path` itself, not yet mapped (a uprobe is placed
// per file, so it fires once a dlopen maps it): addresses are link-time ones (load bias 0) and
// OPCODE= is checked against the file now.
Result<std::vector<CompiledTracepoint>> ResolveTracepointsInFile(
    const tsf::Module& module, std::span<const tsf::Tracepoint* const> tracepoints,
    const std::string& path);

}  // namespace rastrace::dyntrace
