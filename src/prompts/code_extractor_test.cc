#include "prompts/code_extractor.h"

#include <gtest/gtest.h>

namespace kforge::prompts {
namespace {

TEST(ExtractModelCode, TakesTheFenceDefiningModelNew) {
  std::string reply =
      "Here:\n```bash\npip install triton\n```\nand\n```python\nimport torch\nclass "
      "ModelNew:\n    pass\n```\nDone.";
  auto code = extract_model_code(reply);
  ASSERT_TRUE(code.has_value()) << code.error().message;
  EXPECT_EQ(*code, "import torch\nclass ModelNew:\n    pass\n");
}

TEST(ExtractModelCode, AcceptsABareReplyAndATruncatedFence) {
  EXPECT_EQ(*extract_model_code("class ModelNew:\n    pass\n"), "class ModelNew:\n    pass\n");
  EXPECT_EQ(*extract_model_code("```python\nclass ModelNew:\n    x = 1"),
            "class ModelNew:\n    x = 1");
}

TEST(ExtractModelCode, ExplainsWhatIsMissing) {
  EXPECT_EQ(extract_model_code("I cannot help").error().message,
            "failed to extract code from the reply: it has no ```python block and no class "
            "ModelNew");
  EXPECT_EQ(extract_model_code("```python\nclass Model:\n    pass\n```").error().message,
            "failed to extract code from the reply: none of its 1 code block(s) defines class "
            "ModelNew");
}

}  // namespace
}  // namespace kforge::prompts
