#include "session/raw_events.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstring>

#include "session/syscall_table.h"
#include "session/trace_line.h"

namespace rastrace::session {

namespace {

// Ring buffer event types (the low 5 bits of an event's first word).
constexpr uint32_t kTypePadding = 29;
constexpr uint32_t kTypeTimeExtend = 30;
constexpr uint32_t kTypeTimeStamp = 31;
constexpr int kTimeShift = 27;  // bits of the time delta in an event's first word
constexpr uint64_t kCommitFlags = uint64_t{3} << 30;  // missed events / missed events stored

uint32_t Load32(std::span<const uint8_t> bytes, size_t at) {
  uint32_t value;
  std::memcpy(&value, bytes.data() + at, 4);
  return value;
}

uint64_t LoadSized(std::span<const uint8_t> bytes, size_t at, size_t size) {
  uint64_t value = 0;
  std::memcpy(&value, bytes.data() + at, size);  // little endian: the low bytes
  return value;
}

// "name:value;" inside a format line, e.g. "offset:8;".
std::optional<uint64_t> Attribute(std::string_view line, std::string_view key) {
  const size_t at = line.find(key);
  if (at == std::string_view::npos) return std::nullopt;
  std::string_view rest = line.substr(at + key.size());
  return ParseNumber(rest.substr(0, rest.find(';')));
}

std::string_view Trim(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t' || text.back() == '\r'))
    text.remove_suffix(1);
  return text;
}

// The field name of a declaration "unsigned long args[6]" or "__data_loc char[] name".
std::string_view FieldName(std::string_view declaration) {
  declaration = Trim(declaration);
  if (const size_t bracket = declaration.find('[');
      bracket != std::string_view::npos &&
      declaration.find(']', bracket) + 1 == declaration.size()) {
    declaration = declaration.substr(0, bracket);  // an array: the name precedes [N]
  }
  const size_t space = declaration.find_last_of(" \t");
  return space == std::string_view::npos ? declaration : declaration.substr(space + 1);
}

char StateLetter(uint64_t state) {
  static constexpr char kLetters[] = "SDTtXZPI";
  state &= 0xFF;
  if (state == 0) return 'R';
  for (int bit = 0; bit < 8; ++bit) {
    if (state & (uint64_t{1} << bit)) return kLetters[bit];
  }
  return '?';
}

}  // namespace

Result<RawFormat> ParseEventFormat(std::string_view text, std::string_view source) {
  RawFormat format;
  bool have_id = false;
  size_t line_number = 0;
  while (!text.empty()) {
    ++line_number;
    const size_t newline = text.find('\n');
    const std::string_view line = text.substr(0, newline);
    text.remove_prefix(newline == std::string_view::npos ? text.size() : newline + 1);
    const std::string_view trimmed = Trim(line);
    if (trimmed.starts_with("name:")) {
      format.name = Trim(trimmed.substr(5));
    } else if (trimmed.starts_with("ID:")) {
      const auto id = ParseNumber(Trim(trimmed.substr(3)));
      if (!id || *id > 0xFFFF) return MakeError("{}:{}:1: bad event id", source, line_number);
      format.id = static_cast<uint16_t>(*id);
      have_id = true;
    } else if (trimmed.starts_with("field:")) {
      const size_t semicolon = trimmed.find(';');
      const auto offset = Attribute(trimmed, "offset:");
      const auto size = Attribute(trimmed, "size:");
      const auto is_signed = Attribute(trimmed, "signed:");
      if (semicolon == std::string_view::npos || !offset || !size || *offset > 0xFFFF ||
          *size > 0xFFFF) {
        return MakeError("{}:{}:1: a field needs offset:N; size:N;", source, line_number);
      }
      const std::string_view declaration = trimmed.substr(6, semicolon - 6);
      RawField field;
      field.offset = static_cast<uint32_t>(*offset);
      field.size = static_cast<uint32_t>(*size);
      field.is_signed = is_signed.value_or(0) != 0;
      field.data_loc = declaration.find("__data_loc") != std::string_view::npos;
      field.present = true;
      const std::string_view name = FieldName(declaration);
      format.fields[std::string(name)] = field;
      // The type is the declaration without its name (an array keeps its [N] after the type).
      const std::string_view whole = Trim(declaration);
      const auto name_at = static_cast<size_t>(name.data() - whole.data());
      std::string type(Trim(whole.substr(0, name_at)));
      type += Trim(whole.substr(name_at + name.size()));
      format.declared.push_back({std::string(name), std::move(type), field});
    } else if (trimmed.starts_with("print fmt:")) {
      break;
    }
  }
  if (format.name.empty() || !have_id) {
    return MakeError("{}:{}:1: no name: and ID: lines", source, line_number);
  }
  return format;
}

Result<std::string> ReadSmallText(const std::string& path) {
  constexpr size_t kLimit = size_t{1} << 20;
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return MakeError("{}: {}", path, std::strerror(errno));
  std::string text;
  char chunk[4096];
  for (;;) {
    const ssize_t n = read(fd, chunk, sizeof chunk);
    if (n < 0) {
      const int error = errno;
      close(fd);
      return MakeError("{}: {}", path, std::strerror(error));
    }
    if (n == 0) break;
    text.append(chunk, static_cast<size_t>(n));
    if (text.size() > kLimit) {
      close(fd);
      return MakeError("{}: larger than 1 MiB", path);
    }
  }
  close(fd);
  return text;
}

Result<RawFormat> ReadEventFormat(const std::string& path) {
  auto text = ReadSmallText(path);
  if (!text) return text.error();
  return ParseEventFormat(*text, path);
}

Result<PageLayout> ParseHeaderPage(std::string_view text, std::string_view source) {
  auto parsed = ParseEventFormat(fmt::format("name: header_page\nID: 0\n{}", text), source);
  if (!parsed) return parsed.error();
  const auto& fields = parsed->fields;
  const auto commit = fields.find("commit");
  const auto data = fields.find("data");
  if (commit == fields.end() || data == fields.end() || commit->second.size > 8 ||
      commit->second.size < 4 || data->second.offset < commit->second.offset + 4 ||
      data->second.size == 0 || data->second.size > (1u << 20)) {
    return MakeError("{}: no usable commit and data fields", source);
  }
  PageLayout layout;
  layout.commit_offset = commit->second.offset;
  layout.commit_size = commit->second.size;
  layout.data_offset = data->second.offset;
  layout.data_size = data->second.size;
  return layout;
}

Result<void> DecodePage(std::span<const uint8_t> page, const PageLayout& layout,
                        std::vector<RawRecord>& out) {
  if (page.size() < layout.data_offset || layout.data_offset < 8) {
    return MakeError("offset 0x0: page of {} bytes is shorter than its header", page.size());
  }
  uint64_t timestamp = LoadSized(page, 0, 8);
  const uint64_t commit = LoadSized(page, layout.commit_offset, layout.commit_size) & ~kCommitFlags;
  if (commit > page.size() - layout.data_offset) {
    return MakeError("offset 0x{:x}: page says {} bytes of events, it holds {}",
                     layout.commit_offset, commit, page.size() - layout.data_offset);
  }
  const size_t end = layout.data_offset + commit;
  size_t at = layout.data_offset;
  while (at + 4 <= end) {
    const uint32_t word = Load32(page, at);
    const uint32_t type = word & 0x1F;
    const uint64_t delta = word >> 5;
    if (type == kTypePadding) {
      if (delta == 0) break;  // the rest of the page is empty
      if (at + 8 > end) return MakeError("offset 0x{:x}: padding runs past the page", at);
      const uint64_t length = Load32(page, at + 4);
      if (length > end - at - 4) return MakeError("offset 0x{:x}: padding runs past the page", at);
      at += 4 + length;  // a discarded event: its time does not count
      continue;
    }
    if (type == kTypeTimeExtend || type == kTypeTimeStamp) {
      if (at + 8 > end) return MakeError("offset 0x{:x}: time event runs past the page", at);
      const uint64_t value = (uint64_t{Load32(page, at + 4)} << kTimeShift) | delta;
      if (type == kTypeTimeExtend) {
        timestamp += value;
      } else {
        // An absolute time stamp holds the low 59 bits; the rest is the page's.
        constexpr uint64_t kLow = (uint64_t{1} << 59) - 1;
        timestamp = (timestamp & ~kLow) | (value & kLow);
      }
      at += 8;
      continue;
    }
    size_t start = at + 4;
    size_t length = size_t{type} * 4;
    if (type == 0) {
      if (at + 8 > end) return MakeError("offset 0x{:x}: event length runs past the page", at);
      const uint32_t total = Load32(page, at + 4);  // counts itself
      if (total < 4) return MakeError("offset 0x{:x}: event length {} is too short", at, total);
      start = at + 8;
      length = total - 4;
    }
    if (length > end - start) {
      return MakeError("offset 0x{:x}: event of {} bytes runs past the page", at, length);
    }
    timestamp += delta;
    out.push_back({timestamp, page.subspan(start, length)});
    at = start + ((length + 3) & ~size_t{3});
  }
  return Ok();
}

RawEventDecoder::RawEventDecoder(TaskLookup lookup, SyscallTable* syscalls)
    : lookup_(std::move(lookup)),
      own_syscalls_(syscalls == nullptr ? std::make_unique<SyscallTable>() : nullptr),
      syscalls_(syscalls == nullptr ? own_syscalls_.get() : syscalls) {}

RawEventDecoder::~RawEventDecoder() = default;

Result<void> RawEventDecoder::AddFormat(const RawFormat& format) {
  struct Spec {
    const char* event;
    Kind kind;
    std::array<const char*, 5> fields;
  };
  static constexpr Spec kSpecs[] = {
      {"sys_enter", Kind::kRawSysEnter, {"id", "args"}},
      {"sys_exit", Kind::kRawSysExit, {"id", "ret"}},
      {"sched_switch",
       Kind::kSwitch,
       {"prev_pid", "prev_prio", "prev_state", "next_pid", "next_prio"}},
      {"sched_process_fork", Kind::kFork, {"parent_pid", "child_pid"}},
      {"sched_process_exec", Kind::kExec, {"pid", "filename"}},
      {"sched_process_exit", Kind::kExit, {"pid", "prio"}},
      {"page_fault_user", Kind::kPageFaultUser, {"address", "ip", "error_code"}},
      {"page_fault_kernel", Kind::kPageFaultKernel, {"address", "ip", "error_code"}},
      {"irq_handler_entry", Kind::kIrqEntry, {"irq", "name"}},
      {"irq_handler_exit", Kind::kIrqExit, {"irq", "ret"}},
  };
  const auto pid = format.fields.find("common_pid");
  if (pid == format.fields.end() || pid->second.size != 4) {
    return MakeError("event {}: no 4-byte common_pid field", format.name);
  }
  auto field = [&](std::string_view name, bool allow_words) -> Result<RawField> {
    const auto it = format.fields.find(std::string(name));
    const bool sized = it != format.fields.end() &&
                       (it->second.data_loc ? it->second.size == 4
                                            : (it->second.size >= 1 && it->second.size <= 8) ||
                                                  (allow_words && it->second.size >= 48));
    if (!sized) return MakeError("event {}: no usable field {}", format.name, name);
    return it->second;
  };
  Decoding decoding{};
  if (format.name.starts_with("sys_enter_")) {
    auto signature = syscalls_->AddFormat(format);
    if (!signature) return signature.error();
    decoding.kind = Kind::kSysEnter;
    decoding.syscall = *signature;
    auto nr = field("__syscall_nr", false);
    if (!nr) return nr.error();
    decoding.fields[decoding.field_count++] = *nr;
    for (const SyscallArgument& argument : (*signature)->arguments()) {
      auto value = field(argument.name, false);
      if (!value) return value.error();
      decoding.fields[decoding.field_count++] = *value;
    }
  } else if (format.name.starts_with("sys_exit_") && format.name.size() > 9) {
    decoding.kind = Kind::kSysExit;
    decoding.syscall = syscalls_->ByName(std::string_view(format.name).substr(9));
    for (const char* name : {"__syscall_nr", "ret"}) {
      auto value = field(name, false);
      if (!value) return value.error();
      decoding.fields[decoding.field_count++] = *value;
    }
  } else {
    const Spec* spec = nullptr;
    for (const Spec& candidate : kSpecs) {
      if (format.name == candidate.event) spec = &candidate;
    }
    if (spec == nullptr) return MakeError("event {}: not one rastrace records", format.name);
    decoding.kind = spec->kind;
    for (const char* name : spec->fields) {
      if (name == nullptr) break;
      auto value = field(name, std::string_view(name) == "args");
      if (!value) return value.error();
      decoding.fields[decoding.field_count++] = *value;
    }
    if (decoding.kind == Kind::kRawSysEnter && decoding.fields[1].size < 48) {
      return MakeError("event {}: args holds {} bytes, not six words", format.name,
                       decoding.fields[1].size);
    }
  }
  common_pid_ = pid->second;
  if (by_id_.size() <= format.id) by_id_.resize(size_t{format.id} + 1, -1);
  by_id_[format.id] = static_cast<int32_t>(decodings_.size());
  decodings_.push_back(decoding);
  return Ok();
}

const RawEventDecoder::Task& RawEventDecoder::TaskOf(uint32_t tid) {
  if (tid == last_tid_) return *last_task_;
  auto it = tasks_.find(tid);
  if (it == tasks_.end()) it = tasks_.emplace(tid, lookup_ ? lookup_(tid) : Task{}).first;
  last_tid_ = tid;
  last_task_ = &it->second;  // nodes of an unordered_map stay where they are
  return it->second;
}

const RawEventDecoder::Decoding* RawEventDecoder::Find(std::span<const uint8_t> payload) const {
  if (payload.size() < 8 || size_t{common_pid_.offset} + 4 > payload.size()) return nullptr;
  const uint16_t id = static_cast<uint16_t>(LoadSized(payload, 0, 2));
  if (id >= by_id_.size() || by_id_[id] < 0) return nullptr;
  const Decoding& d = decodings_[static_cast<size_t>(by_id_[id])];
  for (size_t i = 0; i < d.field_count; ++i) {
    if (size_t{d.fields[i].offset} + d.fields[i].size > payload.size()) return nullptr;
  }
  return &d;
}

void RawEventDecoder::Prime(const RawRecord& record) {
  const Decoding* d = Find(record.payload);
  if (d == nullptr) return;
  const int32_t pid = static_cast<int32_t>(LoadSized(record.payload, common_pid_.offset, 4));
  if (pid > 0) TaskOf(static_cast<uint32_t>(pid));
  if (d->kind == Kind::kFork) {
    const RawField& child = d->fields[1];
    const uint64_t child_pid = LoadSized(record.payload, child.offset, std::min(child.size, 4u));
    if (child_pid > 0 && child_pid <= INT32_MAX) TaskOf(static_cast<uint32_t>(child_pid));
  }
}

bool RawEventDecoder::Decode(const RawRecord& record, uint32_t cpu, KernelEvent& out) {
  const auto& payload = record.payload;
  const Decoding* found = Find(payload);
  if (found == nullptr) return false;
  const Decoding& d = *found;
  auto number = [&](size_t i) -> uint64_t {
    const RawField& f = d.fields[i];
    uint64_t value = LoadSized(payload, f.offset, std::min<uint32_t>(f.size, 8));
    if (f.is_signed && f.size < 8 && (value >> (f.size * 8 - 1)) != 0) {
      value |= ~uint64_t{0} << (f.size * 8);  // sign extension
    }
    return value;
  };
  auto text = [&](size_t i) -> std::string_view {
    const uint32_t loc = static_cast<uint32_t>(LoadSized(payload, d.fields[i].offset, 4));
    const size_t offset = loc & 0xFFFF, length = loc >> 16;
    if (offset + length > payload.size()) return {};
    std::string_view s(reinterpret_cast<const char*>(payload.data() + offset), length);
    return s.substr(0, s.find('\0'));
  };
  const int32_t pid = static_cast<int32_t>(LoadSized(payload, common_pid_.offset, 4));
  out.tid = pid > 0 ? static_cast<uint32_t>(pid) : 0;
  const Task& task = TaskOf(out.tid);
  out.tgid = out.tid == 0 ? 0 : task.tgid;
  out.comm = task.comm;
  out.cpu = cpu;
  out.timestamp = record.timestamp;
  out.syscall = nullptr;
  out.text = {};
  out.child_tgid = 0;
  switch (d.kind) {
    case Kind::kRawSysEnter: {
      out.kind = KernelEventKind::kSysEnter;
      out.nr = number(0);
      out.syscall = syscalls_->ByNumber(out.nr);
      for (size_t i = 0; i < 6; ++i)
        out.values[i] = LoadSized(payload, d.fields[1].offset + 8 * i, 8);
      break;
    }
    case Kind::kRawSysExit:
      out.kind = KernelEventKind::kSysExit;
      out.nr = number(0);
      out.syscall = syscalls_->ByNumber(out.nr);
      out.values[0] = number(1);
      break;
    case Kind::kSysEnter:
      out.kind = KernelEventKind::kSysEnter;
      out.nr = number(0);
      out.syscall = d.syscall;
      for (size_t i = 1; i < d.field_count; ++i) out.values[i - 1] = number(i);
      break;
    case Kind::kSysExit:
      out.kind = KernelEventKind::kSysExit;
      out.nr = number(0);
      out.syscall = d.syscall;
      out.values[0] = number(1);
      break;
    case Kind::kSwitch:
      out.kind = KernelEventKind::kSwitch;
      for (size_t i = 0; i < 5; ++i) out.values[i] = number(i);
      out.values[2] = static_cast<uint8_t>(StateLetter(out.values[2]));
      break;
    case Kind::kFork: {
      out.kind = KernelEventKind::kFork;
      out.values[0] = number(0);
      out.values[1] = number(1);
      if (out.values[1] > 0 && out.values[1] <= INT32_MAX) {
        out.child_tgid = TaskOf(static_cast<uint32_t>(out.values[1])).tgid;
      }
      break;
    }
    case Kind::kExec:
      out.kind = KernelEventKind::kExec;
      out.values[0] = number(0);
      out.text = text(1);
      break;
    case Kind::kExit:
      out.kind = KernelEventKind::kExit;
      out.values[0] = number(0);
      out.values[1] = number(1);
      break;
    case Kind::kPageFaultUser:
    case Kind::kPageFaultKernel:
      out.kind = d.kind == Kind::kPageFaultUser ? KernelEventKind::kPageFaultUser
                                                : KernelEventKind::kPageFaultKernel;
      for (size_t i = 0; i < 3; ++i) out.values[i] = number(i);
      break;
    case Kind::kIrqEntry:
      out.kind = KernelEventKind::kIrqEntry;
      out.values[0] = number(0);
      out.text = text(1);
      break;
    case Kind::kIrqExit:
      out.kind = KernelEventKind::kIrqExit;
      out.values[0] = number(0);
      out.values[1] = number(1) != 0 ? 1 : 0;
      break;
  }
  return true;
}

}  // namespace rastrace::session
