// The JSON documents behind the web console's pages, read from what the daemon serves: the
// fabric, the ledger's live allocations, link health, uplink load and the telemetry store.
// Each document names its schema ("topoplace.console.<name>/v1"); docs/console.md lists
// their keys. The console server (console_server.h) only authenticates and routes to these.
//
//   TP_ASSIGN_OR_RETURN(std::string body, SnapshotJson(context, absl::Now()));
//
// Preconditions: `context` is a started daemon's (fabric, ledger and telemetry store set;
// link health may be null, then every link counts as healthy). Thread-safe.
#ifndef TOPOPLACE_API_SERVER_CONSOLE_CONSOLE_VIEWS_H_
#define TOPOPLACE_API_SERVER_CONSOLE_CONSOLE_VIEWS_H_

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "api/server/services/service_context.h"

namespace topoplace::server {

// topoplace.console.snapshot/v1, the cluster map: pods -> blocks -> hosts (and multi-host
// NVLink racks), the owner of every GPU, each host's access-link health and each block's
// uplink health and load, the live allocations.
absl::StatusOr<std::string> SnapshotJson(const ServiceContext& context, absl::Time now);
// topoplace.console.allocations/v1: the live allocations with state, external id, age and
// time left before an uncommitted reservation expires.
absl::StatusOr<std::string> AllocationsJson(const ServiceContext& context, absl::Time now);
// topoplace.console.job/v1 for allocation `id` (live or finished): its hosts, ranks -> GPU
// and NIC and bytes per tier (from the stored plan), and the path view: every link and
// switch its traffic can cross with health, uplink load, bytes and recent events.
// NotFound for an unknown id.
absl::StatusOr<std::string> JobJson(const ServiceContext& context, absl::string_view id,
                                    absl::Time now);
// topoplace.console.links/v1: links not healthy (with the allocations each one touches),
// the health event timeline, the newest counter rates and port counter readings.
absl::StatusOr<std::string> LinksJson(const ServiceContext& context, absl::Time now);
// topoplace.console.capacity/v1: what is free in what shape (scheduler/state/
// free_capacity.h: per level every domain's free GPUs and hosts and the largest whole-host
// job one takes), how many domains of each level take a job of 1, 2, 4, ... hosts now,
// idle hosts by idle-run size, and the latest refusals for want of room with their words.
absl::StatusOr<std::string> CapacityJson(const ServiceContext& context, absl::Time now);

}  // namespace topoplace::server

#endif  // TOPOPLACE_API_SERVER_CONSOLE_CONSOLE_VIEWS_H_
