#include "scheduler/sim/svg_plot.h"

#include <algorithm>
#include <array>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace topoplace::sched::sim {
namespace {

constexpr double kWidth = 720, kHeight = 420;
constexpr double kLeft = 80, kRight = 170, kTop = 40, kBottom = 60;  // margins
constexpr double kPlotW = kWidth - kLeft - kRight, kPlotH = kHeight - kTop - kBottom;
constexpr std::array<const char*, 8> kColours = {"#1b9e77", "#d95f02", "#7570b3", "#e7298a",
                                                 "#66a61e", "#e6ab02", "#a6761d", "#666666"};

const char* Colour(size_t i) { return kColours[i % kColours.size()]; }

// Linear axis range with some headroom; never empty.
struct Range {
  double lo = 0, hi = 1;
};

Range Padded(double lo, double hi) {
  if (!(hi > lo)) return {lo - 1, lo + 1};
  return {lo, hi};
}

std::string TickLabel(double v) {
  // Three significant digits: ticks a fifth of the range apart stay distinct.
  if (v != 0 && (std::fabs(v) >= 1e5 || std::fabs(v) < 1e-2)) return absl::StrFormat("%.3g", v);
  return absl::StrFormat("%.4g", v);
}

std::string Header(const std::string& title) {
  return absl::StrFormat(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
      "viewBox=\"0 0 %.0f %.0f\" font-family=\"sans-serif\" font-size=\"12\">\n"
      "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n"
      "<text x=\"%.0f\" y=\"24\" font-size=\"15\" text-anchor=\"middle\">%s</text>\n",
      kWidth, kHeight, kWidth, kHeight, kLeft + kPlotW / 2, XmlEscape(title));
}

std::string Frame(const std::string& x_label, const std::string& y_label) {
  return absl::StrFormat(
      "<rect x=\"%.0f\" y=\"%.0f\" width=\"%.0f\" height=\"%.0f\" fill=\"none\" "
      "stroke=\"#333\"/>\n"
      "<text x=\"%.0f\" y=\"%.0f\" text-anchor=\"middle\">%s</text>\n"
      "<text x=\"18\" y=\"%.0f\" text-anchor=\"middle\" transform=\"rotate(-90 18 %.0f)\">"
      "%s</text>\n",
      kLeft, kTop, kPlotW, kPlotH, kLeft + kPlotW / 2, kHeight - 15, XmlEscape(x_label),
      kTop + kPlotH / 2, kTop + kPlotH / 2, XmlEscape(y_label));
}

std::string YTicks(Range y) {
  std::string out;
  for (int i = 0; i <= 5; ++i) {
    const double v = y.lo + (y.hi - y.lo) * i / 5;
    const double py = kTop + kPlotH - kPlotH * i / 5;
    absl::StrAppendFormat(&out,
                          "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
                          "stroke=\"#ddd\"/>\n<text x=\"%.1f\" y=\"%.1f\" "
                          "text-anchor=\"end\">%s</text>\n",
                          kLeft, py, kLeft + kPlotW, py, kLeft - 6, py + 4, TickLabel(v));
  }
  return out;
}

std::string Legend(const std::vector<std::string>& names) {
  std::string out;
  for (size_t i = 0; i < names.size(); ++i) {
    const double y = kTop + 10 + 18 * static_cast<double>(i);
    absl::StrAppendFormat(&out,
                          "<rect x=\"%.0f\" y=\"%.0f\" width=\"14\" height=\"4\" fill=\"%s\"/>"
                          "<text x=\"%.0f\" y=\"%.0f\">%s</text>\n",
                          kLeft + kPlotW + 12, y - 2, Colour(i), kLeft + kPlotW + 32, y + 4,
                          XmlEscape(names[i]));
  }
  return out;
}

}  // namespace

std::string RenderLineChart(const LineChart& chart) {
  double x_lo = INFINITY, x_hi = -INFINITY, y_lo = 0, y_hi = -INFINITY;
  for (const Series& s : chart.series) {
    for (const auto& [x, y] : s.points) {
      if (chart.log_x && x <= 0) continue;
      x_lo = std::min(x_lo, x);
      x_hi = std::max(x_hi, x);
      y_lo = std::min(y_lo, y);
      y_hi = std::max(y_hi, y);
    }
  }
  if (!std::isfinite(x_lo)) x_lo = chart.log_x ? 1 : 0, x_hi = x_lo + 1;
  if (!std::isfinite(y_hi)) y_hi = 1;
  auto fx = [&](double v) { return chart.log_x ? std::log10(v) : v; };
  const Range xr = Padded(fx(x_lo), fx(x_hi));
  const Range yr = Padded(y_lo, y_hi);
  auto px = [&](double x) {
    const double v = chart.log_x && x <= 0 ? xr.lo : fx(x);
    return kLeft + (v - xr.lo) / (xr.hi - xr.lo) * kPlotW;
  };
  auto py = [&](double y) { return kTop + kPlotH - (y - yr.lo) / (yr.hi - yr.lo) * kPlotH; };

  std::string out = Header(chart.title);
  out += YTicks(yr);
  for (int i = 0; i <= 5; ++i) {
    const double v = xr.lo + (xr.hi - xr.lo) * i / 5;
    const double x = kLeft + kPlotW * i / 5;
    absl::StrAppendFormat(&out, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%s</text>\n", x,
                          kTop + kPlotH + 16, TickLabel(chart.log_x ? std::pow(10, v) : v));
  }
  out += Frame(chart.x_label, chart.y_label);
  std::vector<std::string> names;
  for (size_t i = 0; i < chart.series.size(); ++i) {
    const Series& s = chart.series[i];
    names.push_back(s.name);
    if (s.points.empty()) continue;
    std::string path;
    double prev_y = 0;
    for (size_t k = 0; k < s.points.size(); ++k) {
      const double x = px(s.points[k].first), y = py(s.points[k].second);
      if (k == 0) {
        absl::StrAppendFormat(&path, "M%.1f %.1f", x, chart.step ? py(0) : y);
        if (chart.step) absl::StrAppendFormat(&path, " L%.1f %.1f", x, y);
      } else if (chart.step) {
        absl::StrAppendFormat(&path, " L%.1f %.1f L%.1f %.1f", x, prev_y, x, y);
      } else {
        absl::StrAppendFormat(&path, " L%.1f %.1f", x, y);
      }
      prev_y = y;
    }
    absl::StrAppendFormat(&out,
                          "<path d=\"%s\" fill=\"none\" stroke=\"%s\" stroke-width=\"1.6\"/>\n",
                          path, Colour(i));
  }
  out += Legend(names);
  out += "</svg>\n";
  return out;
}

std::string RenderBarChart(const BarChart& chart) {
  double hi = 0;
  for (const auto& [label, v] : chart.bars) hi = std::max(hi, v);
  const Range yr = Padded(0, hi > 0 ? hi * 1.1 : 1);
  std::string out = Header(chart.title);
  out += YTicks(yr);
  const double slot = chart.bars.empty() ? kPlotW : kPlotW / static_cast<double>(chart.bars.size());
  for (size_t i = 0; i < chart.bars.size(); ++i) {
    const auto& [label, v] = chart.bars[i];
    const double h = std::max(0.0, v) / (yr.hi - yr.lo) * kPlotH;
    const double x = kLeft + slot * static_cast<double>(i) + slot * 0.15;
    absl::StrAppendFormat(&out,
                          "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
                          "fill=\"%s\"/>\n<text x=\"%.1f\" y=\"%.1f\" "
                          "text-anchor=\"middle\">%s</text>\n"
                          "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" "
                          "font-size=\"10\">%s</text>\n",
                          x, kTop + kPlotH - h, slot * 0.7, h, Colour(i), x + slot * 0.35,
                          kTop + kPlotH + 16, XmlEscape(label), x + slot * 0.35,
                          kTop + kPlotH - h - 4, TickLabel(v));
  }
  out += Frame("", chart.y_label);
  out += "</svg>\n";
  return out;
}

}  // namespace topoplace::sched::sim
