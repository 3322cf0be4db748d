/* <trace.h>: POSIX.1-2008 tracing (options TRC, TEF, TRL, TRI) for Linux, from rastrace.
 *
 * glibc ships no <trace.h>; this header and libposixtrace provide it. It compiles as strict C99
 * (with _POSIX_C_SOURCE=200809L / _XOPEN_SOURCE=700) and as C++. Every function returns 0 or an
 * error number; none sets errno. See posix_trace_create(3) and docs/posix-trace.md. */
#ifndef RASTRACE_TRACE_H
#define RASTRACE_TRACE_H

#include <pthread.h>
#include <stddef.h>
#include <sys/types.h>
#include <time.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Options this implementation supports (normally in <unistd.h>). */
#ifndef _POSIX_TRACE
#define _POSIX_TRACE 200809L
#endif
#ifndef _POSIX_TRACE_EVENT_FILTER
#define _POSIX_TRACE_EVENT_FILTER 200809L
#endif
#ifndef _POSIX_TRACE_LOG
#define _POSIX_TRACE_LOG 200809L
#endif
#ifndef _POSIX_TRACE_INHERIT
#define _POSIX_TRACE_INHERIT 200809L
#endif

/* Limits (the standard's minimum values are 30, 8, 8 and 32). */
#ifndef TRACE_EVENT_NAME_MAX
#define TRACE_EVENT_NAME_MAX 30 /* bytes of an event-type name, without the NUL */
#endif
#ifndef TRACE_NAME_MAX
#define TRACE_NAME_MAX 32 /* a stream name or version string: at most 31 characters and the NUL */
#endif
#ifndef TRACE_SYS_MAX
#define TRACE_SYS_MAX 8 /* streams that may trace one process at the same time */
#endif
#ifndef TRACE_USER_EVENT_MAX
#define TRACE_USER_EVENT_MAX 256 /* user event types per process */
#endif

typedef unsigned long trace_id_t;
typedef unsigned int trace_event_id_t;

/* Opaque to programs: sizes and layout are part of the ABI. */
typedef struct {
  unsigned int __magic;
  int __stream_policy; /* 0: not set (LOOP without a log, FLUSH with one) */
  int __log_policy;
  int __inheritance;
  size_t __max_data_size;
  size_t __stream_size;
  size_t __log_size;
  struct timespec __create_time;
  struct timespec __clock_res;
  char __name[TRACE_NAME_MAX + 1];
  char __version[TRACE_NAME_MAX + 1];
} trace_attr_t;

/* A set of event types: bit i is event type i (512 types per stream). */
typedef struct {
  unsigned long long __bits[8];
} trace_event_set_t;

struct posix_trace_status_info {
  int posix_stream_status;
  int posix_stream_full_status;
  int posix_stream_overrun_status;
  int posix_stream_flush_status;
  int posix_stream_flush_error;
  int posix_log_overrun_status;
  int posix_log_full_status;
};

struct posix_trace_event_info {
  trace_event_id_t posix_event_id;
  pid_t posix_pid;
  void* posix_prog_address;
  int posix_truncation_status;
  struct timespec posix_timestamp;
  pthread_t posix_thread_id;
};

/* posix_stream_status */
#define POSIX_TRACE_RUNNING 1
#define POSIX_TRACE_SUSPENDED 2
/* posix_stream_full_status, posix_log_full_status */
#define POSIX_TRACE_NOT_FULL 0
#define POSIX_TRACE_FULL 1
/* posix_stream_overrun_status, posix_log_overrun_status (reset to 0 when read) */
#define POSIX_TRACE_NO_OVERRUN 0
#define POSIX_TRACE_OVERRUN 1
/* posix_stream_flush_status */
#define POSIX_TRACE_NOT_FLUSHING 0
#define POSIX_TRACE_FLUSHING 1
/* posix_truncation_status */
#define POSIX_TRACE_NOT_TRUNCATED 0
#define POSIX_TRACE_TRUNCATED_RECORD 1
#define POSIX_TRACE_TRUNCATED_READ 2
/* stream-full and log-full policies */
#define POSIX_TRACE_LOOP 1
#define POSIX_TRACE_UNTIL_FULL 2
#define POSIX_TRACE_FLUSH 3
#define POSIX_TRACE_APPEND 4
/* inheritance */
#define POSIX_TRACE_CLOSE_FOR_CHILD 0
#define POSIX_TRACE_INHERITED 1
/* posix_trace_eventset_fill */
#define POSIX_TRACE_WOPID_EVENTS 1
#define POSIX_TRACE_SYSTEM_EVENTS 2
#define POSIX_TRACE_ALL_EVENTS 3
/* posix_trace_set_filter */
#define POSIX_TRACE_SET_EVENTSET 1
#define POSIX_TRACE_ADD_EVENTSET 2
#define POSIX_TRACE_SUB_EVENTSET 3

/* System event types (ids below 16 are system events). */
#define POSIX_TRACE_START ((trace_event_id_t)0)       /* data: the filter (trace_event_set_t) */
#define POSIX_TRACE_STOP ((trace_event_id_t)1)        /* data: int auto (0: posix_trace_stop) */
#define POSIX_TRACE_OVERFLOW ((trace_event_id_t)2)    /* time of the first lost event */
#define POSIX_TRACE_RESUME ((trace_event_id_t)3)      /* just before the first event after a loss */
#define POSIX_TRACE_FLUSH_START ((trace_event_id_t)4) /* a flush to the log begins */
#define POSIX_TRACE_FLUSH_STOP ((trace_event_id_t)5)  /* a flush to the log ended */
#define POSIX_TRACE_ERROR ((trace_event_id_t)6)       /* data: int error number */
#define POSIX_TRACE_FILTER ((trace_event_id_t)7)      /* data: old and new filter */
#define POSIX_TRACE_UNNAMED_USER_EVENT ((trace_event_id_t)8)
#define POSIX_TRACE_UNNAMED_USEREVENT POSIX_TRACE_UNNAMED_USER_EVENT

/* Trace stream attributes */
int posix_trace_attr_init(trace_attr_t* attr);
int posix_trace_attr_destroy(trace_attr_t* attr);
int posix_trace_attr_getclockres(const trace_attr_t* attr, struct timespec* resolution);
int posix_trace_attr_getcreatetime(const trace_attr_t* attr, struct timespec* createtime);
int posix_trace_attr_getgenversion(const trace_attr_t* attr, char* genversion);
int posix_trace_attr_getname(const trace_attr_t* attr, char* tracename);
int posix_trace_attr_setname(trace_attr_t* attr, const char* tracename);
int posix_trace_attr_getinherited(const trace_attr_t* __restrict attr,
                                  int* __restrict inheritancepolicy);
int posix_trace_attr_setinherited(trace_attr_t* attr, int inheritancepolicy);
int posix_trace_attr_getlogfullpolicy(const trace_attr_t* __restrict attr,
                                      int* __restrict logpolicy);
int posix_trace_attr_setlogfullpolicy(trace_attr_t* attr, int logpolicy);
int posix_trace_attr_getstreamfullpolicy(const trace_attr_t* __restrict attr,
                                         int* __restrict streampolicy);
int posix_trace_attr_setstreamfullpolicy(trace_attr_t* attr, int streampolicy);
int posix_trace_attr_getlogsize(const trace_attr_t* __restrict attr, size_t* __restrict logsize);
int posix_trace_attr_setlogsize(trace_attr_t* attr, size_t logsize);
int posix_trace_attr_getmaxdatasize(const trace_attr_t* __restrict attr,
                                    size_t* __restrict maxdatasize);
int posix_trace_attr_setmaxdatasize(trace_attr_t* attr, size_t maxdatasize);
int posix_trace_attr_getmaxsystemeventsize(const trace_attr_t* __restrict attr,
                                           size_t* __restrict eventsize);
int posix_trace_attr_getmaxusereventsize(const trace_attr_t* __restrict attr, size_t data_len,
                                         size_t* __restrict eventsize);
int posix_trace_attr_getstreamsize(const trace_attr_t* __restrict attr,
                                   size_t* __restrict streamsize);
int posix_trace_attr_setstreamsize(trace_attr_t* attr, size_t streamsize);

/* Trace controller */
int posix_trace_create(pid_t pid, const trace_attr_t* __restrict attr, trace_id_t* __restrict trid);
int posix_trace_create_withlog(pid_t pid, const trace_attr_t* __restrict attr, int file_desc,
                               trace_id_t* __restrict trid);
int posix_trace_start(trace_id_t trid);
int posix_trace_stop(trace_id_t trid);
int posix_trace_shutdown(trace_id_t trid);
int posix_trace_clear(trace_id_t trid);
int posix_trace_flush(trace_id_t trid);
int posix_trace_get_attr(trace_id_t trid, trace_attr_t* attr);
int posix_trace_get_status(trace_id_t trid, struct posix_trace_status_info* statusinfo);
int posix_trace_get_filter(trace_id_t trid, trace_event_set_t* set);
int posix_trace_set_filter(trace_id_t trid, const trace_event_set_t* set, int how);
int posix_trace_trid_eventid_open(trace_id_t trid, const char* __restrict event_name,
                                  trace_event_id_t* __restrict event);

/* Traced process */
void posix_trace_event(trace_event_id_t event_id, const void* __restrict data_ptr, size_t data_len);
int posix_trace_eventid_open(const char* __restrict event_name,
                             trace_event_id_t* __restrict event_id);

/* Event types and event-type sets */
int posix_trace_eventid_equal(trace_id_t trid, trace_event_id_t event1, trace_event_id_t event2);
int posix_trace_eventid_get_name(trace_id_t trid, trace_event_id_t event, char* event_name);
int posix_trace_eventtypelist_getnext_id(trace_id_t trid, trace_event_id_t* __restrict event,
                                         int* __restrict unavailable);
int posix_trace_eventtypelist_rewind(trace_id_t trid);
int posix_trace_eventset_add(trace_event_id_t event_id, trace_event_set_t* set);
int posix_trace_eventset_del(trace_event_id_t event_id, trace_event_set_t* set);
int posix_trace_eventset_empty(trace_event_set_t* set);
int posix_trace_eventset_fill(trace_event_set_t* set, int what);
int posix_trace_eventset_ismember(trace_event_id_t event_id,
                                  const trace_event_set_t* __restrict set,
                                  int* __restrict ismember);

/* Trace analyzer */
int posix_trace_getnext_event(trace_id_t trid, struct posix_trace_event_info* __restrict event,
                              void* __restrict data, size_t num_bytes, size_t* __restrict data_len,
                              int* __restrict unavailable);
int posix_trace_timedgetnext_event(trace_id_t trid, struct posix_trace_event_info* __restrict event,
                                   void* __restrict data, size_t num_bytes,
                                   size_t* __restrict data_len, int* __restrict unavailable,
                                   const struct timespec* __restrict abstime);
int posix_trace_trygetnext_event(trace_id_t trid, struct posix_trace_event_info* __restrict event,
                                 void* __restrict data, size_t num_bytes,
                                 size_t* __restrict data_len, int* __restrict unavailable);
int posix_trace_open(int file_desc, trace_id_t* trid);
int posix_trace_rewind(trace_id_t trid);
int posix_trace_close(trace_id_t trid);

#ifdef __cplusplus
}
#endif

#endif /* RASTRACE_TRACE_H */
