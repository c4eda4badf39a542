#include "topology/model/fabric_paths.h"

#include <algorithm>
#include <boost/graph/breadth_first_search.hpp>
#include <boost/graph/filtered_graph.hpp>
#include <boost/graph/visitors.hpp>
#include <limits>

namespace topoplace {
namespace {

constexpr int kUnreached = std::numeric_limits<int>::max();

// The network as traffic sees it: links that are up, between switches and the two end
// NICs (a NIC has one cable, so no other NIC could be a way through anyway; leaving the
// others out keeps the searches off the hosts' attachment edges).
struct UpLink {
  const FabricGraph* graph = nullptr;
  const Fabric* fabric = nullptr;
  bool operator()(const FabricGraph::edge_descriptor& e) const {
    const int32_t link = (*graph)[e].link;
    return link >= 0 && fabric->links()[static_cast<size_t>(link)].state != LinkState::kDown;
  }
};
struct OnAPath {
  const FabricGraphView* view = nullptr;
  FabricVertex from = 0, to = 0;
  bool operator()(FabricVertex v) const { return v >= view->switch_base || v == from || v == to; }
};
using Network = boost::filtered_graph<FabricGraph, UpLink, OnAPath>;

// Edges from `source` to every vertex of `network` (kUnreached where none).
std::vector<int> Distances(const Network& network, size_t vertices, FabricVertex source) {
  std::vector<int> distance(vertices, kUnreached);
  distance[source] = 0;
  boost::breadth_first_search(network, source,
                              boost::visitor(boost::make_bfs_visitor(boost::record_distances(
                                  distance.data(), boost::on_tree_edge()))));
  return distance;
}

}  // namespace

NicPaths ShortestNicPaths(const FabricGraphView& view, const Fabric& fabric, NicId from, NicId to) {
  NicPaths paths;
  const FabricVertex a = view.VertexOfNic(from), b = view.VertexOfNic(to);
  if (from == to) {
    paths.switch_hops = 0;
    paths.equal_cost_paths = 1;
    return paths;
  }
  const Network network(view.graph, UpLink{&view.graph, &fabric}, OnAPath{&view, a, b});
  const size_t vertices = boost::num_vertices(view.graph);
  const std::vector<int> near = Distances(network, vertices, a);
  if (near[b] == kUnreached) return paths;
  const std::vector<int> far = Distances(network, vertices, b);
  const int length = near[b];
  paths.switch_hops = length - 1;
  paths.hops.resize(static_cast<size_t>(length));
  // Shortest paths into each vertex, hop by hop: each cable of a link on one is a choice.
  std::vector<FabricVertex> order;
  for (FabricVertex v = 0; v < vertices; ++v) {
    if (near[v] != kUnreached && far[v] != kUnreached && near[v] + far[v] == length) {
      order.push_back(v);
    }
  }
  std::stable_sort(order.begin(), order.end(),
                   [&near](FabricVertex x, FabricVertex y) { return near[x] < near[y]; });
  std::vector<double> count(vertices, 0);
  count[a] = 1;
  for (FabricVertex v : order) {
    for (auto [e, end] = boost::out_edges(v, network); e != end; ++e) {
      const FabricVertex w = boost::target(*e, network);
      if (near[w] != near[v] + 1 || far[w] == kUnreached || near[w] + far[w] != length) continue;
      const LinkId link = view.graph[*e].link;
      count[w] += count[v] * std::max(1, fabric.links()[static_cast<size_t>(link)].count);
      paths.hops[static_cast<size_t>(near[v])].push_back(link);
    }
  }
  for (std::vector<LinkId>& hop : paths.hops) {
    std::sort(hop.begin(), hop.end());
    hop.erase(std::unique(hop.begin(), hop.end()), hop.end());
  }
  paths.equal_cost_paths = count[b];
  return paths;
}

}  // namespace topoplace
