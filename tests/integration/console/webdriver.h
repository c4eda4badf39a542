// Drives Debian's headless Chromium for browser tests through ChromeDriver's W3C WebDriver
// protocol (plain JSON over HTTP on loopback): starts chromedriver as a child process,
// opens a session, navigates, runs scripts in the page and takes screenshots. The driver
// and the browser are killed and reaped in the destructor, even when an assertion failed.
//
//   Browser browser;
//   ASSERT_TRUE(browser.Start(work_dir).ok());
//   ASSERT_TRUE(browser.Navigate("http://127.0.0.1:8080/#/map").ok());
//   absl::StatusOr<nlohmann::json> n = browser.Run("return document.title;");
//
// Not thread-safe: drive one Browser from one thread.
#ifndef TOPOPLACE_TESTS_INTEGRATION_CONSOLE_WEBDRIVER_H_
#define TOPOPLACE_TESTS_INTEGRATION_CONSOLE_WEBDRIVER_H_

#include <sys/types.h>

#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "nlohmann/json.hpp"

namespace httplib {
class Client;
}

namespace topoplace::testing {

class Browser {
 public:
  Browser();
  ~Browser();
  Browser(const Browser&) = delete;
  Browser& operator=(const Browser&) = delete;

  // Whether /usr/bin/chromium and chromedriver are installed.
  static bool Available();
  // Starts chromedriver (logging to <work_dir>/chromedriver.log) and a headless Chromium
  // session with a `width` x `height` window and a fresh profile in <work_dir>.
  absl::Status Start(const std::string& work_dir, int width = 1400, int height = 900);
  absl::Status Navigate(const std::string& url);
  // Runs `script` (a function body; `arguments` holds `args`) in the page; its return value.
  absl::StatusOr<nlohmann::json> Run(const std::string& script,
                                     const nlohmann::json& args = nlohmann::json::array());
  // Runs `script` every 50 ms until it returns true or `timeout` passes; DeadlineExceeded
  // then, naming `what`.
  absl::Status WaitUntil(const std::string& script, absl::Duration timeout,
                         const std::string& what);
  // Sends `name: value` with every request the browser makes from now on (DevTools'
  // Network.setExtraHTTPHeaders), e.g. the Authorization a user would type into a prompt.
  absl::Status SetExtraHeader(const std::string& name, const std::string& value);
  // Writes a PNG of the viewport to `path`.
  absl::Status Screenshot(const std::string& path);
  // Ends the session and stops the driver. Idempotent.
  void Stop();

 private:
  absl::StatusOr<nlohmann::json> Call(const std::string& method, const std::string& path,
                                      const nlohmann::json& body);
  pid_t driver_pid_ = -1;
  int port_ = 0;
  std::string session_;
  std::unique_ptr<httplib::Client> http_;
};

}  // namespace topoplace::testing

#endif  // TOPOPLACE_TESTS_INTEGRATION_CONSOLE_WEBDRIVER_H_
