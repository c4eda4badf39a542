#include "store/etcd/etcd_host_report_store.h"

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "store/etcd/fenced_txn.h"

namespace topoplace::store {
namespace {

// The stored value: "<received unix ms>\n<report JSON>".
std::string Encode(absl::string_view report_json, int64_t received_unix_ms) {
  return absl::StrCat(received_unix_ms, "\n", report_json);
}

absl::StatusOr<store::StoredHostReport> Decode(absl::string_view host, absl::string_view key,
                                               absl::string_view value) {
  const size_t newline = value.find('\n');
  store::StoredHostReport report;
  report.host = std::string(host);
  if (newline == absl::string_view::npos ||
      !absl::SimpleAtoi(value.substr(0, newline), &report.received_unix_ms)) {
    return absl::DataLossError(absl::StrCat("etcd key '", key, "' does not hold a host report"));
  }
  report.report_json = std::string(value.substr(newline + 1));
  return report;
}

}  // namespace

absl::StatusOr<bool> EtcdHostReportStore::Put(absl::string_view host, absl::string_view report_json,
                                              int64_t received_unix_ms) {
  TP_ASSIGN_OR_RETURN(const Fence fence, fence_.WriteFence());
  etcdserverpb::TxnRequest txn;
  etcdserverpb::PutRequest* put = txn.add_success()->mutable_request_put();
  put->set_key(absl::StrCat(prefix_, host));
  put->set_value(Encode(report_json, received_unix_ms));
  put->set_prev_kv(true);
  TP_ASSIGN_OR_RETURN(etcdserverpb::TxnResponse r, FencedTxn(etcd_, fence_, fence, txn));
  return r.responses(0).response_put().has_prev_kv();
}

absl::StatusOr<store::HostReportPage> EtcdHostReportStore::List(absl::string_view after, int limit,
                                                                size_t max_bytes) {
  etcdserverpb::RangeRequest request = PrefixRequest(prefix_);
  // Keys sort like host names under one prefix; "\0" makes the range start after `after`.
  if (!after.empty()) request.set_key(absl::StrCat(prefix_, after, std::string(1, '\0')));
  request.set_limit(int64_t{limit} + 1);  // one more says whether another page follows
  etcdserverpb::TxnRequest txn;
  *txn.add_success()->mutable_request_range() = request;
  TP_ASSIGN_OR_RETURN(etcdserverpb::TxnResponse r, etcd_.Txn(txn));
  store::HostReportPager pager(limit, max_bytes);
  for (const etcdserverpb::KeyValue& kv : r.responses(0).response_range().kvs()) {
    const absl::string_view key = kv.key();
    TP_ASSIGN_OR_RETURN(store::StoredHostReport report,
                        Decode(key.substr(prefix_.size()), key, kv.value()));
    if (!pager.Add(std::move(report))) break;
  }
  return pager.Take();
}

}  // namespace topoplace::store
