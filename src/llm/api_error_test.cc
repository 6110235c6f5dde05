#include "llm/api_error.h"

#include <gtest/gtest.h>

namespace kforge::llm {
namespace {

TEST(ParseApiError, ReadsEachServerDialect) {
  ApiError openai = parse_api_error(
      R"({"error": {"message": "Unsupported parameter: 'max_tokens'", "type":
          "invalid_request_error", "param": "max_tokens", "code": "unsupported_parameter"}})");
  EXPECT_EQ(openai.message, "Unsupported parameter: 'max_tokens'");
  EXPECT_EQ(openai.param, "max_tokens");
  EXPECT_EQ(openai.code, "unsupported_parameter");
  ApiError anthropic = parse_api_error(
      R"({"type": "error", "error": {"type": "not_found_error", "message": "model: x"}})");
  EXPECT_EQ(anthropic.type, "not_found_error");
  EXPECT_EQ(anthropic.message, "model: x");
  EXPECT_EQ(parse_api_error(R"({"error": "model 'llama3' not found"})").message,
            "model 'llama3' not found");
  EXPECT_EQ(parse_api_error(R"({"detail": "Not Found"})").message, "Not Found");
  EXPECT_EQ(parse_api_error("  <html>Bad Gateway</html>\n").message, "<html>Bad Gateway</html>");
  EXPECT_EQ(parse_api_error(R"({"object": "error", "message": "vllm says no", "code": 400})").code,
            "400");
}

TEST(RejectedParameter, FindsTheParameterByFieldOrByName) {
  EXPECT_EQ(rejected_parameter({"Unsupported parameter: 'max_tokens' is not supported with this "
                                "model. Use 'max_completion_tokens' instead.",
                                "", "", ""}),
            "max_tokens");
  EXPECT_EQ(rejected_parameter(
                {"Unrecognized request argument supplied: max_completion_tokens", "", "", ""}),
            "max_completion_tokens");
  EXPECT_EQ(rejected_parameter({"stream_options: Extra inputs are not permitted", "", "", ""}),
            "stream_options");
  EXPECT_EQ(rejected_parameter({"whatever", "", "temperature", "unsupported_value"}),
            "temperature");
  // A value out of range is no unsupported parameter.
  EXPECT_EQ(rejected_parameter({"Invalid max_tokens value, the valid range of max_tokens is "
                                "[1, 8192]",
                                "", "", ""}),
            "");
}

TEST(IsContextLengthError, RecognisesCommonWordings) {
  EXPECT_TRUE(is_context_length_error(
      {"This model's maximum context length is 65536 tokens.", "", "", ""}));
  EXPECT_TRUE(
      is_context_length_error({"prompt is too long: 210000 tokens > 200000 maximum", "", "", ""}));
  EXPECT_TRUE(is_context_length_error({"x", "", "", "context_length_exceeded"}));
  EXPECT_FALSE(is_context_length_error({"Invalid API key", "", "", ""}));
}

}  // namespace
}  // namespace kforge::llm
