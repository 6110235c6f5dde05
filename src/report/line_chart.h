#pragma once

#include <string>
#include <utility>
#include <vector>

namespace kforge::report {

/// One line of a LineChart: points in data coordinates, joined in order.
struct Series {
  std::string name;
  std::string color;  // CSS colour
  std::vector<std::pair<double, double>> points;
};

/// An x/y line chart on linear axes (e.g. fast_p over p), with a legend. When no series has a
/// point, the plot area shows `empty_note` instead ("no timings").
struct LineChart {
  std::string title;
  std::string x_label;
  std::string y_label;
  std::vector<Series> series;
  double x_min = 0;
  double x_max = 1;
  double y_min = 0;
  double y_max = 1;
  /// Dashed vertical lines with a label, e.g. p = 1.
  std::vector<double> x_marks;
  std::string empty_note = "no data";
  int width = 720;
  int height = 300;
};

/// The chart as a self-contained inline <svg> element (no scripts, no external resources).
std::string render_line_svg(const LineChart& chart);

}  // namespace kforge::report
