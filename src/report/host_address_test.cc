#include "report/host_address.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>

#include <set>

namespace rastrace::report {
namespace {

// The address is one of this machine's non-loopback IPv4 addresses, or 0 when it has none.
TEST(HostAddress, IsANonLoopbackAddressOfThisMachine) {
  std::set<uint32_t> candidates;
  ifaddrs* list = nullptr;
  ASSERT_EQ(::getifaddrs(&list), 0);
  for (const ifaddrs* a = list; a != nullptr; a = a->ifa_next) {
    if (a->ifa_addr == nullptr || a->ifa_addr->sa_family != AF_INET) continue;
    if ((a->ifa_flags & IFF_UP) == 0 || (a->ifa_flags & IFF_LOOPBACK) != 0) continue;
    candidates.insert(ntohl(reinterpret_cast<const sockaddr_in*>(a->ifa_addr)->sin_addr.s_addr));
  }
  ::freeifaddrs(list);
  uint32_t address = LocalIpv4Address();
  if (candidates.empty()) {
    EXPECT_EQ(address, 0u);
  } else {
    EXPECT_EQ(candidates.count(address), 1u) << std::hex << address;
    EXPECT_NE(address >> 24, 127u);
  }
}

}  // namespace
}  // namespace rastrace::report
