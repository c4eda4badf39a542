// A fresh directory under the test's temp dir, removed with everything in it on scope exit,
// so each test gets its own real SQLite file.
#ifndef TOPOPLACE_TESTS_INTEGRATION_SERVICE_SUPPORT_TEMP_DIR_H_
#define TOPOPLACE_TESTS_INTEGRATION_SERVICE_SUPPORT_TEMP_DIR_H_

#include <string>

namespace topoplace::testing {

class TempDir {
 public:
  TempDir();  // aborts the test binary if no directory can be made
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::string& path() const { return path_; }
  // path() + "/" + name.
  std::string File(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

}  // namespace topoplace::testing

#endif  // TOPOPLACE_TESTS_INTEGRATION_SERVICE_SUPPORT_TEMP_DIR_H_
