// posix_trace_attr_*: the attributes object (an opaque struct in <trace.h>).
#include <trace.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "posix/layout.h"
#include "posix/stream.h"

using namespace rastrace::posix;

namespace {

constexpr const char* kGenVersion = "rastrace posix trace 1.0";

bool Valid(const trace_attr_t* attr) {
  return attr != nullptr && attr->__magic == kAttrMagic;
}

// Every event takes one slot of the ring, whatever its data length: streamsize / eventsize is
// the number of events a stream holds.
size_t EventSize(const trace_attr_t& attr) {
  return GeometryFor(attr).slot_size;
}

// At most TRACE_NAME_MAX - 1 characters and the NUL: TRACE_NAME_MAX bytes in all.
void CopyName(char* to, const char* from) {
  size_t n = strnlen(from, TRACE_NAME_MAX - 1);
  std::memcpy(to, from, n);
  to[n] = '\0';
}

}  // namespace

#define API extern "C" __attribute__((visibility("default")))

API int posix_trace_attr_init(trace_attr_t* attr) {
  if (attr == nullptr) return EINVAL;
  std::memset(static_cast<void*>(attr), 0, sizeof *attr);
  attr->__magic = kAttrMagic;
  attr->__stream_policy = 0;  // resolved at creation: LOOP, or FLUSH with a log
  attr->__log_policy = POSIX_TRACE_LOOP;
  attr->__inheritance = POSIX_TRACE_CLOSE_FOR_CHILD;
  attr->__max_data_size = kDefaultMaxDataSize;
  attr->__stream_size = kDefaultStreamSize;
  attr->__log_size = kDefaultLogSize;
  clock_getres(CLOCK_REALTIME, &attr->__clock_res);
  std::snprintf(attr->__version, sizeof attr->__version, "%s", kGenVersion);
  return 0;
}

API int posix_trace_attr_destroy(trace_attr_t* attr) {
  if (!Valid(attr)) return EINVAL;
  attr->__magic = 0;
  return 0;
}

API int posix_trace_attr_getclockres(const trace_attr_t* attr, struct timespec* resolution) {
  if (!Valid(attr) || resolution == nullptr) return EINVAL;
  *resolution = attr->__clock_res;
  return 0;
}

API int posix_trace_attr_getcreatetime(const trace_attr_t* attr, struct timespec* createtime) {
  if (!Valid(attr) || createtime == nullptr) return EINVAL;
  *createtime = attr->__create_time;  // zero until the attributes come from a stream
  return 0;
}

API int posix_trace_attr_getgenversion(const trace_attr_t* attr, char* genversion) {
  if (!Valid(attr) || genversion == nullptr) return EINVAL;
  // The caller's array holds TRACE_NAME_MAX characters, the NUL included.
  CopyName(genversion, attr->__version);
  return 0;
}

API int posix_trace_attr_getname(const trace_attr_t* attr, char* tracename) {
  if (!Valid(attr) || tracename == nullptr) return EINVAL;
  CopyName(tracename, attr->__name);
  return 0;
}

API int posix_trace_attr_setname(trace_attr_t* attr, const char* tracename) {
  if (!Valid(attr) || tracename == nullptr) return EINVAL;
  // POSIX: a longer name "may be truncated to one less than the length of {TRACE_NAME_MAX}":
  // then it fits, with its NUL, the TRACE_NAME_MAX characters getname may write.
  CopyName(attr->__name, tracename);
  return 0;
}

API int posix_trace_attr_getinherited(const trace_attr_t* attr, int* inheritancepolicy) {
  if (!Valid(attr) || inheritancepolicy == nullptr) return EINVAL;
  *inheritancepolicy = attr->__inheritance;
  return 0;
}

API int posix_trace_attr_setinherited(trace_attr_t* attr, int inheritancepolicy) {
  if (!Valid(attr)) return EINVAL;
  if (inheritancepolicy != POSIX_TRACE_INHERITED &&
      inheritancepolicy != POSIX_TRACE_CLOSE_FOR_CHILD)
    return EINVAL;
  attr->__inheritance = inheritancepolicy;
  return 0;
}

API int posix_trace_attr_getlogfullpolicy(const trace_attr_t* attr, int* logpolicy) {
  if (!Valid(attr) || logpolicy == nullptr) return EINVAL;
  *logpolicy = attr->__log_policy;
  return 0;
}

API int posix_trace_attr_setlogfullpolicy(trace_attr_t* attr, int logpolicy) {
  if (!Valid(attr)) return EINVAL;
  if (logpolicy != POSIX_TRACE_LOOP && logpolicy != POSIX_TRACE_UNTIL_FULL &&
      logpolicy != POSIX_TRACE_APPEND)
    return EINVAL;
  attr->__log_policy = logpolicy;
  return 0;
}

API int posix_trace_attr_getstreamfullpolicy(const trace_attr_t* attr, int* streampolicy) {
  if (!Valid(attr) || streampolicy == nullptr) return EINVAL;
  *streampolicy = attr->__stream_policy == 0 ? POSIX_TRACE_LOOP : attr->__stream_policy;
  return 0;
}

API int posix_trace_attr_setstreamfullpolicy(trace_attr_t* attr, int streampolicy) {
  if (!Valid(attr)) return EINVAL;
  if (streampolicy != POSIX_TRACE_LOOP && streampolicy != POSIX_TRACE_UNTIL_FULL &&
      streampolicy != POSIX_TRACE_FLUSH)
    return EINVAL;
  attr->__stream_policy = streampolicy;
  return 0;
}

API int posix_trace_attr_getlogsize(const trace_attr_t* attr, size_t* logsize) {
  if (!Valid(attr) || logsize == nullptr) return EINVAL;
  *logsize = attr->__log_size;
  return 0;
}

API int posix_trace_attr_setlogsize(trace_attr_t* attr, size_t logsize) {
  if (!Valid(attr) || logsize == 0) return EINVAL;
  attr->__log_size = logsize;
  return 0;
}

API int posix_trace_attr_getmaxdatasize(const trace_attr_t* attr, size_t* maxdatasize) {
  if (!Valid(attr) || maxdatasize == nullptr) return EINVAL;
  *maxdatasize = attr->__max_data_size;
  return 0;
}

API int posix_trace_attr_setmaxdatasize(trace_attr_t* attr, size_t maxdatasize) {
  // The log stores an event's data length in 16 bits.
  if (!Valid(attr) || maxdatasize > 0xFFFF - 64) return EINVAL;
  attr->__max_data_size = maxdatasize;
  return 0;
}

API int posix_trace_attr_getmaxsystemeventsize(const trace_attr_t* attr, size_t* eventsize) {
  if (!Valid(attr) || eventsize == nullptr) return EINVAL;
  *eventsize = EventSize(*attr);
  return 0;
}

API int posix_trace_attr_getmaxusereventsize(const trace_attr_t* attr, size_t data_len,
                                             size_t* eventsize) {
  if (!Valid(attr) || eventsize == nullptr) return EINVAL;
  (void)data_len;  // data beyond the max data size is cut: the slot holds the rest
  *eventsize = EventSize(*attr);
  return 0;
}

API int posix_trace_attr_getstreamsize(const trace_attr_t* attr, size_t* streamsize) {
  if (!Valid(attr) || streamsize == nullptr) return EINVAL;
  *streamsize = attr->__stream_size;
  return 0;
}

API int posix_trace_attr_setstreamsize(trace_attr_t* attr, size_t streamsize) {
  if (!Valid(attr) || streamsize == 0 || streamsize > kMaxStreamSize) return EINVAL;
  attr->__stream_size = streamsize;
  return 0;
}
