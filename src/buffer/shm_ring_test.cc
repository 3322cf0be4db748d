// The flight recorder's files and recovery without a recorder: the test plays the hooks (the
// producer) and the writer thread (drain, log, checkpoint), stopping where a SIGKILL could.
#include "buffer/shm_ring.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstddef>
#include <cstring>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "buffer/recover.h"
#include "common/small_tmpfs.h"
#include "event/encode.h"
#include "event/reader.h"
#include "event/writer.h"

namespace rastrace::buffer {
namespace {

namespace fs = std::filesystem;
constexpr uint64_t kTid = 777;
constexpr uint32_t kHook = 0x0E300000;

class ShmRingTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (fs::temp_directory_path() / "rastrace-shm-XXXXXX").string();
    ASSERT_NE(mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
    shm_ = dir_ + "/shm";
    ASSERT_EQ(mkdir(shm_.c_str(), 0700), 0);
    event::EventFields on;
    on.hook_id = event::kHookTraceOn;
    on.word_count = 1;
    on.timestamped = true;
    on.thread_id = kTid;
    ASSERT_TRUE(event::Encode(on, event::Layout::k64, NativeByteOrder(), header_));
  }
  void TearDown() override { fs::remove_all(dir_); }

  static void Write(RingBuffer& ring, uint64_t seq) {
    uint64_t at = 0;
    ASSERT_TRUE(ring.Reserve(4, &at));
    ring.Put(at, MakeHookword(event::kFlagTimestamp, 8, kHook));
    ring.Put(at + 1, seq);
    ring.Put(at + 2, kTid);
    ring.Put(at + 3, 1000 + seq);
    ring.Publish(at + 4);
  }
  // The writer's drain: every published event to the log, then Release.
  static void Drain(RingBuffer& ring, event::LogWriter& log) {
    const uint64_t end = ring.head();
    std::vector<uint8_t> bytes((end - ring.tail()) * 8);
    ring.CopyOut(ring.tail(), end - ring.tail(), bytes.data());
    ASSERT_TRUE(log.WriteEncoded(bytes));
    ASSERT_TRUE(log.Flush());
    ring.Release(end);
  }
  // The writer's rounds until the ring has nothing published left (a round stops at a move into
  // a grown region until everything before it is read).
  static void DrainAll(RingBuffer& ring, event::LogWriter& log) {
    for (int round = 0; round < 8 && ring.head() != ring.tail(); ++round) Drain(ring, log);
    ASSERT_EQ(ring.head(), ring.tail());
  }
  // What a recorder has when its process records: the process file, one 4 KiB ring file and the
  // ring in it, and the log holding the header.
  struct Recording {
    std::shared_ptr<ShmProcess> process;
    std::unique_ptr<ShmRing> file;
    std::optional<RingBuffer> ring;
    std::optional<event::LogWriter> log;
  };
  void Start(Recording& r) {
    auto process = ShmProcess::Create(shm_, Mode::kAlternate, header_, dir_ + "/log");
    ASSERT_TRUE(process) << process.error().message;
    r.process = *process;
    auto file = r.process->CreateRing(4096, Mode::kAlternate, kTid, "main");
    ASSERT_TRUE(file) << file.error().message;
    r.file = std::move(*file);
    r.ring.emplace(r.file->placement(/*hold=*/true), Mode::kAlternate, kTid);
    auto log = event::LogWriter::Create(dir_ + "/log");
    ASSERT_TRUE(log) << log.error().message;
    r.log.emplace(std::move(*log));
    ASSERT_TRUE(r.log->WriteEncoded(header_));
    ASSERT_TRUE(r.log->Flush());
  }

  // The sequence numbers of the recovered log, which must read to its end.
  std::vector<uint64_t> Recovered(uint64_t* cut_events = nullptr) {
    RecoverOptions options;
    options.dir = shm_;
    options.output = dir_ + "/recovered";
    options.force = true;
    auto summary = Recover(options);
    EXPECT_TRUE(summary) << (summary ? "" : summary.error().message);
    std::vector<uint64_t> seqs;
    auto reader = event::LogReader::Open(options.output, {.reformat = false});
    EXPECT_TRUE(reader);
    if (!reader) return seqs;
    event::Event e;
    event::ReadStatus status;
    while ((status = reader->Next(e)) == event::ReadStatus::kEvent) {
      if (e.hook_id == (kHook >> 16)) seqs.push_back(e.words[0]);
      if (cut_events && e.hook_id == event::kHookUtil && e.subhook == kUtilTraceCut) ++*cut_events;
    }
    EXPECT_EQ(status, event::ReadStatus::kEnd) << reader->error().message;
    return seqs;
  }

  std::string dir_, shm_;
  std::vector<uint8_t> header_;
};

TEST_F(ShmRingTest, FilesAreOwnerOnlyAndADirectorySymlinkIsRefused) {
  auto process = ShmProcess::Create(shm_, Mode::kAlternate, header_, dir_ + "/log");
  ASSERT_TRUE(process) << process.error().message;
  auto ring = (*process)->CreateRing(4096, Mode::kAlternate, kTid, "main");
  ASSERT_TRUE(ring) << ring.error().message;
  for (const auto& entry : fs::directory_iterator(shm_)) {
    struct stat st {};
    ASSERT_EQ(stat(entry.path().c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 0777, 0600u) << entry.path();
  }
  fs::create_directory_symlink(shm_, dir_ + "/link");
  auto refused = ShmProcess::Create(dir_ + "/link", Mode::kAlternate, header_, dir_ + "/log");
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.error().message.find("symlink"), std::string::npos) << refused.error().message;
}

TEST_F(ShmRingTest, CrashBeforeTheCheckpointIsPublishedRecoversEachEventOnce) {
  Recording r;
  ASSERT_NO_FATAL_FAILURE(Start(r));
  RingBuffer& ring = *r.ring;
  event::LogWriter& log = *r.log;
  auto& process = r.process;
  auto& file = r.file;

  for (uint64_t seq = 1; seq <= 3; ++seq) Write(ring, seq);
  EXPECT_EQ(Recovered(), (std::vector<uint64_t>{1, 2, 3}));  // before any checkpoint

  Drain(ring, log);
  file->WriteCheckpoint({1, ring.tail(), 0, 0});
  process->PublishCheckpoint(1, log.bytes_written());
  ring.HandBack();
  for (uint64_t seq = 4; seq <= 5; ++seq) Write(ring, seq);
  EXPECT_EQ(Recovered(), (std::vector<uint64_t>{1, 2, 3, 4, 5}));

  // Drained and written, the ring's slot written, killed before the publication: the log's extra
  // bytes are ignored and the ring (which still holds the space) supplies 4 and 5.
  Drain(ring, log);
  file->WriteCheckpoint({2, ring.tail(), 0, 0});
  Write(ring, 6);
  EXPECT_EQ(Recovered(), (std::vector<uint64_t>{1, 2, 3, 4, 5, 6}));

  process->PublishCheckpoint(2, log.bytes_written());
  ring.HandBack();
  uint64_t cuts = 0;
  EXPECT_EQ(Recovered(&cuts), (std::vector<uint64_t>{1, 2, 3, 4, 5, 6}));
  EXPECT_EQ(cuts, 1u);
}

TEST_F(ShmRingTest, HeldSpaceIsNotReusedBeforeHandBack) {
  auto process = ShmProcess::Create(shm_, Mode::kAlternate, header_, dir_ + "/log");
  ASSERT_TRUE(process);
  auto file = (*process)->CreateRing(4096, Mode::kAlternate, kTid, "main");
  ASSERT_TRUE(file);
  RingBuffer ring((*file)->placement(/*hold=*/true), Mode::kAlternate, kTid);
  const uint64_t capacity_events = 4096 / 32;
  for (uint64_t seq = 1; seq <= capacity_events; ++seq) Write(ring, seq);
  ring.Release(ring.head());
  uint64_t at = 0;
  EXPECT_FALSE(ring.Reserve(4, &at));  // released, not handed back: still full
  EXPECT_EQ(ring.lost(), 1u);
  ring.HandBack();
  EXPECT_TRUE(ring.Reserve(4, &at));
}

TEST_F(ShmRingTest, DamagedRingFileIsLeftOutWithItsOffset) {
  auto process = ShmProcess::Create(shm_, Mode::kAlternate, header_, dir_ + "/log");
  ASSERT_TRUE(process);
  auto file = (*process)->CreateRing(4096, Mode::kAlternate, kTid, "main");
  ASSERT_TRUE(file);
  const std::string ring_path = shm_ + "/rastrace-" + std::to_string(getpid()) + "-1.ring";
  fs::resize_file(ring_path, 100);
  RecoverOptions options;
  options.dir = shm_;
  options.output = dir_ + "/recovered";
  auto summary = Recover(options);
  ASSERT_TRUE(summary) << summary.error().message;
  ASSERT_EQ(summary->warnings.size(), 1u);
  EXPECT_EQ(summary->warnings[0], ring_path +
                                      ": offset 0x0: file too short (100 bytes, need 4096); this "
                                      "ring is left out");
  // The output exists now: a second recovery refuses to replace it.
  auto again = Recover(options);
  ASSERT_FALSE(again);
  EXPECT_NE(again.error().message.find("refusing to overwrite"), std::string::npos)
      << again.error().message;
}

// A checkpoint whose log size is larger than the log (damage, or a log cut by someone else): the
// field is named with its file and offset, nothing is allocated for it, and the log is rebuilt
// from the header and the rings.
TEST_F(ShmRingTest, ACheckpointLargerThanTheLogIsReportedWithItsOffset) {
  Recording r;
  ASSERT_NO_FATAL_FAILURE(Start(r));
  for (uint64_t seq = 1; seq <= 3; ++seq) Write(*r.ring, seq);
  r.process->PublishCheckpoint(1, uint64_t{1} << 62);  // 4 EiB: no log is that large

  RecoverOptions options;
  options.dir = shm_;
  options.output = dir_ + "/recovered";
  auto summary = Recover(options);
  ASSERT_TRUE(summary) << summary.error().message;
  const std::string proc = shm_ + "/rastrace-" + std::to_string(getpid()) + ".proc";
  ASSERT_EQ(summary->warnings.size(), 1u);
  EXPECT_EQ(summary->warnings[0],
            proc +
                ": offset 0x28: the checkpoint says the log has 4611686018427387904 bytes, but " +
                dir_ + "/log has " + std::to_string(fs::file_size(dir_ + "/log")) +
                "; the recovered log starts with the header and holds only the events still in "
                "the rings");
  EXPECT_EQ(Recovered(), (std::vector<uint64_t>{1, 2, 3}));
}

// Fields that cannot be true of the files they describe are errors that name the field.
TEST_F(ShmRingTest, ProcessFieldsAreCheckedAgainstTheFile) {
  auto process = ShmProcess::Create(shm_, Mode::kAlternate, header_, dir_ + "/log");
  ASSERT_TRUE(process);
  const std::string proc = shm_ + "/rastrace-" + std::to_string(getpid()) + ".proc";
  auto poke = [&](size_t offset, const auto& value) {
    const int fd = open(proc.c_str(), O_WRONLY);
    ASSERT_GE(fd, 0);
    ASSERT_EQ(pwrite(fd, &value, sizeof value, static_cast<off_t>(offset)),
              static_cast<ssize_t>(sizeof value));
    close(fd);
  };
  RecoverOptions options;
  options.dir = shm_;
  options.output = dir_ + "/recovered";
  options.force = true;

  poke(offsetof(ShmProcessHeader, header_events_bytes), uint32_t{0xFFFFFFF0});
  auto summary = Recover(options);
  ASSERT_FALSE(summary);
  EXPECT_EQ(summary.error().message,
            proc + ": offset 0x34: header events (4294967280 bytes) and log path (" +
                std::to_string(dir_.size() + 4) + " bytes) do not fit the file (4096 bytes)");

  poke(offsetof(ShmProcessHeader, header_events_bytes), static_cast<uint32_t>(header_.size()));
  poke(offsetof(ShmProcessHeader, pid), uint64_t{1});
  summary = Recover(options);
  ASSERT_FALSE(summary);
  EXPECT_EQ(summary.error().message, proc + ": offset 0x10: pid 1 (expected " +
                                         std::to_string(getpid()) + ", from the file's name)");
}

// A file system with less room than a ring (a 2 MiB tmpfs): creating the ring fails with a message
// (the recorder then records in memory only); before, the size was only set, and the first store
// into a page the file system could not supply raised SIGBUS and killed the process.
TEST_F(ShmRingTest, ARingThatDoesNotFitTheFileSystemIsRefusedAtCreation) {
  const auto result = testing::RunWithSmallTmpfs(2 << 20, [this](const std::string& small) {
    auto process = ShmProcess::Create(small, Mode::kAlternate, header_, dir_ + "/log");
    if (!process) return 10;
    auto fits = (*process)->CreateRing(1 << 20, Mode::kAlternate, kTid, "main");
    if (!fits) return 11;
    auto too_big = (*process)->CreateRing(4 << 20, Mode::kAlternate, kTid + 1, "second");
    if (too_big) return 12;
    if (too_big.error().message.find("cannot reserve 4198400 bytes: No space left on device") ==
        std::string::npos) {
      return 13;
    }
    // The refused file is gone; the one that fits is whole and usable.
    if (access((small + "/rastrace-" + std::to_string(getpid()) + "-2.ring").c_str(), F_OK) == 0) {
      return 14;
    }
    RingBuffer ring((*fits)->placement(/*hold=*/false), Mode::kAlternate, kTid);
    for (uint64_t seq = 1; seq <= (1 << 20) / 32; ++seq) Write(ring, seq);
    return 0;
  });
  if (result.unavailable) GTEST_SKIP() << *result.unavailable;
  ASSERT_TRUE(WIFEXITED(result.status)) << "killed by signal " << WTERMSIG(result.status);
  EXPECT_EQ(WEXITSTATUS(result.status), 0);
}

std::vector<uint64_t> Sequence(uint64_t first, uint64_t last) {
  std::vector<uint64_t> seqs;
  for (uint64_t seq = first; seq <= last; ++seq) seqs.push_back(seq);
  return seqs;
}

// 512-byte blocks the file holds (tmpfs and ext4 free a punched range's blocks).
uint64_t AllocatedBytes(const std::string& path) {
  struct stat st {};
  EXPECT_EQ(stat(path.c_str(), &st), 0);
  return static_cast<uint64_t>(st.st_blocks) * 512;
}

// A ring in a file grows like a ring in memory: into a region the writer offered, then into one
// the producer maps itself, each appended to the ring's file and entered in its table. A process
// killed at any point after that is recovered whole: the log up to the checkpoint, then the events
// still in the regions, across the moves. A region the writer left and handed back is punched out
// of the file. Without growth (the file's ring keeping its 4 KiB) events 229-400 would be lost.
TEST_F(ShmRingTest, AGrownRingIsRecoveredWholeAcrossItsRegions) {
  Recording r;
  ASSERT_NO_FATAL_FAILURE(Start(r));
  RingBuffer& ring = *r.ring;
  ring.set_growth_limit(16384);  // the producer may map the next region itself
  const std::string ring_path = shm_ + "/rastrace-" + std::to_string(getpid()) + "-1.ring";

  // 4 KiB: 128 events of 32 bytes. 1-100 reach the log and are handed back.
  for (uint64_t seq = 1; seq <= 100; ++seq) Write(ring, seq);
  ASSERT_NO_FATAL_FAILURE(DrainAll(ring, *r.log));
  r.file->WriteCheckpoint({1, ring.tail(), 0, 0});
  r.process->PublishCheckpoint(1, r.log->bytes_written());
  ring.HandBack();
  // 101-228 fill the first region; the writer offers 8 KiB, 229 moves there; 357 finds it full
  // too (200 events unread) and the producer maps 16 KiB itself.
  for (uint64_t seq = 101; seq <= 228; ++seq) Write(ring, seq);
  ASSERT_TRUE(ring.OfferGrowth(16384));
  for (uint64_t seq = 229; seq <= 400; ++seq) Write(ring, seq);
  EXPECT_EQ(ring.lost(), 0u);
  EXPECT_EQ(fs::file_size(ring_path), kShmPage + 4096 + 8192 + 16384);
  uint64_t cuts = 0;
  EXPECT_EQ(Recovered(&cuts), Sequence(1, 400));  // killed here: three regions
  EXPECT_EQ(cuts, 1u);

  // Drained (the writer follows both moves), killed before the checkpoint is published: the log
  // has 1-400 beyond the checkpoint's size, and the regions still hold 101-400.
  ASSERT_NO_FATAL_FAILURE(DrainAll(ring, *r.log));
  EXPECT_EQ(ring.growths(), 2u);
  r.file->WriteCheckpoint({2, ring.tail(), 0, 0});
  EXPECT_EQ(Recovered(), Sequence(1, 400));

  // Published and handed back: the first two regions go back to the file system.
  r.process->PublishCheckpoint(2, r.log->bytes_written());
  const uint64_t before = AllocatedBytes(ring_path);
  ring.HandBack();
  EXPECT_LE(AllocatedBytes(ring_path), before - 4096 - 8192);
  for (uint64_t seq = 401; seq <= 450; ++seq) Write(ring, seq);
  EXPECT_EQ(Recovered(), Sequence(1, 450));
}

// A region the writer began is reserved in the file (by the growth preparer, a step at a time)
// before it is offered: until then the file's size leaves it out, and a process killed while it
// is being prepared, or offered and not taken, is recovered from the regions it had.
TEST_F(ShmRingTest, ARegionBeingPreparedIsReservedBeforeItIsOfferedAndSkippedByARecovery) {
  Recording r;
  ASSERT_NO_FATAL_FAILURE(Start(r));
  RingBuffer& ring = *r.ring;
  const std::string ring_path = shm_ + "/rastrace-" + std::to_string(getpid()) + "-1.ring";
  for (uint64_t seq = 1; seq <= 128; ++seq) Write(ring, seq);  // the 4 KiB are full
  const size_t entry = ring.BeginGrowth(16384);
  ASSERT_NE(entry, RingBuffer::kNoEntry);
  EXPECT_EQ(fs::file_size(ring_path), kShmPage + 4096);  // mapped, not reserved
  EXPECT_EQ(Recovered(), Sequence(1, 128));              // killed while being prepared
  ring.PrepareGrowth(entry);
  EXPECT_EQ(fs::file_size(ring_path), kShmPage + 4096 + 8192);
  EXPECT_GE(AllocatedBytes(ring_path), kShmPage + 4096 + 8192);
  EXPECT_EQ(Recovered(), Sequence(1, 128));  // offered, not taken
  for (uint64_t seq = 129; seq <= 200; ++seq) Write(ring, seq);
  EXPECT_EQ(ring.lost(), 0u);
  EXPECT_EQ(Recovered(), Sequence(1, 200));
}

// A damaged region table: each field that cannot be true of the file is named with the file and
// its offset, and that ring is left out; nothing is read outside the file.
TEST_F(ShmRingTest, ADamagedRegionTableIsReportedWithItsOffset) {
  Recording r;
  ASSERT_NO_FATAL_FAILURE(Start(r));
  RingBuffer& ring = *r.ring;
  ring.set_growth_limit(16384);
  for (uint64_t seq = 1; seq <= 300; ++seq) Write(ring, seq);  // 4 KiB, then 8 KiB, then 16 KiB
  ASSERT_EQ(Recovered(), Sequence(1, 300));
  const std::string ring_path = shm_ + "/rastrace-" + std::to_string(getpid()) + "-1.ring";
  const uint64_t file_bytes = kShmPage + 4096 + 8192 + 16384;
  ASSERT_EQ(fs::file_size(ring_path), file_bytes);

  auto poke = [&](size_t offset, uint64_t value) {
    const int fd = open(ring_path.c_str(), O_WRONLY);
    ASSERT_GE(fd, 0);
    ASSERT_EQ(pwrite(fd, &value, sizeof value, static_cast<off_t>(offset)), 8);
    close(fd);
  };
  auto warning = [&]() -> std::string {
    RecoverOptions options;
    options.dir = shm_;
    options.output = dir_ + "/recovered";
    options.force = true;
    auto summary = Recover(options);
    EXPECT_TRUE(summary) << summary.error().message;
    if (!summary || summary->warnings.size() != 1) return "(not one warning)";
    return summary->warnings[0];
  };
  const auto entry = [](size_t i) {
    return offsetof(ShmRingHeader, regions) + i * sizeof(ShmRegion);
  };
  const auto hex = [](size_t offset) { return fmt::format("0x{:x}", offset); };

  // A region beyond the end of the file.
  poke(entry(2) + offsetof(ShmRegion, offset), uint64_t{1} << 40);
  EXPECT_EQ(warning(), ring_path + ": offset " + hex(entry(2)) +
                           ": region 2 of 2048 words at file offset 0x10000000000 does not fit "
                           "the file's " +
                           std::to_string(file_bytes) + " bytes; this ring is left out");
  poke(entry(2) + offsetof(ShmRegion, offset), kShmPage + 4096 + 8192);

  // A region that starts before the one it follows.
  poke(entry(2) + offsetof(ShmRegion, start), 4);
  EXPECT_EQ(warning(), ring_path + ": offset " + hex(entry(2) + offsetof(ShmRegion, start)) +
                           ": region 2 starts at position 4, not after region 1 (512); this ring "
                           "is left out");
  poke(entry(2) + offsetof(ShmRegion, start), 0);  // 0 comes before region 1's start as well
  EXPECT_NE(warning().find("region 2 starts at position 0, not after region 1"), std::string::npos);
  poke(entry(2) + offsetof(ShmRegion, start), uint64_t{1} << 50);
  EXPECT_NE(warning().find("past the committed position 1200"), std::string::npos);
  poke(entry(2) + offsetof(ShmRegion, start), 256 * 4);  // as it was: 256 events before it
  ASSERT_EQ(Recovered(), Sequence(1, 300));

  // More regions than a table holds.
  poke(offsetof(ShmRingHeader, region_count), 1000);
  EXPECT_EQ(warning(), ring_path + ": offset " + hex(offsetof(ShmRingHeader, region_count)) +
                           ": 1000 regions (a ring has 1 to 24); this ring is left out");
  poke(offsetof(ShmRingHeader, region_count), 3);

  // The file cut inside its last region (a disk that lost its tail).
  fs::resize_file(ring_path, file_bytes - 4096);
  EXPECT_EQ(warning(),
            ring_path + ": offset " + hex(entry(2)) + ": region 2 of 2048 words at file offset 0x" +
                fmt::format("{:x}", kShmPage + 4096 + 8192) + " does not fit the file's " +
                std::to_string(file_bytes - 4096) + " bytes; this ring is left out");
}

TEST_F(ShmRingTest, EmptyDirectoryIsAnError) {
  RecoverOptions options;
  options.dir = shm_;
  options.output = dir_ + "/recovered";
  auto summary = Recover(options);
  ASSERT_FALSE(summary);
  EXPECT_EQ(summary.error().message, shm_ + ": no flight recorder files (rastrace-PID.proc)");
}

}  // namespace
}  // namespace rastrace::buffer
