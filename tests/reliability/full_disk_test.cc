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
// About 7 MB for a 4 MiB ext4 (about 2.5 MiB of room after its journal and tables).
constexpr uint64_t kHooksPerThreadOnExt4 = 100000;

std::string ReadFile(const std::string& path) {
  std::string text;
  if (std::FILE* f = std::fopen(path.c_str(), "r")) {
    for (int c; (c = std::fgetc(f)) != EOF;) text.push_back(static_cast<char>(c));
    std::fclose(f);
  }
  return text;
}

// Runs `rastrace record [option] -o LOG -- reliability_crash_writer OUTSIDE/counters ARG` with
// its stderr in `message`; `outside` is a directory of the ordinary /tmp. Returns the wait
// status, or -1 when the program could not be started.
int RecordTheCrashWriter(const std::string& option, const std::string& log,
                         const std::string& outside, const std::string& arg, std::string& message) {
  const std::string err = outside + "/err";
  const std::string counters = outside + "/counters";
  const int counters_fd = open(counters.c_str(), O_RDWR | O_CREAT | O_TRUNC, 0600);
  if (counters_fd < 0 || ftruncate(counters_fd, sizeof(Counters)) != 0) return -1;
  close(counters_fd);
  const std::string rastrace = RASTRACE_BINARY_DIR "/bin/rastrace";
  const std::string writer = RASTRACE_BINARY_DIR "/tests/reliability_crash_writer";
  std::vector<const char*> argv = {rastrace.c_str(), "record"};
  if (!option.empty()) argv.push_back(option.c_str());
  for (const char* word :
       {"-o", log.c_str(), "--", writer.c_str(), counters.c_str(), arg.c_str()}) {
    argv.push_back(word);
  }
  argv.push_back(nullptr);
  const pid_t record = fork();
  if (record == 0) {
    const int fd = open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (fd < 0 || dup2(fd, 2) < 0) _exit(126);
    unsetenv("RASTRACE_LOG_OWNER");
    execv(rastrace.c_str(), const_cast<char* const*>(argv.data()));
    _exit(127);
  }
  int status = 0;
  if (record < 0 || waitpid(record, &status, 0) != record) return -1;
  message = ReadFile(err);
  return status;
}

// Runs in the child that sees the small file system at `small`; `outside` is a directory of the
// ordinary /tmp (for the counters and stderr); each of the program's two threads records
// `hooks_per_thread` hooks. Returns what is wrong, or nothing.
std::string RecordOntoAFullFileSystem(const std::string& small, const std::string& outside,
                                      uint64_t hooks_per_thread) {
  const std::string log = small + "/log";
  std::string message;
  const int status =
      RecordTheCrashWriter("", log, outside, "count=" + std::to_string(hooks_per_thread), message);
  if (status == -1) return "cannot run rastrace record";
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
  if (kept + lost != 2 * hooks_per_thread) {
    return fmt::format("{} events in the log + {} counted lost != {} traced", kept, lost,
                       2 * hooks_per_thread);
  }
  struct stat st {};
  if (stat(log.c_str(), &st) != 0) return "no log";
  const std::string expected = fmt::format(
      "rastrace record: {}: no space left on device after {} bytes; {} events not written\n", log,
      st.st_size, last_lost);
  if (message != expected) return "stderr: " + message + "expected: " + expected;
  // Nothing else on the file system: no partial rebuild (`LOG.rebuilding-PID`) beside the log.
  for (const auto& entry : std::filesystem::directory_iterator(small)) {
    const std::string name = entry.path().filename().string();
    if (name != "log" && name != "lost+found") return "left on the file system: " + name;
  }
  return "";
}

// Runs `record` with a directory of the ordinary /tmp for what must not go to the small file
// system, and fails the test with the child's complaint.
template <typename Run>
void RunBesideADirectory(Run run) {
  std::string pattern =
      (std::filesystem::temp_directory_path() / "rastrace-full-disk-XXXXXX").string();
  ASSERT_NE(mkdtemp(pattern.data()), nullptr);
  const std::string outside = pattern;
  const auto result = run(outside);
  std::error_code ignored;
  std::filesystem::remove_all(outside, ignored);
  if (result.unavailable) GTEST_SKIP() << *result.unavailable;
  EXPECT_EQ(result.status, 0) << "(the child's stderr says what is wrong)";
}

int Report(const std::string& problem) {
  if (problem.empty()) return 0;
  std::fprintf(stderr, "%s\n", problem.c_str());
  return 1;
}

TEST(FullDiskTest, RecordEndsTheLogWithTheCountOfWhatWasNotWrittenAndSaysSo) {
  RunBesideADirectory([](const std::string& outside) {
    return testing::RunWithSmallTmpfs(256 << 10, [&](const std::string& small) {
      return Report(RecordOntoAFullFileSystem(small, outside, kHooksPerThread));
    });
  });
}

// The same on a disk file system, where `rastrace record` writes its log with O_DIRECT from
// threads of its own (event/direct_file.h): the write that fails is one of theirs, and the log
// is still cut at a whole event with the 006 count of every event not written, including those
// of the chunks in flight; no rebuild is tried on the full disk, and the one message is said.
TEST(FullDiskTest, RecordWithODirectOnAFullExt4EndsTheLogWithTheCountAndSaysSo) {
  RunBesideADirectory([](const std::string& outside) {
    return testing::RunWithSmallExt4(4 << 20, [&](const std::string& small) {
      return Report(RecordOntoAFullFileSystem(small, outside, kHooksPerThreadOnExt4));
    });
  });
}

// A program that ends without completing its log (here `_exit` in circular mode: every event is
// still in its buffers) on a file system without room for the rebuilt log: the partial rebuild is
// removed (no `LOG.rebuilding-PID` is left), the buffers stay where the message says, and
// `rastrace record` exits 1.
std::string RebuildOntoAFullFileSystem(const std::string& small, const std::string& outside) {
  const std::string log = small + "/log";
  std::string message;
  const int status = RecordTheCrashWriter("-l", log, outside, "_exit", message);
  if (status == -1) return "cannot run rastrace record";
  // The buffers' directory, named in the message: removed here whatever else is wrong.
  const std::string stay = "its buffers stay in ";
  const size_t at = message.find(stay);
  std::string buffers;
  if (at != std::string::npos) {
    buffers = message.substr(at + stay.size());
    buffers = buffers.substr(0, buffers.find_first_of(" \n"));
  }
  const bool kept = !buffers.empty() && !std::filesystem::is_empty(buffers);
  std::error_code ignored;
  if (!buffers.empty()) std::filesystem::remove_all(buffers, ignored);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 1) {
    return fmt::format("rastrace record: status {:#x}, not exit 1; stderr: {}", status, message);
  }
  if (message.find("could not be rebuilt") == std::string::npos ||
      message.find("the partial rebuild was removed") == std::string::npos || !kept) {
    return "stderr does not say the rebuild failed and where the buffers stay: " + message;
  }
  for (const auto& entry : std::filesystem::directory_iterator(small)) {
    const std::string name = entry.path().filename().string();
    if (name != "log") return "left on the file system: " + name;
  }
  return "";
}

TEST(FullDiskTest, RecordRemovesARebuildThatDidNotFitAndKeepsTheBuffers) {
  RunBesideADirectory([](const std::string& outside) {
    return testing::RunWithSmallTmpfs(256 << 10, [&](const std::string& small) {
      return Report(RebuildOntoAFullFileSystem(small, outside));
    });
  });
}

}  // namespace
}  // namespace rastrace::reliability
