#include "api/etcd/etcd_client.h"

#include <grpcpp/client_context.h>
#include <grpcpp/create_channel.h>
#include <grpcpp/security/credentials.h>

#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace topoplace::etcd {
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
  // One channel over every member: pick_first tries them in order and moves on when one
  // fails.
  const std::string target = options.endpoints.size() == 1
                                 ? options.endpoints[0]
                                 : absl::StrCat("ipv4:", absl::StrJoin(options.endpoints, ","));
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
  auto channel = grpc::CreateCustomChannel(target, credentials, args);
  return std::unique_ptr<EtcdClient>(new EtcdClient(options, target, std::move(channel)));
}

EtcdClient::EtcdClient(EtcdOptions options, std::string target,
                       std::shared_ptr<grpc::Channel> channel)
    : options_(std::move(options)),
      target_(std::move(target)),
      channel_(std::move(channel)),
      kv_(etcdserverpb::KV::NewStub(channel_)),
      lease_(etcdserverpb::Lease::NewStub(channel_)),
      auth_(etcdserverpb::Auth::NewStub(channel_)) {}

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
    if (auth_->Authenticate(&auth_ctx, request, &response).ok()) token_ = response.token();
  }
  if (!token_.empty()) ctx->AddMetadata("token", token_);
  return ctx;
}

absl::Status EtcdClient::Failed(const char* call, const grpc::Status& status) {
  if (status.error_code() == grpc::StatusCode::UNAUTHENTICATED) {
    absl::MutexLock lock(&token_mu_);
    token_.clear();
  }
  // No answer in time is the store being unavailable (no quorum, a partition), so callers
  // treat it like a refused connection: fail over, retry later.
  const absl::StatusCode code = status.error_code() == grpc::StatusCode::DEADLINE_EXCEEDED
                                    ? absl::StatusCode::kUnavailable
                                    : CodeOf(status.error_code());
  return absl::Status(
      code,
      absl::StrCat("etcd ", call, " at ", absl::StrJoin(options_.endpoints, ","), ": ",
                   status.error_code() == grpc::StatusCode::DEADLINE_EXCEEDED
                       ? absl::StrCat("no answer within ", absl::FormatDuration(options_.timeout))
                       : status.error_message()));
}

absl::StatusOr<std::optional<KeyValue>> EtcdClient::Get(const std::string& key) {
  etcdserverpb::RangeRequest request;
  request.set_key(key);
  etcdserverpb::RangeResponse response;
  const grpc::Status status = kv_->Range(Context().get(), request, &response);
  if (!status.ok()) return Failed("Range", status);
  if (response.kvs_size() == 0) return std::nullopt;
  return FromProto(response.kvs(0));
}

absl::StatusOr<std::vector<KeyValue>> EtcdClient::GetPrefix(const std::string& prefix) {
  etcdserverpb::RangeRequest request = PrefixRequest(prefix);
  etcdserverpb::RangeResponse response;
  const grpc::Status status = kv_->Range(Context().get(), request, &response);
  if (!status.ok()) return Failed("Range", status);
  std::vector<KeyValue> out;
  out.reserve(static_cast<size_t>(response.kvs_size()));
  for (const etcdserverpb::KeyValue& kv : response.kvs()) out.push_back(FromProto(kv));
  return out;
}

absl::StatusOr<int64_t> EtcdClient::Put(const std::string& key, const std::string& value,
                                        int64_t lease) {
  etcdserverpb::PutRequest request;
  request.set_key(key);
  request.set_value(value);
  request.set_lease(lease);
  etcdserverpb::PutResponse response;
  const grpc::Status status = kv_->Put(Context().get(), request, &response);
  if (!status.ok()) return Failed("Put", status);
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
  etcdserverpb::TxnResponse response;
  const grpc::Status status = kv_->Txn(Context().get(), request, &response);
  if (!status.ok()) return Failed("Txn", status);
  return response;
}

absl::StatusOr<int64_t> EtcdClient::GrantLease(absl::Duration ttl) {
  etcdserverpb::LeaseGrantRequest request;
  request.set_ttl(
      std::max<int64_t>(1, static_cast<int64_t>(std::ceil(absl::ToDoubleSeconds(ttl)))));
  etcdserverpb::LeaseGrantResponse response;
  const grpc::Status status = lease_->LeaseGrant(Context().get(), request, &response);
  if (!status.ok()) return Failed("LeaseGrant", status);
  if (!response.error().empty()) {
    return absl::UnavailableError(absl::StrCat("etcd LeaseGrant: ", response.error()));
  }
  return response.id();
}

absl::StatusOr<absl::Duration> EtcdClient::KeepAliveOnce(int64_t lease) {
  std::unique_ptr<grpc::ClientContext> ctx = Context();
  auto stream = lease_->LeaseKeepAlive(ctx.get());
  etcdserverpb::LeaseKeepAliveRequest request;
  request.set_id(lease);
  etcdserverpb::LeaseKeepAliveResponse response;
  const bool exchanged = stream->Write(request) && stream->Read(&response);
  stream->WritesDone();
  const grpc::Status status = stream->Finish();
  if (!exchanged || !status.ok()) {
    return Failed(
        "LeaseKeepAlive",
        status.ok() ? grpc::Status(grpc::StatusCode::UNAVAILABLE, "stream ended") : status);
  }
  if (response.ttl() <= 0) {
    return absl::NotFoundError(absl::StrCat("etcd lease ", lease, " has expired"));
  }
  return absl::Seconds(response.ttl());
}

absl::Status EtcdClient::RevokeLease(int64_t lease) {
  etcdserverpb::LeaseRevokeRequest request;
  request.set_id(lease);
  etcdserverpb::LeaseRevokeResponse response;
  const grpc::Status status = lease_->LeaseRevoke(Context().get(), request, &response);
  if (!status.ok()) return Failed("LeaseRevoke", status);
  return absl::OkStatus();
}

}  // namespace topoplace::etcd
