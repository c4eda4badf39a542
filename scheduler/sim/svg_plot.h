// A small SVG writer for the report's charts: line charts (CDFs, time series) and bar
// charts, with axes, ticks, a legend and a fixed colour per series index. No external
// tools; the output is a standalone SVG document.
//
//   LineChart c{.title = "JCT CDF", .x_label = "hours", .y_label = "fraction"};
//   c.series.push_back({"topoplace", points});
//   std::string svg = RenderLineChart(c);
#ifndef TOPOPLACE_SCHEDULER_SIM_SVG_PLOT_H_
#define TOPOPLACE_SCHEDULER_SIM_SVG_PLOT_H_

#include <string>
#include <utility>
#include <vector>

#include "base/xml_escape.h"  // XmlEscape, used with these plots

namespace topoplace::sched::sim {

struct Series {
  std::string name;
  std::vector<std::pair<double, double>> points;  // (x, y), drawn in order
};

struct LineChart {
  std::string title, x_label, y_label;
  std::vector<Series> series;
  bool log_x = false;  // points with x <= 0 are drawn at the axis minimum
  bool step = false;   // draw as a step function (CDFs)
};

struct BarChart {
  std::string title, y_label;
  std::vector<std::pair<std::string, double>> bars;  // (label, value >= 0)
};

// Both render a complete SVG document; an empty chart still renders its frame.
std::string RenderLineChart(const LineChart& chart);
std::string RenderBarChart(const BarChart& chart);

}  // namespace topoplace::sched::sim

#endif  // TOPOPLACE_SCHEDULER_SIM_SVG_PLOT_H_
