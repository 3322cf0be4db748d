// The memory map of a live process, as /proc/PID/maps describes it.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"

namespace rastrace::dyntrace {

struct Mapping {
  uint64_t start = 0;
  uint64_t end = 0;          // exclusive
  uint64_t file_offset = 0;  // offset in `path` of the byte at `start`
  bool readable = false;
  bool writable = false;
  bool executable = false;
  std::string path;  // empty for anonymous memory; "[stack]" and the like for special areas
};

// Parses the text of a maps file. Lines that do not parse are errors naming the line.
Result<std::vector<Mapping>> ParseMaps(std::string_view text);
Result<std::vector<Mapping>> ReadMaps(pid_t pid);

// The mapping holding `address`, if any.
const Mapping* FindMapping(const std::vector<Mapping>& maps, uint64_t address);

// True when the mapped `path` is the module a TSF names in MODNAME: the same path when MODNAME
// has a '/', otherwise the same file name, or a versioned name of it ("libc.so" matches
// "libc.so.6").
bool ModuleMatches(std::string_view path, std::string_view modname);

// The path of the module named `modname` in `maps`, or an error listing what was looked for.
Result<std::string> FindModulePath(const std::vector<Mapping>& maps, std::string_view modname,
                                   pid_t pid);

// Converts a file offset of `path` to the address it is mapped at, from the mapping that covers
// it. nullopt when no mapping of `path` covers the offset.
std::optional<uint64_t> FileOffsetToAddress(const std::vector<Mapping>& maps, std::string_view path,
                                            uint64_t file_offset);

}  // namespace rastrace::dyntrace
