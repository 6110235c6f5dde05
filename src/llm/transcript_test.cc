#include "llm/transcript.h"

#include <gtest/gtest.h>

namespace kforge::llm {
namespace {

TEST(Transcript, RedactsTheKeyWhereverItAppears) {
  Transcript transcript;
  transcript.request = {
      {"messages", {{{"role", "user"}, {"content", "my key is sk-abcdef123456"}}}}};
  transcript.error = "HTTP 401: Incorrect API key provided: sk-abcdef123456";
  std::string text = transcript_json(transcript, "sk-abcdef123456");
  EXPECT_EQ(text.find("sk-abcdef123456"), std::string::npos);
  EXPECT_NE(text.find("Incorrect API key provided: [redacted]"), std::string::npos);
  EXPECT_EQ(redact("short key x", "x"), "short key x");
  EXPECT_EQ(redact("aaaaaaaaaaaaaaaa", "aaaaaaaa"), "[redacted][redacted]");
}

TEST(WriteTranscript, FailsNamingThePath) {
  auto written = write_transcript("/proc/kforge/cannot/1.json", Transcript{}, "");
  ASSERT_FALSE(written);
  EXPECT_TRUE(written.error().message.starts_with(
      "failed to write transcript /proc/kforge/cannot/1.json: "))
      << written.error().message;
}

}  // namespace
}  // namespace kforge::llm
