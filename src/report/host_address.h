// $IPADDR: seed 002's "IP address of this machine". Logs carry no address, so the report uses the
// address of the machine it runs on (usually the traced one).
#pragma once

#include <cstdint>

namespace rastrace::report {

// The IPv4 address of the first interface that is up and not a loopback, most significant byte
// first (192.168.0.1 is 0xC0A80001); 0 when there is none.
uint32_t LocalIpv4Address();

}  // namespace rastrace::report
