#include "store/etcd/etcd_health_history.h"

#include <iostream>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "base/status_macros.h"
#include "store/etcd/fenced_txn.h"

namespace topoplace::store {
namespace {

using store::HealthEvent;

// The stored value: "<at unix ms>\n<from>\n<to>\n<reason>" (the reason last: it may hold
// anything).
std::string Encode(const HealthEvent& e) {
  return absl::StrCat(e.at_unix_ms, "\n", e.from, "\n", e.to, "\n", e.reason);
}

absl::StatusOr<HealthEvent> Decode(absl::string_view link, absl::string_view key,
                                   absl::string_view value) {
  std::vector<absl::string_view> parts = absl::StrSplit(value, absl::MaxSplits('\n', 3));
  HealthEvent e;
  if (parts.size() != 4 || !absl::SimpleAtoi(parts[0], &e.at_unix_ms)) {
    return absl::DataLossError(absl::StrCat("etcd key '", key, "' does not hold a health event"));
  }
  e.link = std::string(link);
  e.from = std::string(parts[1]);
  e.to = std::string(parts[2]);
  e.reason = std::string(parts[3]);
  return e;
}

}  // namespace

absl::Status EtcdHealthHistory::AddHealthEvents(const std::vector<HealthEvent>& events) {
  // The log first: it records what this replica judged, whatever etcd does.
  if (!events.empty()) TP_RETURN_IF_ERROR(local_.AddHealthEvents(events));
  absl::MutexLock lock(&mu_);
  for (const HealthEvent& e : events) unwritten_[e.link] = e;  // events come in order
  if (unwritten_.empty()) return absl::OkStatus();
  TP_ASSIGN_OR_RETURN(const Fence fence, fence_.WriteFence());
  while (!unwritten_.empty()) {
    etcdserverpb::TxnRequest txn;
    auto next = unwritten_.begin();
    for (int n = 0; n < kLinksPerTxn && next != unwritten_.end(); ++n, ++next) {
      etcdserverpb::PutRequest* put = txn.add_success()->mutable_request_put();
      put->set_key(absl::StrCat(prefix_, next->first));
      put->set_value(Encode(next->second));
    }
    TP_RETURN_IF_ERROR(FencedTxn(etcd_, fence_, fence, txn).status());
    unwritten_.erase(unwritten_.begin(), next);
  }
  return absl::OkStatus();
}

absl::StatusOr<std::vector<HealthEvent>> EtcdHealthHistory::LatestHealthEvents() {
  TP_ASSIGN_OR_RETURN(std::vector<KeyValue> kvs, etcd_.GetPrefix(prefix_));
  {
    // The caller takes these states over (HealthMonitor::Restore): what it had not
    // written is superseded.
    absl::MutexLock lock(&mu_);
    unwritten_.clear();
  }
  std::vector<HealthEvent> events;
  events.reserve(kvs.size());
  for (const KeyValue& kv : kvs) {
    const absl::string_view key = kv.key;
    absl::StatusOr<HealthEvent> e = Decode(key.substr(prefix_.size()), key, kv.value);
    if (!e.ok()) {
      std::cerr << "topoplaced: warning: " << e.status().message() << "; left out" << std::endl;
      continue;
    }
    events.push_back(*std::move(e));
  }
  return events;
}

absl::Status EtcdHealthHistory::AddCounterRates(const std::vector<store::CounterRateRow>& rows) {
  return local_.AddCounterRates(rows);
}

absl::StatusOr<int64_t> EtcdHealthHistory::Prune(int64_t cutoff_unix_ms) {
  return local_.Prune(cutoff_unix_ms);
}

}  // namespace topoplace::store
