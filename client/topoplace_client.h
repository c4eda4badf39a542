// The one way to call a running topoplaced (or several replicas): a method per RPC of the
// Placement, Topology and Telemetry services (all but the WatchFabric stream), each going
// through the same failover path (see ClientOptions::server), every failure an
// absl::Status carrying the daemon's code and message (prefixed with the address when no
// daemon can be reached).
//
//   TP_ASSIGN_OR_RETURN(ClientOptions options, ClientOptionsFromEnv("127.0.0.1:7469"));
//   TP_ASSIGN_OR_RETURN(auto client, TopoplaceClient::Connect(options));
//   TP_ASSIGN_OR_RETURN(v1::ReserveResponse r, client->Reserve("tp=8,dp=4", "", 60));
//   TP_RETURN_IF_ERROR(client->Commit(r.allocation().allocation_id(), "slurm:42").status());
//
// Thread-safe: a TopoplaceClient may be shared by threads (gRPC stubs are).
#ifndef TOPOPLACE_CLIENT_TOPOPLACE_CLIENT_H_
#define TOPOPLACE_CLIENT_TOPOPLACE_CLIENT_H_

#include <grpcpp/channel.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "topoplace/v1/placement.grpc.pb.h"
#include "topoplace/v1/telemetry.grpc.pb.h"
#include "topoplace/v1/topology.grpc.pb.h"

namespace topoplace::client {

namespace v1 = ::topoplace::v1;

struct ClientOptions {
  // host:port, required; or several, comma-separated ("a:7469,b:7469"): replicas tried in
  // turn, moving to the next when one cannot serve the call (UNAVAILABLE: unreachable, or
  // a replica that does not lead) or takes no connection within attempt_timeout (hung). A
  // name with several DNS records counts as one daemon per address (resolved at Connect).
  std::string server;
  std::string token;  // bearer token sent with every call; empty = none
  // munged's socket: authenticate every call with a fresh MUNGE credential of this
  // process's uid instead of a token (client/munge_credential.h); empty = none.
  std::string munge_socket;
  std::string ca_file;    // PEM roots: use TLS and trust these; empty = plaintext
  std::string cert_file;  // PEM client certificate and key for mTLS (with ca_file)
  std::string key_file;
  absl::Duration timeout = absl::Seconds(30);  // per call
  // With several daemons: how long a connection to one of them may take before the call
  // moves on to the next (a stopped or wedged replica whose port the kernel still accepts
  // on costs this, not `timeout`); at most `timeout`. Once connected, a call gets the whole
  // `timeout` (a daemon may wait seconds on etcd), and one that runs out of it also moves
  // on. Every call is safe to send again: reads are, Reserve carries an idempotency key
  // (one is made when the request has none), Commit and Renew are idempotent, and a
  // Release sent again finds the allocation released (FAILED_PRECONDITION).
  absl::Duration attempt_timeout = absl::Seconds(2);
  // With several daemons: how long to keep going round them while none can serve the
  // call (a new leader is being elected), pausing 200 ms between rounds. Zero: one round.
  absl::Duration failover_wait = absl::Seconds(10);
};

// Options for `server` with credentials from the environment: TOPOPLACE_TOKEN_FILE (first
// line is the token), TOPOPLACE_MUNGE_SOCKET, TOPOPLACE_CA_FILE, TOPOPLACE_CERT_FILE,
// TOPOPLACE_KEY_FILE.
// InvalidArgument for an empty server; NotFound for a named file that cannot be read.
absl::StatusOr<ClientOptions> ClientOptionsFromEnv(const std::string& server);

class TopoplaceClient {
 public:
  // Makes the channel (lazily connected: an unreachable daemon shows up as UNAVAILABLE
  // on the first call). NotFound if a PEM file cannot be read.
  static absl::StatusOr<std::unique_ptr<TopoplaceClient>> Connect(const ClientOptions& options);

  // may_preempt: also the live allocations of lower priority to stop (PlaceRequest).
  absl::StatusOr<v1::PlaceResponse> Place(const std::string& job_spec, const std::string& policy,
                                          bool may_preempt = false);
  // `ttl_seconds` 0 means the daemon's default.
  absl::StatusOr<v1::ReserveResponse> Reserve(const std::string& job_spec,
                                              const std::string& policy, int64_t ttl_seconds);
  // The full request, for callers that set an idempotency key (request_id). ABORTED (lost
  // races, nothing held) is asked again, kReserveAttempts times in all, a few tens of
  // milliseconds apart.
  absl::StatusOr<v1::ReserveResponse> Reserve(const v1::ReserveRequest& given);
  static constexpr int kReserveAttempts = 4;
  // `ttl_seconds` 0 means the daemon's default.
  absl::StatusOr<v1::Allocation> Renew(const std::string& allocation_id, int64_t ttl_seconds);
  absl::StatusOr<v1::Allocation> Commit(const std::string& allocation_id,
                                        const std::string& external_id);
  absl::StatusOr<v1::Allocation> Release(const std::string& allocation_id);
  absl::StatusOr<v1::Allocation> GetAllocation(const std::string& allocation_id);
  // The live allocation committed to `external_id` (a Slurm job, a pod group); NotFound
  // when none is.
  absl::StatusOr<v1::Allocation> GetAllocationByExternalId(const std::string& external_id);
  absl::StatusOr<v1::ListAllocationsResponse> ListAllocations();
  absl::StatusOr<v1::ExplainResponse> Explain(const std::string& allocation_id);
  // Defragmentation advice for `waiting_job_specs` (placement.proto, Defrag); a restart
  // cost of 0 is the daemon's default.
  absl::StatusOr<v1::DefragResponse> Defrag(const std::vector<std::string>& waiting_job_specs,
                                            int64_t restart_cost_seconds);
  absl::StatusOr<v1::FabricSummary> GetFabricSummary();
  absl::StatusOr<v1::HostInfo> GetHost(const v1::GetHostRequest& request);
  absl::StatusOr<v1::GetPathResponse> GetPath(const v1::GetPathRequest& request);
  absl::StatusOr<v1::ListDomainsResponse> ListDomains(const v1::ListDomainsRequest& request);
  // Sends one host's agent report (topoplace.agent-report/v1 JSON); the daemon keeps the
  // latest per host.
  absl::StatusOr<v1::ReportHostResponse> ReportHost(const std::string& report_json);
  // One page of the stored host reports (page_size 0: all of them in one response).
  absl::StatusOr<v1::ListHostReportsResponse> ListHostReportsPage(int page_size,
                                                                  const std::string& page_token);
  // Every stored host report, by host name: asks page after page until the last.
  absl::StatusOr<v1::ListHostReportsResponse> ListHostReports();

  // Telemetry: an agent's or collector's reports, and what operators ask of link health.
  absl::StatusOr<v1::ReportResponse> ReportProbeResults(
      const v1::ReportProbeResultsRequest& request);
  absl::StatusOr<v1::ReportResponse> ReportPortCounters(
      const v1::ReportPortCountersRequest& request);
  absl::StatusOr<v1::GetLinkHealthResponse> GetLinkHealth(const v1::GetLinkHealthRequest& request);
  absl::StatusOr<v1::GetJobPathResponse> GetJobPath(const v1::GetJobPathRequest& request);
  absl::StatusOr<v1::GetAffectedAllocationsResponse> GetAffectedAllocations(
      const v1::GetAffectedAllocationsRequest& request);

  // The daemon that answered the last call (the first listed before any call).
  std::string LastAddress() const;

 private:
  // One daemon of the list.
  struct Endpoint {
    std::string address;  // as given (a name with several records appears once per record)
    std::shared_ptr<grpc::Channel> channel;
    std::unique_ptr<v1::Placement::Stub> placement;
    std::unique_ptr<v1::Topology::Stub> topology;
    std::unique_ptr<v1::Telemetry::Stub> telemetry;
  };
  // A generated stub's blocking method.
  template <typename Stub, typename Request, typename Response>
  using Rpc = grpc::Status (Stub::*)(grpc::ClientContext*, const Request&, Response*);
  TopoplaceClient(ClientOptions options, std::vector<Endpoint> endpoints);
  // Calls `method(endpoint, context, request, response)` on the daemon that answered last,
  // then on the others in list order while they are unreachable.
  template <typename Request, typename Response, typename Method>
  absl::StatusOr<Response> Call(Method method, const Request& request) const;
  // Call for the method `rpc` of each endpoint's `stub`: what every public method uses.
  template <typename Stub, typename Request, typename Response>
  absl::StatusOr<Response> Invoke(std::unique_ptr<Stub> Endpoint::*stub,
                                  Rpc<Stub, Request, Response> rpc, const Request& request) const;

  ClientOptions options_;
  std::vector<Endpoint> endpoints_;
  mutable std::atomic<size_t> current_{0};  // the endpoint that answered last
};

// The daemons of a `server` option: comma-separated host:port, blanks around them dropped.
// InvalidArgument for an empty list or an empty entry.
absl::StatusOr<std::vector<std::string>> ParseServerList(const std::string& server);

// One daemon address to dial: `target` for gRPC, `name` for messages and TLS.
struct DialTarget {
  std::string target;  // "host:port", or "ipv4:A.B.C.D:port" / "ipv6:[...]:port"
  std::string name;    // the host as given
};
// `address` (host:port), with a host name that has several DNS records expanded into one
// target per record (so each replica behind the name is tried); a literal address or a
// name with one record (or none: gRPC reports it) stays as it is.
std::vector<DialTarget> ResolveDaemon(const std::string& address);

// One-call helpers for the lead's `place` and `fabric show` commands: connect with
// ClientOptionsFromEnv(server) and ask. The plan and summary carry the exact offline
// text in their `json` and `table` fields.
absl::StatusOr<v1::PlaceResponse> RemotePlace(const std::string& server,
                                              const std::string& job_spec,
                                              const std::string& policy, bool may_preempt = false);
absl::StatusOr<v1::FabricSummary> RemoteFabricSummary(const std::string& server);

}  // namespace topoplace::client

#endif  // TOPOPLACE_CLIENT_TOPOPLACE_CLIENT_H_
