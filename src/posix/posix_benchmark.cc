// posix_trace_event costs: 16 bytes into a running stream (target: median <= 20 ns), and the
// call when its type is filtered out or no stream runs (target: <= 2 ns).
#include <benchmark/benchmark.h>
#include <trace.h>

#include <cstdint>

namespace {

struct Stream {
  explicit Stream(bool start, size_t size = size_t{8} << 20) {
    trace_attr_t attr;
    posix_trace_attr_init(&attr);
    posix_trace_attr_setmaxdatasize(&attr, 16);
    posix_trace_attr_setstreamsize(&attr, size);
    posix_trace_create(0, &attr, &trid);
    if (start) posix_trace_start(trid);
  }
  ~Stream() { posix_trace_shutdown(trid); }
  trace_id_t trid = 0;
};

trace_event_id_t EventId(const char* name) {
  trace_event_id_t id = 0;
  posix_trace_eventid_open(name, &id);
  return id;
}

// No stream at all: the first benchmark, before any stream was attached to this process.
void BM_EventNoStream(benchmark::State& state) {
  trace_event_id_t id = EventId("bench.none");
  uint64_t data[2] = {1, 2};
  for (auto _ : state) {
    posix_trace_event(id, data, sizeof data);
    benchmark::ClobberMemory();
  }
}
BENCHMARK(BM_EventNoStream)->Repetitions(10)->ReportAggregatesOnly(true);

// A stream exists but was never started (or was stopped).
void BM_EventStreamSuspended(benchmark::State& state) {
  Stream stream(false);
  trace_event_id_t id = EventId("bench.suspended");
  uint64_t data[2] = {1, 2};
  posix_trace_event(id, data, sizeof data);  // the attach happens outside the loop
  for (auto _ : state) {
    posix_trace_event(id, data, sizeof data);
    benchmark::ClobberMemory();
  }
}
BENCHMARK(BM_EventStreamSuspended)->Repetitions(10)->ReportAggregatesOnly(true);

void BM_EventFilteredOut(benchmark::State& state) {
  Stream stream(true);
  trace_event_id_t id = EventId("bench.filtered");
  trace_event_set_t set;
  posix_trace_eventset_empty(&set);
  posix_trace_eventset_add(id, &set);
  posix_trace_set_filter(stream.trid, &set, POSIX_TRACE_SET_EVENTSET);
  uint64_t data[2] = {1, 2};
  posix_trace_event(id, data, sizeof data);
  for (auto _ : state) {
    posix_trace_event(id, data, sizeof data);
    benchmark::ClobberMemory();
  }
}
BENCHMARK(BM_EventFilteredOut)->Repetitions(10)->ReportAggregatesOnly(true);

// LOOP stream: it wraps during the run, as a long-running trace does.
void BM_EventRunning16Bytes(benchmark::State& state) {
  Stream stream(true);
  trace_event_id_t id = EventId("bench.running");
  uint64_t data[2] = {1, 2};
  posix_trace_event(id, data, sizeof data);
  for (auto _ : state) {
    posix_trace_event(id, data, sizeof data);
    data[0]++;
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_EventRunning16Bytes)->Repetitions(10)->ReportAggregatesOnly(true);

}  // namespace

BENCHMARK_MAIN();
