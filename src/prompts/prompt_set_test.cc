#include "prompts/prompt_set.h"

#include <gtest/gtest.h>

namespace kforge::prompts {
namespace {

TEST(PromptSet, RendersSharedPartsWithTheSameVariables) {
  PromptSet set = PromptSet::from_texts({
      {"system", "You write {{language}} kernels."},
      {"pitfalls", "{{#if recurrent}}time loop inside{{/if}}"},
      {"seed", "Task {{task_name}}\n{{pitfalls}}"},
  });
  auto messages =
      set.messages("seed", {{"language", "Triton"}, {"task_name", "gru"}, {"recurrent", "1"}});
  ASSERT_TRUE(messages.has_value()) << messages.error().message;
  ASSERT_EQ(messages->size(), 2u);
  EXPECT_EQ((*messages)[0].role, "system");
  EXPECT_EQ((*messages)[0].content, "You write Triton kernels.");
  EXPECT_EQ((*messages)[1].content, "Task gru\ntime loop inside");
}

TEST(PromptSet, ErrorsNameTheTemplate) {
  PromptSet set = PromptSet::from_texts({{"seed", "{{nope}}"}});
  auto out = set.render("seed", {});
  ASSERT_FALSE(out.has_value());
  EXPECT_EQ(out.error().message.rfind("seed.txt:1:1: unknown variable nope", 0), 0u);
  EXPECT_EQ(set.render("repair", {}).error().message,
            "failed to render prompt repair: no repair.txt");
}

TEST(PromptSet, LoadsTheRepositoryPrompts) {
  auto set = PromptSet::load(std::string(KFORGE_SOURCE_DIR) + "/prompts");
  ASSERT_TRUE(set.has_value()) << set.error().message;
}

}  // namespace
}  // namespace kforge::prompts
