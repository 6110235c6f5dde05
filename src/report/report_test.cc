#include <gtest/gtest.h>

#include "report/html_report.h"
#include "report/summary_markdown.h"
#include "report/svg_chart.h"

namespace kforge::report {
namespace {

store::RunRecord gru_run() {
  store::RunRecord run;
  run.id = "20261121_101500_39_GRU_deepseek_deepseek-chat";
  run.task_name = "39_GRU";
  run.config.task = "tasks/39_GRU.py";
  run.config.provider = "deepseek";
  run.config.model = "deepseek-chat";
  run.device = {{"name", "NVIDIA H100"}, {"sm_count", "132"}};
  run.state = "finished";
  run.candidates = {
      {1, "seed", std::nullopt, "seed1", "candidates/1_seed.py", "ok", 0.1157, 179.26, 20.7, 1e-6},
      {2, "optimise", 1, "optimise1", "candidates/2_optimise.py", "ok", 1.3696, 15.14, 20.7, 1e-6},
      {3, "tune_grid", 2, "tune_grid", "candidates/3_tune_grid.py", "ok", 0.0948, 218.77, 20.7,
       7e-4},
      {4, "tune_memory", 2, "tune_memory", "candidates/4_tune_memory.py", "wrong_output",
       std::nullopt, std::nullopt, std::nullopt, 0.3233, std::nullopt, "max_abs_err 0.3233 > tol"},
  };
  run.tokens = {{"seed", 2, 3890, 22168}, {"analysis", 1, 4106, 780}};
  run.candidates[1].numerics = "fp32 operands, fp32 accumulate";
  run.best_id = 2;
  run.log = {"guard: #2 is a persistent kernel"};
  return run;
}

TEST(RenderSummaryMarkdown, HasTheSeedsTwoTables) {
  std::string md = render_summary_markdown(gru_run());
  EXPECT_NE(
      md.find(
          "| # | stage | from | candidate | score | latency (ms) | max_abs_err | numerics | status "
          "| note |"),
      std::string::npos);
  EXPECT_NE(md.find("- **numerics**: tolerance (--numerics; any precision that passes the "
                    "correctness verdict); correctness verdict: calibrated\n"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("| 2 | optimise | #1 | candidates/2_optimise.py | 1.3696 | 15.140 | 1e-06 | "
                    "fp32 operands, fp32 accumulate | ok | **best** |"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("| 4 | tune_memory | #2 | candidates/4_tune_memory.py | — | — | 0.323 | — | "
                    "wrong_output: max_abs_err 0.3233 > tol |"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("| seed | 2 | 3,890 | 22,168 | 26,058 | 0.0000 |"), std::string::npos) << md;
  EXPECT_NE(md.find("| total | 3 | 7,996 | 22,948 | 30,944 |"), std::string::npos) << md;
  EXPECT_NE(md.find("- guard: #2 is a persistent kernel"), std::string::npos);
  EXPECT_NE(md.find("- **best**: #2 optimise (candidates/2_optimise.py) — score 1.3696 (15.140 ms "
                    "vs eager 20.700 ms); copied to best.py\n"),
            std::string::npos)
      << md;
}

TEST(RenderSummaryMarkdown, ComparesEveryCandidateWithTheBestBaseline) {
  store::RunRecord run = gru_run();
  run.baselines = store::RunBaselines{20.7, 18.0, 12.0, {}};
  std::string md = render_summary_markdown(run);
  EXPECT_NE(md.find("- **baselines**: eager 20.700 ms, compile 18.000 ms, cuda_graph 12.000 ms "
                    "(best: cuda_graph)"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("| score | latency (ms) | vs best baseline | max_abs_err |"), std::string::npos)
      << md;
  EXPECT_NE(md.find("| 2 | optimise | #1 | candidates/2_optimise.py | 1.3696 | 15.140 | 0.79x | "
                    "1e-06 | fp32 operands, fp32 accumulate | ok | **best** |"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("| 4 | tune_memory | #2 | candidates/4_tune_memory.py | — | — | — | 0.323 |"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("— score 1.3696 (15.140 ms vs eager 20.700 ms), 0.79x vs best baseline "
                    "(cuda_graph 12.000 ms); copied to best.py"),
            std::string::npos)
      << md;
  EXPECT_NE(render_html_report(run).find("vs best baseline"), std::string::npos);

  // a baseline that failed is said; with none timed there is no speed column
  run.baselines = store::RunBaselines{
      std::nullopt, std::nullopt, std::nullopt, {{"compile", "torch.compile failed\ntraceback"}}};
  md = render_summary_markdown(run);
  EXPECT_NE(md.find("- **baselines**: none timed; compile failed: torch.compile failed\n"),
            std::string::npos)
      << md;
  EXPECT_EQ(md.find("vs best baseline"), std::string::npos);

  // CPU mode: nothing about speed
  run.baselines = store::RunBaselines{20.7, 18.0, 12.0, {}};
  run.config.device = "cpu";
  md = render_summary_markdown(run);
  EXPECT_EQ(md.find("baseline"), std::string::npos) << md;
}

TEST(RenderSummaryMarkdown, CpuRunSaysUnrankedThenKforgeRankNamesTheBest) {
  store::RunRecord run = gru_run();
  run.config.device = "cpu";
  for (store::CandidateRecord& c : run.candidates) {
    c.score.reset();
    c.latency_ms.reset();
  }
  run.best_id.reset();
  run.ranking = "unranked";
  std::string md = render_summary_markdown(run);
  EXPECT_NE(md.find("- **best**: unranked — 3 correct candidates kept (#1, #2, #3); without "
                    "timings none is called best: rank them on a GPU with `kforge rank <run dir> "
                    "--device cuda`\n"),
            std::string::npos)
      << md;
  EXPECT_EQ(md.find("**best** |"), std::string::npos);
  EXPECT_EQ(md.find("## Ranking"), std::string::npos);

  store::RankResult rank;
  rank.device = "cuda";
  rank.device_name = "NVIDIA H100 80GB HBM3";
  rank.ranked_at = "2026-11-24T10:00:00Z";
  rank.entries = {{2, "ok", 1.67, 12.0, 1e-6, ""},
                  {1, "ok", 0.55, 36.0, 1e-6, ""},
                  {3, "runtime_error", std::nullopt, std::nullopt, std::nullopt, "CUDA error"}};
  rank.best_id = 2;
  run.rank = rank;
  run.best_id = 2;
  run.ranking = "ranked";
  run.candidates[1].score = 1.67;
  run.candidates[1].latency_ms = 12.0;
  md = render_summary_markdown(run);
  EXPECT_NE(md.find("- **ranked**: by `kforge rank` on NVIDIA H100 80GB HBM3 (cuda) at "
                    "2026-11-24T10:00:00Z\n"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("(ranked by `kforge rank`); copied to best.py"), std::string::npos) << md;
  EXPECT_NE(md.find("## Ranking\n\n| rank | # | score | latency (ms) | max_abs_err | status |\n"
                    "|---|---|---|---|---|---|\n| 1 | #2 | 1.6700 | 12.000 |"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("| — | #3 | — | — | — | runtime_error: CUDA error |"), std::string::npos);
  EXPECT_NE(render_html_report(run).find("<h2>Ranking</h2>"), std::string::npos);
}

TEST(RenderHtmlReport, EmbedsChartsAndEscapes) {
  store::RunRecord run = gru_run();
  run.log.push_back("<script>alert(1)</script>");
  std::string html = render_html_report(run);
  EXPECT_EQ(html.find("<script>"), std::string::npos);
  EXPECT_NE(html.find("&lt;script&gt;"), std::string::npos);
  EXPECT_NE(html.find("Score per candidate"), std::string::npos);
  EXPECT_NE(html.find("Tokens per stage"), std::string::npos);
  EXPECT_EQ(std::count(html.begin(), html.end(), '\n') > 20, true);
  std::size_t svgs = 0;
  for (std::size_t p = html.find("<svg"); p != std::string::npos; p = html.find("<svg", p + 1))
    ++svgs;
  EXPECT_EQ(svgs, 2u);
}

TEST(RenderSvg, DrawsOneRectPerPositiveSegmentAndAReferenceLine) {
  BarChart chart;
  chart.title = "t";
  chart.bars = {{"a", {{1.0, "#000"}, {2.0, "#111"}}, "", false}, {"b", {}, "", false}};
  chart.reference_line = 1.0;
  std::string svg = render_svg(chart);
  std::size_t rects = 0;
  for (std::size_t p = svg.find("<rect"); p != std::string::npos; p = svg.find("<rect", p + 1))
    ++rects;
  EXPECT_EQ(rects, 2u);
  EXPECT_NE(svg.find("stroke-dasharray"), std::string::npos);
  EXPECT_NE(svg.find("&#215;"), std::string::npos);  // the failed bar is marked
}

}  // namespace
}  // namespace kforge::report
