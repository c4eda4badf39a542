// Writes a synthetic ibnetdiscover dump of a rail-optimised InfiniBand fabric, for
// benchmarks and scale tests of the parser and of the import path.
//
//   std::string dump = GenerateIbnetdiscoverDump({.blocks = 391});  // ~100k HCAs
#ifndef TOPOPLACE_TOPOLOGY_DISCOVERY_IBNETDISCOVER_GENERATOR_H_
#define TOPOPLACE_TOPOLOGY_DISCOVERY_IBNETDISCOVER_GENERATOR_H_

#include <cstdint>
#include <string>
#include <vector>

namespace topoplace::discovery {

// Blocks of `hosts_per_block` hosts with `rails` HCAs each; HCA r of every host in a
// block is cabled to that block's rail-r leaf; each leaf has one uplink to each of the
// `spines_per_rail` spines of its rail (a rail-plane two-tier fabric, 4xNDR everywhere).
struct IbDumpShape {
  int32_t blocks = 391;
  int32_t hosts_per_block = 32;
  int32_t rails = 8;
  int32_t spines_per_rail = 16;
};

// Returns the dump text: every switch record (with its port lines), then every CA.
// HCAs = blocks x hosts_per_block x rails.
std::string GenerateIbnetdiscoverDump(const IbDumpShape& shape);

// A production-like dump of 8 blocks x 16 hosts x 4 rails (2 spines per rail), with the
// mess real fabrics have (issue 17), and what a correct import must find in it:
// - block 5 lost its rail-3 leaf (with the cables to it);
// - about one HCA in ten (never a host's first) carries the factory description "MT4129
//   ConnectX7 Mellanox Technologies"; half of their hosts send an agent report with GUIDs;
//   block 7's HCAs share one system image GUID per host, so its factory HCAs are placed
//   even without reports;
// - b002-n008 has its rail-1 and rail-2 HCAs in each other's leaves (crossed cables);
// - b001-n004 and b006-n009 both call themselves "localhost" (both report), b003-n002
//   "ubuntu";
// - a UFM server on block 0's rail-0 leaf, a SHARP aggregation node in every spine.
struct MessyIbDump {
  std::string dump;
  std::vector<std::string> agent_reports;  // topoplace.agent-report/v1 JSON
  // The truth, from the generator's own choices.
  int32_t hosts = 0;
  int32_t blocks = 0;
  int32_t rails = 0;
  int32_t unattributed_without_reports = 0;  // factory HCAs no system image GUID places
  int32_t unattributed_with_reports = 0;     // ... nor any agent report
  std::string crossed_host;                  // "b002-n008"
  std::vector<std::string> real_host_names;  // the name each non-namesake host has
};
MessyIbDump GenerateMessyIbnetdiscoverDump();

}  // namespace topoplace::discovery

#endif  // TOPOPLACE_TOPOLOGY_DISCOVERY_IBNETDISCOVER_GENERATOR_H_
