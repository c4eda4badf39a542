#include "tests/integration/console/webdriver.h"

#include <httplib.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <thread>
#include <vector>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "tests/testing/free_port.h"

namespace topoplace::testing {
namespace {

using nlohmann::json;

constexpr char kChromium[] = "/usr/bin/chromium";
constexpr char kDriver[] = "/usr/bin/chromedriver";

}  // namespace

Browser::Browser() = default;

Browser::~Browser() { Stop(); }

bool Browser::Available() { return access(kChromium, X_OK) == 0 && access(kDriver, X_OK) == 0; }

absl::Status Browser::Start(const std::string& work_dir, int width, int height) {
  if (!Available()) {
    return absl::FailedPreconditionError(
        "Debian's chromium and chromium-driver are not installed (deploy/install-deps.sh "
        "installs them)");
  }
  port_ = FreePort();
  const std::string log = work_dir + "/chromedriver.log";
  driver_pid_ = fork();
  if (driver_pid_ == 0) {
    setpgid(0, 0);  // the driver and the browsers it starts: one group to kill
    const std::string port_arg = absl::StrCat("--port=", port_);
    const std::string log_arg = "--log-path=" + log;
    execl(kDriver, kDriver, port_arg.c_str(), log_arg.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  if (driver_pid_ < 0) return absl::InternalError("fork failed");
  http_ = std::make_unique<httplib::Client>("127.0.0.1", port_);
  http_->set_read_timeout(60, 0);
  bool ready = false;
  for (int i = 0; i < 200 && !ready; ++i) {
    httplib::Result r = http_->Get("/status");
    ready = r && r->status == 200;
    if (!ready) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  if (!ready) return absl::UnavailableError("chromedriver did not answer; see " + log);
  // The flags this machine's closed network needs (no background connections, no
  // component updates) and a fresh profile.
  const nlohmann::json args = {"--headless=new",
                               "--no-sandbox",
                               "--disable-gpu",
                               "--disable-dev-shm-usage",
                               "--disable-quic",
                               "--no-first-run",
                               "--disable-background-networking",
                               "--disable-component-update",
                               "--disable-sync",
                               "--hide-scrollbars",
                               absl::StrCat("--window-size=", width, ",", height),
                               "--user-data-dir=" + work_dir + "/chromium-profile"};
  const nlohmann::json capabilities = {
      {"capabilities",
       {{"alwaysMatch",
         {{"browserName", "chrome"},
          {"goog:chromeOptions", {{"binary", kChromium}, {"args", args}}}}}}}};
  absl::StatusOr<nlohmann::json> session = Call("POST", "/session", capabilities);
  if (!session.ok()) return session.status();
  session_ = (*session)["sessionId"].get<std::string>();
  return absl::OkStatus();
}

absl::StatusOr<nlohmann::json> Browser::Call(const std::string& method, const std::string& path,
                                             const nlohmann::json& body) {
  const std::string url =
      session_.empty() || path == "/session" ? path : absl::StrCat("/session/", session_, path);
  httplib::Result r = method == "GET" ? http_->Get(url.c_str())
                      : method == "DELETE"
                          ? http_->Delete(url.c_str())
                          : http_->Post(url.c_str(), body.dump(), "application/json");
  if (!r) return absl::UnavailableError(absl::StrCat(method, " ", url, ": no answer"));
  nlohmann::json answer = nlohmann::json::parse(r->body, nullptr, false);
  if (r->status != 200 || answer.is_discarded()) {
    return absl::InternalError(
        absl::StrCat(method, " ", url, ": HTTP ", r->status, ": ", r->body.substr(0, 600)));
  }
  return answer["value"];
}

absl::Status Browser::Navigate(const std::string& url) {
  return Call("POST", "/url", {{"url", url}}).status();
}

absl::StatusOr<nlohmann::json> Browser::Run(const std::string& script, const nlohmann::json& args) {
  return Call("POST", "/execute/sync", {{"script", script}, {"args", args}});
}

absl::Status Browser::WaitUntil(const std::string& script, absl::Duration timeout,
                                const std::string& what) {
  const absl::Time deadline = absl::Now() + timeout;
  std::string last;
  while (true) {
    absl::StatusOr<nlohmann::json> value = Run(script);
    if (value.ok() && value->is_boolean() && value->get<bool>()) return absl::OkStatus();
    last = value.ok() ? value->dump() : value.status().ToString();
    if (absl::Now() >= deadline) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return absl::DeadlineExceededError(
      absl::StrCat(what, ": not within ", absl::FormatDuration(timeout), "; last: ", last));
}

absl::Status Browser::SetExtraHeader(const std::string& name, const std::string& value) {
  absl::Status enabled =
      Call("POST", "/goog/cdp/execute", {{"cmd", "Network.enable"}, {"params", json::object()}})
          .status();
  if (!enabled.ok()) return enabled;
  return Call("POST", "/goog/cdp/execute",
              {{"cmd", "Network.setExtraHTTPHeaders"}, {"params", {{"headers", {{name, value}}}}}})
      .status();
}

absl::Status Browser::Screenshot(const std::string& path) {
  absl::StatusOr<nlohmann::json> png = Call("GET", "/screenshot", nullptr);
  if (!png.ok()) return png.status();
  std::string bytes;
  if (!absl::Base64Unescape(png->get<std::string>(), &bytes)) {
    return absl::InternalError("screenshot: not base64");
  }
  std::ofstream out(path, std::ios::binary);
  out << bytes;
  return out ? absl::OkStatus() : absl::InternalError("cannot write " + path);
}

void Browser::Stop() {
  if (!session_.empty() && http_ != nullptr) (void)Call("DELETE", "", nullptr);
  session_.clear();
  if (driver_pid_ > 0) {
    // chromedriver ends its browsers when its session is deleted; kill the group anyway.
    kill(-driver_pid_, SIGTERM);
    int status = 0;
    for (int i = 0; i < 100 && waitpid(driver_pid_, &status, WNOHANG) == 0; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    if (waitpid(driver_pid_, &status, WNOHANG) == 0) {
      kill(-driver_pid_, SIGKILL);
      waitpid(driver_pid_, &status, 0);
    }
    kill(-driver_pid_, SIGKILL);  // any browser process left in the group
    driver_pid_ = -1;
  }
}

}  // namespace topoplace::testing
