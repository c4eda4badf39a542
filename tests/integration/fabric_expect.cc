// fabric_expect: checks that a fabric file has the structure a test built.
//
//   fabric_expect FABRIC --leaves N --spines N --rails N --block h1,h2 --block h3,h4
//
// Exits 0 when every host is in the block listed with it (and no two listed blocks
// share one), every leaf is tier 1 and rail-optimised, spines are tier 2 and the fabric
// has the given number of rails; otherwise prints each mismatch and exits 1.
#include <cstdlib>
#include <iostream>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "topology/io/fabric_file.h"

namespace {

int failures = 0;

void Expect(bool ok, const std::string& what) {
  if (ok) return;
  std::cerr << "fabric_expect: " << what << "\n";
  ++failures;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::cerr << "usage: fabric_expect FABRIC [--leaves N] [--spines N] [--rails N] "
                 "[--block h1,h2]...\n";
    return 2;
  }
  int leaves = -1, spines = -1, rails = -1;
  std::vector<std::vector<std::string>> blocks;
  for (int i = 2; i + 1 < argc; i += 2) {
    const std::string flag = argv[i], value = argv[i + 1];
    if (flag == "--leaves") leaves = std::atoi(value.c_str());
    if (flag == "--spines") spines = std::atoi(value.c_str());
    if (flag == "--rails") rails = std::atoi(value.c_str());
    if (flag == "--block") blocks.push_back(absl::StrSplit(value, ','));
  }
  absl::StatusOr<topoplace::FabricPtr> loaded = topoplace::LoadFabricFile(argv[1]);
  if (!loaded.ok()) {
    std::cerr << "fabric_expect: " << loaded.status() << "\n";
    return 2;
  }
  const topoplace::Fabric& f = **loaded;
  int tier1 = 0, tier2 = 0;
  for (const topoplace::Switch& sw : f.switches()) {
    tier1 += sw.tier == 1;
    tier2 += sw.tier == 2;
  }
  if (leaves >= 0) Expect(tier1 == leaves, "leaves: got " + std::to_string(tier1));
  if (spines >= 0) Expect(tier2 == spines, "spines: got " + std::to_string(tier2));
  if (rails >= 0) {
    Expect(static_cast<int>(f.rails().size()) == rails,
           "rails: got " + std::to_string(f.rails().size()));
    Expect(f.rail_optimized(), "fabric is not rail-optimised");
  }
  Expect(f.blocks().size() == blocks.size() || blocks.empty(),
         "blocks: got " + std::to_string(f.blocks().size()));
  std::set<int> seen_blocks;
  for (const std::vector<std::string>& hosts : blocks) {
    std::set<int> ids;
    for (const std::string& name : hosts) {
      const std::optional<topoplace::HostId> h = f.FindHost(name);
      Expect(h.has_value(), "missing host " + name);
      if (!h.has_value()) continue;
      ids.insert(f.hosts()[*h].block);
      // NIC i of every host lands on rail i's leaf.
      for (size_t n = 0; n < f.hosts()[*h].nics.size(); ++n) {
        const topoplace::Nic& nic = f.nics()[f.hosts()[*h].nics[n]];
        Expect(nic.rail == static_cast<int>(n),
               name + "/" + nic.name + ": rail " + std::to_string(nic.rail));
      }
    }
    Expect(ids.size() == 1, "hosts of one block are split: " + absl::StrJoin(hosts, ","));
    if (ids.size() == 1) {
      Expect(seen_blocks.insert(*ids.begin()).second,
             "two listed blocks are one: " + absl::StrJoin(hosts, ","));
    }
  }
  return failures == 0 ? 0 : 1;
}
