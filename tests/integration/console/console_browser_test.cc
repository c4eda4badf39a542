// The web console in a real browser: an in-process topoplaced (loopback gRPC, SQLite)
// serves the console; Debian's headless Chromium, driven through ChromeDriver, loads its
// pages while jobs are reserved and a link is reported down through the real gRPC API.
// The pages must show what the daemon knows (the capacity page what is free and why a job
// waits): the cluster map holds every host of the
// fabric and shows a reservation and a release within 2 s; a job's page lists its hosts
// and the switches its traffic crosses; a link that goes down appears on the open links
// page within 2 s (the event stream, not a reload); names carrying markup (a host from
// the fabric file, an external id from a client) render as text. The test saves a
// screenshot of each page (TOPOPLACE_SCREENSHOT_DIR, or the build directory's
// console-screenshots/), which docs/console/ holds.
#include <grpcpp/client_context.h>
#include <grpcpp/create_channel.h>
#include <httplib.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "api/server/wiring/topoplace_server.h"
#include "client/topoplace_client.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "scheduler/ledger/clock.h"
#include "tests/integration/console/webdriver.h"
#include "tests/integration/service/support/temp_dir.h"
#include "topoplace/v1/telemetry.grpc.pb.h"

namespace topoplace::server {
namespace {

using nlohmann::json;
using ::testing::Contains;
using ::testing::HasSubstr;
using ::testing::Not;

// A host name a fabric file may carry (no '/'), which would run script if a page
// parsed it as markup.
constexpr char kMarkupHost[] = "<img src=x onerror=window.pwned=1>";
constexpr char kMarkupExternalId[] = "<script>window.pwned=2</script>";

std::string ScreenshotDir() {
  const char* dir = std::getenv("TOPOPLACE_SCREENSHOT_DIR");
  const std::string path = dir != nullptr ? dir : TOPOPLACE_SCREENSHOT_DEFAULT_DIR;
  std::filesystem::create_directories(path);
  return path;
}

// rail-512 cut down to two blocks of four hosts, its first host renamed to kMarkupHost.
std::string WriteMarkupFabric(const testing::TempDir& dir) {
  const std::string generated = dir.File("small.fabric");
  const std::string command =
      absl::StrCat(TOPOPLACE_CLI, " fabric generate --preset rail-512 --nodes-per-block 4",
                   " --blocks-per-pod 2 --out ", generated, " > /dev/null");
  EXPECT_EQ(std::system(command.c_str()), 0);
  std::ifstream in(generated);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  for (size_t at = text.find("b00-n000"); at != std::string::npos; at = text.find("b00-n000", at)) {
    text.replace(at, 8, kMarkupHost);
  }
  const std::string path = dir.File("markup.fabric");
  std::ofstream(path) << text;
  return path;
}

class ConsoleBrowserTest : public ::testing::Test {
 protected:
  // Starts topoplaced (its database `db` in the test's directory) and the browser.
  void StartDaemon(const std::string& fabric, const std::string& db = "topoplaced.db") {
    config_.listen = "127.0.0.1:0";
    config_.console_listen = "127.0.0.1:0";
    config_.db_path = dir_.File(db);
    config_.fabric = fabric;
    config_.durability = "normal";
    auto server = TopoplaceServer::Start(config_, ledger::RealClock());
    ASSERT_TRUE(server.ok()) << server.status();
    server_ = std::move(*server);
    client::ClientOptions options;
    options.server = absl::StrCat("127.0.0.1:", server_->port());
    client_ = *client::TopoplaceClient::Connect(options);
    telemetry_ = v1::Telemetry::NewStub(grpc::CreateChannel(
        absl::StrCat("127.0.0.1:", server_->port()), grpc::InsecureChannelCredentials()));
    const absl::Status browser = browser_.Start(dir_.path());
    ASSERT_TRUE(browser.ok()) << browser << "; see " << dir_.File("chromedriver.log");
  }
  void StopAll() {
    browser_.Stop();
    if (server_ != nullptr) server_->Shutdown();
    server_.reset();
  }
  void TearDown() override { StopAll(); }
  std::string Url(const std::string& fragment) const {
    return absl::StrCat("http://127.0.0.1:", server_->console_port(), "/", fragment);
  }
  // Opens `fragment` and waits until the page rendered it (a hash change re-renders the
  // same document: the count of renders must grow).
  void Open(const std::string& fragment) {
    absl::StatusOr<json> before =
        browser_.Run("return Number((document.body && document.body.dataset.renders) || 0);");
    const int renders = before.ok() && before->is_number() ? before->get<int>() : 0;
    ASSERT_TRUE(browser_.Navigate(Url(fragment)).ok());
    ASSERT_TRUE(browser_
                    .WaitUntil(absl::StrCat("return location.hash === ", json(fragment).dump(),
                                            " && Number(document.body.dataset.renders || 0) > ",
                                            renders, ";"),
                               absl::Seconds(20), "page " + fragment + " rendered")
                    .ok());
  }
  // Opens the cluster map and waits until it drew `hosts` hosts.
  void OpenMapAndWaitForEveryHost(int hosts) {
    Open("#/map");
    ASSERT_TRUE(browser_
                    .WaitUntil(absl::StrCat("const m = topoplaceConsole.map;"
                                            " return !!m && m.hostsDrawn === ",
                                            hosts, ";"),
                               absl::Seconds(60), "every host drawn")
                    .ok());
  }
  json Run(const std::string& script) {
    absl::StatusOr<json> value = browser_.Run(script);
    EXPECT_TRUE(value.ok()) << value.status();
    return value.ok() ? *value : json();
  }
  // The text of every cell in column `column` of table `id`.
  std::vector<std::string> Column(const std::string& id, int column) {
    const json cells =
        Run(absl::StrCat("return [...document.querySelectorAll('#", id,
                         " tbody tr')].map(r => r.cells[", column, "].textContent);"));
    return cells.is_array() ? cells.get<std::vector<std::string>>() : std::vector<std::string>{};
  }
  void Screenshot(const std::string& name) {
    const std::string path = absl::StrCat(ScreenshotDir(), "/", name, ".png");
    ASSERT_TRUE(browser_.Screenshot(path).ok());
    EXPECT_GT(std::filesystem::file_size(path), 10'000u) << path;
  }
  grpc::Status ReportUnreachable(const std::string& source, const std::string& target) {
    v1::ReportProbeResultsRequest request;
    request.set_reporter("console-test");
    v1::ProbeResult* r = request.add_results();
    r->set_source(source);
    r->set_target(target);
    r->set_reachable(false);
    grpc::ClientContext ctx;
    v1::ReportResponse response;
    return telemetry_->ReportProbeResults(&ctx, request, &response);
  }
  // The cable of `nic` as the gRPC API reports it.
  v1::LinkHealth CableOf(const std::string& nic) {
    v1::GetAffectedAllocationsRequest request;
    request.set_link(nic);
    v1::GetAffectedAllocationsResponse response;
    grpc::ClientContext ctx;
    grpc::Status s = telemetry_->GetAffectedAllocations(&ctx, request, &response);
    EXPECT_TRUE(s.ok()) << s.error_message();
    return response.link();
  }

  testing::TempDir dir_;
  ServerConfig config_;
  std::unique_ptr<TopoplaceServer> server_;
  std::unique_ptr<client::TopoplaceClient> client_;
  std::unique_ptr<v1::Telemetry::Stub> telemetry_;
  testing::Browser browser_;
};

TEST_F(ConsoleBrowserTest, PagesShowTheFabricJobsTheirPathsAndALinkGoingDownLive) {
  StartDaemon(WriteMarkupFabric(dir_));
  if (HasFatalFailure()) return;
  const int hosts = static_cast<int>(server_->fabric().hosts().size());

  // Two jobs through the real gRPC API; the first committed under an external id with markup.
  absl::StatusOr<v1::ReserveResponse> first = client_->Reserve("tp=8,pp=2,dp=1", "", 600);
  ASSERT_TRUE(first.ok()) << first.status();
  const std::string job = first->allocation().allocation_id();
  ASSERT_TRUE(client_->Commit(job, kMarkupExternalId).ok());
  absl::StatusOr<v1::ReserveResponse> second = client_->Reserve("tp=8,pp=1,dp=2", "", 600);
  ASSERT_TRUE(second.ok()) << second.status();

  // Cluster map: every host of the fabric drawn; the markup host found by search, as text.
  OpenMapAndWaitForEveryHost(hosts);
  if (HasFatalFailure()) return;
  EXPECT_EQ(Run("return topoplaceConsole.snapshot.hosts.name.length;"), hosts);
  EXPECT_EQ(Run("return topoplaceConsole.snapshot.allocations.length;"), 2);
  Run(absl::StrCat("const f = document.getElementById('map-search'); f.value = ",
                   json(kMarkupHost).dump(), "; f.dispatchEvent(new Event('change')); return 0;"));
  EXPECT_THAT(Run("return document.getElementById('map-info').textContent;").get<std::string>(),
              HasSubstr(kMarkupHost));
  Screenshot("map");

  // A reservation and a release made while the map is open show within 2 s, no reload.
  Run("window.mapLoadedOnce = true; return 0;");
  absl::StatusOr<v1::ReserveResponse> third = client_->Reserve("tp=8,pp=1,dp=1", "", 600);
  ASSERT_TRUE(third.ok()) << third.status();
  EXPECT_TRUE(browser_
                  .WaitUntil("return topoplaceConsole.snapshot.allocations.length === 3;",
                             absl::Seconds(2), "a new reservation on the open map")
                  .ok());
  ASSERT_TRUE(client_->Release(third->allocation().allocation_id()).ok());
  EXPECT_TRUE(browser_
                  .WaitUntil("return topoplaceConsole.snapshot.allocations.length === 2;",
                             absl::Seconds(2), "a release on the open map")
                  .ok());
  EXPECT_EQ(Run("return window.mapLoadedOnce === true;"), true) << "the map was reloaded";

  // Job page: its hosts and the switches its path crosses, as the gRPC API says.
  v1::GetJobPathRequest path_request;
  path_request.set_allocation_id(job);
  v1::GetJobPathResponse path;
  grpc::ClientContext path_ctx;
  ASSERT_TRUE(telemetry_->GetJobPath(&path_ctx, path_request, &path).ok());
  Open("#/job/" + job);
  std::set<std::string> want_hosts, want_switches;
  for (const v1::GpuSlot& g : first->allocation().gpus()) want_hosts.insert(g.host());
  for (const v1::SwitchHealth& s : path.switches()) want_switches.insert(s.name());
  ASSERT_FALSE(want_switches.empty());
  const std::vector<std::string> shown_hosts = Column("job-hosts", 0);
  const std::vector<std::string> shown_switches = Column("job-switches", 0);
  EXPECT_EQ(std::set<std::string>(shown_hosts.begin(), shown_hosts.end()), want_hosts);
  EXPECT_EQ(std::set<std::string>(shown_switches.begin(), shown_switches.end()), want_switches);
  EXPECT_EQ(Column("job-links", 0).size(), static_cast<size_t>(path.links_size()));
  EXPECT_EQ(Run("return document.getElementById('job-external-id').textContent.trim();"),
            kMarkupExternalId);
  // The plan's predicted step time and slowdown, as the reservation returned them.
  ASSERT_GE(first->plan().predicted_slowdown(), 1.0);
  EXPECT_THAT(
      Run("return document.getElementById('job-predicted').textContent;").get<std::string>(),
      HasSubstr(absl::StrFormat("slowdown %.2fx", first->plan().predicted_slowdown())));
  Screenshot("job");

  // Allocations page: both jobs, filterable.
  Open("#/allocations");
  EXPECT_THAT(Column("allocations", 0), Contains(job));
  EXPECT_EQ(Column("allocations", 0).size(), 2u);
  Screenshot("allocations");

  // Links page, left open while a cable goes down: the page must show it without a reload.
  Open("#/links");
  ASSERT_TRUE(browser_
                  .WaitUntil("return document.getElementById('live').textContent === 'live';",
                             absl::Seconds(10), "event stream open")
                  .ok());
  EXPECT_TRUE(Column("unhealthy-links", 0).empty());
  Run("window.loadedOnce = true; return 0;");  // gone if the page were reloaded
  const std::string host = first->allocation().gpus(0).host();
  const std::string nic = host + "/mlx5_0";
  const std::string peer = "b01-n000/mlx5_0";
  // The daemon judges once a second; two bad samples in a row take the cable down.
  const absl::Time give_up = absl::Now() + absl::Seconds(30);
  while (CableOf(nic).health() != "down" && absl::Now() < give_up) {
    ASSERT_TRUE(ReportUnreachable(nic, peer).ok());
    std::this_thread::sleep_for(std::chrono::milliseconds(250));
  }
  const v1::LinkHealth cable = CableOf(nic);
  ASSERT_EQ(cable.health(), "down");
  const std::string link_name = cable.name();
  EXPECT_TRUE(browser_
                  .WaitUntil(absl::StrCat("return [...document.querySelectorAll('#unhealthy-links"
                                          " tbody tr')].some(r => r.cells[0].textContent === ",
                                          json(link_name).dump(), ");"),
                             absl::Seconds(2), "the down link on the open links page")
                  .ok());
  EXPECT_EQ(Run("return window.loadedOnce === true;"), true) << "the page was reloaded";
  // Its blast radius names the job, by its external id, as text.
  EXPECT_THAT(Column("unhealthy-links", 5), Contains(HasSubstr(kMarkupExternalId)));
  Screenshot("links");

  // No markup ever ran, and no element came from a name.
  EXPECT_EQ(Run("return typeof window.pwned;"), "undefined");
  EXPECT_EQ(Run("return document.querySelectorAll('main img, main script').length;"), 0);
}

// The capacity page: what is free in what shape and why a job waits, as the daemon has it,
// and live: a release shows on the open page without a reload.
TEST_F(ConsoleBrowserTest, CapacityShowsWhatIsFreeInWhatShapeAndWhyAJobWaitsLive) {
  StartDaemon(WriteMarkupFabric(dir_));  // two blocks of four 8-GPU hosts
  if (HasFatalFailure()) return;
  absl::StatusOr<v1::ReserveResponse> big = client_->Reserve("tp=8,pp=3,dp=1", "", 600);
  ASSERT_TRUE(big.ok()) << big.status();
  absl::StatusOr<v1::ReserveResponse> small = client_->Reserve("tp=8,pp=2,dp=1", "", 600);
  ASSERT_TRUE(small.ok()) << small.status();
  // Three hosts are left, at most two in one block: a 3-host job bound to a block waits.
  absl::StatusOr<v1::ReserveResponse> refused =
      client_->Reserve("tp=8,pp=3,dp=1,max_tier=block", "", 600);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(std::string(refused.status().message()), HasSubstr("largest free block: 16 GPUs"));

  Open("#/capacity");
  const std::vector<std::string> levels = Column("capacity-levels", 0);
  ASSERT_EQ(levels, (std::vector<std::string>{"Block", "Cluster"}));
  EXPECT_EQ(Column("capacity-levels", 1), (std::vector<std::string>{"2", "3"}));
  EXPECT_EQ(Column("capacity-levels", 2), (std::vector<std::string>{"16", "24"}));
  // Jobs of 1, 2 and 4 hosts: two blocks take one host, one takes two, none takes four.
  EXPECT_EQ(Column("capacity-fits", 0), (std::vector<std::string>{"1", "2", "4"}));
  EXPECT_EQ(Column("capacity-fits", 2), (std::vector<std::string>{"2", "1", "0"}));
  EXPECT_EQ(Column("capacity-fits", 3), (std::vector<std::string>{"1", "1", "0"}));
  // The refusal, in the words its caller read: how close it came and what would free it.
  const std::vector<std::string> why = Column("capacity-refused", 3);
  ASSERT_EQ(why.size(), 1u);
  EXPECT_THAT(why[0], HasSubstr("largest free block: 16 GPUs (2 hosts, block "));
  EXPECT_THAT(why[0], HasSubstr("; what would free it: "));
  EXPECT_EQ(Column("capacity-refused", 2), (std::vector<std::string>{"block"}));
  EXPECT_EQ(Run("return document.querySelectorAll('#capacity-domains .domain').length;"), 2);
  Screenshot("capacity");

  // A release while the page is open: both blocks' free hosts grow, no reload.
  ASSERT_TRUE(browser_
                  .WaitUntil("return document.getElementById('live').textContent === 'live';",
                             absl::Seconds(10), "event stream open")
                  .ok());
  ASSERT_TRUE(client_->Release(big->allocation().allocation_id()).ok());
  EXPECT_TRUE(browser_
                  .WaitUntil("const t = document.querySelector('#capacity-levels tbody tr');"
                             " return !!t && t.cells[1].textContent === '4';",
                             absl::Seconds(2), "the release on the open capacity page")
                  .ok());
}

TEST_F(ConsoleBrowserTest, ReadsNeedATokenWhenReadAccessIsAuthenticated) {
  const std::string token_file = dir_.File("token");
  std::ofstream(token_file) << "s3cret-console-token\n";
  std::filesystem::permissions(
      token_file, std::filesystem::perms::owner_read | std::filesystem::perms::owner_write);
  config_.token_file = token_file;
  config_.read_access = "authenticated";
  StartDaemon("preset:superpod-4su");
  if (HasFatalFailure()) return;
  // Without credentials: 401 and no data, for the pages, the documents and the stream.
  httplib::Client http("127.0.0.1", server_->console_port());
  for (const char* path : {"/", "/console.js", "/api/v1/snapshot", "/api/v1/events"}) {
    httplib::Result r = http.Get(path);
    ASSERT_TRUE(r) << path;
    EXPECT_EQ(r->status, 401) << path;
    EXPECT_THAT(r->body, Not(HasSubstr("superpod"))) << path;
    EXPECT_EQ(r->get_header_value("WWW-Authenticate").rfind("Basic", 0), 0u) << path;
  }
  // A wrong token is refused; the right one as a bearer token or a basic-auth password works.
  EXPECT_EQ(http.Get("/api/v1/snapshot", {{"Authorization", "Bearer wrong"}})->status, 401);
  EXPECT_EQ(
      http.Get("/api/v1/snapshot", {{"Authorization", "Bearer s3cret-console-token"}})->status,
      200);
  // In the browser: the basic-auth header a user's answer to the prompt makes.
  ASSERT_TRUE(browser_
                  .SetExtraHeader("Authorization",
                                  "Basic " + absl::Base64Escape("operator:s3cret-console-token"))
                  .ok());
  Open("#/map");
  ASSERT_TRUE(browser_
                  .WaitUntil("const m = topoplaceConsole.map; return !!m && m.hostsDrawn > 0;",
                             absl::Seconds(20), "map drawn with the token")
                  .ok());
  ASSERT_TRUE(browser_
                  .WaitUntil("return document.getElementById('live').textContent === 'live';",
                             absl::Seconds(10), "event stream open with the token")
                  .ok());
}

// Time to the first full draw of the cluster map (navigation start to the end of the first
// draw of every host, measured by the page) for the two largest presets at about 60 % of
// their GPUs held, printed for the closing note; the assertion is only that every host and
// every allocation was drawn. The rail-28k map is the README's screenshot.
TEST_F(ConsoleBrowserTest, MapDrawsEveryHostOfTheLargestFabrics) {
  for (const char* preset : {"preset:rail-28k", "preset:clos3-100k"}) {
    SCOPED_TRACE(preset);
    StopAll();
    StartDaemon(preset, absl::StrCat(preset + 7, ".db"));
    if (HasFatalFailure()) return;
    const int hosts = static_cast<int>(server_->fabric().hosts().size());
    const int64_t gpus = static_cast<int64_t>(server_->fabric().gpus().size());
    // Jobs of 256 to 2,048 GPUs until 60 % of the GPUs are held.
    const char* specs[] = {"tp=8,pp=4,dp=16", "tp=8,pp=8,dp=4", "tp=8,pp=4,dp=64",
                           "tp=8,pp=2,dp=32", "tp=8,pp=8,dp=32"};
    int64_t held = 0;
    int jobs = 0;
    for (int i = 0; held < gpus * 6 / 10; ++i) {
      absl::StatusOr<v1::ReserveResponse> r = client_->Reserve(specs[i % 5], "", 3600);
      ASSERT_TRUE(r.ok()) << r.status();
      held += r->allocation().gpus_size();
      ++jobs;
    }
    OpenMapAndWaitForEveryHost(hosts);
    if (HasFatalFailure()) return;
    EXPECT_EQ(Run("return topoplaceConsole.snapshot.allocations.length;"), jobs);
    EXPECT_EQ(Run("return topoplaceConsole.snapshot.gpu_owner.filter(o => o >= 0).length;"), held);
    const json first_draw = Run("return topoplaceConsole.map.firstDrawMs;");
    const json redraw = Run("return topoplaceConsole.map.lastDrawMs;");
    if (std::string(preset) == "preset:rail-28k") Screenshot("map-rail-28k");
    std::cout << "console-map " << preset << " hosts " << hosts << " jobs " << jobs << " held_gpus "
              << held << " first_full_draw_ms " << first_draw << " redraw_ms " << redraw
              << std::endl;
    RecordProperty(absl::StrCat(preset + 7, "_first_full_draw_ms"), first_draw.dump());
  }
}

}  // namespace
}  // namespace topoplace::server
