#include "suite/suite_report.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace kforge::suite {
namespace {

SuiteConfig config(eval::Device device) {
  SuiteConfig c;
  c.mode = "eval";
  c.task_ids = {"1_A", "2_B", "3_C", "4_D"};
  c.task_paths = {"/k/1_A.py", "/k/2_B.py", "/k/3_C.py", "/k/4_D.py"};
  c.settings.device = device;
  return c;
}

TaskResult row(std::string id, std::string status) {
  TaskResult r;
  r.id = std::move(id);
  r.status = std::move(status);
  r.error_head = r.status == "ok" ? "" : "output 0 differs | at [0]";
  return r;
}

std::map<std::string, TaskResult> cpu_rows() {
  std::map<std::string, TaskResult> rows;
  rows["1_A"] = row("1_A", "ok");
  rows["2_B"] = row("2_B", "rejected");
  rows["2_B"].reasons = {"called the operator it replaces (aten::relu)"};
  rows["3_C"] = row("3_C", "missing");
  return rows;  // 4_D: never finished
}

TEST(AssembleRecord, EveryTaskOnceInSuiteOrder) {
  SuiteRecord r = assemble_record(config(eval::Device::kCpu), cpu_rows(), true);
  ASSERT_EQ(r.tasks.size(), 4u);
  EXPECT_EQ(r.tasks[3].id, "4_D");
  EXPECT_EQ(r.tasks[3].status, "not_run");
  EXPECT_EQ(assemble_record(config(eval::Device::kCpu), cpu_rows(), false).tasks.size(), 3u);
}

TEST(SuiteReport, CpuSuiteSaysUnrankedNeverInventsSpeedups) {
  SuiteRecord r = assemble_record(config(eval::Device::kCpu), cpu_rows(), true);
  std::string md = render_suite_markdown(r);
  EXPECT_NE(md.find("| fast_0 | 0.250 (1/4) | 0.250 (1/4) | 0.250 (1/4) |"), std::string::npos)
      << md;
  EXPECT_NE(md.find("| fast_1 | unranked / no timings |"), std::string::npos) << md;
  EXPECT_NE(md.find("none (CPU suite): correctness only"), std::string::npos);
  EXPECT_NE(md.find("### rejected (1)"), std::string::npos);
  EXPECT_NE(md.find("- 2_B: output 0 differs \\| at [0]"), std::string::npos) << md;
  EXPECT_NE(md.find("called the operator it replaces (aten::relu)"), std::string::npos);
  auto json = nlohmann::json::parse(render_suite_json(r));
  EXPECT_EQ(json["ranking"], "unranked");
  EXPECT_TRUE(json["fast_p"]["eager"]["1"]["fraction"].is_null());
  EXPECT_DOUBLE_EQ(json["fast_p"]["eager"]["0"]["fraction"].get<double>(), 0.25);
  EXPECT_EQ(json["counts"]["not_run"], 1);
  EXPECT_EQ(json["failures"]["missing"][0]["id"], "3_C");
  EXPECT_EQ(json["tasks"].size(), 4u);
  std::string html = render_suite_html(r);
  EXPECT_NE(html.find("unranked / no timings (CPU suite)"), std::string::npos);
  EXPECT_EQ(html.find("<polyline"), std::string::npos);  // no curve drawn without timings
}

TEST(SuiteReport, TimedSuiteHasCurvesAndNumbers) {
  auto rows = cpu_rows();
  rows["1_A"].best_ms = 5;
  rows["1_A"].eager_ms = 10;
  rows["1_A"].compile_ms = 8;
  rows["1_A"].cuda_graph_ms = 4;
  SuiteRecord r = assemble_record(config(eval::Device::kCuda), rows, true);
  std::string md = render_suite_markdown(r);
  EXPECT_NE(md.find("| fast_1 | 0.250 (1/4) | 0.250 (1/4) | 0.000 (0/4) |"), std::string::npos)
      << md;
  EXPECT_NE(md.find("| geomean speed-up | 2.000x over 1 tasks | 1.600x over 1 tasks | 0.800x"),
            std::string::npos)
      << md;
  std::string html = render_suite_html(r);
  EXPECT_EQ(html.find("<script"), std::string::npos);
  EXPECT_EQ(html.find("http://", html.find("<body")),
            html.find("http://www.w3.org/2000/svg", html.find("<body")));
  EXPECT_NE(html.find("<polyline class=\"series\""), std::string::npos);
  EXPECT_EQ(nlohmann::json::parse(render_suite_json(r))["ranking"], "ranked");
}

}  // namespace
}  // namespace kforge::suite
