#include "tests/testing/run_command.h"

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

namespace topoplace::testing {
namespace {

std::string Slurp(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace

std::string ShellQuote(const std::string& arg) {
  std::string quoted = "'";
  for (char c : arg) {
    if (c == '\'') {
      quoted += "'\\''";
    } else {
      quoted += c;
    }
  }
  return quoted + "'";
}

CommandResult RunCommand(const std::string& command) {
  char out_path[] = "/tmp/topoplace-out-XXXXXX";
  char err_path[] = "/tmp/topoplace-err-XXXXXX";
  const int out_fd = mkstemp(out_path);
  const int err_fd = mkstemp(err_path);
  CommandResult result;
  if (out_fd >= 0 && err_fd >= 0) {
    const std::string full = command + " >" + out_path + " 2>" + err_path + " </dev/null";
    const int status = std::system(full.c_str());
    if (status != -1 && WIFEXITED(status)) result.exit_code = WEXITSTATUS(status);
    result.out = Slurp(out_path);
    result.err = Slurp(err_path);
  }
  if (out_fd >= 0) close(out_fd), unlink(out_path);
  if (err_fd >= 0) close(err_fd), unlink(err_path);
  return result;
}

}  // namespace topoplace::testing
