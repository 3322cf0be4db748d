#include "session/control_protocol.h"

#include <gtest/gtest.h>

namespace rastrace::session {
namespace {

TEST(ControlProtocol, RequestsRoundTrip) {
  for (Command c : {Command::kOn, Command::kOff, Command::kStop, Command::kStatus}) {
    auto parsed = ParseRequest(FormatRequest(c));
    ASSERT_TRUE(parsed);
    EXPECT_EQ(*parsed, c);
  }
}

TEST(ControlProtocol, BadRequestsAreRefusedWithAReason) {
  EXPECT_NE(ParseRequest("on").error().message.find("newline"), std::string::npos);
  EXPECT_NE(ParseRequest("jump\n").error().message.find("unknown request 'jump'"),
            std::string::npos);
  EXPECT_FALSE(ParseRequest("on\noff\n"));
  EXPECT_FALSE(ParseRequest(std::string(kMaxLine + 1, 'a')));
  EXPECT_FALSE(ParseRequest(std::string("o\0n\n", 4)));
}

TEST(ControlProtocol, RepliesRoundTripAndNewlinesCannotBeSmuggled) {
  auto reply = ParseReply(FormatReply({true, "log /tmp/x events 3\nerror fake"}));
  ASSERT_TRUE(reply);
  EXPECT_TRUE(reply->ok);
  EXPECT_EQ(reply->text, "log /tmp/x events 3 error fake");
  reply = ParseReply("error no session\n");
  ASSERT_TRUE(reply);
  EXPECT_FALSE(reply->ok);
  EXPECT_EQ(reply->text, "no session");
  EXPECT_FALSE(ParseReply("okay\n"));
  EXPECT_FALSE(ParseReply("maybe\n"));
}

}  // namespace
}  // namespace rastrace::session
