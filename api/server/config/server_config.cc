#include "api/server/config/server_config.h"

#include <fstream>
#include <iterator>
#include <sstream>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "base/input_file.h"
#include "base/status_macros.h"
#include "scheduler/state/text_records.h"

namespace topoplace::server {
namespace {

absl::Status BadValue(absl::string_view key, absl::string_view expected, absl::string_view got) {
  return absl::InvalidArgumentError(
      absl::StrCat(key, ": expected ", expected, ", got '", got, "'"));
}

absl::StatusOr<absl::Duration> ParseSeconds(absl::string_view key, absl::string_view value) {
  double seconds = 0;
  if (!absl::SimpleAtod(value, &seconds) || seconds <= 0) {
    return BadValue(key, "a number of seconds > 0", value);
  }
  return absl::Seconds(seconds);
}

}  // namespace

// Over 80 lines because it is the list of the file's keys, one branch of a check and an
// assignment each (a table of setters would say the same at the same length).
absl::Status ApplyConfigValue(absl::string_view key, absl::string_view value,
                              ServerConfig& config) {
  if (key == "listen") {
    if (value.find(':') == absl::string_view::npos) return BadValue(key, "host:port", value);
    config.listen = std::string(value);
  } else if (key == "db_path") {
    if (value.empty()) return BadValue(key, "a file path", value);
    config.db_path = std::string(value);
  } else if (key == "fabric") {
    if (value.empty()) return BadValue(key, "preset:NAME or a fabric file", value);
    config.fabric = std::string(value);
  } else if (key == "reservation_ttl_seconds") {
    TP_ASSIGN_OR_RETURN(config.reservation_ttl, ParseSeconds(key, value));
  } else if (key == "reclaim_interval_seconds") {
    TP_ASSIGN_OR_RETURN(config.reclaim_interval, ParseSeconds(key, value));
  } else if (key == "durability") {
    config.durability = std::string(value);
  } else if (key == "max_message_bytes") {
    if (!absl::SimpleAtoi(value, &config.max_message_bytes) || config.max_message_bytes < 1024 ||
        config.max_message_bytes > (int64_t{1} << 30)) {
      return BadValue(key, "an integer in [1024, 2^30]", value);
    }
  } else if (key == "token_file") {
    config.token_file = std::string(value);
  } else if (key == "host_tokens_file") {
    config.host_tokens_file = std::string(value);
  } else if (key == "accept_ledger_loss") {
    if (value != "true" && value != "false") return BadValue(key, "true or false", value);
    config.accept_ledger_loss = value == "true";
  } else if (key == "accept_unknown_hosts") {
    if (value != "true" && value != "false") return BadValue(key, "true or false", value);
    config.accept_unknown_hosts = value == "true";
  } else if (key == "max_connections" || key == "max_connections_per_peer") {
    int n = 0;
    if (!absl::SimpleAtoi(value, &n) || n < 0 || n > 1'000'000) {
      return BadValue(key, "a count from 0 to 1000000", value);
    }
    (key == "max_connections" ? config.max_connections : config.max_connections_per_peer) = n;
  } else if (key == "handshake_timeout_seconds") {
    TP_ASSIGN_OR_RETURN(config.handshake_timeout, ParseSeconds(key, value));
  } else if (key == "user_max_priority") {
    if (!absl::SimpleAtoi(value, &config.user_max_priority) ||
        config.user_max_priority < -(int64_t{1} << 31) ||
        config.user_max_priority > (int64_t{1} << 32) - 1) {
      return BadValue(key, "a priority as job specs take it", value);
    }
  } else if (key == "user_max_reservations") {
    if (!absl::SimpleAtoi(value, &config.user_max_reservations) ||
        config.user_max_reservations < 1 || config.user_max_reservations > 1'000'000) {
      return BadValue(key, "a count from 1 to 1000000", value);
    }
  } else if (key == "user_max_reserved_gpus") {
    if (!absl::SimpleAtoi(value, &config.user_max_reserved_gpus) ||
        config.user_max_reserved_gpus < 0 || config.user_max_reserved_gpus > 100'000'000) {
      return BadValue(key, "a GPU count (0: no cap)", value);
    }
  } else if (key == "user_max_ttl_seconds") {
    TP_ASSIGN_OR_RETURN(config.user_max_ttl, ParseSeconds(key, value));
  } else if (key == "munge_socket") {
    config.munge_socket = std::string(value);
  } else if (key == "munge_admin_uids") {
    config.munge_admin_uids.clear();
    for (absl::string_view entry : absl::StrSplit(value, ',', absl::SkipWhitespace())) {
      uint32_t uid = 0;
      if (!absl::SimpleAtoi(entry, &uid)) {
        return BadValue(key, "comma-separated numeric uids (e.g. 0,64030)", value);
      }
      config.munge_admin_uids.push_back(uid);
    }
  } else if (key == "read_access") {
    config.read_access = std::string(value);
  } else if (key == "tls_cert_file") {
    config.tls_cert_file = std::string(value);
  } else if (key == "tls_key_file") {
    config.tls_key_file = std::string(value);
  } else if (key == "tls_client_ca_file") {
    config.tls_client_ca_file = std::string(value);
  } else if (key == "metrics_listen") {
    if (!value.empty() && value.find(':') == absl::string_view::npos) {
      return BadValue(key, "host:port or empty", value);
    }
    config.metrics_listen = std::string(value);
  } else if (key == "console_listen") {
    if (!value.empty() && value.find(':') == absl::string_view::npos) {
      return BadValue(key, "host:port or empty", value);
    }
    config.console_listen = std::string(value);
  } else if (key == "telemetry_retention_hours") {
    double hours = 0;
    if (!absl::SimpleAtod(value, &hours) || hours <= 0 || hours > 24 * 3650) {
      return BadValue(key, "a number of hours in (0, 87600]", value);
    }
    config.telemetry_retention = absl::Hours(hours);
  } else if (key == "uplink_load_file") {
    config.uplink_load_file = std::string(value);
  } else if (key == "uplink_load_from_allocations") {
    if (value != "true" && value != "false") return BadValue(key, "true or false", value);
    config.uplink_load_from_allocations = value == "true";
  } else if (key == "uplink_load_from_counters") {
    if (value != "true" && value != "false") return BadValue(key, "true or false", value);
    config.uplink_load_from_counters = value == "true";
  } else if (key == "uplink_counter_max_age_seconds") {
    TP_ASSIGN_OR_RETURN(config.uplink_counter_max_age, ParseSeconds(key, value));
  } else if (key == "store") {
    if (value != "sqlite" && !absl::StartsWith(value, "etcd://")) {
      return BadValue(key, "sqlite or etcd://HOST:PORT[,HOST:PORT...]", value);
    }
    config.store = std::string(value);
  } else if (key == "etcd_prefix") {
    if (!absl::StartsWith(value, "/") || !absl::EndsWith(value, "/")) {
      return BadValue(key, "a key prefix that starts and ends with '/'", value);
    }
    config.etcd_prefix = std::string(value);
  } else if (key == "etcd_ca_file") {
    config.etcd_ca_file = std::string(value);
  } else if (key == "etcd_cert_file") {
    config.etcd_cert_file = std::string(value);
  } else if (key == "etcd_key_file") {
    config.etcd_key_file = std::string(value);
  } else if (key == "etcd_user") {
    config.etcd_user = std::string(value);
  } else if (key == "etcd_password_file") {
    config.etcd_password_file = std::string(value);
  } else if (key == "etcd_max_request_bytes") {
    if (!absl::SimpleAtoi(value, &config.etcd_max_request_bytes) ||
        config.etcd_max_request_bytes < 4096 ||
        config.etcd_max_request_bytes > (int64_t{1} << 31)) {
      return BadValue(key, "a byte count from 4096 to 2147483648", value);
    }
  } else if (key == "etcd_quota_bytes") {
    if (!absl::SimpleAtoi(value, &config.etcd_quota_bytes) ||
        config.etcd_quota_bytes < (int64_t{1} << 20) ||
        config.etcd_quota_bytes > (int64_t{8} << 30)) {
      return BadValue(key, "a byte count from 1048576 to 8589934592 (etcd's largest quota)", value);
    }
  } else if (key == "etcd_keep_finished") {
    if (!absl::SimpleAtoi(value, &config.etcd_keep_finished) || config.etcd_keep_finished < 1 ||
        config.etcd_keep_finished > 10'000'000) {
      return BadValue(key, "a count from 1 to 10000000", value);
    }
  } else if (key == "advertise") {
    if (value.find(':') == absl::string_view::npos) return BadValue(key, "host:port", value);
    config.advertise = std::string(value);
  } else if (key == "leader_lease_seconds") {
    TP_ASSIGN_OR_RETURN(config.leader_lease, ParseSeconds(key, value));
    if (config.leader_lease < absl::Seconds(2)) return BadValue(key, "at least 2", value);
  } else {
    return absl::InvalidArgumentError(absl::StrCat(
        "unknown key '", key,
        "'; known: listen, db_path, fabric, reservation_ttl_seconds, reclaim_interval_seconds,"
        " durability, max_message_bytes, max_connections, max_connections_per_peer,"
        " handshake_timeout_seconds, user_max_priority, user_max_reservations,"
        " user_max_reserved_gpus, user_max_ttl_seconds, token_file, "
        "host_tokens_file, accept_unknown_hosts,"
        " accept_ledger_loss,"
        " munge_socket, munge_admin_uids, read_access, tls_cert_file, tls_key_file,"
        " tls_client_ca_file, metrics_listen, console_listen, telemetry_retention_hours, "
        "uplink_load_file,"
        " uplink_load_from_allocations, uplink_load_from_counters,"
        " uplink_counter_max_age_seconds, store, etcd_prefix, etcd_ca_file, etcd_cert_file,"
        " etcd_key_file, etcd_user, etcd_password_file, etcd_max_request_bytes, etcd_quota_bytes,"
        " etcd_keep_finished, advertise, "
        "leader_lease_seconds"));
  }
  return absl::OkStatus();
}

absl::Status LoadConfigFile(const std::string& path, ServerConfig& config) {
  TP_ASSIGN_OR_RETURN(const std::string text, ReadInputFile(path, size_t{1} << 20, "config file"));
  return ApplyConfigText(path, text, config);
}

absl::Status ApplyConfigText(absl::string_view source, absl::string_view text,
                             ServerConfig& config) {
  // Apply to a copy so that a bad line leaves `config` untouched.
  ServerConfig updated = config;
  // A key given twice is a mistake to show, not a silent "the last one wins" (hardening
  // round four, finding 8).
  absl::flat_hash_map<std::string, int> seen;  // key -> its line
  TP_RETURN_IF_ERROR(sched::ForEachRecord(
      text, source, [&updated, &seen](const sched::RecordLine& r) -> absl::Status {
        const size_t eq = r.text.find('=');
        if (eq == absl::string_view::npos) {
          return absl::InvalidArgumentError(absl::StrCat(r.where, "expected 'key = value', got '",
                                                         r.text.substr(0, 80),
                                                         r.text.size() > 80 ? "...'" : "'"));
        }
        const absl::string_view key = absl::StripAsciiWhitespace(r.text.substr(0, eq));
        if (auto [it, first] = seen.try_emplace(std::string(key), r.line); !first) {
          return absl::InvalidArgumentError(absl::StrCat(
              r.where, key.substr(0, 80), ": given again (first on line ", it->second, ")"));
        }
        const absl::string_view value = absl::StripAsciiWhitespace(r.text.substr(eq + 1));
        if (absl::Status s = ApplyConfigValue(key, value, updated); !s.ok()) {
          return absl::InvalidArgumentError(absl::StrCat(r.where, s.message()));
        }
        return absl::OkStatus();
      }));
  config = std::move(updated);
  return absl::OkStatus();
}

absl::Status ValidateConfig(const ServerConfig& config) {
  if (config.durability != "full" && config.durability != "normal") {
    return BadValue("durability", "full or normal", config.durability);
  }
  if (config.read_access != "open" && config.read_access != "authenticated") {
    return BadValue("read_access", "open or authenticated", config.read_access);
  }
  if (config.tls_cert_file.empty() != config.tls_key_file.empty()) {
    return absl::InvalidArgumentError("tls_cert_file and tls_key_file: give both or neither");
  }
  if (!config.tls_client_ca_file.empty() && config.tls_cert_file.empty()) {
    return absl::InvalidArgumentError("tls_client_ca_file: needs tls_cert_file and tls_key_file");
  }
  const bool admin_credential = !config.token_file.empty() || !config.tls_client_ca_file.empty() ||
                                !config.munge_socket.empty();
  if (config.read_access == "authenticated" && !admin_credential &&
      config.host_tokens_file.empty()) {
    return absl::InvalidArgumentError(
        "read_access: 'authenticated' needs token_file, host_tokens_file, tls_client_ca_file or "
        "munge_socket");
  }
  if (!config.host_tokens_file.empty() && !admin_credential) {
    return absl::InvalidArgumentError(
        "host_tokens_file: needs an admin credential too (token_file or tls_client_ca_file), "
        "or nobody could reserve GPUs");
  }
  if (config.etcd_cert_file.empty() != config.etcd_key_file.empty()) {
    return absl::InvalidArgumentError("etcd_cert_file and etcd_key_file: give both or neither");
  }
  if (config.etcd_user.empty() != config.etcd_password_file.empty()) {
    return absl::InvalidArgumentError("etcd_user and etcd_password_file: give both or neither");
  }
  if (config.reservation_ttl <= absl::ZeroDuration() || config.reservation_ttl > absl::Hours(24)) {
    return absl::InvalidArgumentError("reservation_ttl_seconds: expected a value in (0, 86400]");
  }
  return absl::OkStatus();
}

}  // namespace topoplace::server
