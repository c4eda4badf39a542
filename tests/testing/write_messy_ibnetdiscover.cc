// Writes the production-like ibnetdiscover dump of GenerateMessyIbnetdiscoverDump and the
// agent reports of its reporting hosts into a directory, to try `topoplace fabric import`
// and `topoplace export` on it by hand:
//
//   build/tests/testing/write_messy_ibnetdiscover /tmp/messy
//   build/api/cli/topoplace fabric import --ibnetdiscover /tmp/messy/ibnetdiscover.txt ...
#include <filesystem>
#include <fstream>
#include <iostream>

#include "absl/strings/str_format.h"
#include "topology/discovery/ibnetdiscover_generator.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: write_messy_ibnetdiscover DIR\n";
    return 2;
  }
  const std::filesystem::path dir(argv[1]);
  std::error_code ec;
  std::filesystem::create_directories(dir / "reports", ec);
  if (ec) {
    std::cerr << "cannot create " << dir << ": " << ec.message() << "\n";
    return 1;
  }
  const topoplace::discovery::MessyIbDump dump =
      topoplace::discovery::GenerateMessyIbnetdiscoverDump();
  bool ok = static_cast<bool>(std::ofstream(dir / "ibnetdiscover.txt") << dump.dump);
  for (size_t i = 0; i < dump.agent_reports.size(); ++i) {
    ok = ok &&
         static_cast<bool>(std::ofstream(dir / "reports" / absl::StrFormat("report-%03d.json", i))
                           << dump.agent_reports[i]);
  }
  if (!ok) {
    std::cerr << "cannot write into " << dir << "\n";
    return 1;
  }
  std::cout << absl::StrFormat(
      "wrote %s: %d hosts, %d blocks, %d rails; %d unattributed HCAs without the %d reports, "
      "%d with them; crossed cables on %s\n",
      dir.string(), dump.hosts, dump.blocks, dump.rails, dump.unattributed_without_reports,
      dump.agent_reports.size(), dump.unattributed_with_reports, dump.crossed_host);
  return 0;
}
