#include "telemetry/probe/tcp_transport.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <thread>

namespace topoplace::telemetry {
namespace {

TEST(TcpTransportTest, MeasuresLatencyAndBandwidthOverLoopback) {
  ProbeTransportPtr tcp = NewTcpTransport();
  EXPECT_EQ(tcp->name(), "tcp");
  absl::StatusOr<ProbeResponderPtr> responder = tcp->Listen("127.0.0.1", 0);
  ASSERT_TRUE(responder.ok()) << responder.status();
  ASSERT_GT((*responder)->port(), 0);
  ProbeOptions options;
  options.latency_iterations = 5;
  options.bandwidth_duration = absl::Milliseconds(20);
  absl::StatusOr<ProbeMeasurement> m = tcp->Probe({"127.0.0.1", (*responder)->port()}, options);
  ASSERT_TRUE(m.ok()) << m.status();
  EXPECT_GT(m->latency_us, 0);
  EXPECT_GT(m->bandwidth_gbps, 0);
}

TEST(TcpTransportTest, SeveralProbesAtOnce) {
  ProbeTransportPtr tcp = NewTcpTransport();
  ProbeResponderPtr responder = *tcp->Listen("127.0.0.1", 0);
  ProbeOptions options;
  options.latency_iterations = 3;
  options.bandwidth_duration = absl::ZeroDuration();
  std::vector<std::thread> threads;
  std::atomic<int> ok{0};
  for (int i = 0; i < 4; ++i) {
    threads.emplace_back([&] {
      if (tcp->Probe({"127.0.0.1", responder->port()}, options).ok()) ++ok;
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(ok.load(), 4);
}

TEST(TcpTransportTest, UnreachablePeerIsUnavailable) {
  ProbeTransportPtr tcp = NewTcpTransport();
  int port = 0;
  {
    ProbeResponderPtr gone = *tcp->Listen("127.0.0.1", 0);
    port = gone->port();
  }  // closed: nothing listens there now
  ProbeOptions options;
  options.timeout = absl::Milliseconds(500);
  absl::StatusOr<ProbeMeasurement> m = tcp->Probe({"127.0.0.1", port}, options);
  EXPECT_EQ(m.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_THAT(std::string(m.status().message()), ::testing::HasSubstr("127.0.0.1"));
}

TEST(TcpTransportTest, BadAddressAndOptionsAreRejected) {
  ProbeTransportPtr tcp = NewTcpTransport();
  EXPECT_FALSE(tcp->Listen("not-an-ip", 0).ok());
  ProbeOptions options;
  options.latency_iterations = 0;
  EXPECT_EQ(tcp->Probe({"127.0.0.1", 1}, options).status().code(),
            absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace topoplace::telemetry
