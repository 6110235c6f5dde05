#include "analysis/analysis.h"

#include <gtest/gtest.h>

#include "analysis/diagnostic_format.h"

namespace kforge::analysis {
namespace {

/// A pool that answers `analyze` with a canned reply and records what it was sent.
class RecordingPool : public eval::WorkerPool {
 public:
  explicit RecordingPool(util::Result<std::string> reply) : reply_(std::move(reply)) {}
  util::Result<eval::WorkerInfo> hello() override { return eval::WorkerInfo{}; }
  util::Result<eval::Evaluation> evaluate(const eval::EvalRequest&) override {
    return util::fail("not used");
  }
  util::Result<eval::BaselineResult> baseline(const eval::BaselineRequest&) override {
    return util::fail("not used");
  }
  util::Result<std::string> inspect_task(const eval::InspectTaskRequest&) override {
    return util::fail("not used");
  }
  util::Result<std::string> analyze(const eval::AnalyzeRequest& request) override {
    sent = request;
    return reply_;
  }
  std::size_t size() const override { return 1; }

  eval::AnalyzeRequest sent;

 private:
  util::Result<std::string> reply_;
};

constexpr const char* kRaceFacts = R"json({
  "path": "c.py", "versions": {"triton": "3.6.0"},
  "jit_functions": [{"name": "gru", "line": 1, "loops": [
      {"id": 0, "kind": "for", "var": "t", "iter": "range(T)",
                     "roles" : ["time"], "line" : 5, "loads" : 1, "stores" : 1
}],
    "memory": [{"kind": "load", "line": 6, "pointer": "h + k", "bases": ["h"], "loops": [0]},
               {"kind": "store", "line": 7, "pointer": "h + o", "bases": ["h"], "loops": [0]}],
    "recurrences": [{"loop": 0, "loop_line": 5, "buffer": "h", "store_lines": [7],
                     "load_lines": [6], "cross_program": true, "foreign_axes": [1],
                     "barrier": "debug_barrier"}],
    "launched": true
}],
  "launches": [], "runtime": {
  "status" : "ok", "launches_per_forward" : 3
}
})json";

TEST(AnalyzeCandidate, SendsTheAnalyzeRequestAndAppliesTheRules) {
  RecordingPool pool{std::string(kRaceFacts)};
  AnalyzeOptions options;
  options.task = "t.py";
  options.runtime = true;
  options.device = eval::Device::kCpu;
  options.timeout_s = 42;
  auto report = analyze_candidate(pool, "c.py", options);
  ASSERT_TRUE(report.has_value()) << report.error().message;
  EXPECT_EQ(pool.sent.candidate, "c.py");
  EXPECT_EQ(pool.sent.task, std::filesystem::path("t.py"));
  EXPECT_EQ(pool.sent.device, eval::Device::kCpu);
  EXPECT_TRUE(pool.sent.runtime);
  EXPECT_FALSE(pool.sent.shrink);
  EXPECT_EQ(pool.sent.timeout_s, 42);
  ASSERT_EQ(report->diagnostics.size(), 1u);
  const Diagnostic& d = report->diagnostics[0];
  EXPECT_EQ(d.rule, "missing-grid-barrier");
  EXPECT_EQ(d.severity, Severity::kError);
  EXPECT_EQ(d.location.file, "c.py");
  EXPECT_EQ(d.location.line, 5u);
  EXPECT_NE(d.message.find("tl.debug_barrier() synchronises the threads of one program only"),
            std::string::npos);
  EXPECT_TRUE(report->has_errors());
  EXPECT_TRUE(report->persistent);
  EXPECT_EQ(report->kernel_type, "persistent_recurrent");
  EXPECT_EQ(report->launches_per_forward, 3);
}

TEST(AnalyzeCandidate, ReportsWorkerAndReplyErrors) {
  RecordingPool down{util::fail("failed to start worker: no python")};
  auto failed = analyze_candidate(down, "c.py", {});
  ASSERT_FALSE(failed.has_value());
  EXPECT_EQ(failed.error().message, "failed to analyze c.py: failed to start worker: no python");
  RecordingPool garbage{std::string("{}")};
  auto bad = analyze_candidate(garbage, "c.py", {});
  ASSERT_FALSE(bad.has_value());
  EXPECT_EQ(bad.error().message,
            "failed to analyze c.py: failed to parse analysis facts from worker reply: no "
            "jit_functions or launches");
}

TEST(FormatDiagnostic, PrintsLikeACompilerWithTheHint) {
  Diagnostic d{"missing-triton-api",
               Severity::kError,
               {"c.py", 2, 9},
               "`tl.tanh` is missing",
               "use libdevice.tanh"};
  EXPECT_EQ(format_diagnostic(d, "import triton\n    y = tl.tanh(x)\n"),
            "c.py:2:9: error: `tl.tanh` is missing [missing-triton-api]\n"
            "        y = tl.tanh(x)\n"
            "            ^\n"
            "  hint: use libdevice.tanh");
  Report report;
  report.diagnostics.push_back(d);
  report.kernel_type = "elementwise";
  EXPECT_EQ(format_summary(report),
            "classification: kernel_type=elementwise persistent=no launches_per_forward=not "
            "measured (1 error, 0 warnings)");
  EXPECT_NE(report_to_json(report).find("\"rule\": \"missing-triton-api\""), std::string::npos);
}

}  // namespace
}  // namespace kforge::analysis
