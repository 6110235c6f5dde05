#include "pipeline/candidate.h"

#include <gtest/gtest.h>

#include <cmath>

namespace kforge::pipeline {
namespace {

Candidate make(eval::Status status, std::optional<double> score, double error) {
  Candidate c;
  c.evaluation.status = status;
  c.evaluation.score = score;
  c.evaluation.correctness = eval::Correctness{};
  c.evaluation.correctness->max_abs_err = error;
  return c;
}

TEST(IsBetter, OnlyVerifiedCandidatesCompete) {
  Candidate failed = make(eval::Status::kWrongOutput, std::nullopt, 0);
  Candidate ok = make(eval::Status::kOk, 0.1, 1e-3);
  EXPECT_FALSE(is_better(failed, ok));
  EXPECT_TRUE(is_better(ok, failed));
}

TEST(IsBetter, HigherScoreWinsAndAMeasuredScoreBeatsNone) {
  EXPECT_TRUE(is_better(make(eval::Status::kOk, 1.37, 1e-3), make(eval::Status::kOk, 0.12, 1e-6)));
  EXPECT_FALSE(is_better(make(eval::Status::kOk, 0.09, 1e-7), make(eval::Status::kOk, 1.37, 1e-3)));
  EXPECT_TRUE(is_better(make(eval::Status::kOk, 0.5, 1), make(eval::Status::kOk, std::nullopt, 0)));
}

TEST(IsBetter, TiesGoToTheLowerErrorAndFullTiesKeepTheBest) {
  EXPECT_TRUE(is_better(make(eval::Status::kOk, 1.0, 1e-6), make(eval::Status::kOk, 1.0, 1e-3)));
  EXPECT_TRUE(is_better(make(eval::Status::kOk, std::nullopt, 1e-6),
                        make(eval::Status::kOk, std::nullopt, 1e-3)));
  EXPECT_FALSE(is_better(make(eval::Status::kOk, 1.0, 1e-6), make(eval::Status::kOk, 1.0, 1e-6)));
  EXPECT_FALSE(is_better(make(eval::Status::kOk, std::nullopt, std::nan("")),
                         make(eval::Status::kOk, std::nullopt, 1.0)));
}

}  // namespace
}  // namespace kforge::pipeline
