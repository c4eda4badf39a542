// topoplace-k8s-extender: the kube-scheduler HTTP extender (see plugins/k8s/README.md).
//
//   topoplace-k8s-extender --server 127.0.0.1:7469 --listen 0.0.0.0:8888
//
// Credentials for topoplaced come from the environment like the CLI's
// (TOPOPLACE_TOKEN_FILE, TOPOPLACE_CA_FILE, TOPOPLACE_CERT_FILE, TOPOPLACE_KEY_FILE).
// SIGTERM or SIGINT shut it down cleanly (exit 0), releasing reservations of groups that
// were not committed yet.
#include <signal.h>

#include <CLI/CLI.hpp>
#include <atomic>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <thread>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "base/port_file.h"
#include "base/status_macros.h"
#include "client/topoplace_client.h"
#include "plugins/k8s/extender/compute_domains.h"
#include "plugins/k8s/extender/extender_handlers.h"
#include "plugins/k8s/extender/extender_server.h"
#include "plugins/k8s/extender/gang_planner.h"
#include "plugins/k8s/extender/grpc_placement_backend.h"
#include "plugins/k8s/extender/kube_api.h"

namespace {

using namespace topoplace::k8s;  // NOLINT(build/namespaces): one small main

struct Flags {
  std::string server = "127.0.0.1:7469";
  std::string policy;
  double ttl_seconds = 300;
  double rpc_timeout_seconds = 5;
  std::string node_map;
  std::string port_file;
  ServerOptions http;
  KubeApiOptions kube;  // server empty: no calls to the Kubernetes API
};

// Logs what a ComputeDomain pass did: each creation, and the problems when they change.
void LogPass(const absl::StatusOr<ComputeDomainKeeper::Pass>& pass, std::string& last) {
  std::string problems;
  if (!pass.ok()) {
    problems = std::string(pass.status().message());
  } else {
    for (const std::string& key : pass->created) {
      std::cerr << "topoplace-k8s-extender: created ComputeDomain " << key << std::endl;
    }
    for (const std::string& p : pass->problems) absl::StrAppend(&problems, p, "; ");
  }
  if (problems != last && !problems.empty()) {
    std::cerr << "topoplace-k8s-extender: ComputeDomains: " << problems << std::endl;
  }
  last = problems;
}

absl::Status Run(const Flags& flags) {
  if (flags.ttl_seconds <= 0) return absl::InvalidArgumentError("--reservation-ttl must be > 0");
  PlannerOptions planner_options;
  planner_options.reservation_ttl = absl::Seconds(flags.ttl_seconds);
  if (!flags.node_map.empty()) {
    TP_ASSIGN_OR_RETURN(planner_options.node_names,
                        topoplace::plugins::NodeNameMap::Load(flags.node_map));
  }
  TP_ASSIGN_OR_RETURN(topoplace::client::ClientOptions client_options,
                      topoplace::client::ClientOptionsFromEnv(flags.server));
  client_options.timeout = absl::Seconds(flags.rpc_timeout_seconds);
  TP_ASSIGN_OR_RETURN(PlacementBackendPtr backend,
                      ConnectGrpcPlacementBackend(client_options, flags.policy));

  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);

  std::unique_ptr<KubeApi> kube;
  if (!flags.kube.server.empty()) {
    TP_ASSIGN_OR_RETURN(kube, ConnectKubeApi(flags.kube));
  }
  std::optional<ComputeDomainKeeper> keeper;
  if (kube != nullptr) keeper.emplace(*kube);
  GangPlanner planner(std::move(backend), std::move(planner_options));
  ExtenderHandlers handlers(planner, keeper ? &*keeper : nullptr);
  TP_ASSIGN_OR_RETURN(std::unique_ptr<ExtenderServer> server,
                      ExtenderServer::Start(flags.http, handlers));
  std::cerr << "topoplace-k8s-extender: listening on "
            << (flags.http.tls_cert_file.empty() ? "http://" : "https://")
            << flags.http.listen.substr(0, flags.http.listen.rfind(':')) << ":" << server->port()
            << ", topoplaced at " << flags.server << std::endl;
  if (!flags.port_file.empty()) {
    TP_RETURN_IF_ERROR(topoplace::WritePortFile(flags.port_file, server->port()));
  }

  std::atomic<bool> stopping = false;
  std::thread ticker([&planner, &stopping, &keeper] {
    std::string last_problems;
    for (int tick = 0; !stopping; ++tick) {
      planner.Tick();
      if (keeper && tick % 2 == 0) LogPass(keeper->Sync(), last_problems);
      for (int i = 0; i < 10 && !stopping; ++i) absl::SleepFor(absl::Milliseconds(100));
    }
  });
  int received = 0;
  sigwait(&signals, &received);
  std::cerr << "topoplace-k8s-extender: signal " << received << ", shutting down" << std::endl;
  stopping = true;
  ticker.join();
  server->Shutdown();
  planner.ReleaseUncommitted();
  return absl::OkStatus();
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"topoplace-k8s-extender: kube-scheduler extender steering training jobs"};
  Flags flags;
  app.add_option("--server", flags.server, "topoplaced address host:port")->capture_default_str();
  app.add_option("--listen", flags.http.listen, "HTTP(S) listen address; port 0 = any")
      ->capture_default_str();
  app.add_option("--policy", flags.policy, "Placement policy (default: the daemon's)");
  app.add_option("--reservation-ttl", flags.ttl_seconds,
                 "Seconds a group's GPUs stay reserved until every rank reached the filter")
      ->capture_default_str();
  app.add_option("--rpc-timeout", flags.rpc_timeout_seconds, "Seconds per call to topoplaced")
      ->capture_default_str();
  app.add_option("--node-map", flags.node_map,
                 "File of 'FABRIC_HOST K8S_NODE' lines (default: names are equal)");
  app.add_option("--tls-cert", flags.http.tls_cert_file, "PEM certificate chain (HTTPS)");
  app.add_option("--tls-key", flags.http.tls_key_file, "PEM private key (HTTPS)");
  app.add_option("--tls-client-ca", flags.http.tls_client_ca_file,
                 "PEM CA; with TLS, require client certificates it signed (kube-scheduler's "
                 "extender tlsConfig presents one). Required unless --insecure");
  app.add_flag("--insecure", flags.http.insecure,
               "Serve without client authentication (tests, a loopback listener only trusted "
               "callers reach): anyone who reaches it can reserve GPUs");
  app.add_option("--max-body-bytes", flags.http.max_body_bytes,
                 "Largest request body; larger ones get 413")
      ->capture_default_str();
  app.add_option("--worker-threads", flags.http.worker_threads, "Connections served at once")
      ->capture_default_str();
  app.add_option("--read-timeout", flags.http.read_timeout_seconds,
                 "Seconds a connection may stay silent before it is closed")
      ->capture_default_str();
  app.add_option("--port-file", flags.port_file, "Write the bound port here once serving");
  app.add_option("--kube-api", flags.kube.server,
                 "Kubernetes API server (https://HOST:PORT, or in-cluster) for the "
                 "ComputeDomains of groups labelled topoplace.io/compute-domain (default: none)");
  app.add_option("--kube-token-file", flags.kube.token_file,
                 "Bearer token file for --kube-api (in-cluster: the service account's)");
  app.add_option("--kube-ca-file", flags.kube.ca_file,
                 "PEM CA of the API server's certificate (in-cluster: the service account's)");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
  }
  absl::Status status = Run(flags);
  if (!status.ok()) {
    std::cerr << "topoplace-k8s-extender: " << status.message() << std::endl;
    return status.code() == absl::StatusCode::kInvalidArgument ||
                   status.code() == absl::StatusCode::kNotFound
               ? 2
               : 1;
  }
  return 0;
}
