#include "store/ports/host_report_store.h"

namespace topoplace::store {

bool HostReportPager::Add(StoredHostReport report) {
  if (static_cast<int>(page_.reports.size()) == limit_ ||
      (bytes_ >= max_bytes_ && !page_.reports.empty())) {
    page_.more = true;
    return false;
  }
  bytes_ += report.report_json.size();
  page_.reports.push_back(std::move(report));
  return true;
}

}  // namespace topoplace::store
