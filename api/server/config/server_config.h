// Configuration of topoplaced: one file of `key = value` lines (`#` starts a comment),
// overridden by command-line flags. Every key has a default, so no file at all serves the
// built-in reference fabric from a local database file. deploy/topoplaced.conf.example
// documents each key.
//
//   ServerConfig config;                          // defaults
//   TP_RETURN_IF_ERROR(LoadConfigFile("/etc/topoplace/topoplaced.conf", config));
//   TP_RETURN_IF_ERROR(ValidateConfig(config));
#ifndef TOPOPLACE_API_SERVER_CONFIG_SERVER_CONFIG_H_
#define TOPOPLACE_API_SERVER_CONFIG_SERVER_CONFIG_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"

namespace topoplace::server {

struct ServerConfig {
  // host:port; port 0 picks a free port (see TopoplaceServer::port()).
  std::string listen = "127.0.0.1:7469";
  // SQLite file holding fabric snapshots, the ledger and telemetry reports.
  std::string db_path = "topoplace-data/topoplaced.db";
  // "preset:NAME" or a fabric file (topoplace.fabric/v1).
  std::string fabric = "preset:superpod-4su";
  // Reservation time to live when a request does not give one.
  absl::Duration reservation_ttl = absl::Seconds(60);
  // "full" (each commit survives power loss) or "normal" (survives a killed process).
  std::string durability = "full";
  // Largest accepted request message; larger ones get RESOURCE_EXHAUSTED from gRPC.
  int64_t max_message_bytes = 4 << 20;
  // Connections the daemon keeps open at once, all clients together, and from one client
  // address (api/server/guards/connection_relay.h); past them a connection is closed at once.
  // 0: no limit (gRPC alone owns the listener). On by default (hardening round four,
  // finding 6: it was off while the example configuration called 4096 the default).
  int max_connections = 4096;
  int max_connections_per_peer = 256;
  // A connection that has not sent its first 24 bytes (gRPC's HTTP/2 preface, or a TLS
  // ClientHello) this long after it was accepted is closed (the relay's).
  absl::Duration handshake_timeout = absl::Seconds(5);
  // Admin bearer token file (first line is the token; mode 0600/0640, >= 16 characters).
  // Empty, no host tokens and no client CA: no auth.
  std::string token_file;
  // Per-host tokens, lines of `HOST TOKEN`: each may report only about its own host
  // (ReportHost, telemetry) and read. Needs an admin credential too (token_file or a CA).
  std::string host_tokens_file;
  // Start although the database holds fewer changes than the ledger acknowledged (its
  // watermark file says so): the operator accepts the loss. Meant for one start.
  bool accept_ledger_loss = false;
  // Accept host reports about hosts the served fabric does not have (while discovering a
  // new cluster). Off: only a credential bound to that very host may report it.
  bool accept_unknown_hosts = false;
  // MUNGE (Slurm's authentication): munged's socket on this host; empty = off. A call
  // with a MUNGE credential is made by the uid munged names: uids in munge_admin_uids
  // (root, and Slurm's SlurmUser for EpilogSlurmctld) are admins; any other uid is a Slurm
  // user, who may reserve with its own submit key and renew or release its own
  // reservations only (api/server/guards/authorizer.h).
  std::string munge_socket;
  std::vector<uint32_t> munge_admin_uids = {0};
  // "open": read-only RPCs need no credentials; "authenticated": they need them too.
  std::string read_access = "open";
  // What a Slurm user (a MUNGE credential that is not an admin's) may hold: the highest
  // priority it may ask, its uncommitted reservations, their GPUs (0: no cap) and the
  // longest TTL of a Reserve or Renew (api/server/guards/user_limits.h).
  int64_t user_max_priority = 0;
  int user_max_reservations = 16;
  int64_t user_max_reserved_gpus = 0;
  absl::Duration user_max_ttl = absl::Hours(1);
  // TLS for the listener: certificate chain and private key (PEM). Both or neither.
  std::string tls_cert_file;
  std::string tls_key_file;
  // With TLS: require client certificates signed by this CA (mTLS). Callers with a
  // verified certificate may mutate without a token.
  std::string tls_client_ca_file;
  // Seconds between sweeps that reclaim expired reservations.
  absl::Duration reclaim_interval = absl::Seconds(1);
  // host:port serving Prometheus /metrics (port 0 picks one); empty: no /metrics.
  std::string metrics_listen;
  // host:port serving the read-only web console (api/server/console/console_server.h),
  // with the listener's TLS and the read rules above; port 0 picks one; empty: no console.
  std::string console_listen;
  // Probe results, port counters and counter rates older than this are pruned.
  absl::Duration telemetry_retention = absl::Hours(24 * 7);
  // A file of `SWITCH SHARE` lines (the share of each switch's uplink capacity in use)
  // that an exporter keeps current; Place and Reserve steer jobs off hot uplinks by it
  // (api/server/adapters/uplink_load_source.h). Empty: no load known.
  std::string uplink_load_file;
  // Derive the uplink load from the plans of the jobs the ledger holds GPUs for
  // (scheduler/load/held_uplink_load.h), so Place and Reserve steer new jobs off the uplinks
  // running jobs fill. Off by default: in the simulator the same model is a mixed result
  // (docs/report/FINDINGS.md), and plans then also carry their link loads (about a third
  // more placement time for the largest jobs).
  bool uplink_load_from_allocations = false;
  // Take each switch's uplink load from the rates of its uplink ports' tx_bytes counters,
  // as a fabric-side collector reports them (api/server/adapters/measured_uplink_load.h); with the
  // other sources, each switch takes the larger share.
  bool uplink_load_from_counters = false;
  // Counter rates measured longer ago than this are not used (the collector stopped).
  absl::Duration uplink_counter_max_age = absl::Seconds(60);

  // Where the ledger lives: "sqlite" (in db_path, the default) or
  // "etcd://HOST:PORT[,HOST:PORT...]" (an etcd cluster shared by replicas; one leads and
  // writes, the others serve reads and name it; host reports and each link's health
  // state are shared there too). Fabric snapshots and the telemetry time series stay in
  // db_path either way.
  std::string store = "sqlite";
  // Whether `store` names etcd: then the ledger, host reports and link health are shared.
  bool store_is_etcd() const { return store.starts_with("etcd://"); }
  // Every key topoplaced writes to etcd starts with this.
  std::string etcd_prefix = "/topoplace/";
  // TLS to etcd: its CA (PEM), and a client certificate and key if etcd wants one.
  std::string etcd_ca_file;
  std::string etcd_cert_file;
  std::string etcd_key_file;
  // etcd authentication: a user, and a file whose first line is its password.
  std::string etcd_user;
  std::string etcd_password_file;
  // The largest request etcd takes (its --max-request-bytes; etcd's default 1.5 MiB). A
  // change that would not fit is refused before anything is written.
  int64_t etcd_max_request_bytes = 1'572'864;
  // etcd's --quota-backend-bytes, for the topoplace_store_bytes alert; and how many
  // finished records the leader keeps (etcd_ledger.h says why any are deleted).
  int64_t etcd_quota_bytes = int64_t{2} << 30;
  int64_t etcd_keep_finished = 5'000;
  // The address clients reach this replica at, which followers name as the leader's.
  // Empty: the listen address with the bound port.
  std::string advertise;
  // The leader's etcd lease: a killed leader holds up writes at most this long.
  absl::Duration leader_lease = absl::Seconds(3);
};

// Applies the keys in the file at `path` on top of `config`. InvalidArgument names the
// file, line and key for unknown keys or bad values; NotFound if the file is missing.
absl::Status LoadConfigFile(const std::string& path, ServerConfig& config);
// The same for the file's text, read from `source` (named in errors): all lines or none.
absl::Status ApplyConfigText(absl::string_view source, absl::string_view text,
                             ServerConfig& config);
// Applies one `key`/`value` pair (the file keys; also used for flags).
absl::Status ApplyConfigValue(absl::string_view key, absl::string_view value, ServerConfig& config);
// Checks cross-field rules (TLS pairs, durability and read_access values, positive TTL).
absl::Status ValidateConfig(const ServerConfig& config);

}  // namespace topoplace::server

#endif  // TOPOPLACE_API_SERVER_CONFIG_SERVER_CONFIG_H_
