#include "task/task_info.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace kforge::task {
namespace {

// inspect_task's reply for tasks/39_GRU.py at the shrunk shapes.
constexpr const char* kGru = R"json({
  "task_path": "/repo/tasks/39_GRU.py",
  "constants": {"batch_size": 10, "seq_len": 512, "input_size": 128, "hidden_size": 256,
                "num_layers": 6},
  "shrunk": {"batch_size": 2, "seq_len": 8, "input_size": 16, "hidden_size": 16},
  "shapes": {"batch_size": 2, "seq_len": 8, "input_size": 16, "hidden_size": 16, "num_layers": 6},
  "output_sources": [{"module": "gru", "value": "output"}],
  "modules": [{"path": "", "type": "Model", "args": {}},
              {"path": "gru", "type": "GRU",
               "args": {"input_size": 16, "hidden_size": 16, "num_layers": 6, "bias": true,
                        "batch_first": false, "bidirectional": false, "dropout": 0.0}}],
  "inputs": [{"shape": [8, 2, 16], "dtype": "float32"}, {"shape": [6, 2, 16], "dtype": "float32"}],
  "init_inputs": [{"shape": null, "dtype": "int", "value": 16}],
  "outputs": [{"shape": [8, 2, 16], "dtype": "float32"}],
  "forward_signature": "forward(self, x, h0)",
  "recurrent": true})json";

TEST(ParseTaskInfo, ReadsEveryField) {
  auto info = parse_task_info(kGru);
  ASSERT_TRUE(info) << info.error().message;
  EXPECT_EQ(info->task_path, "/repo/tasks/39_GRU.py");
  EXPECT_EQ(info->constants.at("seq_len"), "512");
  EXPECT_EQ(info->shrunk.at("seq_len"), "8");
  EXPECT_EQ(info->shapes.at("num_layers"), "6");
  ASSERT_EQ(info->modules.size(), 2u);
  const ModuleInfo* gru = info->find_module("GRU");
  ASSERT_NE(gru, nullptr);
  EXPECT_EQ(gru->path, "gru");
  EXPECT_EQ(gru->args.at("bidirectional"), "false");
  EXPECT_EQ(gru->args.at("hidden_size"), "16");
  EXPECT_EQ(info->find_module("LSTM"), nullptr);
  ASSERT_EQ(info->inputs.size(), 2u);
  EXPECT_EQ(info->inputs[1].shape, (std::vector<std::int64_t>{6, 2, 16}));
  EXPECT_EQ(info->inputs[1].dtype, "float32");
  ASSERT_EQ(info->init_inputs.size(), 1u);
  EXPECT_FALSE(info->init_inputs[0].shape);
  EXPECT_EQ(info->init_inputs[0].value, "16");
  ASSERT_EQ(info->output_sources.size(), 1u);
  ASSERT_TRUE(info->output_sources[0]);
  EXPECT_EQ(info->output_sources[0]->value, "output");
  EXPECT_EQ(info->forward_signature, "forward(self, x, h0)");
  EXPECT_TRUE(info->recurrent);
}

TEST(ParseTaskInfo, MissingFieldsKeepTheirDefaults) {
  auto info = parse_task_info(R"({"modules": [{"path": "", "type": "Model"}],
                                  "output_sources": [null]})");
  ASSERT_TRUE(info) << info.error().message;
  EXPECT_FALSE(info->recurrent);
  EXPECT_TRUE(info->outputs.empty());
  ASSERT_EQ(info->output_sources.size(), 1u);
  EXPECT_FALSE(info->output_sources[0]);
}

TEST(ParseTaskInfo, ErrorsNameTheFieldOrThePlace) {
  EXPECT_EQ(parse_task_info("[1]").error().message,
            "failed to read the task info: not a JSON object");
  EXPECT_EQ(parse_task_info(R"({"modules": {}})").error().message,
            "failed to read the task info: modules must be a list");
  EXPECT_EQ(parse_task_info(R"({"recurrent": "yes"})").error().message,
            "failed to read the task info: recurrent must be a boolean");
  EXPECT_EQ(parse_task_info(R"({"inputs": [{"shape": [2, "x"]}]})").error().message,
            "failed to read the task info: inputs shapes must hold integers");
  auto bad = parse_task_info("{\"recurrent\": true,\n \"modules\" []}");
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message.find("task_info:2:"), std::string::npos) << bad.error().message;
}

/// Answers `inspect_task` with a canned result and keeps what it was asked.
class InspectPool : public eval::WorkerPool {
 public:
  util::Result<eval::WorkerInfo> hello() override { return eval::WorkerInfo{}; }
  util::Result<eval::Evaluation> evaluate(const eval::EvalRequest&) override {
    return util::fail("not faked");
  }
  util::Result<eval::BaselineResult> baseline(const eval::BaselineRequest&) override {
    return util::fail("not faked");
  }
  util::Result<std::string> inspect_task(const eval::InspectTaskRequest& request) override {
    requests.push_back(request);
    return reply;
  }
  util::Result<std::string> analyze(const eval::AnalyzeRequest&) override {
    return util::fail("not faked");
  }
  std::size_t size() const override { return 1; }

  util::Result<std::string> reply;
  std::vector<eval::InspectTaskRequest> requests;
};

TEST(InspectTask, SendsTheRequestAndParsesTheResult) {
  InspectPool pool;
  pool.reply = std::string(kGru);
  auto info = inspect_task(pool, "/repo/tasks/39_GRU.py", true);
  ASSERT_TRUE(info) << info.error().message;
  EXPECT_TRUE(info->recurrent);
  ASSERT_EQ(pool.requests.size(), 1u);
  EXPECT_EQ(pool.requests[0].task, "/repo/tasks/39_GRU.py");
  EXPECT_TRUE(pool.requests[0].shrink);
}

TEST(InspectTask, PassesTheWorkersErrorOn) {
  InspectPool pool;
  pool.reply = util::fail("failed to load task tasks/bad.py: no get_inputs() defined");
  auto info = inspect_task(pool, "tasks/bad.py", false);
  ASSERT_FALSE(info);
  EXPECT_EQ(info.error().message, "failed to load task tasks/bad.py: no get_inputs() defined");
}

}  // namespace
}  // namespace kforge::task
