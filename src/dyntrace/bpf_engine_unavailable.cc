// Stands in for the BPF engine in a build without clang, bpftool or libbpf-dev: it is reported
// unavailable, and `auto` takes the ptrace engine.
#include "dyntrace/bpf_engine.h"

namespace rastrace::dyntrace {
namespace {

Error Unavailable() {
  return Error{"this build has no BPF engine (it needs clang, bpftool and libbpf-dev)"};
}

}  // namespace

struct BpfEngine::Impl {
  BpfStats stats;
};

Result<void> BpfAvailable() {
  return Unavailable();
}
Result<void> CheckBpfRingBytes(size_t) {
  return Ok();
}
BpfEngine::BpfEngine(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
BpfEngine::~BpfEngine() = default;
Result<std::unique_ptr<BpfEngine>> BpfEngine::Attach(pid_t, std::vector<CompiledTracepoint>,
                                                     HitSink&, const BpfOptions&) {
  return Unavailable();
}
Result<void> BpfEngine::Run(const std::atomic<bool>&, bool (*)(pid_t)) {
  return Unavailable();
}
void BpfEngine::Detach() {}
const BpfStats& BpfEngine::stats() {
  return impl_->stats;
}
size_t BpfEngine::ring_bytes() const {
  return 0;
}

}  // namespace rastrace::dyntrace
