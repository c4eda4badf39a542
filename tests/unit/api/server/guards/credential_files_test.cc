#include "api/server/guards/credential_files.h"

#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace topoplace::server {
namespace {

using ::testing::HasSubstr;

class CredentialFilesTest : public ::testing::Test {
 protected:
  CredentialFilesTest() {
    char pattern[] = "/tmp/credential-files-XXXXXX";
    dir_ = mkdtemp(pattern);
  }
  ~CredentialFilesTest() override { std::filesystem::remove_all(dir_); }

  std::string Write(const std::string& name, const std::string& text, mode_t mode = 0600) {
    const std::string path = dir_ + "/" + name;
    std::ofstream(path) << text;
    chmod(path.c_str(), mode);
    return path;
  }

  std::string dir_;
};

TEST_F(CredentialFilesTest, ReadTokenFile_ReadsTheFirstLineOfAPrivateFile) {
  auto token = ReadTokenFile("token_file", Write("t", "  0123456789abcdef0123  \nignored\n"));
  ASSERT_TRUE(token.ok()) << token.status();
  EXPECT_EQ(*token, "0123456789abcdef0123");
  EXPECT_TRUE(ReadTokenFile("token_file", Write("g", "0123456789abcdef\n", 0640)).ok());
}

TEST_F(CredentialFilesTest, ReadTokenFile_RefusesWorldReadableShortOrEmptyTokens) {
  auto world = ReadTokenFile("token_file", Write("w", "0123456789abcdef\n", 0644));
  EXPECT_EQ(world.status().code(), absl::StatusCode::kPermissionDenied);
  EXPECT_THAT(std::string(world.status().message()), HasSubstr("chmod 0640 or 0600"));
  auto one = ReadTokenFile("token_file", Write("s", "x\n"));
  EXPECT_EQ(one.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(one.status().message()), HasSubstr("openssl rand -hex 32"));
  EXPECT_EQ(ReadTokenFile("token_file", Write("e", "\n")).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(ReadTokenFile("token_file", dir_ + "/missing").status().code(),
            absl::StatusCode::kNotFound);
}

TEST_F(CredentialFilesTest, TokenFilesThatAreFifosAreRefusedWithoutWaitingForAWriter) {
  // Read through base/input_file.h as every input file is: a FIFO would block the daemon's
  // start until someone wrote to it.
  const std::string fifo = dir_ + "/fifo";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  auto token = ReadTokenFile("token_file", fifo);
  EXPECT_EQ(token.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(token.status().message()), HasSubstr("token_file '" + fifo + "'"));
  EXPECT_EQ(ReadHostTokensFile(fifo).status().code(), absl::StatusCode::kInvalidArgument);
}

TEST_F(CredentialFilesTest, ReadHostTokensFile_MapsEachTokenToItsHost) {
  auto tokens = ReadHostTokensFile(Write("h",
                                         "# host token\n"
                                         "b01-n001 aaaaaaaaaaaaaaaa1\n"
                                         "\n"
                                         "b01-n002\tbbbbbbbbbbbbbbbb2  # rack 2\n"));
  ASSERT_TRUE(tokens.ok()) << tokens.status();
  EXPECT_EQ(tokens->size(), 2u);
  EXPECT_EQ(tokens->at("bbbbbbbbbbbbbbbb2"), "b01-n002");
}

TEST_F(CredentialFilesTest, ReadHostTokensFile_NamesTheLineOfEveryMistake) {
  const std::pair<std::string, std::string> cases[] = {
      {"b01-n001\n", ":1: expected 'HOST TOKEN', got 1 fields"},
      {"b01/n001 aaaaaaaaaaaaaaaa1\n", ":1: host name 'b01/n001'"},
      {"b01-n001 short\n", ":1: a token needs at least 16 characters"},
      {"b01-n001 aaaaaaaaaaaaaaaa1\nb01-n001 bbbbbbbbbbbbbbbb2\n", ":2: host 'b01-n001' has"},
      {"b01-n001 aaaaaaaaaaaaaaaa1\nb01-n002 aaaaaaaaaaaaaaaa1\n", ":2: this token is given"},
  };
  for (const auto& [text, message] : cases) {
    auto tokens = ReadHostTokensFile(Write("bad", text));
    EXPECT_EQ(tokens.status().code(), absl::StatusCode::kInvalidArgument) << text;
    EXPECT_THAT(std::string(tokens.status().message()), HasSubstr(message)) << text;
  }
  EXPECT_EQ(ReadHostTokensFile(Write("open", "b01-n001 aaaaaaaaaaaaaaaa1\n", 0604)).status().code(),
            absl::StatusCode::kPermissionDenied);
}

}  // namespace
}  // namespace topoplace::server
