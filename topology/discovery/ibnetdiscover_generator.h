// Writes a synthetic ibnetdiscover dump of a rail-optimised InfiniBand fabric, for
// benchmarks and scale tests of the parser and of the import path.
//
//   std::string dump = GenerateIbnetdiscoverDump({.blocks = 391});  // ~100k HCAs
#ifndef TOPOPLACE_TOPOLOGY_DISCOVERY_IBNETDISCOVER_GENERATOR_H_
#define TOPOPLACE_TOPOLOGY_DISCOVERY_IBNETDISCOVER_GENERATOR_H_

#include <cstdint>
#include <string>

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

}  // namespace topoplace::discovery

#endif  // TOPOPLACE_TOPOLOGY_DISCOVERY_IBNETDISCOVER_GENERATOR_H_
