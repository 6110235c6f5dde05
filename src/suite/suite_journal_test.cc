#include "suite/suite_journal.h"

#include <gtest/gtest.h>

#include <fstream>

#include "util/temp_dir_for_test.h"

namespace kforge::suite {
namespace {

namespace fs = std::filesystem;

SuiteConfig config() {
  SuiteConfig c;
  c.mode = "eval";
  c.task_ids = {"a", "b", "c"};
  c.task_paths = {"/t/a.py", "/t/b.py", "/t/c.py"};
  c.settings.device = eval::Device::kCpu;
  return c;
}

TaskResult row(std::string id, std::string status) {
  TaskResult r;
  r.id = std::move(id);
  r.status = std::move(status);
  r.max_abs_err = std::numeric_limits<double>::quiet_NaN();
  r.reasons = {"called the operator it replaces"};
  return r;
}

TEST(SuiteJournal, RecordsAndReloads) {
  fs::path dir = util::fresh_temp_dir("suite_journal_reload");
  {
    auto journal = SuiteJournal::open(dir / "journal.jsonl");
    ASSERT_TRUE(journal);
    EXPECT_FALSE((*journal)->config());
    ASSERT_TRUE((*journal)->record_config(config()));
    ASSERT_TRUE((*journal)->record_task(row("a", "ok")));
    ASSERT_TRUE((*journal)->record_task(row("b", "rejected")));
  }
  auto journal = SuiteJournal::open(dir / "journal.jsonl");
  ASSERT_TRUE(journal);
  ASSERT_TRUE((*journal)->config());
  EXPECT_EQ((*journal)->config()->task_ids, config().task_ids);
  auto results = (*journal)->results();
  ASSERT_EQ(results.size(), 2u);
  EXPECT_TRUE((*journal)->has("b"));
  EXPECT_FALSE((*journal)->has("c"));
  EXPECT_TRUE(std::isnan(*results["a"].max_abs_err));
  EXPECT_EQ(results["b"].reasons, row("b", "x").reasons);
}

TEST(SuiteJournal, ALineTornByAKillIsIgnoredAndTheNextStartsFresh) {
  fs::path dir = util::fresh_temp_dir("suite_journal_torn");
  {
    auto journal = SuiteJournal::open(dir / "journal.jsonl");
    ASSERT_TRUE((*journal)->record_config(config()));
    ASSERT_TRUE((*journal)->record_task(row("a", "ok")));
  }
  std::ofstream(dir / "journal.jsonl", std::ios::app) << R"({"kind":"task","result":{"id":"b",)";
  {
    auto journal = SuiteJournal::open(dir / "journal.jsonl");
    ASSERT_TRUE(journal);
    EXPECT_EQ((*journal)->results().size(), 1u);
    ASSERT_TRUE((*journal)->record_task(row("c", "ok")));
  }
  auto journal = SuiteJournal::open(dir / "journal.jsonl");
  EXPECT_TRUE((*journal)->has("a"));
  EXPECT_FALSE((*journal)->has("b"));
  EXPECT_TRUE((*journal)->has("c"));
}

TEST(ReadSuiteJournals, ShardsTogetherDuplicatesOnce) {
  fs::path dir = util::fresh_temp_dir("suite_journal_shards");
  SuiteConfig c = config();
  c.shards = 2;
  {
    auto s0 = SuiteJournal::open(dir / journal_name(2, 0));
    auto s1 = SuiteJournal::open(dir / journal_name(2, 1));
    ASSERT_TRUE((*s0)->record_config(c));
    ASSERT_TRUE((*s1)->record_config(c));
    ASSERT_TRUE((*s0)->record_task(row("a", "ok")));
    ASSERT_TRUE((*s0)->record_task(row("c", "ok")));
    ASSERT_TRUE((*s1)->record_task(row("b", "ok")));
    ASSERT_TRUE((*s1)->record_task(row("a", "wrong_output")));
  }
  auto all = read_suite_journals(dir);
  ASSERT_TRUE(all) << all.error().message;
  EXPECT_EQ(journal_name(2, 1), "journal.shard-1-of-2.jsonl");
  EXPECT_EQ(all->files.size(), 2u);
  EXPECT_EQ(all->results.size(), 3u);
  EXPECT_EQ(all->results["a"].status, "ok");  // the first journal's
  EXPECT_EQ(all->duplicates, std::vector<std::string>{"a"});
  EXPECT_TRUE(all->mismatched.empty());
}

TEST(ReadSuiteJournals, NoJournalIsAnError) {
  fs::path dir = util::fresh_temp_dir("suite_journal_none");
  auto all = read_suite_journals(dir);
  ASSERT_FALSE(all);
  EXPECT_EQ(all.error().message, "failed to read suite " + dir.string() + ": no journal");
}

}  // namespace
}  // namespace kforge::suite
