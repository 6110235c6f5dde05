#include "prompts/template.h"

#include <gtest/gtest.h>

namespace kforge::prompts {
namespace {

TEST(RenderTemplate, SubstitutesVariables) {
  auto out = render_template("GPU {{gpu}} with {{ sms }} SMs", {{"gpu", "H100"}, {"sms", "132"}});
  ASSERT_TRUE(out.has_value()) << out.error().message;
  EXPECT_EQ(*out, "GPU H100 with 132 SMs");
}

TEST(RenderTemplate, KeepsOneBranch) {
  std::string text = "a{{#if x}}X{{else}}Y{{/if}}b{{#unless x}}U{{/unless}}";
  EXPECT_EQ(*render_template(text, {{"x", "1"}}), "aXb");
  EXPECT_EQ(*render_template(text, {{"x", "false"}}), "aYbU");
  EXPECT_EQ(*render_template(text, {}), "aYbU");
}

TEST(RenderTemplate, NestsBlocksAndSkipsUnknownsInDeadBranches) {
  std::string text = "{{#if a}}{{#if b}}AB{{/if}}A{{else}}{{missing}}{{/if}}";
  EXPECT_EQ(*render_template(text, {{"a", "y"}, {"b", "y"}}), "ABA");
  EXPECT_EQ(*render_template(text, {{"a", "y"}}), "A");
}

TEST(RenderTemplate, BlockTagsOnTheirOwnLineLeaveNoBlankLine) {
  std::string text = "one\n{{#if x}}\ntwo\n{{/if}}\nthree\n";
  EXPECT_EQ(*render_template(text, {{"x", "1"}}), "one\ntwo\nthree\n");
  EXPECT_EQ(*render_template(text, {}), "one\nthree\n");
}

TEST(RenderTemplate, UnknownVariableIsALocatedError) {
  auto out = render_template("line one\nhello {{who}}\n", {}, "seed.txt");
  ASSERT_FALSE(out.has_value());
  EXPECT_EQ(out.error().message,
            "seed.txt:2:7: unknown variable who\n    hello {{who}}\n          ^");
}

TEST(RenderTemplate, UnbalancedTagsAreErrors) {
  EXPECT_NE(render_template("{{#if a}}x", {}).error().message.find("never closed"),
            std::string::npos);
  EXPECT_NE(render_template("x{{/if}}", {}).error().message.find("unbalanced"), std::string::npos);
  EXPECT_NE(render_template("x{{y", {}).error().message.find("unterminated"), std::string::npos);
  EXPECT_NE(render_template("{{#if a}}{{/unless}}", {}).error().message.find("closes"),
            std::string::npos);
}

}  // namespace
}  // namespace kforge::prompts
