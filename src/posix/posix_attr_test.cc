// posix_trace_attr_* and posix_trace_eventset_*: values, defaults and every EINVAL.
#include <gtest/gtest.h>
#include <trace.h>

#include <cerrno>
#include <cstring>
#include <string>

namespace {

TEST(Attr, DefaultsAfterInit) {
  trace_attr_t attr;
  ASSERT_EQ(posix_trace_attr_init(&attr), 0);
  int v = -1;
  ASSERT_EQ(posix_trace_attr_getinherited(&attr, &v), 0);
  EXPECT_EQ(v, POSIX_TRACE_CLOSE_FOR_CHILD);
  ASSERT_EQ(posix_trace_attr_getstreamfullpolicy(&attr, &v), 0);
  EXPECT_EQ(v, POSIX_TRACE_LOOP);
  ASSERT_EQ(posix_trace_attr_getlogfullpolicy(&attr, &v), 0);
  EXPECT_EQ(v, POSIX_TRACE_LOOP);
  char name[TRACE_NAME_MAX + 1] = "x";
  ASSERT_EQ(posix_trace_attr_getname(&attr, name), 0);
  EXPECT_STREQ(name, "");
  ASSERT_EQ(posix_trace_attr_getgenversion(&attr, name), 0);
  EXPECT_NE(std::strlen(name), 0u);
  EXPECT_LE(std::strlen(name), static_cast<size_t>(TRACE_NAME_MAX));
  timespec res{};
  ASSERT_EQ(posix_trace_attr_getclockres(&attr, &res), 0);
  EXPECT_TRUE(res.tv_sec > 0 || res.tv_nsec > 0);
  size_t size = 0;
  ASSERT_EQ(posix_trace_attr_getmaxdatasize(&attr, &size), 0);
  EXPECT_GT(size, 0u);
  ASSERT_EQ(posix_trace_attr_getstreamsize(&attr, &size), 0);
  EXPECT_GT(size, 0u);
  ASSERT_EQ(posix_trace_attr_getlogsize(&attr, &size), 0);
  EXPECT_GT(size, 0u);
  ASSERT_EQ(posix_trace_attr_destroy(&attr), 0);
  EXPECT_EQ(posix_trace_attr_getinherited(&attr, &v), EINVAL);  // destroyed
}

TEST(Attr, SettersRoundTripAndRejectBadValues) {
  trace_attr_t attr;
  ASSERT_EQ(posix_trace_attr_init(&attr), 0);
  int v = 0;
  ASSERT_EQ(posix_trace_attr_setinherited(&attr, POSIX_TRACE_INHERITED), 0);
  ASSERT_EQ(posix_trace_attr_getinherited(&attr, &v), 0);
  EXPECT_EQ(v, POSIX_TRACE_INHERITED);
  EXPECT_EQ(posix_trace_attr_setinherited(&attr, 77), EINVAL);
  for (int policy : {POSIX_TRACE_LOOP, POSIX_TRACE_UNTIL_FULL, POSIX_TRACE_FLUSH}) {
    ASSERT_EQ(posix_trace_attr_setstreamfullpolicy(&attr, policy), 0);
    ASSERT_EQ(posix_trace_attr_getstreamfullpolicy(&attr, &v), 0);
    EXPECT_EQ(v, policy);
  }
  EXPECT_EQ(posix_trace_attr_setstreamfullpolicy(&attr, POSIX_TRACE_APPEND), EINVAL);
  for (int policy : {POSIX_TRACE_LOOP, POSIX_TRACE_UNTIL_FULL, POSIX_TRACE_APPEND}) {
    ASSERT_EQ(posix_trace_attr_setlogfullpolicy(&attr, policy), 0);
    ASSERT_EQ(posix_trace_attr_getlogfullpolicy(&attr, &v), 0);
    EXPECT_EQ(v, policy);
  }
  EXPECT_EQ(posix_trace_attr_setlogfullpolicy(&attr, POSIX_TRACE_FLUSH), EINVAL);
  size_t size = 0;
  ASSERT_EQ(posix_trace_attr_setmaxdatasize(&attr, 100), 0);
  ASSERT_EQ(posix_trace_attr_getmaxdatasize(&attr, &size), 0);
  EXPECT_EQ(size, 100u);
  EXPECT_EQ(posix_trace_attr_setmaxdatasize(&attr, size_t{1} << 20), EINVAL);
  ASSERT_EQ(posix_trace_attr_setstreamsize(&attr, 123456), 0);
  ASSERT_EQ(posix_trace_attr_getstreamsize(&attr, &size), 0);
  EXPECT_EQ(size, 123456u);
  EXPECT_EQ(posix_trace_attr_setstreamsize(&attr, 0), EINVAL);
  ASSERT_EQ(posix_trace_attr_setlogsize(&attr, 654321), 0);
  ASSERT_EQ(posix_trace_attr_getlogsize(&attr, &size), 0);
  EXPECT_EQ(size, 654321u);
  EXPECT_EQ(posix_trace_attr_setlogsize(&attr, 0), EINVAL);
  // Every event takes one ring slot: its size follows the max data size, not the data length.
  size_t small = 0, large = 0, system = 0;
  ASSERT_EQ(posix_trace_attr_getmaxusereventsize(&attr, 8, &small), 0);
  ASSERT_EQ(posix_trace_attr_getmaxusereventsize(&attr, 5000, &large), 0);
  ASSERT_EQ(posix_trace_attr_getmaxsystemeventsize(&attr, &system), 0);
  EXPECT_EQ(small, large);
  EXPECT_GE(small, 100u);
  EXPECT_GE(system, 2 * sizeof(trace_event_set_t));
  ASSERT_EQ(posix_trace_attr_setmaxdatasize(&attr, 1000), 0);
  ASSERT_EQ(posix_trace_attr_getmaxusereventsize(&attr, 8, &large), 0);
  EXPECT_GT(large, small);
  // POSIX: a longer name "may be truncated to one less than the length of {TRACE_NAME_MAX}", and
  // getname's array "can store at least {TRACE_NAME_MAX} characters": it is cut to
  // TRACE_NAME_MAX - 1, so a program's char[TRACE_NAME_MAX] holds it with its NUL.
  std::string long_name(TRACE_NAME_MAX + 10, 'q');
  ASSERT_EQ(posix_trace_attr_setname(&attr, long_name.c_str()), 0);
  char name[TRACE_NAME_MAX + 1];
  std::memset(name, '#', sizeof name);
  ASSERT_EQ(posix_trace_attr_getname(&attr, name), 0);
  EXPECT_EQ(std::string(name), long_name.substr(0, TRACE_NAME_MAX - 1));
  EXPECT_EQ(name[TRACE_NAME_MAX], '#');  // nothing written past TRACE_NAME_MAX bytes
  char version[TRACE_NAME_MAX + 1];
  std::memset(version, '#', sizeof version);
  ASSERT_EQ(posix_trace_attr_getgenversion(&attr, version), 0);
  EXPECT_EQ(version[TRACE_NAME_MAX], '#');
  EXPECT_LT(std::strlen(version), static_cast<size_t>(TRACE_NAME_MAX));
  ASSERT_EQ(posix_trace_attr_setname(&attr, "mine"), 0);
  ASSERT_EQ(posix_trace_attr_getname(&attr, name), 0);
  EXPECT_STREQ(name, "mine");
  EXPECT_EQ(posix_trace_attr_setname(&attr, nullptr), EINVAL);
  posix_trace_attr_destroy(&attr);
}

TEST(Attr, NullAndUninitializedObjectsAreEinval) {
  trace_attr_t zero{};
  int v;
  size_t size;
  timespec ts;
  char text[TRACE_NAME_MAX + 1];
  EXPECT_EQ(posix_trace_attr_init(nullptr), EINVAL);
  EXPECT_EQ(posix_trace_attr_destroy(&zero), EINVAL);
  EXPECT_EQ(posix_trace_attr_getclockres(&zero, &ts), EINVAL);
  EXPECT_EQ(posix_trace_attr_getcreatetime(&zero, &ts), EINVAL);
  EXPECT_EQ(posix_trace_attr_getgenversion(&zero, text), EINVAL);
  EXPECT_EQ(posix_trace_attr_getname(&zero, text), EINVAL);
  EXPECT_EQ(posix_trace_attr_setname(&zero, "x"), EINVAL);
  EXPECT_EQ(posix_trace_attr_getinherited(&zero, &v), EINVAL);
  EXPECT_EQ(posix_trace_attr_setinherited(&zero, POSIX_TRACE_INHERITED), EINVAL);
  EXPECT_EQ(posix_trace_attr_getlogfullpolicy(&zero, &v), EINVAL);
  EXPECT_EQ(posix_trace_attr_setlogfullpolicy(&zero, POSIX_TRACE_LOOP), EINVAL);
  EXPECT_EQ(posix_trace_attr_getstreamfullpolicy(&zero, &v), EINVAL);
  EXPECT_EQ(posix_trace_attr_setstreamfullpolicy(&zero, POSIX_TRACE_LOOP), EINVAL);
  EXPECT_EQ(posix_trace_attr_getlogsize(&zero, &size), EINVAL);
  EXPECT_EQ(posix_trace_attr_setlogsize(&zero, 100), EINVAL);
  EXPECT_EQ(posix_trace_attr_getmaxdatasize(&zero, &size), EINVAL);
  EXPECT_EQ(posix_trace_attr_setmaxdatasize(&zero, 100), EINVAL);
  EXPECT_EQ(posix_trace_attr_getmaxsystemeventsize(&zero, &size), EINVAL);
  EXPECT_EQ(posix_trace_attr_getmaxusereventsize(&zero, 1, &size), EINVAL);
  EXPECT_EQ(posix_trace_attr_getstreamsize(&zero, &size), EINVAL);
  EXPECT_EQ(posix_trace_attr_setstreamsize(&zero, 100), EINVAL);
}

TEST(EventSet, AddDelFillEmptyIsmember) {
  trace_event_set_t set;
  int member = -1;
  ASSERT_EQ(posix_trace_eventset_empty(&set), 0);
  ASSERT_EQ(posix_trace_eventset_ismember(POSIX_TRACE_START, &set, &member), 0);
  EXPECT_EQ(member, 0);
  ASSERT_EQ(posix_trace_eventset_add(200, &set), 0);
  ASSERT_EQ(posix_trace_eventset_add(200, &set), 0);  // adding twice is no error
  ASSERT_EQ(posix_trace_eventset_ismember(200, &set, &member), 0);
  EXPECT_EQ(member, 1);
  ASSERT_EQ(posix_trace_eventset_del(200, &set), 0);
  ASSERT_EQ(posix_trace_eventset_del(200, &set), 0);  // nor is deleting an absent one
  ASSERT_EQ(posix_trace_eventset_ismember(200, &set, &member), 0);
  EXPECT_EQ(member, 0);
  ASSERT_EQ(posix_trace_eventset_fill(&set, POSIX_TRACE_SYSTEM_EVENTS), 0);
  ASSERT_EQ(posix_trace_eventset_ismember(POSIX_TRACE_STOP, &set, &member), 0);
  EXPECT_EQ(member, 1);
  ASSERT_EQ(posix_trace_eventset_ismember(200, &set, &member), 0);
  EXPECT_EQ(member, 0);
  ASSERT_EQ(posix_trace_eventset_fill(&set, POSIX_TRACE_WOPID_EVENTS), 0);
  ASSERT_EQ(posix_trace_eventset_ismember(POSIX_TRACE_OVERFLOW, &set, &member), 0);
  EXPECT_EQ(member, 1);
  ASSERT_EQ(posix_trace_eventset_fill(&set, POSIX_TRACE_ALL_EVENTS), 0);
  ASSERT_EQ(posix_trace_eventset_ismember(511, &set, &member), 0);
  EXPECT_EQ(member, 1);
  EXPECT_EQ(posix_trace_eventset_fill(&set, 99), EINVAL);
  EXPECT_EQ(posix_trace_eventset_add(512, &set), EINVAL);
  EXPECT_EQ(posix_trace_eventset_del(512, &set), EINVAL);
  EXPECT_EQ(posix_trace_eventset_ismember(512, &set, &member), EINVAL);
  EXPECT_EQ(posix_trace_eventset_empty(nullptr), EINVAL);
}

}  // namespace
