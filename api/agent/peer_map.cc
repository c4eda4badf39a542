#include "api/agent/peer_map.h"

#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace topoplace::agent {

absl::StatusOr<PeerMap> ParsePeerMap(absl::string_view text, absl::string_view source,
                                     int default_port) {
  PeerMap peers;
  int number = 0;
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    ++number;
    if (size_t hash = line.find('#'); hash != absl::string_view::npos) line = line.substr(0, hash);
    line = absl::StripAsciiWhitespace(line);
    if (line.empty()) continue;
    const std::vector<absl::string_view> fields =
        absl::StrSplit(line, absl::ByAnyChar(" \t"), absl::SkipEmpty());
    auto bad = [&](absl::string_view why) {
      return absl::InvalidArgumentError(absl::StrCat(source, ":", number, ": ", why, " in '", line,
                                                     "'; expected 'host/nic ADDRESS[:PORT]'"));
    };
    if (fields.size() != 2) return bad("expected two fields");
    if (fields[0].find('/') == absl::string_view::npos) return bad("NIC name without '/'");
    telemetry::ProbePeer peer{std::string(fields[1]), default_port};
    absl::string_view address = fields[1];
    if (!address.empty() && address.front() == '[') {  // [v6]:port
      const size_t close = address.find(']');
      if (close == absl::string_view::npos) return bad("unterminated '['");
      peer.address = std::string(address.substr(1, close - 1));
      if (close + 1 < address.size()) {
        if (address[close + 1] != ':' || !absl::SimpleAtoi(address.substr(close + 2), &peer.port)) {
          return bad("bad port");
        }
      }
    } else if (std::count(address.begin(), address.end(), ':') == 1) {  // v4:port
      const size_t colon = address.find(':');
      peer.address = std::string(address.substr(0, colon));
      if (!absl::SimpleAtoi(address.substr(colon + 1), &peer.port)) return bad("bad port");
    }
    if (peer.port <= 0 || peer.port > 65535) return bad("port out of range");
    if (!peers.emplace(std::string(fields[0]), peer).second) return bad("NIC listed twice");
  }
  return peers;
}

}  // namespace topoplace::agent
