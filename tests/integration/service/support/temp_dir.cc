#include "tests/integration/service/support/temp_dir.h"

#include <stdlib.h>

#include <cstdio>
#include <filesystem>
#include <system_error>

namespace topoplace::testing {

TempDir::TempDir() {
  const char* base = getenv("TEST_TMPDIR");
  std::string pattern = std::string(base != nullptr ? base : "/tmp") + "/topoplace-test-XXXXXX";
  if (mkdtemp(pattern.data()) == nullptr) {
    std::perror("mkdtemp");
    std::abort();
  }
  path_ = pattern;
}

TempDir::~TempDir() {
  std::error_code ignored;
  std::filesystem::remove_all(path_, ignored);
}

}  // namespace topoplace::testing
