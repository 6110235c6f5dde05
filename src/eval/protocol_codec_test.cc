#include "eval/protocol_codec.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>

namespace kforge::eval {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;

constexpr std::string_view kEvaluation = R"({
  "status": "wrong_output", "error": "output 0 differs", "error_location": "cand.py:12",
  "reasons": ["calls torch.nn.GRU"],
  "correctness": {"precision": "calibrated", "input_sets": 5, "pass_calibrated": false,
                  "pass_kernelbench": false, "max_abs_err": "nan", "mean_abs_err": "inf",
                  "max_abs_err_fp64": "-inf", "mean_abs_err_fp64": 0.5,
                  "reference_err_fp64": 2.5e-4, "tolerance": 1e-3, "first_failure": "out[0]"},
  "generalizes": "no",
  "timing": {"candidate": {"median_ms": 15.14, "mean_ms": 15.2, "std_ms": 0.1, "min_ms": 15.0,
                           "trials": 100},
             "eager": {"median_ms": 20.7, "mean_ms": 20.8, "std_ms": 0.2, "min_ms": 20.5,
                       "trials": 100},
             "compile": null, "cuda_graph": {"median_ms": 8.7, "mean_ms": 8.7, "std_ms": 0.0,
                                            "min_ms": 8.6, "trials": 100},
             "baseline_errors": {"compile": "torch.compile failed"}},
  "score": 1.367, "speedup_vs_best_baseline": 0.575, "launches_per_forward": 6,
  "kernels": [{"name": "gru_kernel", "calls_per_forward": 6, "time_share": 0.9, "own": true}],
  "device": {"name": "NVIDIA H100", "sm_count": 132, "memory_gb": 79.1, "uuid": null},
  "versions": {"torch": "2.13.0", "triton": "3.6.0"},
  "shapes": {"batch_size": 10, "seq_len": 512, "batch_first": false},
  "wall_s": 12.5, "timed_s": 8.25, "notes": ["changed numerics"], "output_tail": "hi\n",
  "output_bytes": 3
})";

TEST(EncodeEvaluateRequest, CarriesEveryField) {
  EvalRequest request;
  request.task = "/tasks/39_GRU.py";
  request.candidate = "/c/cand.py";
  request.device = Device::kCpu;
  request.shrink = true;
  request.precision = Precision::kKernelBench;
  request.timeout_s = 12.5;
  request.overrides = {{"seq_len", 8}};
  std::string line = encode_evaluate_request(7, request);
  EXPECT_EQ(line.find('\n'), std::string::npos);
  auto reply = decode_reply(R"({"id": 7, "ok": true, "result": )" + line + "}");
  ASSERT_TRUE(reply) << reply.error().message;
  for (std::string_view expected :
       {R"("id":7)", R"("op":"evaluate")", R"("task_path":"/tasks/39_GRU.py")",
        R"("candidate_path":"/c/cand.py")", R"("device":"cpu")", R"("shrink":true)",
        R"("precision":"kernelbench")", R"("input_sets":5)", R"("trials":100)", R"("warmup":10)",
        R"("flush_l2":true)", R"("timeout_s":12.5)", R"("allow_pytorch_only":false)",
        R"("check_generalization":true)", R"("baselines":["eager"])",
        R"("overrides":{"seq_len":8})", R"("profile":true)"})
    EXPECT_THAT(line, HasSubstr(std::string(expected)));
}

TEST(EncodeEvaluateRequest, MakesRelativePathsAbsolute) {
  EvalRequest request;
  request.task = "tasks/t.py";
  request.candidate = "c.py";
  std::string line = encode_evaluate_request(1, request);
  EXPECT_THAT(line, HasSubstr(std::filesystem::current_path().string() + "/tasks/t.py"));
  EXPECT_THAT(line, HasSubstr(R"("overrides":{})"));
}

TEST(EncodeBaselineRequest, CarriesBaselines) {
  BaselineRequest request;
  request.task = "/t.py";
  std::string line = encode_baseline_request(3, request);
  EXPECT_THAT(line, HasSubstr(R"("op":"baseline")"));
  EXPECT_THAT(line, HasSubstr(R"("baselines":["eager","compile","cuda_graph"])"));
  EXPECT_THAT(line, HasSubstr(R"("device":"cuda")"));
}

TEST(EncodeInspectTaskRequest, NamesTheTaskAbsolutely) {
  std::string line = encode_inspect_task_request(9, {.task = "/t/39_GRU.py", .shrink = true});
  EXPECT_EQ(line, R"({"id":9,"op":"inspect_task","shrink":true,"task_path":"/t/39_GRU.py",)"
                  R"("timeout_s":120.0})");
}

TEST(EncodeAnalyzeRequest, AddsTheTaskOnlyWhenGiven) {
  std::string line = encode_analyze_request(
      4, {.candidate = "c.py", .device = Device::kCpu, .runtime = false, .timeout_s = 5});
  EXPECT_THAT(line, HasSubstr(R"("op":"analyze")"));
  EXPECT_THAT(line, HasSubstr(R"("candidate_path":"c.py")"));
  EXPECT_THAT(line, HasSubstr(R"("device":"cpu")"));
  EXPECT_THAT(line, Not(HasSubstr("task_path")));
  line = encode_analyze_request(4, {.candidate = "c.py", .task = "t.py"});
  EXPECT_THAT(line, HasSubstr(R"("task_path":"t.py")"));
}

TEST(EncodeHelloAndShutdown, AreOneLineEach) {
  EXPECT_EQ(encode_hello_request(1), R"({"id":1,"op":"hello"})");
  EXPECT_EQ(encode_shutdown_request(2), R"({"id":2,"op":"shutdown"})");
}

TEST(DecodeReply, SplitsEnvelope) {
  auto reply = decode_reply(R"({"id": 4, "ok": true, "result": {"a": 1}, "poisoned": true})");
  ASSERT_TRUE(reply) << reply.error().message;
  EXPECT_EQ(reply->id, 4);
  EXPECT_TRUE(reply->ok);
  EXPECT_TRUE(reply->poisoned);
  EXPECT_EQ(reply->result_json, R"({"a":1})");

  auto refused = decode_reply(R"({"id": null, "ok": false, "error": "failed to parse request"})");
  ASSERT_TRUE(refused);
  EXPECT_FALSE(refused->id);
  EXPECT_FALSE(refused->ok);
  EXPECT_EQ(refused->error, "failed to parse request");
}

TEST(DecodeReply, PoisonedInsideResultCounts) {
  auto reply = decode_reply(R"({"id": 1, "ok": true, "result": {"poisoned": true}})");
  ASSERT_TRUE(reply);
  EXPECT_TRUE(reply->poisoned);
}

TEST(DecodeReply, MalformedJsonIsLocated) {
  auto reply = decode_reply(R"({"id": 1, "ok": tru})");
  ASSERT_FALSE(reply);
  EXPECT_EQ(reply.error().message,
            "failed to parse worker reply: worker reply:1:20: syntax error while parsing value - "
            "invalid literal; last read: '\"ok\": tru}'\n"
            "    {\"id\": 1, \"ok\": tru}\n"
            "                       ^");
}

TEST(DecodeReply, GarbageLineIsLocated) {
  auto reply = decode_reply("Traceback (most recent call last):");
  ASSERT_FALSE(reply);
  EXPECT_THAT(reply.error().message,
              StartsWith("failed to parse worker reply: worker reply:1:1: syntax error"));
}

TEST(DecodeReply, LongLineShowsAWindowAroundTheError) {
  std::string line =
      R"({"id": 1, "ok": true, "result": {"pad": ")" + std::string(300, 'x') + R"("}, oops})";
  auto reply = decode_reply(line);
  ASSERT_FALSE(reply);
  const std::string& message = reply.error().message;
  EXPECT_THAT(message, HasSubstr("worker reply:1:346: "));
  EXPECT_THAT(message, HasSubstr("\n    ...xxxxx"));
  EXPECT_THAT(message, HasSubstr("\"}, oops}\n"));
  // The caret sits under the 'o' of oops.
  std::size_t excerpt = message.find("\n    ...") + 1;
  std::size_t caret_line = message.find('\n', excerpt) + 1;
  std::size_t caret = message.find('^', caret_line) - caret_line;
  EXPECT_EQ(message.substr(excerpt + caret, 4), "oops");
}

TEST(DecodeReply, MissingOkOrResultIsAnError) {
  auto no_ok = decode_reply(R"({"id": 1, "result": {}})");
  ASSERT_FALSE(no_ok);
  EXPECT_THAT(no_ok.error().message, HasSubstr("ok: missing"));
  auto no_result = decode_reply(R"({"id": 1, "ok": true})");
  ASSERT_FALSE(no_result);
  EXPECT_THAT(no_result.error().message, HasSubstr("result: missing (ok is true)"));
  auto array = decode_reply("[1, 2]");
  ASSERT_FALSE(array);
  EXPECT_THAT(array.error().message, HasSubstr("expected a JSON object, got [1,2]"));
}

TEST(DecodeEvaluation, ReadsEveryField) {
  auto evaluation = decode_evaluation(kEvaluation);
  ASSERT_TRUE(evaluation) << evaluation.error().message;
  const Evaluation& e = *evaluation;
  EXPECT_EQ(e.status, Status::kWrongOutput);
  EXPECT_EQ(e.error, "output 0 differs");
  EXPECT_EQ(e.error_location, "cand.py:12");
  EXPECT_EQ(e.reasons, std::vector<std::string>{"calls torch.nn.GRU"});
  ASSERT_TRUE(e.correctness);
  EXPECT_TRUE(std::isnan(e.correctness->max_abs_err));
  EXPECT_EQ(e.correctness->mean_abs_err, INFINITY);
  EXPECT_EQ(e.correctness->max_abs_err_fp64, -INFINITY);
  EXPECT_EQ(e.correctness->mean_abs_err_fp64, 0.5);
  EXPECT_EQ(e.correctness->reference_err_fp64, 2.5e-4);
  EXPECT_EQ(e.correctness->input_sets, 5);
  EXPECT_EQ(e.correctness->first_failure, "out[0]");
  EXPECT_EQ(e.generalizes, "no");
  ASSERT_TRUE(e.candidate);
  EXPECT_EQ(e.candidate->median_ms, 15.14);
  EXPECT_EQ(e.candidate->trials, 100);
  ASSERT_TRUE(e.eager);
  EXPECT_FALSE(e.compiled);
  ASSERT_TRUE(e.cuda_graph);
  EXPECT_EQ(e.cuda_graph->min_ms, 8.6);
  EXPECT_EQ(e.score, 1.367);
  EXPECT_EQ(e.speedup_vs_best_baseline, 0.575);
  EXPECT_EQ(e.launches_per_forward, 6);
  ASSERT_EQ(e.kernels.size(), 1u);
  EXPECT_EQ(e.kernels[0].name, "gru_kernel");
  EXPECT_TRUE(e.kernels[0].own);
  EXPECT_EQ(e.device.at("name"), "NVIDIA H100");
  EXPECT_EQ(e.device.at("sm_count"), "132");
  EXPECT_EQ(e.device.at("memory_gb"), "79.1");
  EXPECT_FALSE(e.device.contains("uuid"));
  EXPECT_EQ(e.versions.at("triton"), "3.6.0");
  EXPECT_EQ(e.shapes.at("seq_len"), 512);
  EXPECT_EQ(e.shapes.at("batch_first"), 0);
  EXPECT_EQ(e.wall_s, 12.5);
  EXPECT_EQ(e.timed_s, 8.25);
  EXPECT_EQ(e.baseline_errors.at("compile"), "torch.compile failed");
  EXPECT_EQ(e.notes, std::vector<std::string>{"changed numerics"});
  EXPECT_EQ(e.output_tail, "hi\n");
  EXPECT_EQ(e.output_bytes, 3);
  EXPECT_THAT(e.raw_json, StartsWith("{"));
}

TEST(DecodeEvaluation, MinimalReplyKeepsDefaults) {
  auto evaluation = decode_evaluation(R"({"status": "ok"})");
  ASSERT_TRUE(evaluation) << evaluation.error().message;
  EXPECT_EQ(evaluation->status, Status::kOk);
  EXPECT_FALSE(evaluation->correctness);
  EXPECT_FALSE(evaluation->candidate);
  EXPECT_FALSE(evaluation->score);
  EXPECT_EQ(evaluation->generalizes, "unknown");
}

TEST(DecodeEvaluation, WrongTypeIsLocatedAtTheField) {
  auto evaluation =
      decode_evaluation(R"({"status": "ok", "correctness": {"max_abs_err": true}, "score": 1})");
  ASSERT_FALSE(evaluation);
  EXPECT_EQ(evaluation.error().message,
            "failed to parse worker reply: worker result:1:34: correctness.max_abs_err: expected "
            "a number or \"nan\"/\"inf\"/\"-inf\", got true\n"
            "    {\"status\": \"ok\", \"correctness\": {\"max_abs_err\": true}, \"score\": 1}\n"
            "                                     ^");
}

TEST(DecodeEvaluation, UnknownOrMissingStatusIsAnError) {
  auto unknown = decode_evaluation(R"({"status": "exploded"})");
  ASSERT_FALSE(unknown);
  EXPECT_THAT(unknown.error().message, HasSubstr("status: unknown status \"exploded\""));
  auto missing = decode_evaluation(R"({"error": ""})");
  ASSERT_FALSE(missing);
  EXPECT_THAT(missing.error().message, HasSubstr("status: missing"));
}

TEST(DecodeEvaluation, BadListsAreNamedByIndex) {
  auto reasons = decode_evaluation(R"({"status": "rejected", "reasons": ["a", 3]})");
  ASSERT_FALSE(reasons);
  EXPECT_THAT(reasons.error().message, HasSubstr("reasons[1]: expected a string, got 3"));
  auto kernels = decode_evaluation(R"({"status": "ok", "kernels": [{"name": 5}]})");
  ASSERT_FALSE(kernels);
  EXPECT_THAT(kernels.error().message, HasSubstr("kernels[0].name: expected a string, got 5"));
  auto launches = decode_evaluation(R"({"status": "ok", "launches_per_forward": 2.5})");
  ASSERT_FALSE(launches);
  EXPECT_THAT(launches.error().message,
              HasSubstr("launches_per_forward: expected an integer, got 2.5"));
}

TEST(DecodeWorkerInfo, ReadsHello) {
  auto info = decode_worker_info(R"({"worker_version": "0.1.0", "python": "3.11.7",
      "torch": "2.13.0", "triton": "3.6.0", "numpy": "2.1", "cuda": "12.8",
      "device": {"name": "NVIDIA H100", "sm_count": 132, "memory_gb": 79.1,
                 "capability": [9, 0]}, "interpret": false, "pid": 4242})");
  ASSERT_TRUE(info) << info.error().message;
  EXPECT_EQ(info->torch, "2.13.0");
  EXPECT_EQ(info->cuda, "12.8");
  EXPECT_EQ(info->device_name, "NVIDIA H100");
  EXPECT_EQ(info->sm_count, 132);
  EXPECT_EQ(info->memory_gb, 79.1);
  EXPECT_EQ(info->capability, "9.0");
  EXPECT_EQ(info->pid, 4242);
  EXPECT_FALSE(info->interpret);
}

TEST(DecodeWorkerInfo, CpuHelloHasNoDevice) {
  auto info = decode_worker_info(
      R"({"worker_version": "0.1.0", "cuda": null, "device": null, "interpret": true})");
  ASSERT_TRUE(info) << info.error().message;
  EXPECT_FALSE(info->cuda);
  EXPECT_FALSE(info->device_name);
  EXPECT_TRUE(info->interpret);
}

TEST(DecodeBaseline, AcceptsTopLevelOrTimingObject) {
  auto top = decode_baseline(R"({"eager": {"median_ms": 42, "trials": 100}, "compile": null,
      "cuda_graph": {"median_ms": 8.7}, "shapes": {"seq_len": 512},
      "errors": {"compile": "no Triton"}, "wall_s": 30.5, "timed_s": 12})");
  ASSERT_TRUE(top) << top.error().message;
  EXPECT_EQ(top->eager->median_ms, 42);
  EXPECT_FALSE(top->compiled);
  EXPECT_EQ(top->cuda_graph->median_ms, 8.7);
  EXPECT_EQ(top->shapes.at("seq_len"), 512);
  EXPECT_EQ(top->errors.at("compile"), "no Triton");
  EXPECT_EQ(top->wall_s, 30.5);
  EXPECT_EQ(top->timed_s, 12);

  auto nested = decode_baseline(R"({"timing": {"eager": {"median_ms": 1}}})");
  ASSERT_TRUE(nested) << nested.error().message;
  EXPECT_EQ(nested->eager->median_ms, 1);
}

TEST(EncodeEvaluationOutput, AddsKforgeAndHidesScoreOnCpu) {
  auto evaluation = decode_evaluation(kEvaluation);
  ASSERT_TRUE(evaluation);
  OutputContext context;
  context.kforge_version = "0.1.0";
  context.task = "/t.py";
  context.candidate = "/c.py";
  context.device = Device::kCpu;
  context.exit_code = 1;
  std::string text = encode_evaluation_output(*evaluation, context);
  EXPECT_THAT(text, HasSubstr("\"score\": null"));
  EXPECT_THAT(text, HasSubstr("\"speedup_vs_best_baseline\": null"));
  EXPECT_THAT(text, HasSubstr("\"kforge\": {"));
  EXPECT_THAT(text, HasSubstr("\"candidate\": \"/c.py\""));
  EXPECT_THAT(text, HasSubstr("\"exit_code\": 1"));
  EXPECT_THAT(text, HasSubstr("\"max_abs_err\": \"nan\""));
}

TEST(EncodeEvaluationOutput, RoundTripsAPoolVerdict) {
  Evaluation crashed;
  crashed.status = Status::kCrashed;
  crashed.error = "worker died: killed by signal 11 (SIGSEGV)";
  crashed.correctness = Correctness{};
  crashed.correctness->max_abs_err = NAN;
  OutputContext context;
  context.task = "/t.py";
  context.candidate = "/c.py";
  std::string text = encode_evaluation_output(crashed, context);
  // The output minus "kforge" decodes back into the same verdict.
  auto decoded = decode_evaluation(text);
  ASSERT_TRUE(decoded) << decoded.error().message;
  EXPECT_EQ(decoded->status, Status::kCrashed);
  EXPECT_EQ(decoded->error, crashed.error);
  ASSERT_TRUE(decoded->correctness);
  EXPECT_TRUE(std::isnan(decoded->correctness->max_abs_err));
}

TEST(EncodeEvaluationOutput, SurvivesInvalidUtf8) {
  Evaluation crashed;
  crashed.error = "stderr tail: \xff\xfe broken";
  std::string text = encode_evaluation_output(crashed, OutputContext{});
  EXPECT_THAT(text, HasSubstr("broken"));
}

TEST(EncodeBaselineOutput, KeepsWorkerFields) {
  auto baseline = decode_baseline(R"({"eager": {"median_ms": 42}, "extra": 1})");
  ASSERT_TRUE(baseline);
  OutputContext context;
  context.task = "/t.py";
  std::string text = encode_baseline_output(*baseline, context);
  EXPECT_THAT(text, HasSubstr("\"extra\": 1"));
  EXPECT_THAT(text, HasSubstr("\"kforge\": {"));
  EXPECT_THAT(text, ::testing::Not(HasSubstr("\"candidate\"")));
}

}  // namespace
}  // namespace kforge::eval
