#include "session/raw_reader.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "session/kernel_events.h"
#include "session/trace_line.h"

namespace rastrace::session {

namespace {

// The value for `tid` in a "tid value" table (saved_tgids, saved_cmdlines).
std::string FromTable(const std::string& path, uint32_t tid) {
  std::ifstream in(path);
  std::string line;
  const std::string key = std::to_string(tid) + " ";
  while (std::getline(in, line)) {
    if (line.starts_with(key)) return line.substr(key.size());
  }
  return {};
}

}  // namespace

RawEventDecoder::Task LookUpTask(uint32_t tid, const std::string& tracefs) {
  RawEventDecoder::Task task;
  if (tid == 0) return task;
  std::ifstream status("/proc/" + std::to_string(tid) + "/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.starts_with("Name:\t")) task.comm = line.substr(6);
    if (line.starts_with("Tgid:\t")) {
      task.tgid = static_cast<uint32_t>(ParseNumber(line.substr(6)).value_or(0));
      break;
    }
  }
  if (task.tgid == 0) {
    task.tgid =
        static_cast<uint32_t>(ParseNumber(FromTable(tracefs + "/saved_tgids", tid)).value_or(0));
    task.comm = FromTable(tracefs + "/saved_cmdlines", tid);
  }
  return task;
}

RawPipeReader::RawPipeReader(std::string tracefs, PageLayout layout, SyscallTable& syscalls)
    : tracefs_(std::move(tracefs)),
      layout_(layout),
      decoder_([this](uint32_t tid) { return LookupTask(tid); }, &syscalls) {}

RawPipeReader::~RawPipeReader() {
  for (const pollfd& pipe : pipes_) close(pipe.fd);
  for (int fd : splice_pipe_) {
    if (fd >= 0) close(fd);
  }
}

RawEventDecoder::Task RawPipeReader::LookupTask(uint32_t tid) {
  return LookUpTask(tid, tracefs_);
}

Result<std::unique_ptr<RawPipeReader>> RawPipeReader::Open(const std::string& tracefs,
                                                           const std::string& instance,
                                                           std::span<const std::string> tracepoints,
                                                           SyscallTable& syscalls) {
  const std::string header_path = tracefs + "/events/header_page";
  auto header = ReadSmallText(header_path);
  if (!header) return header.error();
  auto layout = ParseHeaderPage(*header, header_path);
  if (!layout) return layout.error();
  std::unique_ptr<RawPipeReader> reader(new RawPipeReader(tracefs, *layout, syscalls));
  for (const std::string& tracepoint : tracepoints) {
    auto format = ReadEventFormat(tracefs + "/events/" + tracepoint + "/format");
    if (!format) return format.error();
    if (auto added = reader->decoder_.AddFormat(*format); !added) return added.error();
  }
  for (uint32_t cpu = 0;; ++cpu) {
    const std::string dir = instance + "/per_cpu/cpu" + std::to_string(cpu);
    if (access(dir.c_str(), F_OK) != 0) break;
    const int fd = open((dir + "/trace_pipe_raw").c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) return MakeError("{}/trace_pipe_raw: {}", dir, std::strerror(errno));
    reader->pipes_.push_back({fd, POLLIN, 0});
    reader->cpus_.push_back(cpu);
  }
  if (reader->pipes_.empty()) return MakeError("{}: no per_cpu buffers", instance);
  reader->pages_per_round_ = std::clamp<size_t>(
      kRoundBytes / (reader->pipes_.size() * reader->layout_.page_bytes()), 4, 256);
  // One round's pages of a cpu fit in the pipe (root may pass pipe-max-size); a smaller pipe
  // only takes more splices.
  if (pipe2(reader->splice_pipe_, O_CLOEXEC | O_NONBLOCK) == 0) {
    const size_t wanted = reader->pages_per_round_ * reader->layout_.page_bytes();
    const int size = fcntl(reader->splice_pipe_[1], F_SETPIPE_SZ, static_cast<int>(wanted));
    reader->splice_pipe_bytes_ =
        static_cast<size_t>(size > 0 ? size : fcntl(reader->splice_pipe_[1], F_GETPIPE_SZ));
    if (reader->splice_pipe_bytes_ < reader->layout_.page_bytes()) {
      close(reader->splice_pipe_[0]);
      close(reader->splice_pipe_[1]);
      reader->splice_pipe_[0] = reader->splice_pipe_[1] = -1;
    }
  }
  return reader;
}

size_t RawPipeReader::ReadCpu(size_t i, uint8_t* dest, size_t max_bytes, bool& drained) {
  const int fd = pipes_[i].fd;
  const size_t page_bytes = layout_.page_bytes();
  size_t got = 0;
  int page_reads = 0;
  drained = false;
  while (got + page_bytes <= max_bytes) {
    // Full pages, many per call: the kernel moves them into the pipe without copying, one read
    // copies them out. Splice gives only pages the kernel has finished writing.
    if (splice_pipe_[0] >= 0) {
      const size_t want = std::min(max_bytes - got, splice_pipe_bytes_) / page_bytes * page_bytes;
      ++read_calls_;
      const ssize_t moved =
          splice(fd, nullptr, splice_pipe_[1], nullptr, want, SPLICE_F_MOVE | SPLICE_F_NONBLOCK);
      if (moved < 0 && errno == EINVAL) {
        // This file cannot splice: read pages one at a time from now on.
        close(splice_pipe_[0]);
        close(splice_pipe_[1]);
        splice_pipe_[0] = splice_pipe_[1] = -1;
      }
      size_t left = moved > 0 ? static_cast<size_t>(moved) : 0;
      while (left != 0) {
        ++read_calls_;
        const ssize_t n = read(splice_pipe_[0], dest + got, left);
        if (n <= 0) break;  // cannot happen: the bytes are in the pipe
        got += static_cast<size_t>(n);
        left -= static_cast<size_t>(n);
      }
      if (moved > 0 && static_cast<size_t>(moved) == want) continue;  // there may be more
    }
    // The page being written, which read() gives as far as it is committed (or, where splice
    // cannot be used, every page, one per call).
    ++read_calls_;
    const ssize_t n = read(fd, dest + got, page_bytes);
    if (n <= 0) {
      drained = true;
      break;
    }
    got += std::min(static_cast<size_t>(n), page_bytes);
    if (static_cast<size_t>(n) < page_bytes) break;  // a short read: not a tracefs page
    // A second page read while splicing means the kernel keeps writing: the rest waits for the
    // next round (this cpu is then complete up to its last event read), so that a busy cpu costs
    // a few calls per round, not one per page.
    if (splice_pipe_[0] >= 0 && ++page_reads == 2) break;
  }
  return got;
}

void RawPipeReader::Wait(int timeout_ms) {
  poll(pipes_.data(), pipes_.size(), timeout_ms);
}

void RawPipeReader::SetClock(std::function<uint64_t()> now, uint64_t slack) {
  now_ = std::move(now);
  slack_ = slack;
}

bool RawPipeReader::ReadAvailable(const std::function<void(const KernelEvent&)>& consume) {
  const size_t page_bytes = layout_.page_bytes();
  const size_t per_cpu = pages_per_round_ * page_bytes;
  pages_.resize(pipes_.size() * per_cpu);
  bool any = false;
  // Every cpu has given all its events up to here (the minimum over the cpus).
  uint64_t complete = UINT64_MAX;
  for (size_t i = 0; i < pipes_.size(); ++i) {
    // Taken before the read: what the cpu committed before this moment is in what it gives.
    const uint64_t started = now_ ? now_() : UINT64_MAX;
    bool drained = false;
    uint8_t* dest = pages_.data() + i * per_cpu;
    const size_t got = ReadCpu(i, dest, per_cpu, drained);
    scratch_.clear();
    for (size_t at = 0; at < got; at += page_bytes) {
      any = true;
      if (!DecodePage(std::span<const uint8_t>(dest + at, std::min(page_bytes, got - at)), layout_,
                      scratch_)) {
        ++bad_pages_;  // the records decoded before the damage are kept
      }
    }
    for (const RawRecord& record : scratch_) decoder_.Prime(record);
    order_.Add(cpus_[i], scratch_);
    // A cpu left at its page limit is complete only up to its last event read.
    const uint64_t bound = drained ? (started > slack_ ? started - slack_ : 0)
                                   : (scratch_.empty() ? 0 : scratch_.back().timestamp);
    complete = std::min(complete, bound);
  }
  KernelEvent event;
  order_.Release(complete, [&](const RawRecord& record, uint32_t cpu) {
    if (decoder_.Decode(record, cpu, event)) consume(event);
  });
  return any;
}

void RawPipeReader::Flush(const std::function<void(const KernelEvent&)>& consume) {
  KernelEvent event;
  order_.ReleaseAll([&](const RawRecord& record, uint32_t cpu) {
    if (decoder_.Decode(record, cpu, event)) consume(event);
  });
}

}  // namespace rastrace::session
