#include "report/line_chart.h"

#include <fmt/format.h>

#include "report/svg_chart.h"

namespace kforge::report {

std::string render_line_svg(const LineChart& chart) {
  const double left = 56, right = 150, top = 34, bottom = 44;
  const double plot_w = chart.width - left - right, plot_h = chart.height - top - bottom;
  double x_span = chart.x_max > chart.x_min ? chart.x_max - chart.x_min : 1;
  double y_span = chart.y_max > chart.y_min ? chart.y_max - chart.y_min : 1;
  auto sx = [&](double x) { return left + (x - chart.x_min) / x_span * plot_w; };
  auto sy = [&](double y) { return top + plot_h - (y - chart.y_min) / y_span * plot_h; };

  std::string out = fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"chart line-chart\" width=\"{0}\" "
      "height=\"{1}\" viewBox=\"0 0 {0} {1}\" role=\"img\" aria-label=\"{2}\">\n"
      "<rect x=\"0\" y=\"0\" width=\"{0}\" height=\"{1}\" fill=\"#fff\"/>\n"
      "<text x=\"{3}\" y=\"20\" font-size=\"14\" font-weight=\"bold\">{2}</text>\n",
      chart.width, chart.height, escape_html(chart.title), left);
  // Grid and axes.
  for (int i = 0; i <= 4; ++i) {
    double y = chart.y_min + y_span * i / 4;
    out += fmt::format(
        "<line x1=\"{0:.1f}\" y1=\"{1:.1f}\" x2=\"{2:.1f}\" y2=\"{1:.1f}\" stroke=\"#ddd\"/>"
        "<text x=\"{3:.1f}\" y=\"{4:.1f}\" font-size=\"11\" text-anchor=\"end\">{5:.2g}</text>\n",
        left, sy(y), left + plot_w, left - 6, sy(y) + 4, y);
  }
  for (int i = 0; i <= 4; ++i) {
    double x = chart.x_min + x_span * i / 4;
    out += fmt::format(
        "<text x=\"{0:.1f}\" y=\"{1:.1f}\" font-size=\"11\" "
        "text-anchor=\"middle\">{2:.3g}</text>\n",
        sx(x), top + plot_h + 16, x);
  }
  out += fmt::format(
      "<line x1=\"{0}\" y1=\"{1}\" x2=\"{0}\" y2=\"{2:.1f}\" stroke=\"#333\"/>"
      "<line x1=\"{0}\" y1=\"{2:.1f}\" x2=\"{3:.1f}\" y2=\"{2:.1f}\" stroke=\"#333\"/>\n"
      "<text x=\"{4:.1f}\" y=\"{5:.1f}\" font-size=\"12\" text-anchor=\"middle\">{6}</text>\n"
      "<text x=\"14\" y=\"{7:.1f}\" font-size=\"12\" text-anchor=\"middle\" "
      "transform=\"rotate(-90 14 {7:.1f})\">{8}</text>\n",
      left, top, top + plot_h, left + plot_w, left + plot_w / 2, top + plot_h + 34,
      escape_html(chart.x_label), top + plot_h / 2, escape_html(chart.y_label));
  for (double mark : chart.x_marks) {
    if (mark < chart.x_min || mark > chart.x_max) continue;
    out += fmt::format(
        "<line x1=\"{0:.1f}\" y1=\"{1}\" x2=\"{0:.1f}\" y2=\"{2:.1f}\" stroke=\"#999\" "
        "stroke-dasharray=\"4 3\"/>\n",
        sx(mark), top, top + plot_h);
  }
  bool any = false;
  for (const Series& s : chart.series) any = any || !s.points.empty();
  if (!any) {
    out += fmt::format(
        "<text class=\"empty-note\" x=\"{:.1f}\" y=\"{:.1f}\" font-size=\"13\" "
        "text-anchor=\"middle\" fill=\"#666\">{}</text>\n",
        left + plot_w / 2, top + plot_h / 2, escape_html(chart.empty_note));
  }
  int row = 0;
  for (const Series& s : chart.series) {
    if (!s.points.empty()) {
      std::string points;
      for (const auto& [x, y] : s.points) points += fmt::format("{:.1f},{:.1f} ", sx(x), sy(y));
      out += fmt::format(
          "<polyline class=\"series\" fill=\"none\" stroke=\"{}\" stroke-width=\"2.5\" "
          "points=\"{}\"><title>{}</title></polyline>\n",
          s.color, points, escape_html(s.name));
    }
    double ly = top + 10 + row * 18;
    out += fmt::format(
        "<rect x=\"{0:.1f}\" y=\"{1:.1f}\" width=\"14\" height=\"4\" fill=\"{2}\"/>"
        "<text x=\"{3:.1f}\" y=\"{4:.1f}\" font-size=\"12\">{5}</text>\n",
        left + plot_w + 12, ly - 4, s.color, left + plot_w + 32, ly + 2, escape_html(s.name));
    ++row;
  }
  return out + "</svg>\n";
}

}  // namespace kforge::report
