#include "analysis/diagnostic_format.h"

#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "util/source_location.h"

namespace kforge::analysis {

namespace {

int count(const Report& report, Severity severity) {
  return static_cast<int>(
      std::count_if(report.diagnostics.begin(), report.diagnostics.end(),
                    [&](const Diagnostic& d) { return d.severity == severity; }));
}

std::string plural(int n, std::string_view word) {
  return fmt::format("{} {}{}", n, word, n == 1 ? "" : "s");
}

}  // namespace

std::string_view to_string(Severity severity) {
  switch (severity) {
    case Severity::kNote:
      return "note";
    case Severity::kWarning:
      return "warning";
    case Severity::kError:
      return "error";
  }
  return "error";
}

std::string format_diagnostic(const Diagnostic& diagnostic, std::string_view source) {
  std::string message = fmt::format("{}: {} [{}]", to_string(diagnostic.severity),
                                    diagnostic.message, diagnostic.rule);
  std::string out = util::format_located_error(diagnostic.location, source, message);
  if (!diagnostic.fix_hint.empty()) out += fmt::format("\n  hint: {}", diagnostic.fix_hint);
  return out;
}

std::string format_summary(const Report& report) {
  return fmt::format(
      "classification: kernel_type={} persistent={} launches_per_forward={} ({}, {})",
      report.kernel_type, report.persistent ? "yes" : "no",
      report.launches_per_forward ? std::to_string(*report.launches_per_forward)
                                  : std::string("not measured"),
      plural(count(report, Severity::kError), "error"),
      plural(count(report, Severity::kWarning), "warning"));
}

std::string report_to_json(const Report& report) {
  nlohmann::json diagnostics = nlohmann::json::array();
  for (const Diagnostic& d : report.diagnostics)
    diagnostics.push_back({{"rule", d.rule},
                           {"severity", to_string(d.severity)},
                           {"file", d.location.file},
                           {"line", d.location.line},
                           {"column", d.location.column},
                           {"message", d.message},
                           {"fix_hint", d.fix_hint}});
  nlohmann::json out = {{"diagnostics", diagnostics},
                        {"kernel_type", report.kernel_type},
                        {"persistent", report.persistent},
                        {"errors", count(report, Severity::kError)},
                        {"warnings", count(report, Severity::kWarning)}};
  out["launches_per_forward"] =
      report.launches_per_forward ? nlohmann::json(*report.launches_per_forward) : nlohmann::json();
  return out.dump(2);
}

}  // namespace kforge::analysis
