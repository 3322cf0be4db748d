// Where the engines deliver tracepoint hits.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <span>

#include "dyntrace/compiled_tracepoint.h"
#include "dyntrace/record_builder.h"

namespace rastrace::dyntrace {

struct Hit {
  pid_t pid = 0;
  pid_t tid = 0;
  uint64_t realtime_ns = 0;  // CLOCK_REALTIME when the engine saw the hit
  std::span<const uint8_t> data;
  BuiltRecord built;
};

class HitSink {
 public:
  virtual ~HitSink() = default;
  virtual void OnHit(const CompiledTracepoint& tracepoint, const Hit& hit) = 0;
};

uint64_t RealtimeNow();

}  // namespace rastrace::dyntrace
