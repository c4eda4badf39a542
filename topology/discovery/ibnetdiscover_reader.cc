#include <cctype>
#include <charconv>
#include <optional>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "topology/discovery/ibnetdiscover_records.h"

namespace topoplace::discovery {
namespace {

// A forward-only reader over one line.
class Cursor {
 public:
  explicit Cursor(absl::string_view text) : rest_(text) {}

  absl::string_view rest() const { return rest_; }
  bool done() const { return rest_.empty(); }
  void SkipSpace() {
    while (!rest_.empty() && (rest_.front() == ' ' || rest_.front() == '\t')) {
      rest_.remove_prefix(1);
    }
  }
  bool Consume(char c) {
    if (rest_.empty() || rest_.front() != c) return false;
    rest_.remove_prefix(1);
    return true;
  }
  template <typename T>
  std::optional<T> Number(int base) {
    T value{};
    auto [end, ec] = std::from_chars(rest_.data(), rest_.data() + rest_.size(), value, base);
    if (ec != std::errc() || end == rest_.data()) return std::nullopt;
    rest_.remove_prefix(static_cast<size_t>(end - rest_.data()));
    return value;
  }
  // Reads `"..."` and returns the inside; nullopt if unterminated.
  std::optional<absl::string_view> Quoted() {
    if (!Consume('"')) return std::nullopt;
    const size_t end = rest_.find('"');
    if (end == absl::string_view::npos) return std::nullopt;
    absl::string_view inside = rest_.substr(0, end);
    rest_.remove_prefix(end + 1);
    return inside;
  }
  // Reads `[n]`.
  std::optional<int32_t> Bracketed() {
    if (!Consume('[')) return std::nullopt;
    std::optional<int32_t> n = Number<int32_t>(10);
    if (!n.has_value() || !Consume(']')) return std::nullopt;
    return n;
  }
  // Reads an optional `(hexguid)` into `guid` (left alone if absent); false if one starts
  // but is malformed.
  bool GuidInParens(uint64_t& guid) {
    if (!Consume('(')) return true;
    std::optional<uint64_t> value = Number<uint64_t>(16);
    if (!value.has_value() || !Consume(')')) return false;
    guid = *value;
    return true;
  }

 private:
  absl::string_view rest_;
};

std::optional<uint64_t> ParseHex(absl::string_view text) {
  if (absl::StartsWith(text, "0x") || absl::StartsWith(text, "0X")) text.remove_prefix(2);
  uint64_t value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value, 16);
  if (ec != std::errc() || end == text.data()) return std::nullopt;
  return value;
}

// "S-0008f10400410015" -> kind and GUID.
bool ParseNodeId(absl::string_view id, IbNodeKind& kind, uint64_t& guid) {
  if (id.size() < 3 || id[1] != '-') return false;
  switch (id[0]) {
    case 'S':
      kind = IbNodeKind::kSwitch;
      break;
    case 'H':
      kind = IbNodeKind::kCa;
      break;
    case 'R':
      kind = IbNodeKind::kRouter;
      break;
    default:
      return false;
  }
  std::optional<uint64_t> value = ParseHex(id.substr(2));
  if (!value.has_value()) return false;
  guid = *value;
  return true;
}

// The last "<w>x<SPEED>" word of a comment, if any.
void ParseLinkRate(absl::string_view comment, IbPort& port) {
  size_t end = comment.size();
  while (end > 0) {
    while (end > 0 && std::isspace(static_cast<unsigned char>(comment[end - 1]))) --end;
    size_t begin = end;
    while (begin > 0 && !std::isspace(static_cast<unsigned char>(comment[begin - 1]))) --begin;
    if (begin == end) return;
    if (ParseIbWidthSpeed(comment.substr(begin, end - begin), port.lanes, port.speed_gbps)) {
      return;
    }
    end = begin;
  }
}

// The number after the first " lid " in a header comment, after its description.
int32_t ParseLid(absl::string_view comment) {
  const size_t at = comment.find("lid ");
  if (at == absl::string_view::npos) return -1;
  Cursor c(comment.substr(at + 4));
  return c.Number<int32_t>(10).value_or(-1);
}

absl::Status LineError(absl::string_view source, int line, absl::string_view what) {
  return absl::InvalidArgumentError(absl::StrCat(source, ":", line, ": ", what));
}

}  // namespace

bool ParseIbWidthSpeed(absl::string_view token, int32_t& lanes, double& speed_gbps) {
  const size_t x = token.find('x');
  if (x == 0 || x == absl::string_view::npos) return false;
  int32_t width = 0;
  auto [end, ec] = std::from_chars(token.data(), token.data() + x, width, 10);
  if (ec != std::errc() || end != token.data() + x || width <= 0) return false;
  static const std::pair<absl::string_view, double> kLaneRates[] = {
      {"SDR", 2.5}, {"DDR", 5},  {"QDR", 10},  {"FDR10", 10}, {"FDR", 14},
      {"EDR", 25},  {"HDR", 50}, {"NDR", 100}, {"XDR", 200}};
  const absl::string_view rate = token.substr(x + 1);
  for (const auto& [name, gbps] : kLaneRates) {
    if (rate == name) {
      lanes = width;
      speed_gbps = width * gbps;
      return true;
    }
  }
  return false;
}

namespace {

// What the reader carries from line to line.
struct ReadState {
  absl::string_view source_name;
  int line_no = 0;
  std::vector<IbNode> nodes;
  absl::flat_hash_map<uint64_t, int32_t> line_of_guid;
  uint64_t pending_sys_image_guid = 0;
  std::vector<int32_t> port_line;  // of the current record, by port number

  absl::Status Error(absl::string_view what) const { return LineError(source_name, line_no, what); }
};

// A "[port](guid) "peer"[port](guid) # rate" line of the current record.
absl::Status ReadPortLine(absl::string_view line, ReadState& st) {
  if (st.nodes.empty()) {
    return st.Error("port line before any Switch/Ca/Rt record");
  }
  IbNode& node = st.nodes.back();
  Cursor c(line);
  IbPort port;
  port.line = st.line_no;
  std::optional<int32_t> local = c.Bracketed();
  if (!local.has_value() || !c.GuidInParens(port.port_guid)) {
    return st.Error("expected '[port]' or '[port](guid)'");
  }
  port.port = *local;
  c.SkipSpace();
  std::optional<absl::string_view> peer = c.Quoted();
  std::optional<int32_t> peer_port = peer.has_value() ? c.Bracketed() : std::nullopt;
  uint64_t peer_port_guid = 0;
  if (!peer_port.has_value() || !ParseNodeId(*peer, port.peer_kind, port.peer_guid) ||
      !c.GuidInParens(peer_port_guid)) {
    return st.Error(
        "expected a peer '\"S-<guid>\"[port]' or '\"H-<guid>\"[port]' after the "
        "local port");
  }
  port.peer_port = *peer_port;
  c.SkipSpace();
  if (c.Consume('#')) ParseLinkRate(c.rest(), port);
  if (port.port < 1 || port.port > node.num_ports) {
    return st.Error(absl::StrCat("port ", port.port, " outside 1..", node.num_ports,
                                 " declared at line ", node.line));
  }
  if (st.port_line[port.port] != 0) {
    return st.Error(absl::StrCat("port ", port.port, " is linked twice (also at line ",
                                 st.port_line[port.port], ")"));
  }
  st.port_line[port.port] = st.line_no;
  node.ports.push_back(port);
  return absl::OkStatus();
}

// A "key=value" header line: only sysimgguid is kept (for the next record).
absl::Status ReadKeyValue(absl::string_view line, size_t eq, ReadState& st) {
  const absl::string_view key = line.substr(0, eq);
  if (key != "vendid" && key != "devid" && key != "sysimgguid" && key != "switchguid" &&
      key != "caguid" && key != "routerguid") {
    return st.Error(absl::StrCat("unknown key '", key, "'"));
  }
  if (key == "sysimgguid") {
    std::optional<uint64_t> guid = ParseHex(line.substr(eq + 1));
    if (!guid.has_value()) return st.Error("sysimgguid is not hex");
    st.pending_sys_image_guid = *guid;
  }
  return absl::OkStatus();
}

// A "Switch|Ca|Rt <ports> "<id>" # "desc" lid N" record header (chassis headers skipped).
absl::Status ReadRecordHeader(absl::string_view line, ReadState& st) {
  const size_t space = line.find_first_of(" \t");
  const absl::string_view word = line.substr(0, space);
  if (word == "Chassis" || word == "Non-Chassis")
    return absl::OkStatus();  // chassis grouping headers
  IbNodeKind kind;
  if (word == "Switch") {
    kind = IbNodeKind::kSwitch;
  } else if (word == "Ca") {
    kind = IbNodeKind::kCa;
  } else if (word == "Rt") {
    kind = IbNodeKind::kRouter;
  } else {
    return st.Error(
        absl::StrCat("expected a Switch/Ca/Rt record, a [port] line, key=value "
                     "or a comment; got '",
                     line.substr(0, 40), "'"));
  }
  Cursor c(line.substr(word.size()));
  c.SkipSpace();
  IbNode node;
  node.kind = kind;
  node.line = st.line_no;
  std::optional<int32_t> num_ports = c.Number<int32_t>(10);
  c.SkipSpace();
  std::optional<absl::string_view> id = c.Quoted();
  IbNodeKind id_kind;
  if (!num_ports.has_value() || *num_ports < 0 || *num_ports > 4096 || !id.has_value() ||
      !ParseNodeId(*id, id_kind, node.guid) || id_kind != kind) {
    const absl::string_view prefix = kind == IbNodeKind::kSwitch ? "S"
                                     : kind == IbNodeKind::kCa   ? "H"
                                                                 : "R";
    return st.Error(absl::StrCat("expected '", word, " <ports> \"", prefix, "-<guid>\"'"));
  }
  node.num_ports = *num_ports;
  c.SkipSpace();
  if (c.Consume('#')) {
    c.SkipSpace();
    if (std::optional<absl::string_view> desc = c.Quoted(); desc.has_value()) {
      node.description = std::string(*desc);
    }
    node.lid = ParseLid(c.rest());
  }
  node.sys_image_guid = st.pending_sys_image_guid;
  st.pending_sys_image_guid = 0;
  auto [seen, inserted] = st.line_of_guid.try_emplace(node.guid, st.line_no);
  if (!inserted) {
    return st.Error(
        absl::StrCat("GUID ", std::string(*id), " already has a record at line ", seen->second));
  }
  st.port_line.assign(static_cast<size_t>(node.num_ports) + 1, 0);
  st.nodes.push_back(std::move(node));
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::vector<IbNode>> ReadIbnetdiscoverRecords(absl::string_view text,
                                                             absl::string_view source_name) {
  ReadState st;
  st.source_name = source_name;
  while (!text.empty()) {
    ++st.line_no;
    const size_t eol = text.find('\n');
    absl::string_view line = text.substr(0, eol);
    text.remove_prefix(eol == absl::string_view::npos ? text.size() : eol + 1);
    line = absl::StripAsciiWhitespace(line);
    if (line.empty() || line.front() == '#') continue;
    if (line.front() == '[') {
      TP_RETURN_IF_ERROR(ReadPortLine(line, st));
    } else if (const size_t eq = line.find('=');
               eq != absl::string_view::npos && line.front() != '"' && line.find(' ') > eq) {
      TP_RETURN_IF_ERROR(ReadKeyValue(line, eq, st));
    } else {
      TP_RETURN_IF_ERROR(ReadRecordHeader(line, st));
    }
  }
  if (st.nodes.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(
        source_name, ": no Switch, Ca or Rt record found; expected ibnetdiscover output"));
  }
  return std::move(st.nodes);
}

}  // namespace topoplace::discovery
