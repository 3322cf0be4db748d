#include "dyntrace/session_state.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

namespace rastrace::dyntrace {
namespace {

namespace fs = std::filesystem;

class SessionStateTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / fmt::format("dyntrace-state-{}", getpid());
    fs::remove_all(dir_);
    setenv("RASTRACE_RUNTIME_DIR", dir_.c_str(), 1);
  }
  void TearDown() override {
    unsetenv("RASTRACE_RUNTIME_DIR");
    fs::remove_all(dir_);
  }
  fs::path dir_;
};

TEST_F(SessionStateTest, ASessionOfThisProcessIsListedAsTheCallers) {
  SessionState mine = NewSessionState(4242, "bpf", "out put.sav");
  EXPECT_EQ(mine.tracer, getpid());
  EXPECT_EQ(mine.uid, getuid());
  EXPECT_NE(mine.tracer_start, 0u);
  ASSERT_TRUE(WriteState(mine));
  std::vector<SessionState> states = ListStates();
  ASSERT_EQ(states.size(), 1u);
  EXPECT_EQ(states[0].target, 4242);
  EXPECT_EQ(states[0].engine, "bpf");
  EXPECT_EQ(states[0].output, "out put.sav");
  EXPECT_EQ(states[0].tracer_start, mine.tracer_start);
  EXPECT_TRUE(StartedByCaller(states[0]));
  SessionState theirs = states[0];
  theirs.uid = getuid() + 1;
  EXPECT_FALSE(StartedByCaller(theirs));
  RemoveState(4242);
  EXPECT_TRUE(ListStates().empty());
}

// A tracer pid that now belongs to another process (another start time) is not the tracer: the
// state is dropped, so that trace off never signals that process.
TEST_F(SessionStateTest, APidReusedByAnotherProcessIsNotTheTracer) {
  SessionState stale = NewSessionState(4343, "ptrace", "x.sav");
  stale.tracer_start += 1;
  ASSERT_TRUE(WriteState(stale));
  EXPECT_TRUE(ListStates().empty());
  EXPECT_FALSE(fs::exists(dir_ / "dyntrace.4343"));
}

TEST_F(SessionStateTest, AStateOfAnEarlierVersionBelongsToTheFilesOwner) {
  fs::create_directories(dir_);
  std::ofstream(dir_ / "dyntrace.77") << getpid() << " 77 ptrace old.sav\n";
  std::ofstream(dir_ / "dyntrace.78") << "not a state file\n";
  std::vector<SessionState> states = ListStates();
  ASSERT_EQ(states.size(), 1u);
  EXPECT_EQ(states[0].target, 77);
  EXPECT_EQ(states[0].output, "old.sav");
  EXPECT_EQ(states[0].uid, getuid());
  EXPECT_TRUE(StartedByCaller(states[0]));
}

}  // namespace
}  // namespace rastrace::dyntrace
