#pragma once

#include <optional>
#include <string>
#include <vector>

namespace kforge::report {

/// One coloured part of a bar.
struct Segment {
  double value = 0;
  std::string color;  // CSS colour
};

/// One bar: stacked segments from the baseline up, a label under it and a tooltip.
struct Bar {
  std::string label;
  std::vector<Segment> segments;
  std::string tooltip;
  bool highlight = false;  // drawn with a dark outline (the best candidate)
};

/// A vertical bar chart. Values are drawn on a linear axis from 0 (or log10 when `log_scale`).
struct BarChart {
  std::string title;
  std::string y_label;
  std::vector<Bar> bars;
  /// A dashed horizontal line, e.g. score 1.0 = as fast as PyTorch.
  std::optional<double> reference_line;
  std::string reference_label;
  bool log_scale = false;
  int width = 720;
  int height = 280;
};

/// The chart as a self-contained inline <svg> element (no scripts, no external resources).
std::string render_svg(const BarChart& chart);

/// Escapes &, <, >, " for HTML and SVG text.
std::string escape_html(std::string_view text);

}  // namespace kforge::report
