// `rastrace record` on a file system that fills up (issue 19 point 5): the log ends with a whole
// event and a 006 event counting every event not written, `rastrace record` says so in one line
// and exits 1, and the events in the log plus the 006 counts are every event the program traced.
#include <fcntl.h>
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "common/small_tmpfs.h"
#include "event/format.h"
#include "event/reader.h"
#include "tests/reliability/crash_protocol.h"

namespace rastrace::reliability {
namespace {

constexpr uint64_t kHooksPerThread = 20000;  // about 1.4 MB of events for a 256 KiB file system

std::string ReadFile(const std::string& path) {
  std::string text;
  if (std::FILE* f = std::fopen(path.c_str(), "r")) {
    for (int c; (c = std::fgetc(f)) != EOF;) text.push_back(static_cast<char>(c));
    std::fclose(f);
  }
  return text;
}

// Runs in the child that sees the small file system at `small`; `outside` is a directory of the
// ordinary /tmp (for the counters and stderr). Returns what is wrong, or nothing.
std::string RecordOntoAFullFileSystem(const std::string& small, const std::string& outside) {
  const std::string log = small + "/log";
  const std::string err = outside + "/err";
  const std::string counters = outside + "/counters";
  const int counters_fd = open(counters.c_str(), O_RDWR | O_CREAT | O_EXCL, 0600);
  if (counters_fd < 0 || ftruncate(counters_fd, sizeof(Counters)) != 0) return "no counters";
  close(counters_fd);
  const std::string rastrace = RASTRACE_BINARY_DIR "/bin/rastrace";
  const std::string writer = RASTRACE_BINARY_DIR "/tests/reliability_crash_writer";
  const std::string count = "count=" + std::to_string(kHooksPerThread);
  const pid_t record = fork();
  if (record == 0) {
    const int fd = open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (fd < 0 || dup2(fd, 2) < 0) _exit(126);
    unsetenv("RASTRACE_LOG_OWNER");
    execl(rastrace.c_str(), rastrace.c_str(), "record", "-o", log.c_str(), "--", writer.c_str(),
          counters.c_str(), count.c_str(), nullptr);
    _exit(127);
  }
  int status = 0;
  if (waitpid(record, &status, 0) != record) return "waitpid";
  const std::string message = ReadFile(err);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 1) {
    return fmt::format("rastrace record: status {:#x}, not exit 1; stderr: {}", status, message);
  }
  auto reader = event::LogReader::Open(log, {.reformat = false});
  if (!reader) return reader.error().message;
  event::Event e;
  uint64_t kept = 0;
  uint64_t lost = 0;
  uint64_t last_lost = 0;
  bool last_is_006 = false;
  for (;;) {
    const event::ReadStatus status = reader->Next(e);
    if (status == event::ReadStatus::kEnd) break;
    if (status == event::ReadStatus::kError) return reader->error().message;
    last_is_006 = e.hook_id == event::kHookLost;
    if (last_is_006) {
      lost += e.words[0];
      last_lost = e.words[0];
    } else if (e.hook_id == 0x0E10 || e.hook_id == 0x0E11) {
      ++kept;
    }
  }
  if (!last_is_006) return "the log does not end with a 006 event";
  if (kept == 0 || last_lost == 0) return fmt::format("kept {}, last 006 {}", kept, last_lost);
  if (kept + lost != 2 * kHooksPerThread) {
    return fmt::format("{} events in the log + {} counted lost != {} traced", kept, lost,
                       2 * kHooksPerThread);
  }
  struct stat st {};
  if (stat(log.c_str(), &st) != 0) return "no log";
  const std::string expected = fmt::format(
      "rastrace record: {}: no space left on device after {} bytes; {} events not written\n", log,
      st.st_size, last_lost);
  if (message != expected) return "stderr: " + message + "expected: " + expected;
  return "";
}

TEST(FullDiskTest, RecordEndsTheLogWithTheCountOfWhatWasNotWrittenAndSaysSo) {
  std::string pattern =
      (std::filesystem::temp_directory_path() / "rastrace-full-disk-XXXXXX").string();
  ASSERT_NE(mkdtemp(pattern.data()), nullptr);
  const std::string outside = pattern;
  const auto result = testing::RunWithSmallTmpfs(256 << 10, [&](const std::string& small) {
    const std::string problem = RecordOntoAFullFileSystem(small, outside);
    if (problem.empty()) return 0;
    std::fprintf(stderr, "%s\n", problem.c_str());
    return 1;
  });
  std::error_code ignored;
  std::filesystem::remove_all(outside, ignored);
  if (result.unavailable) GTEST_SKIP() << *result.unavailable;
  EXPECT_EQ(result.status, 0) << "(the child's stderr says what is wrong)";
}

}  // namespace
}  // namespace rastrace::reliability
