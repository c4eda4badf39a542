#include "store/etcd/etcd_client.h"

#include <grpcpp/client_context.h>
#include <grpcpp/create_channel.h>
#include <grpcpp/security/credentials.h>

#include <cmath>
#include <thread>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/synchronization/notification.h"
#include "base/status_macros.h"

namespace topoplace::store {
namespace {

constexpr int kMaxResponseBytes = 512 << 20;

absl::StatusCode CodeOf(grpc::StatusCode code) {
  return static_cast<absl::StatusCode>(static_cast<int>(code));
}

KeyValue FromProto(const etcdserverpb::KeyValue& kv) {
  return {kv.key(), kv.value(), kv.create_revision(), kv.mod_revision(), kv.version(), kv.lease()};
}

}  // namespace

std::string PrefixEnd(const std::string& prefix) {
  std::string end = prefix;
  // The smallest key greater than every key with this prefix: bump the last byte that is
  // not 0xff and drop what follows; an all-0xff prefix ranges to the end ("\0").
  while (!end.empty()) {
    unsigned char last = static_cast<unsigned char>(end.back());
    if (last < 0xff) {
      end.back() = static_cast<char>(last + 1);
      return end;
    }
    end.pop_back();
  }
  return std::string(1, '\0');
}

etcdserverpb::RangeRequest PrefixRequest(const std::string& prefix) {
  etcdserverpb::RangeRequest request;
  request.set_key(prefix);
  request.set_range_end(PrefixEnd(prefix));
  return request;
}

etcdserverpb::RangeRequest LastKeyRequest(const std::string& prefix) {
  etcdserverpb::RangeRequest request = PrefixRequest(prefix);
  request.set_limit(1);
  request.set_sort_order(etcdserverpb::RangeRequest::DESCEND);
  request.set_sort_target(etcdserverpb::RangeRequest::KEY);
  request.set_keys_only(true);
  return request;
}

absl::StatusOr<std::unique_ptr<EtcdClient>> EtcdClient::Connect(const EtcdOptions& options) {
  if (options.endpoints.empty()) {
    return absl::InvalidArgumentError("etcd: expected at least one endpoint (host:port)");
  }
  for (const std::string& e : options.endpoints) {
    if (e.empty() || e.find(':') == std::string::npos || e.find(',') != std::string::npos) {
      return absl::InvalidArgumentError(
          absl::StrCat("etcd endpoint: expected host:port, got '", e, "'"));
    }
  }
  grpc::ChannelArguments args;
  // A ledger reload reads every live record (plans included) in one response.
  args.SetMaxReceiveMessageSize(kMaxResponseBytes);
  std::shared_ptr<grpc::ChannelCredentials> credentials = grpc::InsecureChannelCredentials();
  if (!options.ca_pem.empty()) {
    grpc::SslCredentialsOptions tls;
    tls.pem_root_certs = options.ca_pem;
    tls.pem_cert_chain = options.cert_pem;
    tls.pem_private_key = options.key_pem;
    credentials = grpc::SslCredentials(tls);
  }
  std::vector<Member> members;
  for (const std::string& endpoint : options.endpoints) {
    Member m;
    m.channel = grpc::CreateCustomChannel(endpoint, credentials, args);
    m.kv = etcdserverpb::KV::NewStub(m.channel);
    m.lease = etcdserverpb::Lease::NewStub(m.channel);
    m.maintenance = etcdserverpb::Maintenance::NewStub(m.channel);
    m.watch = etcdserverpb::Watch::NewStub(m.channel);
    m.auth = etcdserverpb::Auth::NewStub(m.channel);
    members.push_back(std::move(m));
  }
  return std::unique_ptr<EtcdClient>(new EtcdClient(options, std::move(members)));
}

EtcdClient::EtcdClient(EtcdOptions options, std::vector<Member> members)
    : options_(std::move(options)), members_(std::move(members)) {}

std::unique_ptr<grpc::ClientContext> EtcdClient::Context() {
  auto ctx = std::make_unique<grpc::ClientContext>();
  ctx->set_deadline(absl::ToChronoTime(absl::Now() + options_.timeout));
  if (options_.user.empty()) return ctx;
  absl::MutexLock lock(&token_mu_);
  if (token_.empty()) {
    // A failure here shows up as the call's own UNAUTHENTICATED answer.
    etcdserverpb::AuthenticateRequest request;
    request.set_name(options_.user);
    request.set_password(options_.password);
    etcdserverpb::AuthenticateResponse response;
    grpc::ClientContext auth_ctx;
    auth_ctx.set_deadline(absl::ToChronoTime(absl::Now() + options_.timeout));
    if (At(Pick()).auth->Authenticate(&auth_ctx, request, &response).ok()) {
      token_ = response.token();
    }
  }
  if (!token_.empty()) ctx->AddMetadata("token", token_);
  return ctx;
}

absl::Status EtcdClient::Failed(const char* call, const grpc::Status& status, size_t m) {
  if (status.error_code() == grpc::StatusCode::UNAUTHENTICATED) {
    absl::MutexLock lock(&token_mu_);
    token_.clear();
  }
  if (status.error_code() == grpc::StatusCode::DEADLINE_EXCEEDED ||
      status.error_code() == grpc::StatusCode::UNAVAILABLE) {
    size_t expected = m;  // unless another call moved on already
    current_.compare_exchange_strong(expected, m + 1);
  }
  // No answer in time is the store being unavailable (no quorum, a partition), so callers
  // treat it like a refused connection: fail over, retry later.
  const absl::StatusCode code = status.error_code() == grpc::StatusCode::DEADLINE_EXCEEDED
                                    ? absl::StatusCode::kUnavailable
                                    : CodeOf(status.error_code());
  return absl::Status(
      code,
      absl::StrCat("etcd ", call, " at ", options_.endpoints[m % options_.endpoints.size()],
                   " (of ", absl::StrJoin(options_.endpoints, ","), "): ",
                   status.error_code() == grpc::StatusCode::DEADLINE_EXCEEDED
                       ? absl::StrCat("no answer within ", absl::FormatDuration(options_.timeout))
                       : status.error_message()));
}

size_t EtcdClient::Pick() {
  const size_t start = current_.load();
  for (size_t k = 0; k < members_.size(); ++k) {
    // A member whose channel is failing to connect would refuse the call unsent: skip it.
    if (At(start + k).channel->GetState(/*try_to_connect=*/true) !=
        GRPC_CHANNEL_TRANSIENT_FAILURE) {
      size_t expected = start;
      if (k > 0) current_.compare_exchange_strong(expected, start + k);
      return start + k;
    }
  }
  return start;
}

template <typename Call>
absl::Status EtcdClient::Run(const char* name, bool read, Call call) {
  absl::Status failed;
  for (size_t attempt = 0; attempt < (read ? members_.size() : 1); ++attempt) {
    const size_t m = Pick();
    const grpc::Status status = call(At(m));
    if (status.ok()) return absl::OkStatus();
    failed = Failed(name, status, m);
    // Asked again only of a member that could not be reached (the call was not sent): one
    // that did not answer in time has cost its timeout, and a replica cut off from every
    // member must not wait one timeout per member.
    if (status.error_code() != grpc::StatusCode::UNAVAILABLE) break;
  }
  return failed;
}

absl::StatusOr<std::optional<KeyValue>> EtcdClient::Get(const std::string& key) {
  etcdserverpb::RangeRequest request;
  request.set_key(key);
  etcdserverpb::RangeResponse response;
  TP_RETURN_IF_ERROR(Run("Range", true, [&](const Member& m) {
    return m.kv->Range(Context().get(), request, &response);
  }));
  if (response.kvs_size() == 0) return std::nullopt;
  return FromProto(response.kvs(0));
}

absl::StatusOr<std::vector<KeyValue>> EtcdClient::GetPrefix(const std::string& prefix) {
  etcdserverpb::RangeRequest request = PrefixRequest(prefix);
  etcdserverpb::RangeResponse response;
  TP_RETURN_IF_ERROR(Run("Range", true, [&](const Member& m) {
    return m.kv->Range(Context().get(), request, &response);
  }));
  std::vector<KeyValue> out;
  out.reserve(static_cast<size_t>(response.kvs_size()));
  for (const etcdserverpb::KeyValue& kv : response.kvs()) out.push_back(FromProto(kv));
  return out;
}

absl::Status EtcdClient::Compact(int64_t revision) {
  etcdserverpb::CompactionRequest request;
  request.set_revision(revision);
  etcdserverpb::CompactionResponse response;
  absl::Status s = Run("Compact", false, [&](const Member& m) {
    return m.kv->Compact(Context().get(), request, &response);
  });
  // etcd: "mvcc: required revision has been compacted" when someone got there first.
  if (!s.ok() && absl::StrContains(s.message(), "has been compacted")) return absl::OkStatus();
  return s;
}

absl::StatusOr<EtcdStatus> EtcdClient::Status() {
  etcdserverpb::StatusRequest request;
  etcdserverpb::StatusResponse response;
  TP_RETURN_IF_ERROR(Run("Status", true, [&](const Member& m) {
    return m.maintenance->Status(Context().get(), request, &response);
  }));
  return EtcdStatus{.db_bytes = response.db_size(), .db_bytes_in_use = response.db_size_in_use()};
}

absl::StatusOr<int64_t> EtcdClient::Put(const std::string& key, const std::string& value,
                                        int64_t lease) {
  etcdserverpb::PutRequest request;
  request.set_key(key);
  request.set_value(value);
  request.set_lease(lease);
  etcdserverpb::PutResponse response;
  TP_RETURN_IF_ERROR(Run("Put", false, [&](const Member& m) {
    return m.kv->Put(Context().get(), request, &response);
  }));
  return response.header().revision();
}

absl::StatusOr<bool> EtcdClient::PutIfUnchanged(const std::string& key, const std::string& value,
                                                int64_t mod_revision, int64_t lease) {
  etcdserverpb::TxnRequest request;
  etcdserverpb::Compare* compare = request.add_compare();
  compare->set_key(key);
  compare->set_target(etcdserverpb::Compare::MOD);
  compare->set_result(etcdserverpb::Compare::EQUAL);
  compare->set_mod_revision(mod_revision);  // a missing key has mod revision 0
  etcdserverpb::PutRequest* put = request.add_success()->mutable_request_put();
  put->set_key(key);
  put->set_value(value);
  put->set_lease(lease);
  absl::StatusOr<etcdserverpb::TxnResponse> response = Txn(request);
  if (!response.ok()) return response.status();
  return response->succeeded();
}

absl::StatusOr<etcdserverpb::TxnResponse> EtcdClient::Txn(const etcdserverpb::TxnRequest& request) {
  // A transaction of reads alone may be asked again of another member; one that writes is
  // not (it may have been applied).
  bool read = true;
  for (const auto& ops : {request.success(), request.failure()}) {
    for (const etcdserverpb::RequestOp& op : ops) read = read && op.has_request_range();
  }
  etcdserverpb::TxnResponse response;
  TP_RETURN_IF_ERROR(Run("Txn", read, [&](const Member& m) {
    return m.kv->Txn(Context().get(), request, &response);
  }));
  return response;
}

absl::StatusOr<int64_t> EtcdClient::GrantLease(absl::Duration ttl) {
  etcdserverpb::LeaseGrantRequest request;
  request.set_ttl(
      std::max<int64_t>(1, static_cast<int64_t>(std::ceil(absl::ToDoubleSeconds(ttl)))));
  etcdserverpb::LeaseGrantResponse response;
  TP_RETURN_IF_ERROR(Run("LeaseGrant", false, [&](const Member& m) {
    return m.lease->LeaseGrant(Context().get(), request, &response);
  }));
  if (!response.error().empty()) {
    return absl::UnavailableError(absl::StrCat("etcd LeaseGrant: ", response.error()));
  }
  return response.id();
}

absl::StatusOr<absl::Duration> EtcdClient::KeepAliveOnce(int64_t lease) {
  std::unique_ptr<grpc::ClientContext> ctx = Context();
  const size_t m = Pick();
  auto stream = At(m).lease->LeaseKeepAlive(ctx.get());
  etcdserverpb::LeaseKeepAliveRequest request;
  request.set_id(lease);
  etcdserverpb::LeaseKeepAliveResponse response;
  const bool exchanged = stream->Write(request) && stream->Read(&response);
  stream->WritesDone();
  const grpc::Status status = stream->Finish();
  if (!exchanged || !status.ok()) {
    return Failed(
        "LeaseKeepAlive",
        status.ok() ? grpc::Status(grpc::StatusCode::UNAVAILABLE, "stream ended") : status, m);
  }
  if (response.ttl() <= 0) {
    return absl::NotFoundError(absl::StrCat("etcd lease ", lease, " has expired"));
  }
  return absl::Seconds(response.ttl());
}

EtcdWatch::~EtcdWatch() {
  context_->TryCancel();
  (void)stream_->Finish();
}

absl::StatusOr<etcdserverpb::WatchResponse> EtcdWatch::Next() {
  etcdserverpb::WatchResponse response;
  if (!stream_->Read(&response)) {
    return absl::UnavailableError("etcd watch: the stream ended");
  }
  if (response.canceled()) {
    if (response.compact_revision() > 0) {
      return absl::OutOfRangeError(absl::StrCat("etcd watch: history compacted up to revision ",
                                                response.compact_revision()));
    }
    return absl::UnavailableError(
        absl::StrCat("etcd watch: canceled by etcd: ", response.cancel_reason()));
  }
  return response;
}

absl::StatusOr<std::unique_ptr<EtcdWatch>> EtcdClient::WatchPrefix(const std::string& prefix,
                                                                   int64_t start_revision) {
  std::unique_ptr<grpc::ClientContext> ctx = Context();
  // The stream lives as long as the watch; only its creation is bounded by the timeout.
  ctx->set_deadline(std::chrono::system_clock::time_point::max());
  const size_t m = Pick();
  auto stream = At(m).watch->Watch(ctx.get());
  etcdserverpb::WatchRequest request;
  etcdserverpb::WatchCreateRequest* create = request.mutable_create_request();
  create->set_key(prefix);
  create->set_range_end(PrefixEnd(prefix));
  create->set_start_revision(start_revision);
  if (!stream->Write(request)) {
    return Failed("Watch", stream->Finish(), m);
  }
  auto watch = std::make_unique<EtcdWatch>(std::move(ctx), std::move(stream));
  // etcd answers the creation at once (or cancels it, for a compacted revision); a watch
  // that does not answer in time is given up like any call.
  absl::Notification answered;
  std::thread timer([&] {
    if (!answered.WaitForNotificationWithTimeout(options_.timeout)) watch->Cancel();
  });
  absl::StatusOr<etcdserverpb::WatchResponse> first = watch->Next();
  answered.Notify();
  timer.join();
  if (!first.ok()) return first.status();
  if (!first->created()) {
    return absl::UnavailableError("etcd watch: etcd did not confirm the watch");
  }
  return watch;
}

absl::Status EtcdClient::RevokeLease(int64_t lease) {
  etcdserverpb::LeaseRevokeRequest request;
  request.set_id(lease);
  etcdserverpb::LeaseRevokeResponse response;
  return Run("LeaseRevoke", false, [&](const Member& m) {
    return m.lease->LeaseRevoke(Context().get(), request, &response);
  });
}

}  // namespace topoplace::store
