#include "api/server/adapters/ledger_backend.h"

#include <unistd.h>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "base/input_file.h"
#include "base/status_macros.h"
#include "store/etcd/etcd_ledger.h"
#include "store/sqlite/sqlite_ledger.h"

namespace topoplace::server {
namespace {

absl::StatusOr<std::string> ReadWhole(absl::string_view key, const std::string& path) {
  return ReadInputFile(path, kMaxCredentialFileBytes, key);
}

// A healthy etcd on a LAN answers in milliseconds; one without quorum never does. Short
// enough that a client's call (several etcd calls) fails over well inside its own deadline.
constexpr absl::Duration kEtcdCallTimeout = absl::Seconds(2);

absl::StatusOr<store::EtcdOptions> EtcdOptionsFrom(const ServerConfig& config) {
  store::EtcdOptions options;
  options.timeout = kEtcdCallTimeout;
  for (absl::string_view e : absl::StrSplit(config.store.substr(7), ',')) {
    options.endpoints.emplace_back(e);
  }
  if (!config.etcd_ca_file.empty()) {
    TP_ASSIGN_OR_RETURN(options.ca_pem, ReadWhole("etcd_ca_file", config.etcd_ca_file));
  }
  if (!config.etcd_cert_file.empty()) {
    TP_ASSIGN_OR_RETURN(options.cert_pem, ReadWhole("etcd_cert_file", config.etcd_cert_file));
    TP_ASSIGN_OR_RETURN(options.key_pem, ReadWhole("etcd_key_file", config.etcd_key_file));
  }
  if (!config.etcd_user.empty()) {
    TP_ASSIGN_OR_RETURN(std::string password,
                        ReadWhole("etcd_password_file", config.etcd_password_file));
    options.user = config.etcd_user;
    options.password = password.substr(0, password.find('\n'));
  }
  return options;
}

// The listen address with the bound port; a wildcard host becomes this machine's name.
std::string AdvertisedAddress(const ServerConfig& config, int port) {
  if (!config.advertise.empty()) return config.advertise;
  std::string host = config.listen.substr(0, config.listen.rfind(':'));
  if (host.empty() || host == "0.0.0.0" || host == "[::]") {
    char name[256] = {};
    if (gethostname(name, sizeof(name) - 1) == 0) host = name;
  }
  return absl::StrCat(host, ":", port);
}

}  // namespace

void LedgerBackend::JoinElection(const ServerConfig& config, int port) {
  if (election) election->Campaign(AdvertisedAddress(config, port));
}

store::Durability SqliteDurability(const ServerConfig& config) {
  return config.durability == "full" ? store::Durability::kFull : store::Durability::kNormal;
}

absl::StatusOr<LedgerBackend> OpenLedgerBackend(const ServerConfig& config, FabricPtr fabric,
                                                const ledger::Clock& clock) {
  LedgerBackend backend;
  if (!config.store_is_etcd()) {
    const store::Durability durability = SqliteDurability(config);
    TP_ASSIGN_OR_RETURN(backend.ledger,
                        store::SqliteLedger::Open(
                            config.db_path, std::move(fabric), clock,
                            {.durability = durability, .accept_loss = config.accept_ledger_loss}));
    return backend;
  }
  TP_ASSIGN_OR_RETURN(store::EtcdOptions options, EtcdOptionsFrom(config));
  absl::StatusOr<std::unique_ptr<store::EtcdClient>> client = store::EtcdClient::Connect(options);
  if (!client.ok()) {
    return absl::InvalidArgumentError(absl::StrCat("store: ", client.status().message()));
  }
  backend.etcd = *std::move(client);
  TP_ASSIGN_OR_RETURN(backend.election,
                      store::LeaderElection::Create(
                          *backend.etcd, {.key = absl::StrCat(config.etcd_prefix, "leader"),
                                          .lease_ttl = config.leader_lease}));
  TP_ASSIGN_OR_RETURN(backend.ledger,
                      store::EtcdLedger::Open(
                          *backend.etcd, *backend.election, std::move(fabric), clock,
                          {.prefix = config.etcd_prefix,
                           .watermark_path = config.db_path + ".etcd-watermark",
                           .accept_loss = config.accept_ledger_loss,
                           .max_request_bytes = static_cast<size_t>(config.etcd_max_request_bytes),
                           .keep_finished = config.etcd_keep_finished,
                           .quota_bytes = config.etcd_quota_bytes}));
  return backend;
}

}  // namespace topoplace::server
