// topoplaced: the topoplace daemon. With no arguments it serves the built-in reference
// fabric (preset:superpod-4su) from topoplace-data/topoplaced.db on 127.0.0.1:7469.
// Flags override the config file; see deploy/topoplaced.conf.example.
// SIGTERM or SIGINT shut it down cleanly (exit 0).
#include <signal.h>
#include <sys/resource.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "api/server/config/server_config.h"
#include "api/server/wiring/service_watchdog.h"
#include "api/server/wiring/systemd_notify.h"
#include "api/server/wiring/topoplace_server.h"
#include "base/port_file.h"
#include "base/status_macros.h"
#include "scheduler/ledger/clock.h"

namespace {

using topoplace::server::ServerConfig;
using topoplace::server::ServiceWatchdog;
using topoplace::server::SystemdNotifier;

// Flag name -> config key; flags given on the command line win over the file.
const std::vector<std::pair<std::string, std::string>>& FlagKeys() {
  static const auto* const keys = new std::vector<std::pair<std::string, std::string>>{
      {"--listen", "listen"},
      {"--db", "db_path"},
      {"--fabric", "fabric"},
      {"--reservation-ttl", "reservation_ttl_seconds"},
      {"--durability", "durability"},
      {"--max-message-bytes", "max_message_bytes"},
      {"--max-connections", "max_connections"},
      {"--max-connections-per-peer", "max_connections_per_peer"},
      {"--token-file", "token_file"},
      {"--host-tokens-file", "host_tokens_file"},
      {"--accept-unknown-hosts", "accept_unknown_hosts"},
      {"--accept-ledger-loss", "accept_ledger_loss"},
      {"--read-access", "read_access"},
      {"--munge-socket", "munge_socket"},
      {"--tls-cert", "tls_cert_file"},
      {"--tls-key", "tls_key_file"},
      {"--tls-client-ca", "tls_client_ca_file"},
      {"--metrics-listen", "metrics_listen"},
      {"--console-listen", "console_listen"},
      {"--telemetry-retention-hours", "telemetry_retention_hours"},
      {"--uplink-load-file", "uplink_load_file"},
      {"--uplink-load-from-allocations", "uplink_load_from_allocations"},
      {"--uplink-load-from-counters", "uplink_load_from_counters"},
      {"--uplink-counter-max-age", "uplink_counter_max_age_seconds"},
      {"--store", "store"},
      {"--etcd-prefix", "etcd_prefix"},
      {"--advertise", "advertise"},
      {"--leader-lease", "leader_lease_seconds"},
  };
  return *keys;
}

// Hardening finding 4: with the 1,024 descriptors a unit inherits by default, 1,030 idle
// connections made gRPC stop accepting for good. Take the hard limit (systemd's default is
// 524,288; the packaged unit sets LimitNOFILE) as the soft one.
void RaiseOpenFileLimit() {
  rlimit limit{};
  if (getrlimit(RLIMIT_NOFILE, &limit) != 0 || limit.rlim_cur >= limit.rlim_max) return;
  limit.rlim_cur = limit.rlim_max;
  if (setrlimit(RLIMIT_NOFILE, &limit) != 0) {
    std::cerr << "topoplaced: cannot raise the open-file limit to " << limit.rlim_max << std::endl;
  }
}

absl::Status Run(const std::string& config_file, const std::vector<std::string>& flag_values,
                 const std::string& port_file) {
  ServerConfig config;
  if (!config_file.empty())
    TP_RETURN_IF_ERROR(topoplace::server::LoadConfigFile(config_file, config));
  for (size_t i = 0; i < flag_values.size(); ++i) {
    if (flag_values[i].empty()) continue;
    absl::Status s =
        topoplace::server::ApplyConfigValue(FlagKeys()[i].second, flag_values[i], config);
    if (!s.ok())
      return absl::InvalidArgumentError(absl::StrCat(FlagKeys()[i].first, ": ", s.message()));
  }

  // Block the shutdown signals before any thread starts, so every thread inherits the mask
  // and only sigwait below receives them.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);

  RaiseOpenFileLimit();
  TP_ASSIGN_OR_RETURN(auto server, topoplace::server::TopoplaceServer::Start(
                                       config, topoplace::ledger::RealClock()));
  std::cerr << "topoplaced: serving fabric '" << server->fabric().name() << "' (snapshot v"
            << server->fabric_version() << ", " << server->fabric().gpus().size() << " GPUs) on "
            << config.listen.substr(0, config.listen.rfind(':')) << ":" << server->port()
            << ", database " << config.db_path
            << (config.store == "sqlite" ? "" : ", ledger on " + config.store) << std::endl;
  if (server->console_port() != 0) {
    std::cerr << "topoplaced: web console on "
              << (config.tls_cert_file.empty() ? "http://" : "https://")
              << config.console_listen.substr(0, config.console_listen.rfind(':')) << ":"
              << server->console_port() << "/" << std::endl;
  }
  if (!port_file.empty()) TP_RETURN_IF_ERROR(topoplace::WritePortFile(port_file, server->port()));
  // Under systemd (Type=notify, WatchdogSec=): ready now, and fed while the listener answers.
  const SystemdNotifier notifier = SystemdNotifier::FromEnvironment();
  if (absl::Status s = notifier.Notify("READY=1"); !s.ok()) std::cerr << s.message() << std::endl;
  std::optional<ServiceWatchdog> watchdog;
  if (std::optional<absl::Duration> interval = notifier.watchdog_interval()) {
    watchdog.emplace(notifier, *interval, server->probe_target());
  }

  int received = 0;
  sigwait(&signals, &received);
  std::cerr << "topoplaced: signal " << received << ", shutting down" << std::endl;
  (void)notifier.Notify("STOPPING=1");
  watchdog.reset();
  server->Shutdown();
  return absl::OkStatus();
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"topoplaced: the topoplace placement daemon"};
  std::string config_file;
  std::string port_file;
  std::vector<std::string> flag_values(FlagKeys().size());
  app.add_option("--config", config_file, "Config file (key = value lines)");
  for (size_t i = 0; i < FlagKeys().size(); ++i) {
    app.add_option(FlagKeys()[i].first, flag_values[i],
                   "Overrides config key '" + FlagKeys()[i].second + "'");
  }
  app.add_option("--port-file", port_file, "Write the bound port here once serving");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
  }
  absl::Status status = Run(config_file, flag_values, port_file);
  if (!status.ok()) {
    std::cerr << "topoplaced: " << status.message() << std::endl;
    return status.code() == absl::StatusCode::kInvalidArgument ||
                   status.code() == absl::StatusCode::kNotFound ||
                   status.code() == absl::StatusCode::kPermissionDenied
               ? 2
               : 1;
  }
  return 0;
}
