#include "event/s2.h"

namespace rastrace::event {

void AppendS2(std::string_view text, ByteOrder order, std::vector<uint8_t>& out) {
  text = text.substr(0, kS2MaxLength);
  uint8_t length[2];
  Store<uint16_t>(length, static_cast<uint16_t>(text.size()), order);
  out.insert(out.end(), length, length + 2);
  out.insert(out.end(), text.begin(), text.end());
}

}  // namespace rastrace::event
