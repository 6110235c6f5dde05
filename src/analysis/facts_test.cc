#include "analysis/facts.h"

#include <gtest/gtest.h>

namespace kforge::analysis {
namespace {

TEST(ParseFacts, ReadsKernelsLaunchesAndRuntime) {
  auto facts = parse_facts(R"json({
    "path": "c.py", "versions": {"triton": "3.6.0"}, "syntax_error": null,
    "jit_functions": [{
      "name": "k", "line": 3, "params": [{"name": "H", "constexpr": true}],
      "program_id_axes": [0, 1],
      "loops": [{"id": 0, "kind": "for", "var": "t", "iter": "range(T)", "stop": "T",
                 "step": null, "unit_step": true, "roles": ["time"], "line": 9,
                 "loads": 2, "stores": 1}],
      "memory": [{"kind": "store", "op": "tl.store", "line": 12, "pointer": "h_ptr + o",
                  "bases": ["h_ptr"], "pid_atoms": ["pid_h"], "loops": [0]}],
      "missing_api": [{"name": "tl.tanh", "line": 10, "column": 5}],
      "recurrences": [{"loop": 0, "loop_line": 9, "buffer": "h_ptr", "store_lines": [12],
                       "load_lines": [10], "cross_program": true, "foreign_axes": [1],
                       "barrier": "none"}],
      "launched": true
}],
    "launches": [{"kernel": "k", "line": 30, "grid": "(B,)", "in_forward": true,
                  "dims": [{"expr": "B", "names": ["B"], "roles": ["batch"]}],
                  "loops": [{"function": "ModelNew.forward", "kind": "for", "var": "t",
                             "iter": "range(T)", "line": 28, "roles": ["time"]}]}],
    "torch_ops": [{"name": "torch.nn.GRU", "family": "gru", "heavy": true, "line": 40}],
    "forward": {"line": 27},
    "reference": {"families": ["gru"], "recurrent": true, "layers": 6, "directions": 2},
    "runtime": {
  "status" : "ok",
             "launches_per_forward" : 6150,
             "kernels"
      : [ {"name" : "k", "calls_per_forward" : 6150, "time_share" : null, "own" : true} ]
}
})json",
                           "fixture");
  ASSERT_TRUE(facts.has_value()) << facts.error().message;
  EXPECT_EQ(facts->triton_version, "3.6.0");
  ASSERT_EQ(facts->jit_functions.size(), 1u);
  const JitFunction& k = facts->jit_functions[0];
  EXPECT_TRUE(k.params[0].constexpr_);
  ASSERT_NE(k.loop(0), nullptr);
  EXPECT_EQ(k.loop(0)->roles, std::vector<std::string>{"time"});
  EXPECT_FALSE(k.loop(0)->step.has_value());
  EXPECT_EQ(k.loop(7), nullptr);
  EXPECT_EQ(k.memory[0].bases, std::vector<std::string>{"h_ptr"});
  EXPECT_EQ(k.recurrences[0].foreign_axes, std::vector<int>{1});
  EXPECT_EQ(k.missing_api[0].column, 5);
  EXPECT_EQ(facts->jit_function("k"), &facts->jit_functions[0]);
  EXPECT_EQ(facts->jit_function("nope"), nullptr);
  ASSERT_TRUE(facts->launches[0].dims.has_value());
  EXPECT_EQ(facts->launches[0].loops[0].line, 28);
  EXPECT_EQ(facts->forward_line, 27);
  EXPECT_EQ(facts->reference->layers, 6);
  EXPECT_EQ(facts->reference->directions, 2);
  EXPECT_EQ(facts->runtime->launches_per_forward, 6150);
  EXPECT_FALSE(facts->runtime->kernels[0].time_share.has_value());
}

TEST(ParseFacts, UnresolvedGridHasNoDims) {
  auto facts = parse_facts(
      R"({"path": "c.py", "jit_functions": [], "launches": [{"kernel": "k", "dims": null}]})",
      "fixture");
  ASSERT_TRUE(facts.has_value());
  EXPECT_FALSE(facts->launches[0].dims.has_value());
  EXPECT_FALSE(facts->reference.has_value());
  EXPECT_FALSE(facts->runtime.has_value());
}

TEST(ParseFacts, ErrorsNameTheOriginAndPlace) {
  auto broken = parse_facts("{\n  \"path\": \"c.py\",\n  oops\n}", "worker reply");
  ASSERT_FALSE(broken.has_value());
  EXPECT_EQ(broken.error().message,
            "failed to parse analysis facts from worker reply:3:3: not valid JSON");
  auto wrong = parse_facts("[1, 2]", "worker reply");
  ASSERT_FALSE(wrong.has_value());
  EXPECT_EQ(wrong.error().message,
            "failed to parse analysis facts from worker reply: not a JSON object");
  auto missing = parse_facts("{\"path\": \"c.py\"}", "f.json");
  ASSERT_FALSE(missing.has_value());
  EXPECT_EQ(missing.error().message,
            "failed to parse analysis facts from f.json: no jit_functions or launches");
}

}  // namespace
}  // namespace kforge::analysis
