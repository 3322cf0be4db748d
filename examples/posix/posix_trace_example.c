/* A POSIX trace controller, traced code and analyzer in one program, written only to the
 * standard (as on AIX): it builds with any <trace.h> and -lposixtrace.
 *
 *   posix_trace_example            trace this process into a stream and print what was traced
 *   posix_trace_example LOGFILE    also write the stream to LOGFILE, then read the log back
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <trace.h>
#include <unistd.h>

#include "../example_usage.h"

static void fail(const char* what, int rc) {
  fprintf(stderr, "posix_trace_example: %s: %s\n", what, strerror(rc));
  exit(1);
}

/* The traced code: it only knows its event names. */
static void traced_work(void) {
  trace_event_id_t begin_id, end_id;
  int rc;
  int i;
  if ((rc = posix_trace_eventid_open("work.begin", &begin_id)) != 0) fail("eventid_open", rc);
  if ((rc = posix_trace_eventid_open("work.end", &end_id)) != 0) fail("eventid_open", rc);
  for (i = 0; i < 3; i++) {
    posix_trace_event(begin_id, &i, sizeof i);
    posix_trace_event(end_id, "done", 4);
  }
}

/* The analyzer: prints every event with its name, pid, time and data size. */
static int analyze(trace_id_t trid) {
  struct posix_trace_event_info info;
  char data[256];
  char name[TRACE_EVENT_NAME_MAX + 1];
  size_t len;
  int unavailable;
  int count = 0;
  for (;;) {
    int rc = posix_trace_getnext_event(trid, &info, data, sizeof data, &len, &unavailable);
    if (rc != 0) fail("getnext_event", rc);
    if (unavailable) break;
    if (posix_trace_eventid_get_name(trid, info.posix_event_id, name) != 0) strcpy(name, "?");
    printf("%-24s pid %-7d %ld.%09ld  %zu bytes\n", name, (int)info.posix_pid,
           (long)info.posix_timestamp.tv_sec, info.posix_timestamp.tv_nsec, len);
    count++;
  }
  return count;
}

int main(int argc, char** argv) {
  trace_attr_t attr;
  trace_id_t trid;
  int rc;
  int log_fd = -1;
  if (argc > 1 && argv[1][0] == '-') {
    return example_usage_exit("posix-trace-example", " [LOGFILE]", argv[1]);
  }
  if ((rc = posix_trace_attr_init(&attr)) != 0) fail("attr_init", rc);
  posix_trace_attr_setname(&attr, "example");
  if (argc > 1) {
    log_fd = open(argv[1], O_RDWR | O_CREAT | O_TRUNC, 0600);
    if (log_fd < 0) fail(argv[1], errno);
    rc = posix_trace_create_withlog(0, &attr, log_fd, &trid);
  } else {
    /* UNTIL_FULL so that the analyzer's getnext ends once the stopped stream is drained. */
    posix_trace_attr_setstreamfullpolicy(&attr, POSIX_TRACE_UNTIL_FULL);
    rc = posix_trace_create(0, &attr, &trid);
  }
  if (rc != 0) fail("create", rc);
  if ((rc = posix_trace_start(trid)) != 0) fail("start", rc);
  traced_work();
  if ((rc = posix_trace_stop(trid)) != 0) fail("stop", rc);
  if (log_fd < 0) {
    /* An active stream blocks in getnext when empty: read what is there without waiting. */
    struct posix_trace_event_info info;
    char name[TRACE_EVENT_NAME_MAX + 1];
    size_t len;
    int unavailable = 0;
    int count = 0;
    while (posix_trace_trygetnext_event(trid, &info, NULL, 0, &len, &unavailable) == 0 &&
           !unavailable) {
      posix_trace_eventid_get_name(trid, info.posix_event_id, name);
      printf("%-24s pid %d\n", name, (int)info.posix_pid);
      count++;
    }
    posix_trace_shutdown(trid);
    printf("%d events\n", count);
    return count == 8 ? 0 : 1;
  }
  if ((rc = posix_trace_shutdown(trid)) != 0) fail("shutdown", rc);
  if (lseek(log_fd, 0, SEEK_SET) != 0) fail("lseek", errno);
  if ((rc = posix_trace_open(log_fd, &trid)) != 0) fail("open", rc);
  rc = analyze(trid);
  posix_trace_close(trid);
  close(log_fd);
  printf("%d events in the log\n", rc);
  return rc >= 8 ? 0 : 1;
}
