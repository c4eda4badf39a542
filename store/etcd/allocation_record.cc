#include "store/etcd/allocation_record.h"

#include <zlib.h>

#include <cstring>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "topoplace/ledger/v1/allocation_record.pb.h"

namespace topoplace::store {
namespace {

using ledger::Allocation;

absl::Time FromMicros(int64_t us) { return absl::FromUnixMicros(us); }

// A deflated record: the marker, the record's size (4 bytes, little-endian), then the
// deflated bytes. No plain record starts with the marker: 't' (0x74) would be an end-group
// tag, which a serialised message never opens with.
constexpr absl::string_view kDeflated = "tpz1";
constexpr size_t kDeflateFrom = 4096;          // smaller records are stored as they are
constexpr uint32_t kMaxInflated = 256u << 20;  // no record of ours comes near; a bomb does

std::string Deflate(const std::string& plain) {
  uLongf size = compressBound(plain.size());
  std::string out(kDeflated.size() + 4 + size, '\0');
  const uint32_t n = static_cast<uint32_t>(plain.size());
  for (int i = 0; i < 4; ++i) out[kDeflated.size() + i] = static_cast<char>((n >> (8 * i)) & 0xff);
  std::memcpy(out.data(), kDeflated.data(), kDeflated.size());
  auto* dest = reinterpret_cast<Bytef*>(out.data() + kDeflated.size() + 4);
  if (compress2(dest, &size, reinterpret_cast<const Bytef*>(plain.data()), plain.size(),
                Z_BEST_SPEED) != Z_OK) {
    return plain;  // stored as it is; Decode reads both
  }
  out.resize(kDeflated.size() + 4 + size);
  return out;
}

absl::StatusOr<std::string> Inflate(absl::string_view key, absl::string_view stored) {
  const absl::string_view body = stored.substr(kDeflated.size());
  if (body.size() < 4) {
    return absl::DataLossError(absl::StrCat("etcd ledger: key '", key, "': truncated record"));
  }
  uint32_t n = 0;
  for (int i = 0; i < 4; ++i) n |= static_cast<uint32_t>(static_cast<uint8_t>(body[i])) << (8 * i);
  if (n > kMaxInflated) {
    return absl::DataLossError(absl::StrCat("etcd ledger: key '", key, "': record of ", n,
                                            " bytes, more than the ", kMaxInflated, " allowed"));
  }
  std::string plain(n, '\0');
  uLongf size = n;
  if (uncompress(reinterpret_cast<Bytef*>(plain.data()), &size,
                 reinterpret_cast<const Bytef*>(body.data() + 4), body.size() - 4) != Z_OK ||
      size != n) {
    return absl::DataLossError(
        absl::StrCat("etcd ledger: key '", key, "': its deflated record does not inflate"));
  }
  return plain;
}

}  // namespace

std::string EncodeAllocation(const Allocation& a) {
  topoplace::ledger::v1::AllocationRecord r;
  r.set_number(ledger::ParseAllocationId(a.id).value_or(0));
  r.set_state(std::string(ledger::AllocationStateName(a.state)));
  r.set_external_id(a.external_id);
  r.set_job_spec(a.job_spec);
  r.set_policy(a.policy);
  r.set_fabric_version(a.fabric_version);
  for (const ledger::GpuRef& g : a.gpus) {
    auto* gpu = r.add_gpus();
    gpu->set_host(g.host);
    gpu->set_index(g.index);
  }
  r.set_plan_json(a.plan_json);
  for (const ledger::UplinkOffer& o : a.uplink_offer) {
    auto* offer = r.add_uplink_offer();
    offer->set_switch_name(o.switch_name);
    offer->set_bytes_per_second(o.bytes_per_second);
  }
  r.set_request_id(a.request_id);
  r.set_created_us(absl::ToUnixMicros(a.created_at));
  if (a.expires_at != absl::InfiniteFuture()) r.set_expires_us(absl::ToUnixMicros(a.expires_at));
  if (a.finished_at != absl::InfiniteFuture()) {
    r.set_finished_us(absl::ToUnixMicros(a.finished_at));
  }
  if (a.expected_end != absl::InfiniteFuture()) {
    r.set_expected_end_us(absl::ToUnixMicros(a.expected_end));
  }
  std::string plain = r.SerializeAsString();
  return plain.size() < kDeflateFrom ? plain : Deflate(plain);
}

absl::StatusOr<Allocation> DecodeAllocation(absl::string_view key, absl::string_view value) {
  std::string inflated;
  if (absl::StartsWith(value, kDeflated)) {
    TP_ASSIGN_OR_RETURN(inflated, Inflate(key, value));
    value = inflated;
  }
  topoplace::ledger::v1::AllocationRecord r;
  if (!r.ParseFromArray(value.data(), static_cast<int>(value.size()))) {
    return absl::DataLossError(
        absl::StrCat("etcd ledger: key '", key, "' does not hold an allocation record"));
  }
  std::optional<ledger::AllocationState> state = ledger::ParseAllocationState(r.state());
  if (!state || r.number() <= 0) {
    return absl::DataLossError(absl::StrCat("etcd ledger: key '", key, "': unknown state '",
                                            r.state(), "' or allocation number ", r.number()));
  }
  Allocation a;
  a.id = ledger::FormatAllocationId(r.number());
  a.state = *state;
  a.external_id = r.external_id();
  a.job_spec = r.job_spec();
  a.policy = r.policy();
  a.fabric_version = r.fabric_version();
  for (const auto& g : r.gpus()) a.gpus.push_back({g.host(), g.index()});
  a.plan_json = r.plan_json();
  for (const auto& o : r.uplink_offer()) {
    a.uplink_offer.push_back({o.switch_name(), o.bytes_per_second()});
  }
  a.request_id = r.request_id();
  a.created_at = FromMicros(r.created_us());
  if (r.has_expires_us()) a.expires_at = FromMicros(r.expires_us());
  if (r.has_finished_us()) a.finished_at = FromMicros(r.finished_us());
  if (r.has_expected_end_us()) a.expected_end = FromMicros(r.expected_end_us());
  return a;
}

}  // namespace topoplace::store
