// Feeds arbitrary bytes to the control protocol parsers: they must refuse or accept, never crash,
// and what they accept must format back to the same line.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "session/control_protocol.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace rastrace::session;
  const std::string_view line(reinterpret_cast<const char*>(data), size);
  if (auto command = ParseRequest(line)) {
    if (FormatRequest(*command) != line) std::abort();
  }
  if (auto reply = ParseReply(line)) {
    auto again = ParseReply(FormatReply(*reply));
    if (!again || again->ok != reply->ok || again->text != reply->text) std::abort();
  }
  return 0;
}
