// systemd's service notification protocol (sd_notify(3)), without libsystemd: a datagram
// of "KEY=VALUE" lines to the AF_UNIX socket named by NOTIFY_SOCKET (a path, or '@' for an
// abstract name). With Type=notify and WatchdogSec= in the unit, systemd sets
// NOTIFY_SOCKET and WATCHDOG_USEC, waits for READY=1, and kills and restarts the daemon
// when WATCHDOG=1 stops arriving.
//
//   const SystemdNotifier notifier = SystemdNotifier::FromEnvironment();
//   notifier.Notify("READY=1");  // no-op outside systemd
#ifndef TOPOPLACE_API_SERVER_WIRING_SYSTEMD_NOTIFY_H_
#define TOPOPLACE_API_SERVER_WIRING_SYSTEMD_NOTIFY_H_

#include <optional>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"

namespace topoplace::server {

class SystemdNotifier {
 public:
  // From NOTIFY_SOCKET, WATCHDOG_USEC and WATCHDOG_PID (the watchdog is ours only if
  // WATCHDOG_PID is unset or names this process).
  static SystemdNotifier FromEnvironment();

  bool enabled() const { return !socket_.empty(); }
  // How often systemd expects WATCHDOG=1; nullopt when it does not watch this process.
  std::optional<absl::Duration> watchdog_interval() const { return watchdog_; }
  // Sends `state` ("READY=1", "WATCHDOG=1", "STOPPING=1", "STATUS=..."). OK without a socket;
  // Unavailable naming the socket if the datagram cannot be sent.
  absl::Status Notify(absl::string_view state) const;

 private:
  std::string socket_;
  std::optional<absl::Duration> watchdog_;
};

}  // namespace topoplace::server

#endif  // TOPOPLACE_API_SERVER_WIRING_SYSTEMD_NOTIFY_H_
