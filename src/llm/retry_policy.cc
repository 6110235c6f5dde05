#include "llm/retry_policy.h"

#include <curl/curl.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <string>

namespace kforge::llm {

double RetryPolicy::backoff_s(int attempt, std::mt19937_64& rng) const {
  double base = initial_backoff_s * std::pow(2.0, std::max(0, attempt - 1));
  base = std::min(base, max_backoff_s);
  std::uniform_real_distribution<double> jitter(0.5, 1.0);
  return base * jitter(rng);
}

std::optional<double> parse_retry_after(std::string_view value,
                                        std::chrono::system_clock::time_point now) {
  while (!value.empty() && value.front() == ' ') value.remove_prefix(1);
  while (!value.empty() && value.back() == ' ') value.remove_suffix(1);
  if (value.empty()) return std::nullopt;
  double seconds = 0;
  auto [end, error] = std::from_chars(value.data(), value.data() + value.size(), seconds);
  if (error == std::errc() && end == value.data() + value.size())
    return seconds < 0 ? std::nullopt : std::optional<double>(seconds);
  std::string text(value);
  time_t when = curl_getdate(text.c_str(), nullptr);
  if (when < 0) return std::nullopt;
  auto delta = std::chrono::system_clock::from_time_t(when) - now;
  return std::max(0.0, std::chrono::duration<double>(delta).count());
}

}  // namespace kforge::llm
