#include "buffer/recover.h"

#include <dirent.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <memory>
#include <span>
#include <string_view>
#include <vector>

#include "buffer/event_words.h"
#include "buffer/shm_ring.h"
#include "event/encode.h"
#include "event/reader.h"
#include "event/writer.h"

namespace rastrace::buffer {
namespace {

// Recovery reads and writes in pieces of this size: its memory does not grow with the files.
constexpr uint64_t kCopyChunkBytes = uint64_t{1} << 20;
// What a recorder puts in a .proc file (a few header events and a path): more is damage.
constexpr uint32_t kMaxHeaderEventsBytes = 1 << 20;
constexpr uint32_t kMaxLogPathBytes = 1 << 16;

// Closes a descriptor on scope exit.
class Fd {
 public:
  explicit Fd(int fd) : fd_(fd) {}
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  ~Fd() {
    if (fd_ >= 0) close(fd_);
  }
  int get() const { return fd_; }

 private:
  int fd_;
};

// A file of DIR mapped read-only and private: recovery never changes the recorder's files.
Result<ShmMapping> MapForReading(int dir_fd, const std::string& dir, const std::string& name,
                                 size_t min_bytes) {
  Fd fd(openat(dir_fd, name.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC));
  if (fd.get() < 0) return MakeError("{}/{}: cannot open: {}", dir, name, std::strerror(errno));
  struct stat st {};
  if (fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode)) {
    return MakeError("{}/{}: not a regular file", dir, name);
  }
  const auto bytes = static_cast<size_t>(st.st_size);
  if (bytes < min_bytes) {
    return MakeError("{}/{}: offset 0x0: file too short ({} bytes, need {})", dir, name, bytes,
                     min_bytes);
  }
  void* address = mmap(nullptr, bytes, PROT_READ, MAP_PRIVATE, fd.get(), 0);
  if (address == MAP_FAILED)
    return MakeError("{}/{}: cannot map: {}", dir, name, std::strerror(errno));
  return ShmMapping(address, bytes);
}

Result<uint64_t> CheckMagic(uint64_t found, uint64_t expected, const std::string& what) {
  if (found == expected) return found;
  if (found == __builtin_bswap64(expected)) {
    return MakeError("{}: offset 0x0: recorded on a machine of the other byte order", what);
  }
  return MakeError("{}: offset 0x0: not a rastrace flight recorder file (magic {:016x})", what,
                   found);
}

// The length field of an event written by a hook can only take these values.
bool PlausibleHookword(uint64_t hookword) {
  const uint16_t flags = FlagsOf(hookword);
  const uint16_t length = LengthOf(hookword);
  if (flags & event::kFlagGeneric) return true;
  if (flags & event::kFlag32BitData) return length % 4 == 0 && length <= 20;
  return length % 8 == 0 && length <= 40;
}

// One region of a ring as recovery reads it: the positions [start, end) are words[p & mask].
struct RegionView {
  ShmMapping mapping;  // empty for the first region, which is in the ring's own mapping
  const uint64_t* words = nullptr;
  uint64_t mask = 0;
  uint64_t offset = 0;  // in the file
  uint64_t start = 0;
  uint64_t end = 0;
};

struct RingState {
  std::string file;
  ShmMapping mapping;
  const ShmRingHeader* header = nullptr;
  std::vector<RegionView> regions;  // those holding positions from `position` on, in order
  size_t current = 0;               // the region holding `position`
  uint64_t position = 0;            // next event to take
  uint64_t end = 0;                 // the committed head
  uint64_t lost_in_log = 0;
  uint64_t last_timestamp = 0;
  uint64_t recovered = 0;
  bool named = false;
  bool ended = false;  // the thread had ended and the log has all its events

  // Events never straddle two regions (the producer moves between events), so the words of the
  // event at `position` are all in the current region, below its end.
  const RegionView& region() const { return regions[current]; }
  uint64_t WordAt(uint64_t at) const { return region().words[at & region().mask]; }
  // Moves to the region holding `position` (after the last event of a region was taken).
  void Settle() {
    while (current + 1 < regions.size() && position >= regions[current].end) ++current;
  }
  uint64_t FileOffset(uint64_t at) const { return region().offset + (at & region().mask) * 8; }
};

void AppendEvent(const event::EventFields& fields, std::vector<uint8_t>& out) {
  // Fields built here always encode.
  (void)event::Encode(fields, event::Layout::k64, NativeByteOrder(), out);
}

void AppendThreadName(const RingState& ring, std::vector<uint8_t>& out) {
  const std::string_view name(ring.header->name,
                              strnlen(ring.header->name, sizeof ring.header->name));
  std::vector<uint8_t> buffer(2 + name.size());
  const auto length = static_cast<uint16_t>(name.size());
  std::memcpy(buffer.data(), &length, 2);
  std::memcpy(buffer.data() + 2, name.data(), name.size());
  event::EventFields fields;
  fields.hook_id = event::kHookUtil;
  fields.subhook = event::kUtilThreadName;
  fields.generic = true;
  fields.generic_word = ring.header->thread_id;
  fields.buffer = buffer;
  fields.thread_id = ring.header->thread_id;
  AppendEvent(fields, out);
}

void AppendWords(uint16_t hook, uint16_t subhook, std::initializer_list<uint64_t> words,
                 uint64_t thread_id, uint64_t timestamp, std::vector<uint8_t>& out) {
  event::EventFields fields;
  fields.hook_id = hook;
  fields.subhook = subhook;
  fields.timestamped = true;
  fields.word_count = static_cast<uint8_t>(words.size());
  std::copy(words.begin(), words.end(), fields.words.begin());
  fields.thread_id = thread_id;
  fields.timestamp = timestamp;
  AppendEvent(fields, out);
}

// Maps `bytes` of the open file `fd` from `offset`, read-only and private.
Result<ShmMapping> MapPart(int fd, uint64_t offset, uint64_t bytes, const std::string& file) {
  void* address = mmap(nullptr, static_cast<size_t>(bytes), PROT_READ, MAP_PRIVATE, fd,
                       static_cast<off_t>(offset));
  if (address == MAP_FAILED) {
    return MakeError("{}: offset 0x{:x}: cannot map {} bytes: {}", file, offset, bytes,
                     std::strerror(errno));
  }
  return ShmMapping(address, static_cast<size_t>(bytes));
}

// The regions of the ring that hold positions from `ring.position` to `ring.end`, each checked
// against the file's real size before it is mapped.
Result<void> OpenRegions(RingState& ring, int fd, uint64_t file_bytes) {
  const ShmRingHeader& h = *ring.header;
  const uint32_t count = h.region_count.load(std::memory_order_acquire);
  if (count == 0 || count > kShmMaxRegions) {
    return MakeError("{}: offset 0x{:x}: {} regions (a ring has 1 to {})", ring.file,
                     offsetof(ShmRingHeader, region_count), count, kShmMaxRegions);
  }
  struct Taken {
    size_t index;
    uint64_t start;
  };
  std::vector<Taken> taken;
  for (size_t i = 0; i < count; ++i) {
    const ShmRegion& region = h.regions[i];
    const size_t field = offsetof(ShmRingHeader, regions) + i * sizeof(ShmRegion);
    const uint64_t start = region.start.load(std::memory_order_acquire);
    if (start == kShmRegionNotTaken) {
      if (i == 0) {
        return MakeError("{}: offset 0x{:x}: the first region is not taken", ring.file,
                         field + offsetof(ShmRegion, start));
      }
      continue;  // offered, never written
    }
    const uint64_t capacity = region.capacity_words;
    if (capacity < RingBuffer::kMinBytes / 8 || capacity > RingBuffer::kMaxBytes / 8 ||
        !std::has_single_bit(capacity) || region.offset % kShmPage != 0 ||
        region.offset < kShmPage || region.offset > file_bytes ||
        capacity * 8 > file_bytes - region.offset) {
      return MakeError(
          "{}: offset 0x{:x}: region {} of {} words at file offset 0x{:x} does not fit the "
          "file's {} bytes",
          ring.file, field, i, capacity, region.offset, file_bytes);
    }
    if (i == 0 && (start != 0 || region.offset != kShmPage || capacity != h.capacity_words)) {
      return MakeError(
          "{}: offset 0x{:x}: the first region (position {}, file offset 0x{:x}, {} words) is "
          "not the ring's own ({} words after the header)",
          ring.file, field, start, region.offset, capacity, h.capacity_words);
    }
    if (!taken.empty() && start <= taken.back().start) {
      return MakeError(
          "{}: offset 0x{:x}: region {} starts at position {}, not after region {} ({})", ring.file,
          field + offsetof(ShmRegion, start), i, start, taken.back().index, taken.back().start);
    }
    taken.push_back({i, start});
  }
  if (taken.back().start > ring.end) {
    return MakeError(
        "{}: offset 0x{:x}: region {} starts at position {}, past the committed "
        "position {}",
        ring.file,
        offsetof(ShmRingHeader, regions) + taken.back().index * sizeof(ShmRegion) +
            offsetof(ShmRegion, start),
        taken.back().index, taken.back().start, ring.end);
  }
  if (ring.position >= ring.end) return Ok();  // nothing to read
  for (size_t t = 0; t < taken.size(); ++t) {
    const uint64_t end = t + 1 < taken.size() ? taken[t + 1].start : ring.end;
    if (end <= ring.position) continue;  // wholly in the log already
    const ShmRegion& region = h.regions[taken[t].index];
    const uint64_t from = std::max(taken[t].start, ring.position);
    const uint64_t capacity = region.capacity_words;
    if (end - from > capacity) {
      return MakeError("{}: offset 0x{:x}: positions {} to {} do not fit region {} ({} words)",
                       ring.file, offsetof(ShmRingHeader, control), from, end, taken[t].index,
                       capacity);
    }
    auto mapping = MapPart(fd, region.offset, capacity * 8, ring.file);
    if (!mapping) return mapping.error();
    RegionView view;
    view.words = static_cast<const uint64_t*>(mapping->address());
    view.mapping = std::move(*mapping);
    view.mask = capacity - 1;
    view.offset = region.offset;
    view.start = taken[t].start;
    view.end = end;
    ring.regions.push_back(std::move(view));
  }
  ring.current = 0;
  return Ok();
}

// Opens one ring file and decides where its unrecovered events start: after the events the log
// held at checkpoint `seq`.
Result<RingState> OpenRing(int dir_fd, const std::string& dir, const std::string& name,
                           uint64_t pid, uint64_t seq) {
  RingState ring;
  ring.file = dir + "/" + name;
  Fd fd(openat(dir_fd, name.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC));
  if (fd.get() < 0) return MakeError("{}: cannot open: {}", ring.file, std::strerror(errno));
  struct stat st {};
  if (fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode)) {
    return MakeError("{}: not a regular file", ring.file);
  }
  const auto file_bytes = static_cast<uint64_t>(st.st_size);
  if (file_bytes == 0) {
    // The process died between creating and sizing this file: its thread had not recorded yet.
    ring.ended = true;
    return ring;
  }
  if (file_bytes < kShmPage) {
    return MakeError("{}: offset 0x0: file too short ({} bytes, need {})", ring.file, file_bytes,
                     kShmPage);
  }
  auto mapping = MapPart(fd.get(), 0, kShmPage, ring.file);
  if (!mapping) return mapping.error();
  ring.mapping = std::move(*mapping);
  ring.header = static_cast<const ShmRingHeader*>(ring.mapping.address());
  const ShmRingHeader& h = *ring.header;
  if (h.magic == 0) {
    // The process died while creating this file: its thread had not recorded into it yet.
    ring.ended = true;
    return ring;
  }
  if (auto magic = CheckMagic(h.magic, kShmRingMagic, ring.file); !magic) return magic.error();
  if (h.version != kShmLayoutVersion) {
    return MakeError("{}: offset 0x8: layout version {} (this rastrace reads {})", ring.file,
                     h.version, kShmLayoutVersion);
  }
  if (h.pid != pid)
    return MakeError("{}: offset 0x10: pid {} (expected {})", ring.file, h.pid, pid);
  const uint64_t capacity = h.capacity_words;
  if (capacity == 0 || !std::has_single_bit(capacity) || capacity > RingBuffer::kMaxBytes / 8 ||
      capacity * 8 > file_bytes - kShmPage) {
    return MakeError("{}: offset 0x20: ring of {} words does not fit the file's {} bytes",
                     ring.file, capacity, file_bytes);
  }
  ring.end = h.control.shared.head.load(std::memory_order_acquire);
  const uint64_t tail = h.control.consumer.tail.load(std::memory_order_acquire);

  uint64_t start = 0;
  const ShmRingCheckpoint& slot = h.checkpoint[seq % 2];
  if (seq != 0 && slot.seq == seq) {
    start = slot.read;
    ring.lost_in_log = slot.lost_reported;
    // Losses the writer counted itself (-s) are not in the ring's own count.
    ring.lost_in_log -= std::min(slot.lost_by_writer, ring.lost_in_log);
  } else if (h.released.load(std::memory_order_acquire) != 0 &&
             seq > h.released_after_seq.load(std::memory_order_relaxed)) {
    // The thread ended and a later checkpoint has all its events in the log.
    ring.position = ring.end;
    ring.lost_in_log = h.control.shared.lost.load(std::memory_order_relaxed);
    ring.ended = true;
    return ring;
  }
  // Circular mode moves the tail past overwritten events; they are counted as lost.
  start = std::max(start, tail);
  if (start > ring.end) {
    return MakeError("{}: offset 0x{:x}: committed position {} is before the drained position {}",
                     ring.file, offsetof(ShmRingHeader, control), ring.end, start);
  }
  ring.position = start;
  if (auto regions = OpenRegions(ring, fd.get(), file_bytes); !regions) return regions.error();
  return ring;
}

// Takes the next event of `ring` into `out`; false (with a warning) when the ring holds something
// that is not a whole event, which ends that ring.
bool TakeEvent(RingState& ring, std::vector<uint8_t>& out, std::vector<std::string>& warnings) {
  const uint64_t hookword = ring.WordAt(ring.position);
  const size_t words = EventWords(hookword);
  if (!PlausibleHookword(hookword) || words > ring.region().end - ring.position) {
    warnings.push_back(fmt::format(
        "{}: offset 0x{:x}: not a whole event (hookword {:016x}); the rest of this ring ({} words) "
        "is left out",
        ring.file, ring.FileOffset(ring.position), hookword, ring.end - ring.position));
    ring.position = ring.end;
    return false;
  }
  const size_t at = out.size();
  out.resize(at + words * 8);
  for (size_t i = 0; i < words; ++i) {
    const uint64_t word = ring.WordAt(ring.position + i);
    std::memcpy(out.data() + at + i * 8, &word, 8);
  }
  if (FlagsOf(hookword) & event::kFlagTimestamp) {
    ring.last_timestamp = ring.WordAt(ring.position + words - 1);
  }
  ring.position += words;
  ring.Settle();
  ++ring.recovered;
  return true;
}

uint64_t OrderingTimestamp(const RingState& ring) {
  const uint64_t hookword = ring.WordAt(ring.position);
  const size_t words = EventWords(hookword);
  if ((FlagsOf(hookword) & event::kFlagTimestamp) && words <= ring.region().end - ring.position) {
    return ring.WordAt(ring.position + words - 1);
  }
  return ring.last_timestamp;
}

// How much of the process's own log recovery takes: its whole events up to the checkpoint. The
// checkpoint's size is checked against the file before anything is read, and the log is read
// streaming, so a damaged checkpoint or a log of any size costs no more memory than one event.
struct LogPrefix {
  uint64_t whole_bytes = 0;  // including the magic
};

Result<LogPrefix> CheckLogPrefix(const std::string& path, uint64_t bytes,
                                 const std::string& proc_file, size_t log_bytes_offset,
                                 std::vector<std::string>& warnings) {
  Fd fd(open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC));
  if (fd.get() < 0) return MakeError("{}: cannot open: {}", path, std::strerror(errno));
  struct stat st {};
  if (fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode)) {
    return MakeError("{}: not a regular file", path);
  }
  if (static_cast<uint64_t>(st.st_size) < bytes) {
    return MakeError("{}: offset 0x{:x}: the checkpoint says the log has {} bytes, but {} has {}",
                     proc_file, log_bytes_offset, bytes, path, st.st_size);
  }
  auto reader = event::LogReader::Open(path, {.reformat = false});
  if (!reader) return reader.error();
  if (reader->layout() != event::Layout::k64 || reader->byte_order() != NativeByteOrder()) {
    return MakeError(
        "{}: offset 0x0: not the log this process was writing (not a 64-bit log in "
        "this machine's byte order)",
        path);
  }
  // A checkpoint only ever covers whole events; a damaged file may not, so keep the whole ones.
  LogPrefix prefix{4};
  event::Event e;
  event::ReadStatus status;
  while (prefix.whole_bytes < bytes && (status = reader->Next(e)) == event::ReadStatus::kEvent) {
    if (e.offset + e.bytes.size() > bytes) {
      warnings.push_back(fmt::format(
          "{}: offset 0x{:x}: the checkpoint ({} bytes) ends inside an event; the log is kept up "
          "to offset 0x{:x}",
          path, e.offset, bytes, prefix.whole_bytes));
      return prefix;
    }
    prefix.whole_bytes = e.offset + e.bytes.size();
  }
  if (prefix.whole_bytes < bytes && status == event::ReadStatus::kError) {
    warnings.push_back(fmt::format("{}; the log is kept up to offset 0x{:x}",
                                   reader->error().message, prefix.whole_bytes));
  }
  return prefix;
}

// Copies bytes [4, end) of the log at `path` (its events, without the magic) to `writer`.
Result<void> CopyLogPrefix(const std::string& path, uint64_t end, event::LogWriter& writer) {
  Fd fd(open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC));
  if (fd.get() < 0) return MakeError("{}: cannot open: {}", path, std::strerror(errno));
  std::vector<uint8_t> chunk(std::min<uint64_t>(end, kCopyChunkBytes));
  for (uint64_t at = 4; at < end;) {
    const size_t want = static_cast<size_t>(std::min<uint64_t>(end - at, chunk.size()));
    const ssize_t n = pread(fd.get(), chunk.data(), want, static_cast<off_t>(at));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      return MakeError("{}: offset 0x{:x}: {}", path, at,
                       n < 0 ? std::strerror(errno) : "the log became shorter while it was read");
    }
    if (auto wrote = writer.WriteEncoded(std::span(chunk.data(), static_cast<size_t>(n))); !wrote) {
      return wrote.error();
    }
    at += static_cast<uint64_t>(n);
  }
  return Ok();
}

// The header events of the .proc file, each whole; a damaged one ends them (with a warning).
std::span<const uint8_t> WholeHeaderEvents(std::span<const uint8_t> events,
                                           const std::string& proc_file,
                                           std::vector<std::string>& warnings) {
  std::vector<uint8_t> log(4 + events.size());
  std::memcpy(log.data(), &event::kMagic64, 4);
  std::memcpy(log.data() + 4, events.data(), events.size());
  auto reader = event::LogReader::FromBytes(log, proc_file, {.reformat = false});
  if (!reader) return {};
  event::Event e;
  uint64_t whole = 4;
  event::ReadStatus status;
  while ((status = reader->Next(e)) == event::ReadStatus::kEvent) whole = e.offset + e.bytes.size();
  if (status == event::ReadStatus::kError) {
    warnings.push_back(fmt::format(
        "{}: offset 0x{:x}: damaged header events; only the {} bytes before it are kept", proc_file,
        kShmProcessEventsOffset + whole - 4, whole - 4));
  }
  return events.first(static_cast<size_t>(whole - 4));
}

bool ParsePid(std::string_view text, uint64_t* pid) {
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), *pid);
  return ec == std::errc() && end == text.data() + text.size() && !text.empty();
}

// Names of DIR's files: the .proc files' pids, and every ring file of `pid`.
Result<std::vector<std::string>> ListNames(int dir_fd, const std::string& dir) {
  const int copy = dup(dir_fd);
  if (copy < 0) return MakeError("{}: {}", dir, std::strerror(errno));
  std::unique_ptr<DIR, int (*)(DIR*)> stream(fdopendir(copy), closedir);
  if (!stream) {
    close(copy);
    return MakeError("{}: cannot list: {}", dir, std::strerror(errno));
  }
  std::vector<std::string> names;
  while (const dirent* entry = readdir(stream.get())) names.emplace_back(entry->d_name);
  std::sort(names.begin(), names.end());
  return names;
}

std::vector<uint64_t> ProcessesIn(const std::vector<std::string>& names) {
  std::vector<uint64_t> pids;
  for (std::string_view name : names) {
    if (!name.starts_with("rastrace-") || !name.ends_with(".proc")) continue;
    name.remove_prefix(9);
    name.remove_suffix(5);
    if (uint64_t pid = 0; ParsePid(name, &pid)) pids.push_back(pid);
  }
  std::sort(pids.begin(), pids.end());
  return pids;
}

}  // namespace

Result<std::vector<uint64_t>> ListRecordedProcesses(const std::string& dir) {
  auto dir_fd = OpenShmDirectory(dir);
  if (!dir_fd) return dir_fd.error();
  Fd owner(*dir_fd);
  auto names = ListNames(owner.get(), dir);
  if (!names) return names.error();
  return ProcessesIn(*names);
}

Result<RecoverSummary> Recover(const RecoverOptions& options) {
  auto opened = OpenShmDirectory(options.dir);
  if (!opened) return opened.error();
  Fd dir_fd(*opened);
  auto names = ListNames(dir_fd.get(), options.dir);
  if (!names) return names.error();
  const std::vector<uint64_t> pids = ProcessesIn(*names);

  RecoverSummary summary;
  if (options.pid) {
    if (std::find(pids.begin(), pids.end(), *options.pid) == pids.end()) {
      return MakeError("{}: no flight recorder files of process {}", options.dir, *options.pid);
    }
    summary.pid = *options.pid;
  } else if (pids.size() == 1) {
    summary.pid = pids[0];
  } else if (pids.empty()) {
    return MakeError("{}: no flight recorder files (rastrace-PID.proc)", options.dir);
  } else {
    return MakeError("{}: files of {} processes ({}): choose one with -p PID", options.dir,
                     pids.size(), fmt::join(pids, ", "));
  }

  // The process file: header events, log path, the last checkpoint. Every field is checked
  // against the file it describes before it is used.
  const std::string proc_name = fmt::format("rastrace-{}.proc", summary.pid);
  const std::string proc_file = options.dir + "/" + proc_name;
  auto proc_mapping = MapForReading(dir_fd.get(), options.dir, proc_name, kShmProcessEventsOffset);
  if (!proc_mapping) return proc_mapping.error();
  const auto* base = static_cast<const char*>(proc_mapping->address());
  const auto& proc = *reinterpret_cast<const ShmProcessHeader*>(base);
  if (auto magic = CheckMagic(proc.magic, kShmProcessMagic, proc_file); !magic) {
    return magic.error();
  }
  if (proc.version != kShmLayoutVersion) {
    return MakeError("{}: offset 0x8: layout version {} (this rastrace reads {})", proc_file,
                     proc.version, kShmLayoutVersion);
  }
  if (proc.pid != summary.pid) {
    return MakeError("{}: offset 0x{:x}: pid {} (expected {}, from the file's name)", proc_file,
                     offsetof(ShmProcessHeader, pid), proc.pid, summary.pid);
  }
  if (proc.header_events_bytes > kMaxHeaderEventsBytes || proc.log_path_bytes > kMaxLogPathBytes ||
      kShmProcessEventsOffset + uint64_t{proc.header_events_bytes} + proc.log_path_bytes >
          proc_mapping->bytes()) {
    return MakeError(
        "{}: offset 0x{:x}: header events ({} bytes) and log path ({} bytes) do not fit the "
        "file ({} bytes)",
        proc_file, offsetof(ShmProcessHeader, header_events_bytes), proc.header_events_bytes,
        proc.log_path_bytes, proc_mapping->bytes());
  }
  const std::span<const uint8_t> header_events =
      WholeHeaderEvents(std::span(reinterpret_cast<const uint8_t*>(base + kShmProcessEventsOffset),
                                  proc.header_events_bytes),
                        proc_file, summary.warnings);
  summary.log_path.assign(base + kShmProcessEventsOffset + proc.header_events_bytes,
                          proc.log_path_bytes);
  summary.completed_normally = proc.complete.load() != 0;
  const uint64_t seq = proc.checkpoint_seq.load(std::memory_order_acquire);
  const uint64_t log_bytes = seq != 0 ? proc.log_bytes[seq % 2] : 0;

  uint64_t prefix_end = 0;  // bytes of the process's log taken, with the magic; 0: none
  if (log_bytes > 4 && summary.log_path != "-") {
    const size_t field = offsetof(ShmProcessHeader, log_bytes) + (seq % 2) * 8;
    auto prefix = CheckLogPrefix(summary.log_path, log_bytes, proc_file, field, summary.warnings);
    if (prefix && prefix->whole_bytes > 4) {
      prefix_end = prefix->whole_bytes;
      summary.log_prefix_bytes = log_bytes;
    } else if (!prefix) {
      summary.warnings.push_back(fmt::format(
          "{}; the recovered log starts with the header and holds only the events still in the "
          "rings",
          prefix.error().message));
    }
  }

  // The rings of this process.
  const std::string ring_prefix = fmt::format("rastrace-{}-", summary.pid);
  std::vector<RingState> rings;
  for (const std::string& name : *names) {
    if (!name.starts_with(ring_prefix) || !name.ends_with(".ring")) continue;
    auto ring = OpenRing(dir_fd.get(), options.dir, name, summary.pid, seq);
    if (!ring) {
      summary.warnings.push_back(ring.error().message + "; this ring is left out");
      continue;
    }
    rings.push_back(std::move(*ring));
  }
  summary.rings = static_cast<uint64_t>(
      std::count_if(rings.begin(), rings.end(), [](const RingState& r) { return !r.ended; }));

  // The output: the log's prefix (or the header), then the rings' events, written as they are
  // merged so that memory stays bounded whatever the files say.
  event::WriterOptions writer_options;
  writer_options.overwrite = options.force;
  auto writer = event::LogWriter::Create(options.output, writer_options);
  if (!writer) return writer.error();
  if (prefix_end != 0) {
    if (auto copied = CopyLogPrefix(summary.log_path, prefix_end, *writer); !copied) {
      return copied.error();
    }
  } else if (auto wrote = writer->WriteEncoded(header_events); !wrote) {
    return wrote.error();
  }
  std::vector<uint8_t> out;
  auto flush = [&](size_t above) -> Result<void> {
    if (out.size() <= above) return Ok();
    auto wrote = writer->WriteEncoded(out);
    out.clear();
    return wrote;
  };

  // Merge by timestamp, as the writer does (an untimestamped event sorts with its thread's last).
  uint64_t newest = 0;
  for (;;) {
    RingState* best = nullptr;
    uint64_t best_ts = 0;
    for (RingState& ring : rings) {
      if (ring.position >= ring.end) continue;
      const uint64_t ts = OrderingTimestamp(ring);
      if (best == nullptr || ts < best_ts) {
        best = &ring;
        best_ts = ts;
      }
    }
    if (best == nullptr) break;
    if (!best->named) {
      AppendThreadName(*best, out);
      best->named = true;
    }
    if (TakeEvent(*best, out, summary.warnings)) {
      ++summary.events_recovered;
      newest = std::max(newest, best->last_timestamp);
    }
    if (auto flushed = flush(kCopyChunkBytes); !flushed) return flushed.error();
  }
  for (const RingState& ring : rings) {
    if (ring.ended) continue;
    const uint64_t lost = ring.header->control.shared.lost.load(std::memory_order_relaxed);
    if (lost > ring.lost_in_log) {
      AppendWords(event::kHookLost, 0, {lost - ring.lost_in_log, ring.header->thread_id},
                  ring.header->thread_id, newest, out);
      summary.events_lost += lost - ring.lost_in_log;
    }
  }
  if (!summary.completed_normally) {
    for (const RingState& ring : rings) {
      if (ring.ended) continue;
      AppendWords(event::kHookUtil, kUtilTraceCut,
                  {summary.pid, ring.header->thread_id, ring.recovered}, ring.header->thread_id,
                  newest, out);
    }
  }
  if (auto flushed = flush(0); !flushed) return flushed.error();
  if (auto closed = writer->Close(); !closed) return closed.error();

  if (options.remove_files) {
    unlinkat(dir_fd.get(), proc_name.c_str(), 0);
    for (const RingState& ring : rings) {
      unlinkat(dir_fd.get(), ring.file.substr(options.dir.size() + 1).c_str(), 0);
    }
  }
  return summary;
}

}  // namespace rastrace::buffer
