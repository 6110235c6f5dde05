// The analysis corpus (tests/analysis/): every rule against candidates that must trigger it and
// near-misses that must not. Facts come from tests/analysis/facts/*.json, generated from the
// corpus by the worker (tests/analysis/make_fixtures.py; worker/tests/test_facts_corpus.py keeps
// them current). Prints precision and recall per rule; fails below 1.0.

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "analysis/facts.h"
#include "analysis/rules.h"

namespace kforge::analysis {
namespace {

const std::filesystem::path kCorpus = std::filesystem::path(KFORGE_TEST_DATA) / "analysis";

std::string read(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

struct Counts {
  int tp = 0, fp = 0, fn = 0, tn = 0;
};

TEST(AnalysisCorpus, PrecisionAndRecallPerRule) {
  nlohmann::json manifest = nlohmann::json::parse(read(kCorpus / "manifest.json"));
  std::vector<std::string> rule_names = manifest["rules"].get<std::vector<std::string>>();
  std::set<std::string> table;
  for (const Rule& rule : rules()) table.insert(std::string(rule.name));
  for (const std::string& name : rule_names) EXPECT_TRUE(table.contains(name)) << name;
  EXPECT_EQ(table.size(), rule_names.size()) << "manifest.json must list every rule";

  std::map<std::string, Counts> counts;
  for (const auto& [file, entry] : manifest["cases"].items()) {
    std::string stem = std::filesystem::path(file).stem().string();
    std::filesystem::path facts_path = kCorpus / "facts" / (stem + ".json");
    auto facts = parse_facts(read(facts_path), facts_path.string());
    ASSERT_TRUE(facts.has_value()) << facts.error().message;
    Report report = analyze_facts(*facts);
    std::set<std::string> fired;
    for (const Diagnostic& d : report.diagnostics) fired.insert(d.rule);
    auto must = entry["must"].get<std::vector<std::string>>();
    auto must_not = entry["must_not"].get<std::vector<std::string>>();
    EXPECT_EQ(must.size() + must_not.size(), rule_names.size())
        << file << ": must and must_not together must name every rule";
    for (const std::string& rule : must) {
      bool hit = fired.contains(rule);
      (hit ? counts[rule].tp : counts[rule].fn)++;
      EXPECT_TRUE(hit) << file << " must trigger " << rule;
    }
    for (const std::string& rule : must_not) {
      bool hit = fired.contains(rule);
      (hit ? counts[rule].fp : counts[rule].tn)++;
      EXPECT_FALSE(hit) << file << " must not trigger " << rule;
    }
    for (const std::string& rule : fired)
      EXPECT_TRUE(std::find(rule_names.begin(), rule_names.end(), rule) != rule_names.end())
          << file << " fired unknown rule " << rule;
    if (entry.contains("kernel_type")) {
      EXPECT_EQ(report.kernel_type, entry["kernel_type"].get<std::string>()) << file;
    }
    if (entry.contains("persistent")) {
      EXPECT_EQ(report.persistent, entry["persistent"].get<bool>()) << file;
    }
  }

  std::string table_text = fmt::format("{:<22} {:>3} {:>3} {:>3} {:>3} {:>9} {:>6}\n", "rule", "tp",
                                       "fp", "fn", "tn", "precision", "recall");
  for (const std::string& rule : rule_names) {
    const Counts& c = counts[rule];
    double precision = c.tp + c.fp == 0 ? 1.0 : static_cast<double>(c.tp) / (c.tp + c.fp);
    double recall = c.tp + c.fn == 0 ? 1.0 : static_cast<double>(c.tp) / (c.tp + c.fn);
    table_text += fmt::format("{:<22} {:>3} {:>3} {:>3} {:>3} {:>9.2f} {:>6.2f}\n", rule, c.tp,
                              c.fp, c.fn, c.tn, precision, recall);
    EXPECT_GT(c.tp, 0) << rule << " has no positive case in the corpus";
    EXPECT_GT(c.tn, 0) << rule << " has no near-miss in the corpus";
    EXPECT_EQ(precision, 1.0) << rule;
    EXPECT_EQ(recall, 1.0) << rule;
  }
  std::printf("analysis corpus, %zu cases:\n%s", manifest["cases"].size(), table_text.c_str());
}

}  // namespace
}  // namespace kforge::analysis
