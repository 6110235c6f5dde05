#include "pipeline/reply_parser.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace kforge::pipeline {
namespace {

constexpr const char* kModelNew =
    "import torch\nimport triton\n\nclass ModelNew(torch.nn.Module):\n    def forward(self, x):\n"
    "        return x\n";

TEST(ExtractCandidateCode, PicksTheBlockDefiningModelNewOverLongerOnes) {
  std::string reply = std::string("Here is the plan.\n```python\n# a long helper block\n") +
                      std::string(400, '#') + "\n```\nAnd the model:\n```py\n" + kModelNew +
                      "```\nDone.";
  auto code = extract_candidate_code(reply);
  ASSERT_TRUE(code) << code.error().message;
  EXPECT_TRUE(code->defines_model_new);
  EXPECT_FALSE(code->unterminated);
  EXPECT_EQ(code->code, kModelNew);
}

TEST(ExtractCandidateCode, LongestOfSeveralModelNewBlocksAndBareFences) {
  std::string longer = std::string(kModelNew) + "\n# tuned\n";
  std::string reply =
      "```\n" + std::string(kModelNew) + "```\ntext\n~~~python\n" + longer + "~~~\n";
  auto code = extract_model_new(reply);
  ASSERT_TRUE(code) << code.error().message;
  EXPECT_EQ(*code, longer);
}

TEST(ExtractCandidateCode, ElseTheLongestPythonBlockFlaggedAsNotDefiningModelNew) {
  auto code = extract_candidate_code("```python\nx = 1\n```\n```python\nclass Model:\n  pass\n```");
  ASSERT_TRUE(code);
  EXPECT_FALSE(code->defines_model_new);
  EXPECT_EQ(code->code, "class Model:\n  pass\n");
  auto strict = extract_model_new("```python\nx = 1\n```");
  ASSERT_FALSE(strict);
  EXPECT_EQ(strict.error().message,
            "failed to extract code from the reply: no code block defines class "
            "ModelNew(nn.Module)");
}

TEST(ExtractCandidateCode, BareSourceAndTruncatedReplies) {
  auto bare = extract_candidate_code(std::string("Sure! Here it is:\n") + kModelNew);
  ASSERT_TRUE(bare) << bare.error().message;
  EXPECT_EQ(bare->code, kModelNew);
  auto cut = extract_candidate_code("```python\nclass ModelNew(nn.Module):\n    def forw");
  ASSERT_TRUE(cut);
  EXPECT_TRUE(cut->unterminated);
  EXPECT_TRUE(cut->defines_model_new);
  auto nothing = extract_candidate_code("I cannot help with that.");
  ASSERT_FALSE(nothing);
  EXPECT_EQ(nothing.error().message,
            "failed to extract code from the reply: no ```python block and no class ModelNew");
  auto other = extract_candidate_code("```bash\npip install triton\n```");
  ASSERT_FALSE(other);
  EXPECT_EQ(other.error().message,
            "failed to extract code from the reply: no ```python block (found 1 block in other "
            "languages)");
}

constexpr const char* kAnalysis = R"({
  "worth_optimizing": {"answer": "yes", "reason": "the time loop runs in Python"},
  "bottleneck": "6150 kernel launches per forward",
  "optimisation_method": "persistent kernel with the time loop inside",
  "modification_plan": ["precompute the input projection", "loop over time in the kernel"],
  "expected_speedup": "5-10x",
  "implementation_complexity": "Persistent",
  "kernel_type": "persistent_recurrent"
})";

TEST(ParseAnalysis, FencedJsonInProse) {
  auto diagnosis = parse_analysis(std::string("My analysis:\n```json\n") + kAnalysis +
                                  "\n```\nHope this helps.");
  ASSERT_TRUE(diagnosis) << diagnosis.error().message;
  EXPECT_TRUE(diagnosis->worth_optimizing);
  EXPECT_EQ(diagnosis->reason, "the time loop runs in Python");
  EXPECT_EQ(diagnosis->bottleneck, "6150 kernel launches per forward");
  EXPECT_EQ(diagnosis->modification_plan,
            "precompute the input projection\nloop over time in the kernel");
  EXPECT_EQ(diagnosis->expected_speedup, "5-10x");
  EXPECT_EQ(diagnosis->expected_speedup_factor, 5.0);
  EXPECT_EQ(diagnosis->implementation_complexity, Complexity::kPersistent);
  EXPECT_EQ(diagnosis->kernel_type, "persistent_recurrent");
}

TEST(ParseAnalysis, BareObjectWithFlatFieldsAndModelSlips) {
  auto diagnosis = parse_analysis(
      "Thinking about {braces} in prose first.\n"
      R"({"worth_optimizing": "no - already at the memory roofline", "bottleneck": "bandwidth",
          // a comment
          "optimization_method": "none", "modification_plan": "keep it",
          "expected_speedup": 1.0, "implementation_complexity": "low",
          "kernel_type": "Elementwise",})"
      "\nThat's all.");
  ASSERT_TRUE(diagnosis) << diagnosis.error().message;
  EXPECT_FALSE(diagnosis->worth_optimizing);
  EXPECT_EQ(diagnosis->reason, "already at the memory roofline");
  EXPECT_EQ(diagnosis->optimisation_method, "none");
  EXPECT_EQ(diagnosis->expected_speedup_factor, 1.0);
  EXPECT_EQ(diagnosis->kernel_type, "elementwise");
}

TEST(ParseAnalysis, ListsEveryMissingOrInvalidField) {
  auto diagnosis = parse_analysis(
      R"(```json
{"worth_optimizing": "maybe", "bottleneck": "", "implementation_complexity": "huge",
 "expected_speedup": "2x"}
```)");
  ASSERT_FALSE(diagnosis);
  EXPECT_EQ(diagnosis.error().message,
            "failed to parse the analysis: missing reason, bottleneck, "
            "optimisation_method, modification_plan, kernel_type; worth_optimizing must be yes or "
            "no (got \"maybe\"); implementation_complexity must be one of low, medium, high, "
            "persistent (got \"huge\")");
}

TEST(ParseAnalysis, TextsCutOffOrTooLongAreInvalid) {
  nlohmann::json object = nlohmann::json::parse(kAnalysis);
  object["bottleneck"] = "Per-SM L2 bandwidth, from grid size (6 CTAs) versus SM count (132...";
  object["modification_plan"] = std::string(4001, 'x');
  auto diagnosis = parse_analysis(object.dump());
  ASSERT_FALSE(diagnosis);
  EXPECT_EQ(diagnosis.error().message,
            "failed to parse the analysis: bottleneck looks cut off (it ends with \"...\"): "
            "write it out in full; modification_plan is 4001 characters long (at most 4000)");
  object["bottleneck"] = "6150 launches per forward.";
  object["modification_plan"] = "1) keep W in registers over [t0, t1)\n2) move the loop into (";
  object["expected_speedup"] = "about 5x (estimated: no timings)";
  diagnosis = parse_analysis(object.dump());
  ASSERT_FALSE(diagnosis);
  EXPECT_EQ(diagnosis.error().message,
            "failed to parse the analysis: modification_plan looks cut off (it ends with \"(\"): "
            "write it out in full");
}

TEST(ParseAnalysis, SyntaxErrorsCarryTheReplyLocation) {
  auto diagnosis = parse_analysis("Analysis:\n```json\n{\"worth_optimizing\": yes}\n```");
  ASSERT_FALSE(diagnosis);
  EXPECT_EQ(diagnosis.error().message,
            "failed to parse the analysis: reply:3:22: syntax error while parsing value - "
            "invalid literal; last read: '\"worth_optimizing\": y'\n"
            "    {\"worth_optimizing\": yes}\n"
            "                         ^");
  auto none = parse_analysis("no json here");
  ASSERT_FALSE(none);
  EXPECT_EQ(none.error().message, "failed to parse the analysis: the reply holds no JSON object");
}

TEST(ExtractCandidateCode, SkipsBlocksInOtherLanguages) {
  std::string reply =
      "Here:\n```bash\npip install triton\n```\nand\n```python\nimport torch\nclass "
      "ModelNew:\n    pass\n```\nDone.";
  auto code = extract_model_new(reply);
  ASSERT_TRUE(code) << code.error().message;
  EXPECT_EQ(*code, "import torch\nclass ModelNew:\n    pass\n");
  EXPECT_EQ(*extract_model_new("class ModelNew:\n    pass\n"), "class ModelNew:\n    pass\n");
  EXPECT_EQ(*extract_model_new("```python\nclass ModelNew:\n    x = 1"),
            "class ModelNew:\n    x = 1\n");
}

TEST(ParseAnalysis, SpacedFieldNamesAndAnObjectForWorthOptimizing) {
  auto diagnosis = parse_analysis(R"(```json
{"worth optimizing": {"answer": "no", "reason": "at roofline"}, "bottleneck": "b",
 "optimisation method": "persistent kernel", "modification plan": "p",
 "expected speedup": "1x", "implementation complexity": "Persistent",
 "kernel type": "persistent_recurrent"}
```)");
  ASSERT_TRUE(diagnosis) << diagnosis.error().message;
  EXPECT_FALSE(diagnosis->worth_optimizing);
  EXPECT_EQ(diagnosis->reason, "at roofline");
  EXPECT_EQ(diagnosis->optimisation_method, "persistent kernel");
  EXPECT_EQ(diagnosis->implementation_complexity, Complexity::kPersistent);
  EXPECT_EQ(diagnosis->kernel_type, "persistent_recurrent");
}

TEST(ParseAnalysis, ListsAnUnknownKernelTypeWithTheOtherProblems) {
  auto diagnosis = parse_analysis(
      R"({"worth_optimizing": "maybe", "reason": "r", "optimisation_method": "m",
          "expected_speedup": "2x", "implementation_complexity": "huge",
          "kernel_type": "stencil"})");
  ASSERT_FALSE(diagnosis);
  EXPECT_EQ(diagnosis.error().message,
            "failed to parse the analysis: missing bottleneck, modification_plan; "
            "worth_optimizing must be yes or no (got \"maybe\"); implementation_complexity must "
            "be one of low, medium, high, persistent (got \"huge\"); kernel_type must be one of "
            "persistent_recurrent, elementwise, reduction, gemm, conv, mixed (got \"stencil\")");
}

TEST(ParseAnalysis, KeepsUtf8TextAndLocatesInvalidBytes) {
  auto diagnosis = parse_analysis(
      "Gedanken — zuerst:\n"
      R"({"worth_optimizing": "yes — launch bound", "bottleneck": ["6150 Starts", {"µs": 3}],
          "optimisation_method": "persistent", "modification_plan": "p",
          "expected_speedup": "≈5x", "implementation_complexity": "high",
          "kernel_type": "mixed"})");
  ASSERT_TRUE(diagnosis) << diagnosis.error().message;
  EXPECT_EQ(diagnosis->reason, "launch bound");
  EXPECT_EQ(diagnosis->bottleneck, "6150 Starts\n{\"µs\":3}");
  EXPECT_EQ(diagnosis->expected_speedup_factor, 5.0);
  auto invalid = parse_analysis("{\"reason\": \"a\xff\"}");
  ASSERT_FALSE(invalid);
  EXPECT_NE(invalid.error().message.find("reply:1:"), std::string::npos) << invalid.error().message;
}

TEST(FindCodeBlocks, ReportsLanguageLineAndClosure) {
  auto blocks = find_code_blocks("a\n```Python title\nx\n```\n  ```json\n{}\n");
  ASSERT_EQ(blocks.size(), 2u);
  EXPECT_EQ(blocks[0].language, "python");
  EXPECT_EQ(blocks[0].line, 3u);
  EXPECT_TRUE(blocks[0].closed);
  EXPECT_EQ(blocks[1].language, "json");
  EXPECT_FALSE(blocks[1].closed);
}

}  // namespace
}  // namespace kforge::pipeline
