#include "tests/integration/service/support/test_certificates.h"

#include <cstdlib>
#include <fstream>
#include <iterator>

#include "absl/strings/str_cat.h"

namespace topoplace::testing {
namespace {

absl::Status Run(const std::string& dir, const std::string& command) {
  const std::string log = dir + "/openssl.log";
  const std::string full = absl::StrCat("cd '", dir, "' && ", command, " >>'", log, "' 2>&1");
  if (std::system(full.c_str()) == 0) return absl::OkStatus();
  std::ifstream in(log);
  return absl::UnavailableError(absl::StrCat(
      "openssl failed: ", command, "\n",
      std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>())));
}

// Key and certificate for `name`, signed by the CA, with `san` as subjectAltName.
absl::Status Issue(const std::string& dir, const std::string& name, const std::string& san) {
  std::ofstream(dir + "/" + name + ".ext") << "subjectAltName=" << san << "\n";
  if (absl::Status s = Run(dir, absl::StrCat("openssl req -newkey rsa:2048 -nodes -keyout ", name,
                                             ".key -out ", name, ".csr -subj /CN=", name));
      !s.ok()) {
    return s;
  }
  return Run(dir,
             absl::StrCat("openssl x509 -req -in ", name, ".csr -CA ca.crt -CAkey ca.key ",
                          "-CAcreateserial -days 2 -out ", name, ".crt -extfile ", name, ".ext"));
}

}  // namespace

absl::StatusOr<TestCertificates> MakeTestCertificates(const std::string& dir) {
  if (absl::Status s = Run(dir,
                           "openssl req -x509 -newkey rsa:2048 -nodes -keyout ca.key "
                           "-out ca.crt -days 2 -subj /CN=topoplace-test-ca");
      !s.ok()) {
    return s;
  }
  if (absl::Status s = Issue(dir, "server", "IP:127.0.0.1,DNS:localhost"); !s.ok()) return s;
  if (absl::Status s = Issue(dir, "client", "DNS:client"); !s.ok()) return s;
  return TestCertificates{.ca_cert = dir + "/ca.crt",
                          .server_cert = dir + "/server.crt",
                          .server_key = dir + "/server.key",
                          .client_cert = dir + "/client.crt",
                          .client_key = dir + "/client.key"};
}

absl::StatusOr<std::pair<std::string, std::string>> IssueClientCertificate(
    const std::string& dir, const std::string& name) {
  if (absl::Status s = Issue(dir, name, "DNS:" + name); !s.ok()) return s;
  return std::make_pair(dir + "/" + name + ".crt", dir + "/" + name + ".key");
}

}  // namespace topoplace::testing
