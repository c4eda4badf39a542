#include "api/agent/mode_main.h"

#include <signal.h>

#include <atomic>
#include <iostream>
#include <thread>

namespace topoplace::agent {
namespace {

std::atomic<bool> g_stop{false};
void OnSignal(int) { g_stop.store(true); }

}  // namespace

bool StopRequested() { return g_stop.load(); }

void SleepUntil(std::chrono::steady_clock::time_point deadline) {
  while (!StopRequested() && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

int RunMode(CLI::App& app, int argc, char** argv, const std::function<absl::Status()>& run) {
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
  }
  signal(SIGINT, OnSignal);
  signal(SIGTERM, OnSignal);
  signal(SIGPIPE, SIG_IGN);
  const absl::Status s = run();
  if (s.ok()) return 0;
  std::cerr << "topoplace-agent: " << s.message() << "\n";
  return s.code() == absl::StatusCode::kInvalidArgument || s.code() == absl::StatusCode::kNotFound
             ? 2
             : 1;
}

}  // namespace topoplace::agent
