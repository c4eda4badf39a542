// A small client of etcd's v3 API over gRPC (api/proto/etcdserverpb): reads, writes,
// compare-and-swap transactions and leases, each call bounded by a deadline. The ground
// the etcd-backed ledger and leader election (issue 18) build on.
//
//   TP_ASSIGN_OR_RETURN(auto etcd, EtcdClient::Connect({.endpoints = {"127.0.0.1:2379"}}));
//   TP_ASSIGN_OR_RETURN(int64_t revision, etcd->Put("/topoplace/x", "1"));
//   TP_ASSIGN_OR_RETURN(bool swapped, etcd->PutIfUnchanged("/topoplace/x", "2", revision));
//
// Several endpoints are the members of one cluster, each its own channel (so host names
// resolve): calls go to the member that answered last and move to the next once one
// does not answer in time or cannot be reached. Errors: UNAVAILABLE naming the endpoints when etcd
// cannot be reached or does not answer in time; NOT_FOUND for a lease etcd no longer has.
// Thread-safe.
#ifndef TOPOPLACE_STORE_ETCD_ETCD_CLIENT_H_
#define TOPOPLACE_STORE_ETCD_ETCD_CLIENT_H_

#include <grpcpp/channel.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "etcdserverpb/etcd_subset.grpc.pb.h"

namespace topoplace::store {

struct EtcdOptions {
  std::vector<std::string> endpoints;         // host:port of each member; at least one
  absl::Duration timeout = absl::Seconds(5);  // per call
  // TLS: the PEM contents of etcd's CA (empty: plaintext), and of a client certificate
  // chain and key when etcd asks for one.
  std::string ca_pem = {};
  std::string cert_pem = {};
  std::string key_pem = {};
  // etcd authentication (empty user: none): a token is fetched with these and sent with
  // every call, and fetched again when etcd says it expired.
  std::string user = {};
  std::string password = {};
};

struct KeyValue {
  std::string key;
  std::string value;
  int64_t create_revision = 0;
  int64_t mod_revision = 0;  // the revision of the key's last change
  int64_t version = 0;       // changes since creation
  int64_t lease = 0;         // 0: none
};

// A member's database, as its space quota (--quota-backend-bytes) measures it.
struct EtcdStatus {
  int64_t db_bytes = 0;         // the file
  int64_t db_bytes_in_use = 0;  // of it, in use (the rest is free pages compaction left)
};

// One watch on a key range (etcd's Watch stream), from EtcdClient::WatchPrefix. Next may
// block for as long as nothing changes; Cancel, from any thread, makes it return.
class EtcdWatch {
 public:
  EtcdWatch(std::unique_ptr<grpc::ClientContext> context,
            std::unique_ptr<
                grpc::ClientReaderWriter<etcdserverpb::WatchRequest, etcdserverpb::WatchResponse>>
                stream)
      : context_(std::move(context)), stream_(std::move(stream)) {}
  ~EtcdWatch();
  // The next batch of changes, in revision order. OutOfRange naming the oldest revision
  // left when etcd compacted the history the watch needs; Unavailable when the stream
  // ended (etcd unreachable, the member gone, or Cancel).
  absl::StatusOr<etcdserverpb::WatchResponse> Next();
  void Cancel() { context_->TryCancel(); }

 private:
  std::unique_ptr<grpc::ClientContext> context_;
  std::unique_ptr<grpc::ClientReaderWriter<etcdserverpb::WatchRequest, etcdserverpb::WatchResponse>>
      stream_;
};

class EtcdClient {
 public:
  // Makes the channel (connected lazily). InvalidArgument for no endpoint or a malformed
  // one.
  static absl::StatusOr<std::unique_ptr<EtcdClient>> Connect(const EtcdOptions& options);
  // The members this client talks to, as given.
  const std::vector<std::string>& endpoints() const { return options_.endpoints; }

  // The key's current record, nullopt if it does not exist.
  absl::StatusOr<std::optional<KeyValue>> Get(const std::string& key);
  // Every key that starts with `prefix`, in key order.
  absl::StatusOr<std::vector<KeyValue>> GetPrefix(const std::string& prefix);
  // Writes the key (bound to `lease` unless 0); returns the store's new revision.
  absl::StatusOr<int64_t> Put(const std::string& key, const std::string& value, int64_t lease = 0);
  // Writes the key only if its mod revision is still `mod_revision` (0: only if it does
  // not exist). False, changing nothing, when another writer got there first.
  absl::StatusOr<bool> PutIfUnchanged(const std::string& key, const std::string& value,
                                      int64_t mod_revision, int64_t lease = 0);
  // Runs a transaction as given (compares, then success or failure operations, at once).
  absl::StatusOr<etcdserverpb::TxnResponse> Txn(const etcdserverpb::TxnRequest& request);
  // Discards the key-value history before `revision` (current values stay): etcd keeps
  // every revision until compacted, and its space quota counts them. OK when the history
  // was already compacted that far.
  absl::Status Compact(int64_t revision);
  // The database size of the member calls go to now.
  absl::StatusOr<EtcdStatus> Status();

  // Watches every key starting with `prefix` from `start_revision` on (older changes
  // included, while etcd still has them), once etcd confirmed the watch. OutOfRange when
  // `start_revision` was compacted away; Unavailable when etcd does not answer in time.
  absl::StatusOr<std::unique_ptr<EtcdWatch>> WatchPrefix(const std::string& prefix,
                                                         int64_t start_revision);

  // A lease of `ttl` (whole seconds, at least 1); its id.
  absl::StatusOr<int64_t> GrantLease(absl::Duration ttl);
  // Renews the lease once; its remaining time to live. NotFound if it expired.
  absl::StatusOr<absl::Duration> KeepAliveOnce(int64_t lease);
  // Ends the lease now, deleting every key bound to it.
  absl::Status RevokeLease(int64_t lease);

  // The member calls go to now (an index into endpoints()).
  size_t current_member() const { return current_.load() % members_.size(); }

 private:
  // One member: its own channel (a host name resolves as any gRPC target does).
  struct Member {
    std::shared_ptr<grpc::Channel> channel;
    std::unique_ptr<etcdserverpb::KV::Stub> kv;
    std::unique_ptr<etcdserverpb::Lease::Stub> lease;
    std::unique_ptr<etcdserverpb::Maintenance::Stub> maintenance;
    std::unique_ptr<etcdserverpb::Watch::Stub> watch;
    std::unique_ptr<etcdserverpb::Auth::Stub> auth;
  };
  EtcdClient(EtcdOptions options, std::vector<Member> members);
  // The member for the next call: the one that answered last, or the next whose channel is
  // not failing to connect.
  size_t Pick();
  // Runs `call` on the member Pick() chooses. A read (`read`) whose member cannot be
  // reached is asked of the next members, once each; a write is not sent again (it may
  // have been applied), nor is a call that got no answer in time.
  template <typename Call>
  absl::Status Run(const char* name, bool read, Call call);
  const Member& At(size_t m) const { return members_[m % members_.size()]; }
  // A call context with the deadline and, with authentication, the token (fetched first
  // if there is none).
  std::unique_ptr<grpc::ClientContext> Context();
  // `status` of a call to member `m` as an absl::Status naming the call and the member.
  // An expired token is dropped so the next call authenticates again. A member that did
  // not answer (unreachable, or hung past the deadline) is left: the next call goes to the
  // next member, so a hung member costs one timeout, not every call.
  absl::Status Failed(const char* call, const grpc::Status& status, size_t m);

  const EtcdOptions options_;
  std::vector<Member> members_;
  std::atomic<size_t> current_{0};
  absl::Mutex token_mu_;
  std::string token_ ABSL_GUARDED_BY(token_mu_);
};

// The range end that makes a range request cover every key starting with `prefix`.
std::string PrefixEnd(const std::string& prefix);
// A range request for every key starting with `prefix`, in key order.
etcdserverpb::RangeRequest PrefixRequest(const std::string& prefix);
// A range request for the greatest key starting with `prefix` (key only).
etcdserverpb::RangeRequest LastKeyRequest(const std::string& prefix);

}  // namespace topoplace::store

#endif  // TOPOPLACE_STORE_ETCD_ETCD_CLIENT_H_
