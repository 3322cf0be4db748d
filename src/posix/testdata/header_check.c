/* Compiled as strict C99 and as C++ by the posix_header tests: every declaration of <trace.h>
 * with the standard's exact prototype (assigning to a pointer of that type fails otherwise). */
#include <trace.h>

#ifdef __cplusplus
#define RESTRICT __restrict
#else
#define RESTRICT restrict
#endif

#define CHECK(name, ret, args) ret(*name##_check) args = name

CHECK(posix_trace_attr_destroy, int, (trace_attr_t*));
CHECK(posix_trace_attr_getclockres, int, (const trace_attr_t*, struct timespec*));
CHECK(posix_trace_attr_getcreatetime, int, (const trace_attr_t*, struct timespec*));
CHECK(posix_trace_attr_getgenversion, int, (const trace_attr_t*, char*));
CHECK(posix_trace_attr_getinherited, int, (const trace_attr_t* RESTRICT, int* RESTRICT));
CHECK(posix_trace_attr_getlogfullpolicy, int, (const trace_attr_t* RESTRICT, int* RESTRICT));
CHECK(posix_trace_attr_getlogsize, int, (const trace_attr_t* RESTRICT, size_t* RESTRICT));
CHECK(posix_trace_attr_getmaxdatasize, int, (const trace_attr_t* RESTRICT, size_t* RESTRICT));
CHECK(posix_trace_attr_getmaxsystemeventsize, int,
      (const trace_attr_t* RESTRICT, size_t* RESTRICT));
CHECK(posix_trace_attr_getmaxusereventsize, int,
      (const trace_attr_t* RESTRICT, size_t, size_t* RESTRICT));
CHECK(posix_trace_attr_getname, int, (const trace_attr_t*, char*));
CHECK(posix_trace_attr_getstreamfullpolicy, int, (const trace_attr_t* RESTRICT, int* RESTRICT));
CHECK(posix_trace_attr_getstreamsize, int, (const trace_attr_t* RESTRICT, size_t* RESTRICT));
CHECK(posix_trace_attr_init, int, (trace_attr_t*));
CHECK(posix_trace_attr_setinherited, int, (trace_attr_t*, int));
CHECK(posix_trace_attr_setlogfullpolicy, int, (trace_attr_t*, int));
CHECK(posix_trace_attr_setlogsize, int, (trace_attr_t*, size_t));
CHECK(posix_trace_attr_setmaxdatasize, int, (trace_attr_t*, size_t));
CHECK(posix_trace_attr_setname, int, (trace_attr_t*, const char*));
CHECK(posix_trace_attr_setstreamfullpolicy, int, (trace_attr_t*, int));
CHECK(posix_trace_attr_setstreamsize, int, (trace_attr_t*, size_t));
CHECK(posix_trace_clear, int, (trace_id_t));
CHECK(posix_trace_close, int, (trace_id_t));
CHECK(posix_trace_create, int, (pid_t, const trace_attr_t* RESTRICT, trace_id_t* RESTRICT));
CHECK(posix_trace_create_withlog, int,
      (pid_t, const trace_attr_t* RESTRICT, int, trace_id_t* RESTRICT));
CHECK(posix_trace_event, void, (trace_event_id_t, const void* RESTRICT, size_t));
CHECK(posix_trace_eventid_equal, int, (trace_id_t, trace_event_id_t, trace_event_id_t));
CHECK(posix_trace_eventid_get_name, int, (trace_id_t, trace_event_id_t, char*));
CHECK(posix_trace_eventid_open, int, (const char* RESTRICT, trace_event_id_t* RESTRICT));
CHECK(posix_trace_eventset_add, int, (trace_event_id_t, trace_event_set_t*));
CHECK(posix_trace_eventset_del, int, (trace_event_id_t, trace_event_set_t*));
CHECK(posix_trace_eventset_empty, int, (trace_event_set_t*));
CHECK(posix_trace_eventset_fill, int, (trace_event_set_t*, int));
CHECK(posix_trace_eventset_ismember, int,
      (trace_event_id_t, const trace_event_set_t* RESTRICT, int* RESTRICT));
CHECK(posix_trace_eventtypelist_getnext_id, int,
      (trace_id_t, trace_event_id_t* RESTRICT, int* RESTRICT));
CHECK(posix_trace_eventtypelist_rewind, int, (trace_id_t));
CHECK(posix_trace_flush, int, (trace_id_t));
CHECK(posix_trace_get_attr, int, (trace_id_t, trace_attr_t*));
CHECK(posix_trace_get_filter, int, (trace_id_t, trace_event_set_t*));
CHECK(posix_trace_get_status, int, (trace_id_t, struct posix_trace_status_info*));
CHECK(posix_trace_getnext_event, int,
      (trace_id_t, struct posix_trace_event_info* RESTRICT, void* RESTRICT, size_t,
       size_t* RESTRICT, int* RESTRICT));
CHECK(posix_trace_open, int, (int, trace_id_t*));
CHECK(posix_trace_rewind, int, (trace_id_t));
CHECK(posix_trace_set_filter, int, (trace_id_t, const trace_event_set_t*, int));
CHECK(posix_trace_shutdown, int, (trace_id_t));
CHECK(posix_trace_start, int, (trace_id_t));
CHECK(posix_trace_stop, int, (trace_id_t));
CHECK(posix_trace_timedgetnext_event, int,
      (trace_id_t, struct posix_trace_event_info* RESTRICT, void* RESTRICT, size_t,
       size_t* RESTRICT, int* RESTRICT, const struct timespec* RESTRICT));
CHECK(posix_trace_trid_eventid_open, int,
      (trace_id_t, const char* RESTRICT, trace_event_id_t* RESTRICT));
CHECK(posix_trace_trygetnext_event, int,
      (trace_id_t, struct posix_trace_event_info* RESTRICT, void* RESTRICT, size_t,
       size_t* RESTRICT, int* RESTRICT));

/* Every constant the standard names, usable in constant expressions. */
static const int constants[] = {POSIX_TRACE_ALL_EVENTS,
                                POSIX_TRACE_APPEND,
                                POSIX_TRACE_CLOSE_FOR_CHILD,
                                POSIX_TRACE_FILTER,
                                POSIX_TRACE_FLUSH,
                                POSIX_TRACE_FLUSH_START,
                                POSIX_TRACE_FLUSH_STOP,
                                POSIX_TRACE_FLUSHING,
                                POSIX_TRACE_FULL,
                                POSIX_TRACE_LOOP,
                                POSIX_TRACE_NO_OVERRUN,
                                POSIX_TRACE_NOT_FLUSHING,
                                POSIX_TRACE_NOT_FULL,
                                POSIX_TRACE_INHERITED,
                                POSIX_TRACE_NOT_TRUNCATED,
                                POSIX_TRACE_OVERFLOW,
                                POSIX_TRACE_OVERRUN,
                                POSIX_TRACE_RESUME,
                                POSIX_TRACE_RUNNING,
                                POSIX_TRACE_START,
                                POSIX_TRACE_STOP,
                                POSIX_TRACE_SUSPENDED,
                                POSIX_TRACE_SYSTEM_EVENTS,
                                POSIX_TRACE_TRUNCATED_READ,
                                POSIX_TRACE_TRUNCATED_RECORD,
                                POSIX_TRACE_UNNAMED_USER_EVENT,
                                POSIX_TRACE_UNNAMED_USEREVENT,
                                POSIX_TRACE_UNTIL_FULL,
                                POSIX_TRACE_WOPID_EVENTS,
                                POSIX_TRACE_ERROR,
                                POSIX_TRACE_SET_EVENTSET,
                                POSIX_TRACE_ADD_EVENTSET,
                                POSIX_TRACE_SUB_EVENTSET,
                                TRACE_EVENT_NAME_MAX,
                                TRACE_NAME_MAX,
                                TRACE_SYS_MAX,
                                TRACE_USER_EVENT_MAX};

int main(void) {
  struct posix_trace_status_info status;
  struct posix_trace_event_info info;
  trace_event_set_t set;
  trace_attr_t attr;
  (void)status;
  (void)info;
  (void)set;
  (void)attr;
  /* The last element read as a value too: clang warns about an array used only in sizeof. */
  return (int)(sizeof constants / sizeof constants[0]) == 37 &&
                 constants[36] == TRACE_USER_EVENT_MAX && TRACE_EVENT_NAME_MAX >= 30 &&
                 TRACE_NAME_MAX >= 8 && TRACE_SYS_MAX >= 8 && TRACE_USER_EVENT_MAX >= 32
             ? 0
             : 1;
}
