#include "schema/syscalls.h"

#include <cstdlib>
#include <filesystem>

#include "schema/names.h"
#ifdef RASTRACE_HAVE_SESSION
#include "session/syscall_table.h"
#endif

namespace rastrace::schema {

namespace {

bool IsSyscallName(std::string_view name) {
  if (name.empty() || name.size() > 64) return false;
  for (char c : name) {
    const bool ok =
        (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
    if (!ok) return false;
  }
  return true;
}

// A system call's argument arrives as a 64-bit register; the kernel's formats mark every one 8
// bytes and unsigned, so the C type says how much of it counts and whether it has a sign (an int
// fd of AT_FDCWD is -100, not 4294967196).
struct CType {
  std::string_view name;
  FieldType type;
  uint8_t size;
};
constexpr CType kCTypes[] = {
    {"char", FieldType::kSigned, 1},
    {"signed char", FieldType::kSigned, 1},
    {"unsigned char", FieldType::kUnsigned, 1},
    {"short", FieldType::kSigned, 2},
    {"unsigned short", FieldType::kUnsigned, 2},
    {"int", FieldType::kSigned, 4},
    {"signed int", FieldType::kSigned, 4},
    {"unsigned int", FieldType::kUnsigned, 4},
    {"unsigned", FieldType::kUnsigned, 4},
    {"long", FieldType::kSigned, 8},
    {"long int", FieldType::kSigned, 8},
    {"long long", FieldType::kSigned, 8},
    {"unsigned long", FieldType::kUnsigned, 8},
    {"unsigned long long", FieldType::kUnsigned, 8},
    {"size_t", FieldType::kUnsigned, 8},
    {"ssize_t", FieldType::kSigned, 8},
    {"pid_t", FieldType::kSigned, 4},
    {"uid_t", FieldType::kUnsigned, 4},
    {"gid_t", FieldType::kUnsigned, 4},
    {"qid_t", FieldType::kUnsigned, 4},
    {"umode_t", FieldType::kUnsigned, 2},
    {"mode_t", FieldType::kUnsigned, 4},
    {"off_t", FieldType::kSigned, 8},
    {"loff_t", FieldType::kSigned, 8},
    {"key_t", FieldType::kSigned, 4},
    {"key_serial_t", FieldType::kSigned, 4},
    {"mqd_t", FieldType::kSigned, 4},
    {"clockid_t", FieldType::kSigned, 4},
    {"timer_t", FieldType::kSigned, 4},
    {"rwf_t", FieldType::kSigned, 4},
    {"u32", FieldType::kUnsigned, 4},
    {"__u32", FieldType::kUnsigned, 4},
    {"u64", FieldType::kUnsigned, 8},
    {"__u64", FieldType::kUnsigned, 8},
    {"s32", FieldType::kSigned, 4},
    {"__s32", FieldType::kSigned, 4},
    {"s64", FieldType::kSigned, 8},
    {"__s64", FieldType::kSigned, 8},
    {"aio_context_t", FieldType::kUnsigned, 8},
};

[[maybe_unused]] std::string BareType(std::string_view type) {
  std::string out;
  size_t i = 0;
  while (i < type.size()) {
    while (i < type.size() && type[i] == ' ') ++i;
    const size_t start = i;
    while (i < type.size() && type[i] != ' ') ++i;
    const std::string_view word = type.substr(start, i - start);
    if (word.empty() || word == "const" || word == "volatile" || word == "__user") continue;
    if (!out.empty()) out.push_back(' ');
    out.append(word);
  }
  return out;
}

[[maybe_unused]] Field ArgumentField(std::string_view type, uint32_t size, bool is_signed) {
  Field f;
  if (type.find('*') != std::string_view::npos || type.find('[') != std::string_view::npos) {
    f.type = FieldType::kHex;
    f.size = 8;
    return f;
  }
  const std::string bare = BareType(type);
  for (const CType& c : kCTypes) {
    if (c.name == bare) {
      f.type = c.type;
      f.size = c.size;
      return f;
    }
  }
  f.type = is_signed ? FieldType::kSigned : FieldType::kUnsigned;
  f.size = static_cast<uint8_t>(size >= 1 && size <= 8 ? size : 8);
  return f;
}

// The arguments of system call `name`, from the session part's reader of tracefs formats (the
// one reader; schema only gives each argument a schema type).
std::unique_ptr<std::vector<Field>> Load(const std::string& events_dir, std::string_view name) {
#ifndef RASTRACE_HAVE_SESSION
  (void)events_dir;
  (void)name;
  return nullptr;  // built without the session part: no tracefs format parser
#else
  auto signature = session::ReadSyscallFormat(events_dir, name);
  if (!signature) return nullptr;
  auto fields = std::make_unique<std::vector<Field>>();
  std::vector<std::string> names;
  for (const session::SyscallArgument& argument : signature->arguments()) {
    fields->push_back(ArgumentField(argument.type, argument.size, argument.is_signed));
    names.push_back(Identifier(argument.name));
  }
  MakeUnique(names);
  for (size_t i = 0; i < names.size(); ++i) (*fields)[i].name = std::move(names[i]);
  return fields;
#endif
}

}  // namespace

const std::vector<Field>* SyscallFormats::Arguments(std::string_view name) {
  if (events_dir_.empty() || !IsSyscallName(name)) return nullptr;
  auto it = cache_.find(name);
  if (it == cache_.end()) {
    // Names come from the log: a damaged one cannot make the cache grow without bound (Linux has
    // fewer than 500 system calls).
    if (cache_.size() >= 4096) return nullptr;
    it = cache_.emplace(std::string(name), Load(events_dir_, name)).first;
  }
  return it->second.get();
}

bool SyscallFormats::Available() {
#ifdef RASTRACE_HAVE_SESSION
  return true;
#else
  return false;
#endif
}

std::string SyscallFormats::DefaultEventsDir() {
  if (const char* env = std::getenv("RASTRACE_TRACEFS_EVENTS"); env != nullptr) return env;
  for (const char* dir : {"/sys/kernel/tracing/events", "/sys/kernel/debug/tracing/events"}) {
    std::error_code ec;
    if (std::filesystem::exists(std::string(dir) + "/syscalls/sys_enter_read/format", ec)) {
      return dir;
    }
  }
  return {};
}

}  // namespace rastrace::schema
