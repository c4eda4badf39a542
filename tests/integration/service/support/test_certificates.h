// Throwaway PKI for TLS tests, made with the openssl command line: a CA, a server
// certificate for 127.0.0.1/localhost and a client certificate, all signed by the CA.
#ifndef TOPOPLACE_TESTS_INTEGRATION_SERVICE_SUPPORT_TEST_CERTIFICATES_H_
#define TOPOPLACE_TESTS_INTEGRATION_SERVICE_SUPPORT_TEST_CERTIFICATES_H_

#include <string>
#include <utility>

#include "absl/status/statusor.h"

namespace topoplace::testing {

struct TestCertificates {
  std::string ca_cert;  // file paths, PEM
  std::string server_cert;
  std::string server_key;
  std::string client_cert;
  std::string client_key;
};

// Writes the files into `dir`. Unavailable if openssl fails (its output is in the message).
absl::StatusOr<TestCertificates> MakeTestCertificates(const std::string& dir);

// A client certificate with CN and DNS subject alternative name `name`, signed by the CA
// MakeTestCertificates wrote into `dir`: (certificate file, key file).
absl::StatusOr<std::pair<std::string, std::string>> IssueClientCertificate(const std::string& dir,
                                                                           const std::string& name);

}  // namespace topoplace::testing

#endif  // TOPOPLACE_TESTS_INTEGRATION_SERVICE_SUPPORT_TEST_CERTIFICATES_H_
