#include "client/topoplace_client.h"

#include <arpa/inet.h>
#include <grpcpp/client_context.h>
#include <grpcpp/create_channel.h>
#include <grpcpp/security/credentials.h>
#include <grpcpp/support/channel_arguments.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <sys/socket.h>

#include <algorithm>
#include <chrono>
#include <random>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "base/input_file.h"
#include "base/status_macros.h"
#include "client/munge_credential.h"
#include "client/rpc_status.h"

namespace topoplace::client {
namespace {

// Big enough for a plan of a 28k-GPU job (its JSON and table ride along).
constexpr int kMaxResponseBytes = 64 << 20;
// Host reports per ListHostReports page (the daemon also ends a page past 16 MiB).
constexpr int kHostReportPage = 256;
// The pause between rounds over every daemon while none can serve a call.
constexpr absl::Duration kRoundPause = absl::Milliseconds(200);

absl::StatusOr<std::string> ReadFile(absl::string_view what, const std::string& path) {
  return ReadInputFile(path, kMaxCredentialFileBytes, what);
}

std::string EnvOr(const char* name) {
  const char* value = getenv(name);
  return value != nullptr ? value : "";
}

// A fresh idempotency key: 128 random bits, so no two clients ever pick the same.
std::string RandomRequestId() {
  std::random_device random;
  std::string id = "client-";
  for (int i = 0; i < 4; ++i) absl::StrAppend(&id, absl::Hex(random(), absl::kZeroPad8));
  return id;
}

}  // namespace

absl::StatusOr<ClientOptions> ClientOptionsFromEnv(const std::string& server) {
  if (server.empty()) return absl::InvalidArgumentError("--server: expected host:port");
  ClientOptions options;
  options.server = server;
  if (std::string token_file = EnvOr("TOPOPLACE_TOKEN_FILE"); !token_file.empty()) {
    TP_ASSIGN_OR_RETURN(std::string text, ReadFile("TOPOPLACE_TOKEN_FILE", token_file));
    options.token = std::string(absl::StripAsciiWhitespace(text.substr(0, text.find('\n'))));
  }
  options.munge_socket = EnvOr("TOPOPLACE_MUNGE_SOCKET");
  options.ca_file = EnvOr("TOPOPLACE_CA_FILE");
  options.cert_file = EnvOr("TOPOPLACE_CERT_FILE");
  options.key_file = EnvOr("TOPOPLACE_KEY_FILE");
  return options;
}

absl::StatusOr<std::vector<std::string>> ParseServerList(const std::string& server) {
  std::vector<std::string> out;
  for (absl::string_view entry : absl::StrSplit(server, ',')) {
    entry = absl::StripAsciiWhitespace(entry);
    if (entry.empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat("server: expected host:port[,host:port...], got '", server, "'"));
    }
    out.emplace_back(entry);
  }
  return out;
}

std::vector<DialTarget> ResolveDaemon(const std::string& address) {
  const size_t colon = address.rfind(':');
  const std::string host = address.substr(0, colon == std::string::npos ? 0 : colon);
  const std::string port = colon == std::string::npos ? "" : address.substr(colon + 1);
  std::vector<DialTarget> out;
  in6_addr literal{};
  const bool is_literal = host.empty() || host.front() == '[' ||
                          inet_pton(AF_INET, host.c_str(), &literal) == 1 ||
                          inet_pton(AF_INET6, host.c_str(), &literal) == 1;
  addrinfo hints{};
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  if (!is_literal && getaddrinfo(host.c_str(), port.c_str(), &hints, &found) == 0) {
    for (const addrinfo* a = found; a != nullptr; a = a->ai_next) {
      char text[INET6_ADDRSTRLEN] = {};
      std::string target;
      if (a->ai_family == AF_INET) {
        inet_ntop(AF_INET, &reinterpret_cast<const sockaddr_in*>(a->ai_addr)->sin_addr, text,
                  sizeof(text));
        target = absl::StrCat("ipv4:", text, ":", port);
      } else if (a->ai_family == AF_INET6) {
        inet_ntop(AF_INET6, &reinterpret_cast<const sockaddr_in6*>(a->ai_addr)->sin6_addr, text,
                  sizeof(text));
        target = absl::StrCat("ipv6:[", text, "]:", port);
      } else {
        continue;
      }
      const bool seen = std::any_of(out.begin(), out.end(),
                                    [&](const DialTarget& t) { return t.target == target; });
      if (!seen) out.push_back({target, host});
    }
    freeaddrinfo(found);
  }
  if (out.size() > 1) return out;
  return {{address, host}};
}

absl::StatusOr<std::unique_ptr<TopoplaceClient>> TopoplaceClient::Connect(
    const ClientOptions& options) {
  if (options.server.empty()) return absl::InvalidArgumentError("server: expected host:port");
  TP_ASSIGN_OR_RETURN(std::vector<std::string> addresses, ParseServerList(options.server));
  std::shared_ptr<grpc::ChannelCredentials> credentials = grpc::InsecureChannelCredentials();
  if (!options.ca_file.empty()) {
    grpc::SslCredentialsOptions ssl;
    TP_ASSIGN_OR_RETURN(ssl.pem_root_certs, ReadFile("ca_file", options.ca_file));
    if (!options.cert_file.empty()) {
      TP_ASSIGN_OR_RETURN(ssl.pem_cert_chain, ReadFile("cert_file", options.cert_file));
      TP_ASSIGN_OR_RETURN(ssl.pem_private_key, ReadFile("key_file", options.key_file));
    }
    credentials = grpc::SslCredentials(ssl);
  }
  grpc::ChannelArguments args;
  args.SetMaxReceiveMessageSize(kMaxResponseBytes);
  std::vector<Endpoint> endpoints;
  for (const std::string& address : addresses) {
    const std::vector<DialTarget> targets = ResolveDaemon(address);
    for (const DialTarget& target : targets) {
      grpc::ChannelArguments target_args = args;
      // Dialled by address, the certificate is still checked against the name.
      if (targets.size() > 1) target_args.SetSslTargetNameOverride(target.name);
      Endpoint e;
      e.channel = grpc::CreateCustomChannel(target.target, credentials, target_args);
      e.placement = v1::Placement::NewStub(e.channel);
      e.topology = v1::Topology::NewStub(e.channel);
      e.telemetry = v1::Telemetry::NewStub(e.channel);
      e.address = targets.size() > 1 ? absl::StrCat(address, " (", target.target, ")") : address;
      endpoints.push_back(std::move(e));
    }
  }
  return std::unique_ptr<TopoplaceClient>(new TopoplaceClient(options, std::move(endpoints)));
}

TopoplaceClient::TopoplaceClient(ClientOptions options, std::vector<Endpoint> endpoints)
    : options_(std::move(options)), endpoints_(std::move(endpoints)) {}

std::string TopoplaceClient::LastAddress() const {
  return endpoints_[current_.load() % endpoints_.size()].address;
}

namespace {

// False if `channel` is still connecting after `wait`: the daemon's port takes
// connections (the kernel completes them) but nothing answers, as with a stopped or
// wedged process. A connection that is up, or one that failed (refused, unreachable: the
// call then fails at once with UNAVAILABLE), is true.
bool Connects(grpc::Channel& channel, absl::Duration wait) {
  const auto deadline = std::chrono::system_clock::now() + absl::ToChronoMilliseconds(wait);
  for (grpc_connectivity_state state = channel.GetState(/*try_to_connect=*/true);;
       state = channel.GetState(/*try_to_connect=*/true)) {
    if (state == GRPC_CHANNEL_READY || state == GRPC_CHANNEL_TRANSIENT_FAILURE ||
        state == GRPC_CHANNEL_SHUTDOWN) {
      return true;
    }
    if (!channel.WaitForStateChange(state, deadline)) return false;
  }
}

}  // namespace

template <typename Request, typename Response, typename Method>
absl::StatusOr<Response> TopoplaceClient::Call(Method method, const Request& request) const {
  const size_t first = current_.load();
  grpc::Status status;
  // Rounds over every daemon until one serves the call or failover_wait has passed.
  const absl::Time give_up =
      absl::Now() + (endpoints_.size() > 1 ? options_.failover_wait : absl::ZeroDuration());
  std::vector<std::string> why;  // each daemon's answer in the last round
  const bool several = endpoints_.size() > 1;
  const absl::Duration connect_wait = std::min(options_.attempt_timeout, options_.timeout);
  for (size_t attempt = 0;; ++attempt) {
    if (attempt > 0 && attempt % endpoints_.size() == 0) {
      if (absl::Now() >= give_up) break;
      why.clear();
      absl::SleepFor(kRoundPause);
    }
    const size_t index = (first + attempt) % endpoints_.size();
    const Endpoint& endpoint = endpoints_[index];
    if (several && !Connects(*endpoint.channel, connect_wait)) {
      why.push_back(absl::StrCat(endpoint.address, ": no connection within ",
                                 absl::FormatDuration(connect_wait), " (a stopped daemon?)"));
      continue;
    }
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() +
                         absl::ToChronoMilliseconds(options_.timeout));
    if (!options_.munge_socket.empty()) {
      absl::StatusOr<std::string> credential = EncodeMungeCredential(options_.munge_socket);
      if (!credential.ok()) return credential.status();
      context.AddMetadata("authorization", kMungeScheme + *credential);
    } else if (!options_.token.empty()) {
      context.AddMetadata("authorization", "Bearer " + options_.token);
    }
    Response response;
    status = method(endpoint, &context, request, &response);
    // Only "cannot serve it here" moves on (unreachable, not the leader, or no answer in
    // time while others may answer); any other answer, even an error, is final.
    if (status.error_code() == grpc::StatusCode::UNAVAILABLE ||
        (several && status.error_code() == grpc::StatusCode::DEADLINE_EXCEEDED)) {
      why.push_back(several ? absl::StrCat(endpoint.address, ": ", status.error_message())
                            : status.error_message());
      continue;
    }
    current_.store(index);
    if (status.ok()) return response;
    if (status.error_code() == grpc::StatusCode::DEADLINE_EXCEEDED) {
      return absl::DeadlineExceededError(
          absl::StrCat("topoplaced at ", endpoint.address, ": ", status.error_message()));
    }
    return client::FromGrpcStatus(status);
  }
  return absl::UnavailableError(
      absl::StrCat("topoplaced at ", options_.server, ": ", absl::StrJoin(why, "; ")));
}

template <typename Stub, typename Request, typename Response>
absl::StatusOr<Response> TopoplaceClient::Invoke(std::unique_ptr<Stub> Endpoint::*stub,
                                                 Rpc<Stub, Request, Response> rpc,
                                                 const Request& request) const {
  return Call<Request, Response>(
      [stub, rpc](const Endpoint& e, grpc::ClientContext* c, const Request& q, Response* r) {
        return ((*(e.*stub)).*rpc)(c, q, r);
      },
      request);
}

absl::StatusOr<v1::PlaceResponse> TopoplaceClient::Place(const std::string& job_spec,
                                                         const std::string& policy,
                                                         bool may_preempt) {
  v1::PlaceRequest request;
  request.set_job_spec(job_spec);
  request.set_policy(policy);
  request.set_may_preempt(may_preempt);
  return Invoke(&Endpoint::placement, &v1::Placement::Stub::Place, request);
}

absl::StatusOr<v1::ReserveResponse> TopoplaceClient::Reserve(const std::string& job_spec,
                                                             const std::string& policy,
                                                             int64_t ttl_seconds) {
  v1::ReserveRequest request;
  request.set_job_spec(job_spec);
  request.set_policy(policy);
  request.set_ttl_seconds(ttl_seconds);
  return Reserve(request);
}

absl::StatusOr<v1::ReserveResponse> TopoplaceClient::Reserve(const v1::ReserveRequest& given) {
  // With several daemons a Reserve may be sent again to the next one: an idempotency key
  // makes sure it never holds twice.
  v1::ReserveRequest request = given;
  if (endpoints_.size() > 1 && request.request_id().empty()) {
    request.set_request_id(RandomRequestId());
  }
  // ABORTED: the daemon lost the race for the same GPUs kAttempts times in a row under
  // contention, holding nothing, so asking again is safe; after a short random pause the
  // racers are apart (hardening round four, finding 8: 1-3 % of Reserves under contention
  // failed their job this way, and the SPANK plugin did not retry).
  absl::StatusOr<v1::ReserveResponse> response;
  std::mt19937_64 jitter(std::random_device{}());
  for (int attempt = 0; attempt < kReserveAttempts; ++attempt) {
    if (attempt > 0) {
      absl::SleepFor(absl::Milliseconds(10 + static_cast<int>(jitter() % 40)) * attempt);
    }
    response = Invoke(&Endpoint::placement, &v1::Placement::Stub::Reserve, request);
    if (response.status().code() != absl::StatusCode::kAborted) break;
  }
  return response;
}

absl::StatusOr<v1::Allocation> TopoplaceClient::Renew(const std::string& allocation_id,
                                                      int64_t ttl_seconds) {
  v1::RenewRequest request;
  request.set_allocation_id(allocation_id);
  request.set_ttl_seconds(ttl_seconds);
  return Invoke(&Endpoint::placement, &v1::Placement::Stub::Renew, request);
}

absl::StatusOr<v1::Allocation> TopoplaceClient::Commit(const std::string& allocation_id,
                                                       const std::string& external_id) {
  v1::CommitRequest request;
  request.set_allocation_id(allocation_id);
  request.set_external_id(external_id);
  return Invoke(&Endpoint::placement, &v1::Placement::Stub::Commit, request);
}

absl::StatusOr<v1::Allocation> TopoplaceClient::Release(const std::string& allocation_id) {
  v1::ReleaseRequest request;
  request.set_allocation_id(allocation_id);
  return Invoke(&Endpoint::placement, &v1::Placement::Stub::Release, request);
}

absl::StatusOr<v1::Allocation> TopoplaceClient::GetAllocation(const std::string& allocation_id) {
  v1::GetAllocationRequest request;
  request.set_allocation_id(allocation_id);
  return Invoke(&Endpoint::placement, &v1::Placement::Stub::GetAllocation, request);
}

absl::StatusOr<v1::Allocation> TopoplaceClient::GetAllocationByExternalId(
    const std::string& external_id) {
  v1::GetAllocationRequest request;
  request.set_external_id(external_id);
  return Invoke(&Endpoint::placement, &v1::Placement::Stub::GetAllocation, request);
}

absl::StatusOr<v1::ListAllocationsResponse> TopoplaceClient::ListAllocations() {
  return Invoke(&Endpoint::placement, &v1::Placement::Stub::ListAllocations,
                v1::ListAllocationsRequest());
}

absl::StatusOr<v1::DefragResponse> TopoplaceClient::Defrag(
    const std::vector<std::string>& waiting_job_specs, int64_t restart_cost_seconds) {
  v1::DefragRequest request;
  for (const std::string& spec : waiting_job_specs) request.add_waiting_job_specs(spec);
  request.set_restart_cost_seconds(restart_cost_seconds);
  return Invoke(&Endpoint::placement, &v1::Placement::Stub::Defrag, request);
}

absl::StatusOr<v1::ExplainResponse> TopoplaceClient::Explain(const std::string& allocation_id) {
  v1::ExplainRequest request;
  request.set_allocation_id(allocation_id);
  return Invoke(&Endpoint::placement, &v1::Placement::Stub::Explain, request);
}

absl::StatusOr<v1::FabricSummary> TopoplaceClient::GetFabricSummary() {
  return Invoke(&Endpoint::topology, &v1::Topology::Stub::GetFabricSummary,
                v1::GetFabricSummaryRequest());
}

absl::StatusOr<v1::HostInfo> TopoplaceClient::GetHost(const v1::GetHostRequest& request) {
  return Invoke(&Endpoint::topology, &v1::Topology::Stub::GetHost, request);
}

absl::StatusOr<v1::GetPathResponse> TopoplaceClient::GetPath(const v1::GetPathRequest& request) {
  return Invoke(&Endpoint::topology, &v1::Topology::Stub::GetPath, request);
}

absl::StatusOr<v1::ListDomainsResponse> TopoplaceClient::ListDomains(
    const v1::ListDomainsRequest& request) {
  return Invoke(&Endpoint::topology, &v1::Topology::Stub::ListDomains, request);
}

absl::StatusOr<v1::ReportHostResponse> TopoplaceClient::ReportHost(const std::string& report_json) {
  v1::ReportHostRequest request;
  request.set_report_json(report_json);
  return Invoke(&Endpoint::topology, &v1::Topology::Stub::ReportHost, request);
}

absl::StatusOr<v1::ListHostReportsResponse> TopoplaceClient::ListHostReportsPage(
    int page_size, const std::string& page_token) {
  v1::ListHostReportsRequest request;
  request.set_page_size(page_size);
  request.set_page_token(page_token);
  return Invoke(&Endpoint::topology, &v1::Topology::Stub::ListHostReports, request);
}

absl::StatusOr<v1::ReportResponse> TopoplaceClient::ReportProbeResults(
    const v1::ReportProbeResultsRequest& request) {
  return Invoke(&Endpoint::telemetry, &v1::Telemetry::Stub::ReportProbeResults, request);
}

absl::StatusOr<v1::ReportResponse> TopoplaceClient::ReportPortCounters(
    const v1::ReportPortCountersRequest& request) {
  return Invoke(&Endpoint::telemetry, &v1::Telemetry::Stub::ReportPortCounters, request);
}

absl::StatusOr<v1::GetLinkHealthResponse> TopoplaceClient::GetLinkHealth(
    const v1::GetLinkHealthRequest& request) {
  return Invoke(&Endpoint::telemetry, &v1::Telemetry::Stub::GetLinkHealth, request);
}

absl::StatusOr<v1::GetJobPathResponse> TopoplaceClient::GetJobPath(
    const v1::GetJobPathRequest& request) {
  return Invoke(&Endpoint::telemetry, &v1::Telemetry::Stub::GetJobPath, request);
}

absl::StatusOr<v1::GetAffectedAllocationsResponse> TopoplaceClient::GetAffectedAllocations(
    const v1::GetAffectedAllocationsRequest& request) {
  return Invoke(&Endpoint::telemetry, &v1::Telemetry::Stub::GetAffectedAllocations, request);
}

absl::StatusOr<v1::ListHostReportsResponse> TopoplaceClient::ListHostReports() {
  v1::ListHostReportsResponse all;
  std::string token;
  while (true) {
    TP_ASSIGN_OR_RETURN(v1::ListHostReportsResponse page,
                        ListHostReportsPage(kHostReportPage, token));
    for (v1::HostReport& r : *page.mutable_reports()) *all.add_reports() = std::move(r);
    if (page.next_page_token().empty()) return all;
    if (page.next_page_token() == token) {
      return absl::InternalError(
          absl::StrCat("ListHostReports: the server returned page token \"", token, "\" twice"));
    }
    token = page.next_page_token();
  }
}

absl::StatusOr<v1::PlaceResponse> RemotePlace(const std::string& server,
                                              const std::string& job_spec,
                                              const std::string& policy, bool may_preempt) {
  TP_ASSIGN_OR_RETURN(ClientOptions options, ClientOptionsFromEnv(server));
  TP_ASSIGN_OR_RETURN(std::unique_ptr<TopoplaceClient> client, TopoplaceClient::Connect(options));
  return client->Place(job_spec, policy, may_preempt);
}

absl::StatusOr<v1::FabricSummary> RemoteFabricSummary(const std::string& server) {
  TP_ASSIGN_OR_RETURN(ClientOptions options, ClientOptionsFromEnv(server));
  TP_ASSIGN_OR_RETURN(std::unique_ptr<TopoplaceClient> client, TopoplaceClient::Connect(options));
  return client->GetFabricSummary();
}

}  // namespace topoplace::client
