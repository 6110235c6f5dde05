#include "pipeline/candidate.h"

#include <cmath>
#include <limits>

namespace kforge::pipeline {

double Candidate::error() const {
  constexpr double kUnknown = std::numeric_limits<double>::infinity();
  if (!evaluation.correctness) return kUnknown;
  double error = evaluation.correctness->max_abs_err;
  return std::isfinite(error) ? error : kUnknown;
}

bool is_better(const Candidate& challenger, const Candidate& best) {
  if (!challenger.verified()) return false;
  if (!best.verified()) return true;
  const std::optional<double>& a = challenger.evaluation.score;
  const std::optional<double>& b = best.evaluation.score;
  bool a_measured = a && std::isfinite(*a);
  bool b_measured = b && std::isfinite(*b);
  if (a_measured != b_measured) return a_measured;
  if (a_measured && *a != *b) return *a > *b;
  return challenger.error() < best.error();
}

}  // namespace kforge::pipeline
