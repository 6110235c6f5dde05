#include "report/svg_chart.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace kforge::report {

std::string escape_html(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

namespace {

double total(const Bar& bar) {
  double sum = 0;
  for (const Segment& s : bar.segments)
    if (std::isfinite(s.value) && s.value > 0) sum += s.value;
  return sum;
}

}  // namespace

std::string render_svg(const BarChart& chart) {
  const double left = 64, right = 16, top = 32, bottom = 56;
  const double plot_w = chart.width - left - right;
  const double plot_h = chart.height - top - bottom;
  double max_value = 0;
  double min_positive = 0;
  for (const Bar& bar : chart.bars) {
    max_value = std::max(max_value, total(bar));
    for (const Segment& s : bar.segments)
      if (std::isfinite(s.value) && s.value > 0)
        min_positive = min_positive == 0 ? s.value : std::min(min_positive, s.value);
  }
  if (chart.reference_line) max_value = std::max(max_value, *chart.reference_line);
  if (max_value <= 0) max_value = 1;

  // Axis mapping: linear from 0, or log10 between the smallest and largest positive values.
  double log_lo = 0, log_hi = 1;
  if (chart.log_scale) {
    log_lo = std::floor(std::log10(min_positive > 0 ? min_positive : 1e-9));
    log_hi = std::ceil(std::log10(max_value));
    if (log_hi <= log_lo) log_hi = log_lo + 1;
  } else {
    max_value *= 1.1;
  }
  auto y_of = [&](double value) {
    double fraction;
    if (chart.log_scale)
      fraction = value > 0 ? (std::log10(value) - log_lo) / (log_hi - log_lo) : 0;
    else
      fraction = value / max_value;
    fraction = std::clamp(fraction, 0.0, 1.0);
    return top + plot_h * (1 - fraction);
  };

  std::string svg = fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{0}\" height=\"{1}\" viewBox=\"0 0 {0} "
      "{1}\" font-family=\"sans-serif\" font-size=\"11\">\n",
      chart.width, chart.height);
  svg += fmt::format("<text x=\"{}\" y=\"18\" font-size=\"14\" font-weight=\"bold\">{}</text>\n",
                     left, escape_html(chart.title));
  // Grid lines and tick labels.
  std::vector<double> ticks;
  if (chart.log_scale) {
    for (double e = log_lo; e <= log_hi; ++e) ticks.push_back(std::pow(10.0, e));
  } else {
    double raw = max_value / 5;
    double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
    double step = magnitude * (raw / magnitude < 2 ? 2 : raw / magnitude < 5 ? 5 : 10);
    for (double v = 0; v <= max_value + 1e-12; v += step) ticks.push_back(v);
  }
  for (double v : ticks) {
    double y = y_of(v);
    svg += fmt::format(
        "<line x1=\"{}\" y1=\"{:.1f}\" x2=\"{}\" y2=\"{:.1f}\" stroke=\"#ddd\"/>\n"
        "<text x=\"{}\" y=\"{:.1f}\" text-anchor=\"end\">{:g}</text>\n",
        left, y, left + plot_w, y, left - 6, y + 4, v);
  }
  svg += fmt::format(
      "<text x=\"14\" y=\"{:.1f}\" transform=\"rotate(-90 14 {:.1f})\" "
      "text-anchor=\"middle\">{}</text>\n",
      top + plot_h / 2, top + plot_h / 2, escape_html(chart.y_label));
  // Bars.
  std::size_t n = std::max<std::size_t>(chart.bars.size(), 1);
  double slot = plot_w / static_cast<double>(n);
  double bar_w = std::min(48.0, slot * 0.7);
  for (std::size_t i = 0; i < chart.bars.size(); ++i) {
    const Bar& bar = chart.bars[i];
    double x = left + slot * static_cast<double>(i) + (slot - bar_w) / 2;
    double base = 0;
    svg += "<g>";
    if (!bar.tooltip.empty()) svg += fmt::format("<title>{}</title>", escape_html(bar.tooltip));
    for (const Segment& s : bar.segments) {
      if (!std::isfinite(s.value) || s.value <= 0) continue;
      double y_top = y_of(base + s.value);
      double y_bottom = chart.log_scale && base == 0 ? top + plot_h : y_of(base);
      svg += fmt::format(
          "<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\" fill=\"{}\"{}/>", x,
          y_top, bar_w, std::max(0.0, y_bottom - y_top), s.color,
          bar.highlight ? " stroke=\"#111\" stroke-width=\"2\"" : "");
      base += s.value;
    }
    if (bar.segments.empty() || total(bar) <= 0)
      svg += fmt::format(
          "<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"middle\" fill=\"#b00\">&#215;</text>",
          x + bar_w / 2, top + plot_h - 4);
    svg += fmt::format(
        "<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"end\" transform=\"rotate(-35 {:.1f} "
        "{:.1f})\">{}</text></g>\n",
        x + bar_w / 2, top + plot_h + 14, x + bar_w / 2, top + plot_h + 14, escape_html(bar.label));
  }
  if (chart.reference_line) {
    double y = y_of(*chart.reference_line);
    svg += fmt::format(
        "<line x1=\"{}\" y1=\"{:.1f}\" x2=\"{}\" y2=\"{:.1f}\" stroke=\"#c33\" "
        "stroke-dasharray=\"5,4\"/>\n<text x=\"{}\" y=\"{:.1f}\" text-anchor=\"end\" "
        "fill=\"#c33\">{}</text>\n",
        left, y, left + plot_w, y, left + plot_w, y - 4, escape_html(chart.reference_label));
  }
  svg += fmt::format("<line x1=\"{0}\" y1=\"{1}\" x2=\"{0}\" y2=\"{2}\" stroke=\"#333\"/>\n", left,
                     top, top + plot_h);
  svg += fmt::format("<line x1=\"{0}\" y1=\"{2}\" x2=\"{1}\" y2=\"{2}\" stroke=\"#333\"/>\n", left,
                     left + plot_w, top + plot_h);
  svg += "</svg>\n";
  return svg;
}

}  // namespace kforge::report
