// Slurm users authenticate with MUNGE (hardening finding 2): a real munged on its own key
// and socket, the real service over loopback. Root's credential is an admin's; any other
// uid's may reserve with its own submit key and release its own reservations only, and
// munged refuses a credential twice. Credentials of other uids come from child processes
// that drop to them, so the test needs root.
#include <gmock/gmock.h>
#include <grpcpp/client_context.h>
#include <grpcpp/create_channel.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <string>

#include "absl/strings/str_cat.h"
#include "api/server/wiring/topoplace_server.h"
#include "client/munge_credential.h"
#include "client/topoplace_client.h"
#include "scheduler/ledger/clock.h"
#include "tests/integration/service/support/munge_daemon.h"
#include "tests/integration/service/support/temp_dir.h"
#include "topoplace/v1/placement.grpc.pb.h"
#include "topoplace/v1/topology.grpc.pb.h"

namespace topoplace::server {
namespace {

using ::testing::HasSubstr;
namespace v1 = ::topoplace::v1;

constexpr uint32_t kNobody = 65534;

class MungeTest : public ::testing::Test {
 protected:
  MungeTest() : clock_(absl::Now()), munge_(dir_.path()) {}

  void SetUp() override {
    if (geteuid() != 0) GTEST_SKIP() << "needs root to make credentials of other uids";
    if (!testing::MungeDaemon::Available()) GTEST_SKIP() << "munged is not installed";
    ASSERT_TRUE(munge_.Start().ok());
    config_.listen = "127.0.0.1:0";
    config_.db_path = dir_.File("topoplaced.db");
    config_.fabric = "preset:superpod-4su";
    config_.munge_socket = munge_.socket();
    auto server = TopoplaceServer::Start(config_, clock_);
    ASSERT_TRUE(server.ok()) << server.status();
    server_ = std::move(*server);
    auto channel = grpc::CreateChannel(absl::StrCat("127.0.0.1:", server_->port()),
                                       grpc::InsecureChannelCredentials());
    placement_ = v1::Placement::NewStub(channel);
    topology_ = v1::Topology::NewStub(channel);
  }

  // A context carrying a fresh credential of `uid`.
  std::unique_ptr<grpc::ClientContext> As(uint32_t uid) {
    auto context = std::make_unique<grpc::ClientContext>();
    absl::StatusOr<std::string> cred = munge_.CredentialOf(uid);
    EXPECT_TRUE(cred.ok()) << cred.status();
    context->AddMetadata("authorization", client::kMungeScheme + cred.value_or(""));
    return context;
  }

  grpc::Status Reserve(uint32_t uid, const std::string& request_id, v1::ReserveResponse* out) {
    v1::ReserveRequest request;
    request.set_job_spec("tp=8,pp=1,dp=1");
    request.set_request_id(request_id);
    return placement_->Reserve(As(uid).get(), request, out);
  }

  grpc::Status Release(uint32_t uid, const std::string& id) {
    v1::ReleaseRequest request;
    request.set_allocation_id(id);
    v1::Allocation out;
    return placement_->Release(As(uid).get(), request, &out);
  }

  testing::TempDir dir_;
  ledger::FakeClock clock_;
  testing::MungeDaemon munge_;
  ServerConfig config_;
  std::unique_ptr<TopoplaceServer> server_;
  std::unique_ptr<v1::Placement::Stub> placement_;
  std::unique_ptr<v1::Topology::Stub> topology_;
};

TEST_F(MungeTest, RootsCredentialIsAnAdminsThroughTheClientLibrary) {
  client::ClientOptions options;
  options.server = absl::StrCat("127.0.0.1:", server_->port());
  options.munge_socket = munge_.socket();
  auto client = *client::TopoplaceClient::Connect(options);
  auto held = client->Reserve("tp=8,pp=1,dp=1", "", 600);
  ASSERT_TRUE(held.ok()) << held.status();
  auto committed = client->Commit(held->allocation().allocation_id(), "slurm:1");
  ASSERT_TRUE(committed.ok()) << committed.status();
  EXPECT_TRUE(client->Release(held->allocation().allocation_id()).ok());
}

TEST_F(MungeTest, ASlurmUserReservesAndReleasesOnlyItsOwn) {
  // Its own submit key: reserved.
  v1::ReserveResponse own;
  const std::string own_key = absl::StrCat("slurm-submit:", kNobody, ":00000000000000aa");
  grpc::Status s = Reserve(kNobody, own_key, &own);
  ASSERT_TRUE(s.ok()) << s.error_message();
  // Another uid's key, or none: refused, naming the key it may use.
  v1::ReserveResponse other;
  s = Reserve(kNobody, "slurm-submit:0:00000000000000bb", &other);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::PERMISSION_DENIED);
  EXPECT_THAT(s.error_message(), HasSubstr("slurm-submit:65534:"));
  EXPECT_EQ(Reserve(kNobody, "", &other).error_code(), grpc::StatusCode::PERMISSION_DENIED);

  // Commits are the prolog's (root): a user's credential may not commit, even its own.
  v1::CommitRequest commit;
  commit.set_allocation_id(own.allocation().allocation_id());
  commit.set_external_id("slurm:7");
  v1::Allocation out;
  s = placement_->Commit(As(kNobody).get(), commit, &out);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::PERMISSION_DENIED) << s.error_message();

  // Root's allocation (the finding: one job's epilog released another's): refused.
  v1::ReserveResponse roots;
  ASSERT_TRUE(Reserve(0, "slurm-submit:0:00000000000000cc", &roots).ok());
  s = placement_->Commit(
      As(0).get(),
      [&] {
        v1::CommitRequest c;
        c.set_allocation_id(roots.allocation().allocation_id());
        c.set_external_id("slurm:8");
        return c;
      }(),
      &out);
  ASSERT_TRUE(s.ok()) << s.error_message();
  s = Release(kNobody, roots.allocation().allocation_id());
  EXPECT_EQ(s.error_code(), grpc::StatusCode::PERMISSION_DENIED);
  EXPECT_THAT(s.error_message(), HasSubstr(roots.allocation().allocation_id()));

  // Its own reservation it may release; reads are open.
  EXPECT_TRUE(Release(kNobody, own.allocation().allocation_id()).ok());
  v1::GetAllocationRequest get;
  get.set_allocation_id(roots.allocation().allocation_id());
  s = placement_->GetAllocation(As(kNobody).get(), get, &out);
  ASSERT_TRUE(s.ok()) << s.error_message();
  EXPECT_EQ(out.state(), v1::ALLOCATION_STATE_COMMITTED);
}

TEST_F(MungeTest, ASlurmUserSendsNoHostReports) {
  v1::ReportHostRequest request;
  request.set_report_json("{}");
  v1::ReportHostResponse out;
  grpc::Status s = topology_->ReportHost(As(kNobody).get(), request, &out);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::PERMISSION_DENIED) << s.error_message();
}

TEST_F(MungeTest, ACredentialIsTakenOnceAndForgeriesAreRefused) {
  absl::StatusOr<std::string> cred = munge_.CredentialOf(kNobody);
  ASSERT_TRUE(cred.ok()) << cred.status();
  auto send = [&](const std::string& header) {
    grpc::ClientContext context;
    context.AddMetadata("authorization", header);
    v1::ReserveRequest request;
    request.set_job_spec("tp=8,pp=1,dp=1");
    request.set_request_id(absl::StrCat("slurm-submit:", kNobody, ":1"));
    v1::ReserveResponse out;
    return placement_->Reserve(&context, request, &out);
  };
  EXPECT_TRUE(send(client::kMungeScheme + *cred).ok());
  grpc::Status replay = send(client::kMungeScheme + *cred);
  EXPECT_EQ(replay.error_code(), grpc::StatusCode::PERMISSION_DENIED);
  EXPECT_THAT(replay.error_message(), HasSubstr("Replayed credential"));
  grpc::Status forged = send(std::string(client::kMungeScheme) + "MUNGE:AwQ...:");
  EXPECT_EQ(forged.error_code(), grpc::StatusCode::PERMISSION_DENIED) << forged.error_message();
  grpc::Status none = send("Bearer anything-at-all");
  EXPECT_EQ(none.error_code(), grpc::StatusCode::PERMISSION_DENIED) << none.error_message();
}

TEST_F(MungeTest, WithMungedDownCallsAreUnavailableNamingTheSocket) {
  absl::StatusOr<std::string> cred = munge_.CredentialOf(kNobody);
  ASSERT_TRUE(cred.ok()) << cred.status();
  munge_.Stop();
  grpc::ClientContext context;
  context.AddMetadata("authorization", client::kMungeScheme + *cred);
  v1::ReleaseRequest request;
  request.set_allocation_id("alloc-1");
  v1::Allocation out;
  grpc::Status s = placement_->Release(&context, request, &out);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::UNAVAILABLE) << s.error_message();
  EXPECT_THAT(s.error_message(), HasSubstr(munge_.socket()));
}

// Hardening round four, finding 7: a MUNGE user (uid 1000) reserved all 1,024 GPUs at
// priority 4294967295 for 86,400 s and renewed it, outside Slurm's QOS. A Slurm user's
// priority, TTL and uncommitted reservations are bounded (user_limits.h); root's are not.
TEST_F(MungeTest, ASlurmUsersPriorityTtlAndReservationsAreBounded) {
  const auto reserve = [&](uint32_t uid, const std::string& spec, int64_t ttl, int n) {
    v1::ReserveRequest request;
    request.set_job_spec(spec);
    request.set_ttl_seconds(ttl);
    request.set_request_id(absl::StrCat("slurm-submit:", uid, ":", 1000 + n));
    v1::ReserveResponse out;
    return placement_->Reserve(As(uid).get(), request, &out);
  };
  grpc::Status high = reserve(kNobody, "tp=8,pp=1,dp=1,priority=4294967295", 60, 0);
  EXPECT_EQ(high.error_code(), grpc::StatusCode::PERMISSION_DENIED);
  EXPECT_THAT(high.error_message(), HasSubstr("user_max_priority"));
  grpc::Status day = reserve(kNobody, "tp=8,pp=1,dp=1", 86'400, 1);
  EXPECT_EQ(day.error_code(), grpc::StatusCode::PERMISSION_DENIED);
  EXPECT_THAT(day.error_message(), HasSubstr("user_max_ttl_seconds"));
  // 16 uncommitted reservations, then no more.
  for (int n = 2; n < 18; ++n) {
    grpc::Status ok = reserve(kNobody, "tp=8,pp=1,dp=1", 600, n);
    ASSERT_TRUE(ok.ok()) << n << ": " << ok.error_message();
  }
  grpc::Status seventeenth = reserve(kNobody, "tp=8,pp=1,dp=1", 600, 18);
  EXPECT_EQ(seventeenth.error_code(), grpc::StatusCode::PERMISSION_DENIED);
  EXPECT_THAT(seventeenth.error_message(), HasSubstr("user_max_reservations"));
  // Root is an admin: unbounded.
  grpc::Status admin = reserve(0, "tp=8,pp=1,dp=1,priority=4294967295", 86'400, 19);
  EXPECT_TRUE(admin.ok()) << admin.error_message();
}

}  // namespace
}  // namespace topoplace::server
