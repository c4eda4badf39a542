// The SQLite backend of the host report port (store/ports/host_report_store.h): one table,
// `host_reports`, in the daemon's database file, created or migrated on open.
#ifndef TOPOPLACE_STORE_SQLITE_SQLITE_HOST_REPORT_STORE_H_
#define TOPOPLACE_STORE_SQLITE_SQLITE_HOST_REPORT_STORE_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "store/ports/host_report_store.h"
#include "store/sqlite/sqlite_db.h"

namespace topoplace::store {

// Opens or creates the host report table in the SQLite database file at `path`.
absl::StatusOr<std::unique_ptr<HostReportStore>> OpenSqliteHostReportStore(const std::string& path,
                                                                           Durability durability);

}  // namespace topoplace::store

#endif  // TOPOPLACE_STORE_SQLITE_SQLITE_HOST_REPORT_STORE_H_
