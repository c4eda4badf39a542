// The port for durable storage of host discovery reports (what `topoplace-agent --server`
// sends): the latest report per host, replaced whole on every new report, one transaction
// each. Backends: the SQLite file (store/sqlite/sqlite_host_report_store.h) and etcd beside
// the ledger (store/etcd/etcd_host_report_store.h). Only storage:
// validation happens in the RPC (topology_host_reports.cc) and merging in `topoplace fabric import
// --server`.
//
//   TP_ASSIGN_OR_RETURN(auto store, OpenSqliteHostReportStore("/var/lib/topoplace/tp.db", kFull));
//   TP_ASSIGN_OR_RETURN(bool replaced, store->Put("h1", json, now_ms));
//   TP_ASSIGN_OR_RETURN(HostReportPage page, store->List("", 100, 16 << 20));
//
// Thread-safe.
#ifndef TOPOPLACE_STORE_PORTS_HOST_REPORT_STORE_H_
#define TOPOPLACE_STORE_PORTS_HOST_REPORT_STORE_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace topoplace::store {

// Largest report ReportHost accepts (the JSON text); a real host's report is a few KB.
inline constexpr size_t kMaxHostReportBytes = size_t{1} << 20;

struct StoredHostReport {
  std::string host;
  std::string report_json;
  int64_t received_unix_ms = 0;
};

struct HostReportPage {
  std::vector<StoredHostReport> reports;
  bool more = false;  // hosts after the last one have reports too
};

// Builds one page of a listing from reports in host order: at most `limit` of them, and
// no more once their JSON adds up to `max_bytes` (at least one). Precondition: limit >= 1.
class HostReportPager {
 public:
  HostReportPager(int limit, size_t max_bytes) : limit_(limit), max_bytes_(max_bytes) {}
  // Adds the next report; false (the page says more follow) when the page is full.
  bool Add(StoredHostReport report);
  HostReportPage Take() { return std::move(page_); }

 private:
  const int limit_;
  const size_t max_bytes_;
  size_t bytes_ = 0;
  HostReportPage page_;
};

class HostReportStore {
 public:
  virtual ~HostReportStore() = default;
  // Stores `report_json` as the latest report of `host`. Returns true if it replaced an
  // earlier report of that host. The caller has validated both.
  virtual absl::StatusOr<bool> Put(absl::string_view host, absl::string_view report_json,
                                   int64_t received_unix_ms) = 0;
  // The latest reports of the hosts whose names sort after `after` (all for ""), by
  // host name, as one HostReportPager page. Precondition: limit >= 1.
  virtual absl::StatusOr<HostReportPage> List(absl::string_view after, int limit,
                                              size_t max_bytes) = 0;
};

}  // namespace topoplace::store

#endif  // TOPOPLACE_STORE_PORTS_HOST_REPORT_STORE_H_
