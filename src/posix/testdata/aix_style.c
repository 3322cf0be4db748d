/* A program written for AIX's POSIX trace (libposixtrace.a), in the standard's controller /
 * traced / analyzer style. It must compile and run unchanged against rastrace. */
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/types.h>
#include <time.h>
#include <trace.h>
#include <unistd.h>

static trace_event_id_t ev_request;

static void* worker(void* arg) {
  int i;
  (void)arg;
  for (i = 0; i < 10; i++) posix_trace_event(ev_request, &i, sizeof(i));
  return NULL;
}

int main(void) {
  trace_attr_t attr;
  trace_id_t trid;
  pthread_t thread;
  struct posix_trace_status_info st;
  struct posix_trace_event_info ev;
  char buf[64], name[TRACE_EVENT_NAME_MAX + 1];
  size_t len;
  int unavailable, requests = 0, starts = 0, stops = 0;
  struct timespec deadline;

  if (posix_trace_attr_init(&attr) != 0) return 10;
  posix_trace_attr_setname(&attr, "aixdemo");
  posix_trace_attr_setstreamfullpolicy(&attr, POSIX_TRACE_LOOP);
  posix_trace_attr_setmaxdatasize(&attr, 32);
  if (posix_trace_create(0, &attr, &trid) != 0) return 11;
  posix_trace_attr_destroy(&attr);
  if (posix_trace_eventid_open("request", &ev_request) != 0) return 12;
  if (posix_trace_start(trid) != 0) return 13;
  pthread_create(&thread, NULL, worker, NULL);
  pthread_join(thread, NULL);
  if (posix_trace_stop(trid) != 0) return 14;
  if (posix_trace_get_status(trid, &st) != 0) return 15;
  if (st.posix_stream_status != POSIX_TRACE_SUSPENDED) return 16;

  for (;;) {
    clock_gettime(CLOCK_REALTIME, &deadline);
    deadline.tv_sec += 1;
    if (posix_trace_timedgetnext_event(trid, &ev, buf, sizeof(buf), &len, &unavailable,
                                       &deadline) != 0 ||
        unavailable)
      break;
    posix_trace_eventid_get_name(trid, ev.posix_event_id, name);
    if (ev.posix_event_id == POSIX_TRACE_START) starts++;
    if (ev.posix_event_id == POSIX_TRACE_STOP) stops++;
    if (strcmp(name, "request") == 0 && ev.posix_pid == getpid()) requests++;
  }
  posix_trace_shutdown(trid);
  printf("requests=%d starts=%d stops=%d\n", requests, starts, stops);
  return requests == 10 && starts == 1 && stops == 1 ? 0 : 1;
}
