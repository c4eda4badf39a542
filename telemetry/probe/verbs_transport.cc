#include "telemetry/probe/verbs_transport.h"

#include "absl/strings/str_cat.h"

#ifdef TOPOPLACE_HAVE_IBVERBS

#include <errno.h>
#include <infiniband/verbs.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <memory>
#include <random>
#include <thread>
#include <vector>

#include "base/status_macros.h"
#include "telemetry/probe/socket_util.h"
#include "telemetry/probe/verbs_plan.h"

namespace topoplace::telemetry {
namespace {

// One buffer per connection: latency pings land in its first bytes, bandwidth blocks
// overwrite it.
constexpr uint32_t kBufferBytes = 1 << 20;
constexpr int kQueueDepth = 128;

ibv_mtu ToIbvMtu(int bytes) { return static_cast<ibv_mtu>(MtuEnum(bytes)); }

// The verbs objects of one RC connection, destroyed in reverse order.
struct Connection {
  ibv_pd* pd = nullptr;
  ibv_cq* cq = nullptr;
  ibv_qp* qp = nullptr;
  ibv_mr* mr = nullptr;
  std::vector<char> buffer;
  uint32_t psn = 0;
  ~Connection() {
    if (qp != nullptr) ibv_destroy_qp(qp);
    if (mr != nullptr) ibv_dereg_mr(mr);
    if (cq != nullptr) ibv_destroy_cq(cq);
    if (pd != nullptr) ibv_dealloc_pd(pd);
  }
};

absl::Status Errno(absl::string_view what) {
  return absl::UnavailableError(absl::StrCat(what, ": ", strerror(errno)));
}

absl::StatusOr<std::unique_ptr<Connection>> NewConnection(ibv_context* context,
                                                          const PortChoice& port) {
  auto c = std::make_unique<Connection>();
  c->buffer.assign(kBufferBytes, 0);
  c->pd = ibv_alloc_pd(context);
  if (c->pd == nullptr) return Errno("ibv_alloc_pd");
  c->mr = ibv_reg_mr(c->pd, c->buffer.data(), c->buffer.size(),
                     IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
  if (c->mr == nullptr) return Errno("ibv_reg_mr");
  c->cq = ibv_create_cq(context, 2 * kQueueDepth, nullptr, nullptr, 0);
  if (c->cq == nullptr) return Errno("ibv_create_cq");
  ibv_qp_init_attr init{};
  init.send_cq = c->cq;
  init.recv_cq = c->cq;
  init.qp_type = IBV_QPT_RC;
  init.cap.max_send_wr = kQueueDepth;
  init.cap.max_recv_wr = 1;
  init.cap.max_send_sge = 1;
  init.cap.max_recv_sge = 1;
  init.cap.max_inline_data = 64;
  c->qp = ibv_create_qp(c->pd, &init);
  if (c->qp == nullptr) return Errno("ibv_create_qp");
  ibv_qp_attr attr{};
  attr.qp_state = IBV_QPS_INIT;
  attr.pkey_index = 0;
  attr.port_num = static_cast<uint8_t>(port.port);
  attr.qp_access_flags = IBV_ACCESS_REMOTE_WRITE;
  if (ibv_modify_qp(c->qp, &attr,
                    IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS) != 0) {
    return Errno("ibv_modify_qp(INIT)");
  }
  c->psn = std::random_device()() & 0xffffff;
  return c;
}

QpInfo LocalInfo(const Connection& c, const PortChoice& port) {
  QpInfo info;
  info.qpn = c.qp->qp_num;
  info.psn = c.psn;
  info.lid = port.lid;
  info.gid = port.gid;
  info.rkey = c.mr->rkey;
  info.addr = reinterpret_cast<uint64_t>(c.buffer.data());
  info.size = static_cast<uint32_t>(c.buffer.size());
  info.mtu_bytes = port.mtu_bytes;
  return info;
}

absl::Status Connect(Connection& c, const PortChoice& port, const QpInfo& remote) {
  const RtrAttributes rtr = PlanRtr(port, remote);
  ibv_qp_attr attr{};
  attr.qp_state = IBV_QPS_RTR;
  attr.path_mtu = ToIbvMtu(rtr.path_mtu_bytes);
  attr.dest_qp_num = rtr.dest_qpn;
  attr.rq_psn = rtr.rq_psn;
  attr.max_dest_rd_atomic = rtr.max_dest_rd_atomic;
  attr.min_rnr_timer = rtr.min_rnr_timer;
  attr.ah_attr.dlid = rtr.dlid;
  attr.ah_attr.port_num = static_cast<uint8_t>(port.port);
  attr.ah_attr.is_global = rtr.is_global ? 1 : 0;
  if (rtr.is_global) {
    std::memcpy(attr.ah_attr.grh.dgid.raw, rtr.dgid.data(), 16);
    attr.ah_attr.grh.sgid_index = static_cast<uint8_t>(rtr.sgid_index);
    attr.ah_attr.grh.hop_limit = rtr.hop_limit;
  }
  if (ibv_modify_qp(c.qp, &attr,
                    IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
                        IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER) != 0) {
    return Errno("ibv_modify_qp(RTR)");
  }
  const RtsAttributes rts = PlanRts(c.psn);
  ibv_qp_attr s{};
  s.qp_state = IBV_QPS_RTS;
  s.sq_psn = rts.sq_psn;
  s.timeout = rts.timeout;
  s.retry_cnt = rts.retry_cnt;
  s.rnr_retry = rts.rnr_retry;
  s.max_rd_atomic = rts.max_rd_atomic;
  if (ibv_modify_qp(c.qp, &s,
                    IBV_QP_STATE | IBV_QP_SQ_PSN | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
                        IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC) != 0) {
    return Errno("ibv_modify_qp(RTS)");
  }
  return absl::OkStatus();
}

// Posts one RDMA WRITE of `size` bytes from the local buffer to the remote one.
absl::Status PostWrite(Connection& c, const QpInfo& remote, uint32_t offset, uint32_t size,
                       bool signaled) {
  ibv_sge sge{};
  sge.addr = reinterpret_cast<uint64_t>(c.buffer.data()) + offset;
  sge.length = size;
  sge.lkey = c.mr->lkey;
  ibv_send_wr wr{};
  wr.sg_list = &sge;
  wr.num_sge = 1;
  wr.opcode = IBV_WR_RDMA_WRITE;
  wr.send_flags = (signaled ? IBV_SEND_SIGNALED : 0) | (size <= 64 ? IBV_SEND_INLINE : 0);
  wr.wr.rdma.remote_addr = remote.addr + offset;
  wr.wr.rdma.rkey = remote.rkey;
  ibv_send_wr* bad = nullptr;
  if (ibv_post_send(c.qp, &wr, &bad) != 0) return Errno("ibv_post_send");
  return absl::OkStatus();
}

// Waits for `n` completions; Unavailable on an error completion or after `timeout`.
absl::Status WaitCompletions(Connection& c, int n, absl::Duration timeout) {
  const auto until = std::chrono::steady_clock::now() + absl::ToChronoNanoseconds(timeout);
  ibv_wc wc[16];
  while (n > 0) {
    const int got = ibv_poll_cq(c.cq, 16, wc);
    if (got < 0) return absl::UnavailableError("ibv_poll_cq failed");
    for (int i = 0; i < got; ++i) {
      if (wc[i].status != IBV_WC_SUCCESS) {
        return absl::UnavailableError(
            absl::StrCat("RDMA WRITE completed with ", ibv_wc_status_str(wc[i].status)));
      }
    }
    n -= got;
    if (n > 0 && std::chrono::steady_clock::now() > until) {
      return absl::UnavailableError("RDMA completions timed out");
    }
  }
  return absl::OkStatus();
}

// Spins until the 32-bit word at the start of the buffer equals `value`.
absl::Status WaitWord(const Connection& c, uint32_t value, absl::Duration timeout) {
  const auto until = std::chrono::steady_clock::now() + absl::ToChronoNanoseconds(timeout);
  const auto* word = reinterpret_cast<const volatile uint32_t*>(c.buffer.data());
  while (*word != value) {
    if (std::chrono::steady_clock::now() > until) {
      return absl::UnavailableError("RDMA ping-pong timed out");
    }
  }
  return absl::OkStatus();
}

absl::Status WriteWord(Connection& c, const QpInfo& remote, uint32_t value,
                       absl::Duration timeout) {
  std::memcpy(c.buffer.data() + 64, &value, sizeof(value));
  // Pings go from offset 64 locally to offset 0 remotely; shift the SGE by hand.
  ibv_sge sge{};
  sge.addr = reinterpret_cast<uint64_t>(c.buffer.data()) + 64;
  sge.length = sizeof(value);
  sge.lkey = c.mr->lkey;
  ibv_send_wr wr{};
  wr.sg_list = &sge;
  wr.num_sge = 1;
  wr.opcode = IBV_WR_RDMA_WRITE;
  wr.send_flags = IBV_SEND_SIGNALED | IBV_SEND_INLINE;
  wr.wr.rdma.remote_addr = remote.addr;
  wr.wr.rdma.rkey = remote.rkey;
  ibv_send_wr* bad = nullptr;
  if (ibv_post_send(c.qp, &wr, &bad) != 0) return Errno("ibv_post_send");
  return WaitCompletions(c, 1, timeout);
}

// Side-channel messages: the QP info line, then one op line from the client.
absl::StatusOr<std::string> ReadLine(int fd) {
  std::string line;
  char ch = 0;
  while (line.size() < 256) {
    TP_RETURN_IF_ERROR(net::ReadAll(fd, &ch, 1));
    if (ch == '\n') return line;
    line.push_back(ch);
  }
  return absl::InvalidArgumentError("side channel: line too long");
}

absl::Status WriteLine(int fd, const std::string& line) {
  return net::WriteAll(fd, line.data(), line.size());
}

class VerbsTransport;

class VerbsResponder final : public ProbeResponder {
 public:
  VerbsResponder(VerbsTransport* transport, net::Fd listener, int port)
      : transport_(transport), listener_(std::move(listener)), port_(port) {
    thread_ = std::thread([this] { Loop(); });
  }
  ~VerbsResponder() override {
    stop_.store(true);
    thread_.join();
  }
  int port() const override { return port_; }

 private:
  void Loop();
  VerbsTransport* transport_;
  net::Fd listener_;
  int port_;
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

class VerbsTransport final : public ProbeTransport {
 public:
  VerbsTransport(ibv_context* context, PortChoice port) : context_(context), port_(port) {}
  ~VerbsTransport() override { ibv_close_device(context_); }
  absl::string_view name() const override { return "rdma"; }

  absl::StatusOr<ProbeResponderPtr> Listen(const std::string& address, int port) override {
    int bound = 0;
    TP_ASSIGN_OR_RETURN(net::Fd fd, net::Listen(address, port, bound));
    return ProbeResponderPtr(new VerbsResponder(this, std::move(fd), bound));
  }

  absl::StatusOr<ProbeMeasurement> Probe(const ProbePeer& peer,
                                         const ProbeOptions& options) override {
    TP_RETURN_IF_ERROR(ValidateProbeOptions(options));
    TP_ASSIGN_OR_RETURN(net::Fd fd, net::Connect(peer.address, peer.port, options.timeout));
    TP_ASSIGN_OR_RETURN(std::unique_ptr<Connection> c, NewConnection(context_, port_));
    TP_RETURN_IF_ERROR(WriteLine(fd.get(), EncodeQpInfo(LocalInfo(*c, port_))));
    TP_RETURN_IF_ERROR(WriteLine(fd.get(), EncodeLatencyOp(options.latency_iterations)));
    TP_ASSIGN_OR_RETURN(std::string line, ReadLine(fd.get()));
    TP_ASSIGN_OR_RETURN(QpInfo remote, DecodeQpInfo(line));
    TP_RETURN_IF_ERROR(Connect(*c, port_, remote));
    // Both ends are RTS once each has seen the other's ready line.
    TP_RETURN_IF_ERROR(WriteLine(fd.get(), absl::StrCat(kReadyLine, "\n")));
    TP_ASSIGN_OR_RETURN(line, ReadLine(fd.get()));
    if (line != kReadyLine) return absl::UnavailableError("side channel: peer not ready");

    ProbeMeasurement m;
    uint32_t ping = 0;  // the word each round trip writes and waits to see echoed
    TP_ASSIGN_OR_RETURN(m.latency_us,
                        MeasureOneWayLatencyUs(options.latency_iterations, [&]() -> absl::Status {
                          ++ping;
                          TP_RETURN_IF_ERROR(WriteWord(*c, remote, ping, options.timeout));
                          return WaitWord(*c, ping, options.timeout);
                        }));

    if (options.bandwidth_duration > absl::ZeroDuration()) {
      const uint32_t block = std::min<uint32_t>(
          static_cast<uint32_t>(options.bandwidth_block_bytes), kBufferBytes / 2);
      const auto start = std::chrono::steady_clock::now();
      const auto until = start + absl::ToChronoNanoseconds(options.bandwidth_duration);
      uint64_t bytes = 0;
      int outstanding = 0;
      while (std::chrono::steady_clock::now() < until) {
        if (outstanding == kQueueDepth) {
          TP_RETURN_IF_ERROR(WaitCompletions(*c, 1, options.timeout));
          --outstanding;
        }
        TP_RETURN_IF_ERROR(PostWrite(*c, remote, kBufferBytes / 2, block, true));
        ++outstanding;
        bytes += block;
      }
      TP_RETURN_IF_ERROR(WaitCompletions(*c, outstanding, options.timeout));
      const double seconds =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      m.bandwidth_gbps = GigabitsPerSecond(bytes, seconds);
    }
    TP_RETURN_IF_ERROR(WriteLine(fd.get(), absl::StrCat(kDoneLine, "\n")));
    return m;
  }

  // Serves one probe connection (latency ping-pong; bandwidth needs nothing from us).
  // The error says which step failed.
  absl::Status Serve(net::Fd fd) {
    constexpr absl::Duration kStepTimeout = absl::Seconds(5);
    net::SetTimeouts(fd.get(), kStepTimeout);
    TP_ASSIGN_OR_RETURN(std::string line, ReadLine(fd.get()));
    TP_ASSIGN_OR_RETURN(QpInfo remote, DecodeQpInfo(line));
    TP_ASSIGN_OR_RETURN(std::string op, ReadLine(fd.get()));
    TP_ASSIGN_OR_RETURN(const int iterations, DecodeLatencyOp(op));
    TP_ASSIGN_OR_RETURN(std::unique_ptr<Connection> c, NewConnection(context_, port_));
    TP_RETURN_IF_ERROR(WriteLine(fd.get(), EncodeQpInfo(LocalInfo(*c, port_))));
    TP_RETURN_IF_ERROR(Connect(*c, port_, remote));
    TP_ASSIGN_OR_RETURN(std::string ready, ReadLine(fd.get()));
    if (ready != kReadyLine) return absl::UnavailableError("side channel: client not ready");
    TP_RETURN_IF_ERROR(WriteLine(fd.get(), absl::StrCat(kReadyLine, "\n")));
    // The warm-up round trip and the measured ones.
    for (uint32_t ping = 1; ping <= static_cast<uint32_t>(iterations) + 1; ++ping) {
      TP_RETURN_IF_ERROR(WaitWord(*c, ping, kStepTimeout));
      TP_RETURN_IF_ERROR(WriteWord(*c, remote, ping, kStepTimeout));
    }
    // The client is done writing into our buffer once it says so (or hangs up).
    return ReadLine(fd.get()).status();
  }

 private:
  ibv_context* context_;
  PortChoice port_;
};

void VerbsResponder::Loop() {
  while (!stop_.load()) {
    pollfd p{listener_.get(), POLLIN, 0};
    if (poll(&p, 1, 100) <= 0) continue;
    net::Fd conn(accept4(listener_.get(), nullptr, nullptr, SOCK_CLOEXEC));
    // One probe at a time: RDMA probes are short and the buffer is per connection anyway.
    if (conn.get() < 0) continue;
    if (absl::Status served = transport_->Serve(std::move(conn)); !served.ok()) {
      std::fprintf(stderr, "topoplace: RDMA probe responder: %s\n",
                   std::string(served.message()).c_str());
    }
  }
}

}  // namespace

absl::StatusOr<ProbeTransportPtr> NewVerbsTransport(const std::string& device,
                                                    const std::string& sysfs_root) {
  int count = 0;
  errno = 0;
  ibv_device** list = ibv_get_device_list(&count);
  if (list == nullptr || count == 0) {
    if (list != nullptr) ibv_free_device_list(list);
    // NULL with ENOSYS: no RDMA subsystem in this kernel. Either way: no devices.
    return absl::NotFoundError("no RDMA devices (libibverbs lists none)");
  }
  ibv_device* chosen = nullptr;
  for (int i = 0; i < count && chosen == nullptr; ++i) {
    if (device.empty() || device == ibv_get_device_name(list[i])) chosen = list[i];
  }
  if (chosen == nullptr) {
    ibv_free_device_list(list);
    return absl::NotFoundError(absl::StrCat("no RDMA device '", device, "'"));
  }
  const std::string name = ibv_get_device_name(chosen);
  ibv_context* context = ibv_open_device(chosen);
  ibv_free_device_list(list);
  if (context == nullptr) return Errno(absl::StrCat("ibv_open_device(", name, ")"));
  std::unique_ptr<DeviceAttributes> attributes = NewSysfsDeviceAttributes(sysfs_root);
  absl::StatusOr<PortChoice> port = ChooseProbePort(*attributes, name);
  if (!port.ok()) {
    ibv_close_device(context);
    return port.status();
  }
  ibv_port_attr port_attr{};
  if (ibv_query_port(context, static_cast<uint8_t>(port->port), &port_attr) == 0) {
    port->mtu_bytes = 128 << static_cast<int>(port_attr.active_mtu);  // IBV_MTU_256 = 1
  }
  return ProbeTransportPtr(new VerbsTransport(context, *port));
}

}  // namespace topoplace::telemetry

#else  // !TOPOPLACE_HAVE_IBVERBS

namespace topoplace::telemetry {

absl::StatusOr<ProbeTransportPtr> NewVerbsTransport(const std::string& /*device*/,
                                                    const std::string& /*sysfs_root*/) {
  return absl::UnimplementedError("built without libibverbs: RDMA probes are unavailable");
}

}  // namespace topoplace::telemetry

#endif  // TOPOPLACE_HAVE_IBVERBS
