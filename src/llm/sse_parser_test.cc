#include "llm/sse_parser.h"

#include <gtest/gtest.h>

namespace kforge::llm {
namespace {

TEST(SseParser, DispatchesOnBlankLinesAcrossArbitraryChunks) {
  std::string stream =
      "event: content_block_delta\r\ndata: {\"a\":1}\r\n\r\n: comment\n\ndata: first\ndata: "
      "second\nid: 7\nretry: 100\n\ndata:[DONE]\n\n";
  // Fed one byte at a time, the result must equal feeding it whole.
  SseParser whole, bytewise;
  std::vector<SseEvent> a = whole.feed(stream), b;
  for (char c : stream)
    for (SseEvent& event : bytewise.feed(std::string_view(&c, 1))) b.push_back(event);
  for (const auto& events : {a, b}) {
    ASSERT_EQ(events.size(), 3u);
    EXPECT_EQ(events[0].type, "content_block_delta");
    EXPECT_EQ(events[0].data, "{\"a\":1}");
    EXPECT_EQ(events[1].type, "message");
    EXPECT_EQ(events[1].data, "first\nsecond");
    EXPECT_EQ(events[2].data, "[DONE]");
  }
  EXPECT_FALSE(whole.has_partial_event());
}

TEST(SseParser, LoneCarriageReturnsEndLinesAndPartialEventsAreReported) {
  SseParser parser;
  auto events = parser.feed("data: x\r\rdata: y");
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].data, "x");
  EXPECT_TRUE(parser.has_partial_event());
  EXPECT_TRUE(parser.feed("\n").empty());
  EXPECT_TRUE(parser.has_partial_event());
  events = parser.feed("\n");
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].data, "y");
}

TEST(SseParser, EventWithoutDataIsNotDispatched) {
  SseParser parser;
  EXPECT_TRUE(parser.feed("event: ping\n\n").empty());
  auto events = parser.feed("data\n\n");  // a field name alone means empty data
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].data, "");
}

}  // namespace
}  // namespace kforge::llm
