#include "store/etcd/etcd_ledger.h"

#include <algorithm>
#include <iostream>
#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "base/status_macros.h"
#include "store/etcd/allocation_record.h"
#include "store/etcd/fenced_txn.h"
#include "store/ports/ledger_rules.h"

namespace topoplace::store {
namespace {

using ledger::Allocation;
using ledger::AllocationState;

void CompareRevision(etcdserverpb::TxnRequest& txn, const std::string& key,
                     etcdserverpb::Compare::CompareTarget target, int64_t revision) {
  etcdserverpb::Compare* c = txn.add_compare();
  c->set_key(key);
  c->set_target(target);
  c->set_result(etcdserverpb::Compare::EQUAL);
  if (target == etcdserverpb::Compare::CREATE) {
    c->set_create_revision(revision);
  } else {
    c->set_mod_revision(revision);
  }
}

// The key must not exist (a missing key's create revision is 0).
void CompareAbsent(etcdserverpb::TxnRequest& txn, const std::string& key) {
  CompareRevision(txn, key, etcdserverpb::Compare::CREATE, 0);
}

void Put(etcdserverpb::TxnRequest& txn, const std::string& key, std::string value) {
  etcdserverpb::PutRequest* put = txn.add_success()->mutable_request_put();
  put->set_key(key);
  put->set_value(std::move(value));
}

void Delete(etcdserverpb::TxnRequest& txn, const std::string& key) {
  txn.add_success()->mutable_request_delete_range()->set_key(key);
}

// On failure, reads `key` back so the caller can tell which compare failed.
void ReadOnFailure(etcdserverpb::TxnRequest& txn, const std::string& key) {
  txn.add_failure()->mutable_request_range()->set_key(key);
}

// The allocation number stored in the value of failure read `i`, if the key exists.
std::optional<int64_t> HolderInFailure(const etcdserverpb::TxnResponse& r, int i) {
  const etcdserverpb::RangeResponse& range = r.responses(i).response_range();
  int64_t n = 0;
  if (range.kvs_size() == 0 || !absl::SimpleAtoi(range.kvs(0).value(), &n)) return std::nullopt;
  return n;
}

// The allocation number at the end of a live/ or done/ key.
int64_t NumberOfKey(absl::string_view key) {
  int64_t n = 0;
  const size_t slash = key.rfind('/');
  if (slash == absl::string_view::npos || !absl::SimpleAtoi(key.substr(slash + 1), &n)) return 0;
  return n;
}

absl::Status Conflict() {
  return absl::AbortedError(
      "etcd ledger: the ledger changed in etcd under this replica's view (another writer); "
      "the view is reloaded, place again and retry");
}

}  // namespace

absl::StatusOr<std::unique_ptr<EtcdLedger>> EtcdLedger::Open(EtcdClient& etcd, FenceSource& fence,
                                                             FabricPtr fabric,
                                                             const ledger::Clock& clock,
                                                             EtcdLedgerOptions options) {
  std::unique_ptr<EtcdLedger> ledger(
      new EtcdLedger(etcd, fence, std::move(fabric), clock, std::move(options)));
  absl::MutexLock lock(&ledger->mu_);
  if (!ledger->options_.watermark_path.empty()) {
    TP_ASSIGN_OR_RETURN(ledger->watermark_,
                        ledger::WatermarkFile::Open(ledger->options_.watermark_path, false));
    if (ledger->watermark_->loaded()) ledger->mark_ = *ledger->watermark_->loaded();
  }
  TP_RETURN_IF_ERROR(ledger->LoadLocked());
  ledger->opening_ = false;
  ledger->watcher_ = std::thread([raw = ledger.get()] { raw->WatchLoop(); });
  ledger->StartWatchLocked();
  return ledger;
}

EtcdLedger::~EtcdLedger() {
  {
    absl::MutexLock lock(&mu_);
    stopping_ = true;
    if (open_watch_ != nullptr) open_watch_->Cancel();
  }
  if (watcher_.joinable()) watcher_.join();
}

EtcdLedger::EtcdLedger(EtcdClient& etcd, FenceSource& fence, FabricPtr fabric,
                       const ledger::Clock& clock, EtcdLedgerOptions options)
    : etcd_(etcd),
      fence_(fence),
      fabric_(std::move(fabric)),
      clock_(clock),
      options_(std::move(options)),
      group_(etcd, fence, TxnLimits{.max_bytes = options_.max_request_bytes}),
      live_(fabric_->gpus().size()) {}

std::string EtcdLedger::Key(absl::string_view kind, absl::string_view name) const {
  return absl::StrCat(options_.prefix, "ledger/", kind, "/", name);
}

std::string EtcdLedger::LiveKey(int64_t n) const {
  return Key("live", absl::StrFormat("%020d", n));
}

std::string EtcdLedger::DoneKey(int64_t n) const {
  return Key("done", absl::StrFormat("%020d", n));
}

absl::Status EtcdLedger::Fits(const etcdserverpb::TxnRequest& txn, absl::string_view id) const {
  // The fence's compare and read, which FencedTxn adds, and the request's framing.
  constexpr size_t kFenceBytes = 512;
  const size_t bytes = txn.ByteSizeLong() + kFenceBytes;
  if (bytes <= options_.max_request_bytes) return absl::OkStatus();
  return absl::ResourceExhaustedError(absl::StrFormat(
      "etcd ledger: the change of %s takes a %d-byte etcd request, above the %d bytes etcd "
      "takes (etcd's --max-request-bytes; topoplaced's etcd_max_request_bytes must match it): "
      "raise both, or split the job; nothing was written",
      id, bytes, options_.max_request_bytes));
}

std::optional<GpuId> EtcdLedger::ResolveGpu(const ledger::GpuRef& ref) const {
  return fabric_->FindGpu(ref.host, ref.index);
}

absl::Status EtcdLedger::LoadLocked() {
  const auto idle = [this]() ABSL_NO_THREAD_SAFETY_ANALYSIS { return in_flight_.empty(); };
  mu_.Await(absl::Condition(&idle));
  // One transaction, so the live records and the highest finished number are one snapshot.
  etcdserverpb::TxnRequest txn;
  *txn.add_success()->mutable_request_range() = PrefixRequest(Key("live", ""));
  *txn.add_success()->mutable_request_range() = LastKeyRequest(Key("done", ""));
  txn.add_success()->mutable_request_range()->set_key(Key("identity", ""));
  txn.add_success()->mutable_request_range()->set_key(Key("floor", ""));
  absl::StatusOr<etcdserverpb::TxnResponse> r = etcd_.Txn(txn);
  if (!r.ok()) {
    write_state_ = absl::UnavailableError(r.status().message());
    return write_state_;
  }
  const bool first = loaded_at_ == absl::InfinitePast();
  ledger::LiveAllocations live(fabric_->gpus().size());
  absl::flat_hash_map<int64_t, int64_t> mod_revision;
  int64_t last = 0;
  for (const etcdserverpb::KeyValue& kv : r->responses(0).response_range().kvs()) {
    TP_ASSIGN_OR_RETURN(Allocation a, DecodeAllocation(kv.key(), kv.value()));
    const int64_t n = *ledger::ParseAllocationId(a.id);
    last = std::max(last, n);
    TP_ASSIGN_OR_RETURN(std::vector<GpuId> held, HeldGpus(a, live, first));
    mod_revision[n] = kv.mod_revision();
    live.Add(n, std::move(a), std::move(held));
  }
  const auto& done = r->responses(1).response_range();
  if (done.kvs_size() > 0) last = std::max(last, NumberOfKey(done.kvs(0).key()));
  const auto& identity = r->responses(2).response_range();
  if (const auto& floor = r->responses(3).response_range(); floor.kvs_size() > 0) {
    int64_t n = 0;
    if (!absl::SimpleAtoi(floor.kvs(0).value(), &n)) {
      return absl::DataLossError(absl::StrCat("etcd ledger: ", Key("floor", ""), " holds '",
                                              floor.kvs(0).value(),
                                              "', expected an allocation number"));
    }
    last = std::max(last, n);
  }
  TP_RETURN_IF_ERROR(CheckStoreLocked(
      r->header(),
      identity.kvs_size() > 0 ? std::optional<std::string>(identity.kvs(0).value()) : std::nullopt,
      last));
  write_state_ = absl::OkStatus();  // etcd answers
  live_ = std::move(live);
  mod_revision_ = std::move(mod_revision);
  view_revision_ = r->header().revision();
  loaded_revision_ = view_revision_;
  // Never a number this ledger acknowledged before, even after an accepted loss.
  next_n_ = std::max(last, mark_.allocation) + 1;
  stale_ = false;
  loaded_at_ = absl::Now();
  return absl::OkStatus();
}

absl::StatusOr<std::vector<GpuId>> EtcdLedger::HeldGpus(const Allocation& a,
                                                        const ledger::LiveAllocations& live,
                                                        bool warn) {
  std::vector<GpuId> held;
  for (const ledger::GpuRef& ref : a.gpus) {
    std::optional<GpuId> gpu = ResolveGpu(ref);
    if (!gpu) {
      if (warn) {
        warnings_.push_back(absl::StrCat(a.id, ": GPU ", ref.host, "/gpu", ref.index,
                                         " is not in fabric '", fabric_->name(), "'"));
      }
      continue;
    }
    if (const int64_t other = live.Holder(*gpu);
        other != 0 || std::count(held.begin(), held.end(), *gpu)) {
      return absl::DataLossError(absl::StrCat("etcd ledger: GPU ", ref.host, "/gpu", ref.index,
                                              " held by both ", ledger::FormatAllocationId(other),
                                              " and ", a.id));
    }
    held.push_back(*gpu);
  }
  return held;
}

absl::Status EtcdLedger::CheckStoreLocked(const etcdserverpb::ResponseHeader& header,
                                          const std::optional<std::string>& identity,
                                          int64_t last) {
  const std::string cluster = absl::StrFormat("%016x", header.cluster_id());
  std::vector<std::string> why;
  if (!mark_.store.empty() && mark_.store != cluster) {
    why.push_back(
        absl::StrCat("its cluster id is ", cluster, ", this ledger's etcd was ", mark_.store));
  }
  if (header.revision() < mark_.event_seq) {
    why.push_back(absl::StrCat("it is at revision ", header.revision(),
                               ", this replica has seen revision ", mark_.event_seq));
  }
  if (!mark_.ledger_id.empty() && identity != mark_.ledger_id) {
    why.push_back(identity ? absl::StrCat("it holds ledger ", *identity, ", not ", mark_.ledger_id)
                           : absl::StrCat("it holds no ledger identity (ledger ", mark_.ledger_id,
                                          " was there)"));
  }
  if (last < mark_.allocation) {
    why.push_back(absl::StrCat("its newest allocation is ", ledger::FormatAllocationId(last),
                               ", this replica acknowledged up to ",
                               ledger::FormatAllocationId(mark_.allocation)));
  }
  if (!why.empty() && !(opening_ && options_.accept_loss)) {
    loss_ = absl::FailedPreconditionError(absl::StrCat(
        "etcd ledger: etcd (", absl::StrJoin(etcd_.endpoints(), ","),
        ") is not the store this ledger acknowledged changes to: ", absl::StrJoin(why, "; "),
        ". It was wiped or restored from an older copy, and acknowledged allocations are "
        "missing; every change is refused. Restore etcd, or restart topoplaced once with "
        "accept_ledger_loss = true (--accept-ledger-loss) to continue from what it holds"));
    write_state_ = loss_;
    return loss_;
  }
  if (!why.empty()) {
    ++mark_.epoch;
    mark_.event_seq = 0;
    mark_.ledger_id.clear();  // adopt etcd's identity, or make a new one
    warnings_.push_back(absl::StrCat(
        "etcd ledger: accepted the loss (", absl::StrJoin(why, "; "), "); epoch ", mark_.epoch,
        ", new allocations are numbered above ", ledger::FormatAllocationId(mark_.allocation)));
  }
  if (mark_.ledger_id.empty()) {
    TP_ASSIGN_OR_RETURN(mark_.ledger_id, EnsureIdentityLocked(identity));
  }
  if (last < mark_.allocation) TP_RETURN_IF_ERROR(WriteFloorLocked());
  mark_.store = cluster;
  mark_.event_seq = std::max(mark_.event_seq, header.revision());
  mark_.allocation = std::max(mark_.allocation, last);
  return RecordMarkLocked();
}

absl::StatusOr<std::string> EtcdLedger::EnsureIdentityLocked(
    const std::optional<std::string>& found) {
  if (found) return *found;
  // Not a ledger change, so not fenced: replicas racing here agree on the first one.
  const std::string key = Key("identity", "");
  const std::string id = ledger::WatermarkFile::NewLedgerId();
  etcdserverpb::TxnRequest txn;
  CompareAbsent(txn, key);
  Put(txn, key, id);
  ReadOnFailure(txn, key);
  TP_ASSIGN_OR_RETURN(etcdserverpb::TxnResponse r, etcd_.Txn(txn));
  if (r.succeeded()) return id;
  const auto& range = r.responses(0).response_range();
  if (range.kvs_size() == 0) return absl::AbortedError("etcd ledger: identity key raced away");
  return range.kvs(0).value();
}

absl::Status EtcdLedger::WriteFloorLocked() {
  etcdserverpb::TxnRequest txn;
  Put(txn, Key("floor", ""), absl::StrCat(mark_.allocation));
  return etcd_.Txn(txn).status();
}

absl::Status EtcdLedger::RecordMarkLocked() {
  if (watermark_ == nullptr) return absl::OkStatus();
  absl::Status s = watermark_->Write(mark_);
  if (!s.ok()) write_state_ = absl::UnavailableError(s.message());
  return s;
}

absl::StatusOr<Fence> EtcdLedger::PrepareWriteLocked() {
  if (!loss_.ok()) return loss_;
  TP_ASSIGN_OR_RETURN(Fence fence, fence_.WriteFence());
  // etcd did not answer the last call: refuse at once until the sweeper's ProbeWrites sees
  // it answer again, instead of holding a server thread for another timeout.
  if (!write_state_.ok()) return write_state_;
  if (stale_ || loaded_under_ != fence) {
    // A new leadership (or a failed write) may follow changes this view has not seen.
    const bool new_leadership = loaded_under_ != fence;
    TP_RETURN_IF_ERROR(LoadLocked());
    loaded_under_ = fence;
    StopWatchLocked();
    if (new_leadership) DropLegacyGpuKeysLocked(fence);
  }
  return fence;
}

void EtcdLedger::DropLegacyGpuKeysLocked(const Fence& fence) {
  // Ledgers written before hardening finding 7 kept a key per held GPU; nothing reads them.
  etcdserverpb::TxnRequest txn;
  auto* drop = txn.add_success()->mutable_request_delete_range();
  drop->set_key(Key("gpu", ""));
  drop->set_range_end(PrefixEnd(Key("gpu", "")));
  bool fence_lost = false;
  // Best effort: a failure leaves keys nobody reads, and the next leadership tries again.
  (void)FencedTxn(etcd_, fence_, fence, txn, &fence_lost);
}

void EtcdLedger::RefreshForReadLocked() {
  // While etcd does not answer, reads serve the last view rather than hold the lock for
  // another timeout; ProbeWrites reloads once it answers.
  if (!write_state_.ok()) return;
  absl::StatusOr<Fence> fence = fence_.WriteFence();
  if (fence.ok()) {
    if (!stale_ && loaded_under_ == *fence) return;
    if (LoadLocked().ok()) {
      loaded_under_ = *fence;
      StopWatchLocked();
    }
    return;
  }
  if (!loaded_under_.key.empty()) stale_ = true;  // led until now: watch from a fresh load
  if (!stale_ && watch_current_) return;
  if (!stale_ && absl::Now() - loaded_at_ < options_.follower_refresh) return;
  if (LoadLocked().ok()) {
    loaded_under_ = Fence{};
    StartWatchLocked();
  }
}

void EtcdLedger::StartWatchLocked() {
  ++watch_generation_;
  watch_current_ = false;
  watch_from_ = view_revision_ + 1;
  if (open_watch_ != nullptr) open_watch_->Cancel();
}

void EtcdLedger::StopWatchLocked() {
  ++watch_generation_;
  watch_current_ = false;
  watch_from_ = 0;
  if (open_watch_ != nullptr) open_watch_->Cancel();
}

void EtcdLedger::WatchLoop() {
  while (true) {
    int64_t from = 0;
    uint64_t generation = 0;
    {
      absl::MutexLock lock(&mu_);
      const auto asked = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
        return stopping_ || watch_from_ > 0;
      };
      mu_.Await(absl::Condition(&asked));
      if (stopping_) return;
      from = std::exchange(watch_from_, 0);
      generation = watch_generation_;
    }
    absl::StatusOr<std::unique_ptr<EtcdWatch>> watch = etcd_.WatchPrefix(Key("live", ""), from);
    {
      absl::MutexLock lock(&mu_);
      if (!watch.ok() || generation != watch_generation_ || stopping_) continue;
      open_watch_ = watch->get();
      watch_current_ = true;
    }
    while (true) {
      absl::StatusOr<etcdserverpb::WatchResponse> batch = (*watch)->Next();
      absl::MutexLock lock(&mu_);
      if (!batch.ok() || generation != watch_generation_ || stopping_) {
        // Reads fall back to reloading, which opens the next watch.
        if (generation == watch_generation_) watch_current_ = false;
        open_watch_ = nullptr;
        break;
      }
      ApplyWatchedLocked(*batch);
    }
  }
}

void EtcdLedger::ApplyWatchedLocked(const etcdserverpb::WatchResponse& batch) {
  if (!loaded_under_.key.empty() || stale_) return;  // leading, or a reload is due anyway
  for (const etcdserverpb::Event& event : batch.events()) {
    const etcdserverpb::KeyValue& kv = event.kv();
    // A group commit changes many records in one revision, so events share revisions: only
    // those the load already had are skipped (hardening round four, finding 1: skipping
    // every event at the revision of the one before dropped all but the first of a
    // revision's changes, for good). One that goes back cannot be placed in the view.
    if (kv.mod_revision() <= loaded_revision_) continue;
    if (kv.mod_revision() < view_revision_) {
      stale_ = true;
      return;
    }
    const int64_t n = NumberOfKey(kv.key());
    if (live_.Find(n) != nullptr) live_.Remove(n);
    mod_revision_.erase(n);
    if (event.type() == etcdserverpb::Event::PUT) {
      absl::StatusOr<Allocation> a = DecodeAllocation(kv.key(), kv.value());
      absl::StatusOr<std::vector<GpuId>> held =
          a.ok() ? HeldGpus(*a, live_, false) : absl::StatusOr<std::vector<GpuId>>(a.status());
      if (!held.ok()) {
        stale_ = true;  // the next read reloads, and reports what is wrong
        return;
      }
      mod_revision_[n] = kv.mod_revision();
      live_.Add(n, *std::move(a), *std::move(held));
    }
    view_revision_ = kv.mod_revision();
    mark_.event_seq = std::max(mark_.event_seq, view_revision_);
  }
}

absl::StatusOr<etcdserverpb::TxnResponse> EtcdLedger::Write(const Fence& fence,
                                                            const etcdserverpb::TxnRequest& txn) {
  bool fence_lost = false;
  absl::StatusOr<etcdserverpb::TxnResponse> r = group_.Run(fence, txn, &fence_lost);
  absl::MutexLock lock(&mu_);
  if (!r.ok() && !fence_lost) {
    stale_ = true;
    write_state_ = absl::UnavailableError(r.status().message());
    return absl::UnavailableError(absl::StrCat(
        r.status().message(),
        "; the change may or may not have been recorded: ask again (a Reserve with the "
        "same request_id is answered once)"));
  }
  if (r.ok()) {
    write_state_ = absl::OkStatus();  // etcd answered
    mark_.event_seq = std::max(mark_.event_seq, r->header().revision());
  }
  // A failed compare means the view missed a change: reload before the next write.
  if (!r.ok() || !r->succeeded()) stale_ = true;
  return r;
}

void EtcdLedger::AwaitIdleLocked(int64_t n) {
  const auto idle = [this, n]() ABSL_NO_THREAD_SAFETY_ANALYSIS { return !in_flight_.contains(n); };
  mu_.Await(absl::Condition(&idle));
}

etcdserverpb::TxnRequest EtcdLedger::ReserveTxnLocked(int64_t n, const Allocation& a,
                                                      const store::ReserveRequest& request,
                                                      const std::vector<int64_t>& releasing,
                                                      bool victims_keep_plans) {
  etcdserverpb::TxnRequest txn;
  CompareAbsent(txn, LiveKey(n));
  CompareAbsent(txn, DoneKey(n));
  if (!request.request_id.empty()) {
    const std::string request_key = Key("request", request.request_id);
    CompareAbsent(txn, request_key);
    Put(txn, request_key, absl::StrCat(n));
    ReadOnFailure(txn, request_key);
  }
  for (const int64_t v : releasing) {
    const Allocation& victim = *live_.Find(v);
    Allocation done = store::FinishedAs(victim, AllocationState::kReleased, a.created_at);
    if (!victims_keep_plans) done.plan_json.clear();
    CompareRevision(txn, LiveKey(v), etcdserverpb::Compare::MOD, mod_revision_[v]);
    Delete(txn, LiveKey(v));
    Put(txn, DoneKey(v), EncodeAllocation(done));
    if (victim.state == AllocationState::kCommitted) {
      Delete(txn, Key("external", victim.external_id));
    }
  }
  Put(txn, LiveKey(n), EncodeAllocation(a));
  return txn;
}

absl::StatusOr<Allocation> EtcdLedger::Reserve(const store::ReserveRequest& request) {
  TP_ASSIGN_OR_RETURN(Allocation a, store::NewReservation(*fabric_, request, clock_.Now()));
  TP_RETURN_IF_ERROR(MayWrite());  // a follower answers without waiting for the lock
  absl::MutexLock lock(&mu_);
  TP_ASSIGN_OR_RETURN(const Fence fence, PrepareWriteLocked());
  TP_RETURN_IF_ERROR(ReclaimExpiredLocked(fence).status());
  // Victims with a change in flight are waited for: this change builds on their records.
  for (const std::string& id : request.releasing) {
    if (std::optional<int64_t> v = ledger::ParseAllocationId(id)) AwaitIdleLocked(*v);
  }
  TP_ASSIGN_OR_RETURN(const std::vector<int64_t> releasing, store::LiveReleasing(live_, request));
  TP_RETURN_IF_ERROR(store::CheckFree(*fabric_, live_, request, releasing));
  const int64_t n = next_n_++;
  a.id = ledger::FormatAllocationId(n);
  // The victims' final records keep their plans when the change fits etcd's request limit
  // with them, as FinishLocked's do.
  etcdserverpb::TxnRequest txn =
      ReserveTxnLocked(n, a, request, releasing, /*victims_keep_plans=*/true);
  if (!releasing.empty() && !Fits(txn, a.id).ok()) {
    txn = ReserveTxnLocked(n, a, request, releasing, /*victims_keep_plans=*/false);
  }
  if (absl::Status fits = Fits(txn, a.id); !fits.ok()) {
    --next_n_;  // nothing was written, so the number is not used
    return fits;
  }
  // Held in the view while etcd decides, so no concurrent Reserve here takes these GPUs;
  // the victims leave the view now and come back if etcd refuses.
  std::vector<Allocation> victims;
  for (const int64_t v : releasing) {
    victims.push_back(live_.Remove(v));
    in_flight_.insert(v);
  }
  live_.Add(n, a, request.gpus);
  in_flight_.insert(n);
  unconfirmed_.insert(n);
  mu_.Unlock();
  absl::StatusOr<etcdserverpb::TxnResponse> r = Write(fence, txn);
  mu_.Lock();
  in_flight_.erase(n);
  unconfirmed_.erase(n);
  for (const int64_t v : releasing) in_flight_.erase(v);
  if (r.ok() && r->succeeded()) {
    mod_revision_[n] = r->header().revision();
    for (const int64_t v : releasing) mod_revision_.erase(v);
    mark_.allocation = std::max(mark_.allocation, n);
    TP_RETURN_IF_ERROR(RecordMarkLocked());
    return a;
  }
  live_.Remove(n);
  for (size_t i = 0; i < releasing.size(); ++i) {
    absl::StatusOr<std::vector<GpuId>> held = HeldGpus(victims[i], live_, false);
    if (!held.ok()) {
      stale_ = true;  // cannot happen: its GPUs were its own a moment ago; reload anyway
      continue;
    }
    live_.Add(releasing[i], std::move(victims[i]), *std::move(held));
  }
  if (!r.ok()) return r.status();
  if (!request.request_id.empty()) {
    if (std::optional<int64_t> used = HolderInFailure(*r, 0)) {
      return store::RequestIdUsed(request.request_id, *used);
    }
  }
  return Conflict();
}

absl::StatusOr<const Allocation*> EtcdLedger::LiveLocked(const Fence& fence, int64_t n) {
  TP_RETURN_IF_ERROR(ReclaimExpiredLocked(fence).status());
  AwaitIdleLocked(n);
  if (const Allocation* live = live_.Find(n)) return live;
  TP_ASSIGN_OR_RETURN(Allocation finished, ReadStoredLocked(n));
  return store::Finished(finished);
}

absl::StatusOr<Allocation> EtcdLedger::Commit(const std::string& id,
                                              const std::string& external_id) {
  TP_RETURN_IF_ERROR(store::CheckExternalId(external_id));
  TP_ASSIGN_OR_RETURN(const int64_t n, store::AllocationNumber(id));
  TP_RETURN_IF_ERROR(MayWrite());
  absl::MutexLock lock(&mu_);
  TP_ASSIGN_OR_RETURN(const Fence fence, PrepareWriteLocked());
  TP_ASSIGN_OR_RETURN(const Allocation* live, LiveLocked(fence, n));
  Allocation next = *live;
  TP_ASSIGN_OR_RETURN(const bool already, store::CheckCommit(next, external_id, live_));
  if (already) return next;
  next.state = AllocationState::kCommitted;
  next.external_id = external_id;
  next.expires_at = absl::InfiniteFuture();
  return UpdateLocked(fence, n, std::move(next), external_id);
}

absl::StatusOr<Allocation> EtcdLedger::Renew(const std::string& id, absl::Duration ttl) {
  TP_RETURN_IF_ERROR(store::CheckTtl(ttl));
  TP_ASSIGN_OR_RETURN(const int64_t n, store::AllocationNumber(id));
  TP_RETURN_IF_ERROR(MayWrite());
  absl::MutexLock lock(&mu_);
  TP_ASSIGN_OR_RETURN(const Fence fence, PrepareWriteLocked());
  TP_ASSIGN_OR_RETURN(const Allocation* live, LiveLocked(fence, n));
  TP_RETURN_IF_ERROR(store::CheckRenewable(*live));
  Allocation next = *live;
  next.expires_at = clock_.Now() + ttl;
  return UpdateLocked(fence, n, std::move(next), "");
}

absl::StatusOr<Allocation> EtcdLedger::UpdateLocked(const Fence& fence, int64_t n, Allocation next,
                                                    const std::string& new_external) {
  etcdserverpb::TxnRequest txn;
  CompareRevision(txn, LiveKey(n), etcdserverpb::Compare::MOD, mod_revision_[n]);
  Put(txn, LiveKey(n), EncodeAllocation(next));
  const std::string external_key = Key("external", new_external);
  if (!new_external.empty()) {
    CompareAbsent(txn, external_key);
    Put(txn, external_key, absl::StrCat(n));
    ReadOnFailure(txn, external_key);
  }
  in_flight_.insert(n);
  mu_.Unlock();
  absl::StatusOr<etcdserverpb::TxnResponse> r = Write(fence, txn);
  mu_.Lock();
  in_flight_.erase(n);
  if (!r.ok()) return r.status();
  if (r->succeeded()) {
    mod_revision_[n] = r->header().revision();
    live_.Replace(n, next);
    return next;
  }
  if (!new_external.empty()) {
    if (std::optional<int64_t> other = HolderInFailure(*r, 0)) {
      return absl::AlreadyExistsError(absl::StrCat("external_id: '", new_external,
                                                   "' is already bound to ",
                                                   ledger::FormatAllocationId(*other)));
    }
  }
  return Conflict();
}

absl::StatusOr<Allocation> EtcdLedger::Release(const std::string& id) {
  TP_ASSIGN_OR_RETURN(const int64_t n, store::AllocationNumber(id));
  TP_RETURN_IF_ERROR(MayWrite());
  absl::MutexLock lock(&mu_);
  TP_ASSIGN_OR_RETURN(const Fence fence, PrepareWriteLocked());
  AwaitIdleLocked(n);
  if (live_.Find(n) == nullptr) return ReadStoredLocked(n);
  return FinishLocked(fence, n, AllocationState::kReleased);
}

absl::StatusOr<Allocation> EtcdLedger::FinishLocked(const Fence& fence, int64_t n,
                                                    AllocationState state) {
  const Allocation& a = *live_.Find(n);
  Allocation done = store::FinishedAs(a, state, clock_.Now());
  const auto build = [&](const Allocation& record) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    etcdserverpb::TxnRequest txn;
    CompareRevision(txn, LiveKey(n), etcdserverpb::Compare::MOD, mod_revision_[n]);
    Delete(txn, LiveKey(n));
    Put(txn, DoneKey(n), EncodeAllocation(record));
    if (a.state == AllocationState::kCommitted) Delete(txn, Key("external", a.external_id));
    return txn;
  };
  etcdserverpb::TxnRequest txn = build(done);
  if (!Fits(txn, a.id).ok()) {
    // Stored while etcd took larger requests (hardening finding 7): the final record keeps
    // everything but the plan, so the allocation still finishes and frees its GPUs.
    done.plan_json.clear();
    txn = build(done);
  }
  in_flight_.insert(n);
  mu_.Unlock();
  absl::StatusOr<etcdserverpb::TxnResponse> r = Write(fence, txn);
  mu_.Lock();
  in_flight_.erase(n);
  if (!r.ok()) return r.status();
  if (!r->succeeded()) return Conflict();
  live_.Remove(n);
  mod_revision_.erase(n);
  return done;
}

absl::StatusOr<int> EtcdLedger::ReclaimExpiredLocked(const Fence& fence) {
  const absl::Time now = clock_.Now();
  int reclaimed = 0;
  while (std::optional<int64_t> n = live_.EarliestExpiredAt(now)) {
    // A change of it is in flight: the next reclaim takes it.
    if (in_flight_.contains(*n)) break;
    TP_RETURN_IF_ERROR(FinishLocked(fence, *n, AllocationState::kExpired).status());
    ++reclaimed;
    CountExpired(1);
  }
  return reclaimed;
}

absl::StatusOr<int> EtcdLedger::ReclaimExpired() {
  absl::MutexLock lock(&mu_);
  if (!fence_.WriteFence().ok()) return 0;  // the leader reclaims
  TP_ASSIGN_OR_RETURN(const Fence fence, PrepareWriteLocked());
  return ReclaimExpiredLocked(fence);
}

absl::StatusOr<Allocation> EtcdLedger::ReadStoredLocked(int64_t n) {
  etcdserverpb::TxnRequest txn;
  txn.add_success()->mutable_request_range()->set_key(DoneKey(n));
  txn.add_success()->mutable_request_range()->set_key(LiveKey(n));
  TP_ASSIGN_OR_RETURN(etcdserverpb::TxnResponse r, etcd_.Txn(txn));
  for (int i = 0; i < 2; ++i) {
    const auto& range = r.responses(i).response_range();
    if (range.kvs_size() > 0) return DecodeAllocation(range.kvs(0).key(), range.kvs(0).value());
  }
  return store::UnknownAllocation(n);
}

absl::StatusOr<Allocation> EtcdLedger::Get(const std::string& id) {
  TP_ASSIGN_OR_RETURN(const int64_t n, store::AllocationNumber(id));
  absl::MutexLock lock(&mu_);
  RefreshForReadLocked();
  if (const Allocation* live = live_.Find(n); live != nullptr && !unconfirmed_.contains(n)) {
    return store::AsOf(*live, clock_.Now());
  }
  TP_ASSIGN_OR_RETURN(Allocation stored, ReadStoredLocked(n));
  return store::AsOf(stored, clock_.Now());
}

absl::StatusOr<Allocation> EtcdLedger::FindByRequestId(const std::string& request_id) {
  TP_ASSIGN_OR_RETURN(std::optional<KeyValue> kv, etcd_.Get(Key("request", request_id)));
  int64_t n = 0;
  if (!kv || !absl::SimpleAtoi(kv->value, &n)) {
    return absl::NotFoundError(
        absl::StrCat("request_id: no allocation was reserved with '", request_id, "'"));
  }
  return Get(ledger::FormatAllocationId(n));
}

absl::StatusOr<Allocation> EtcdLedger::GetByExternalId(const std::string& external_id) {
  absl::MutexLock lock(&mu_);
  RefreshForReadLocked();
  if (std::optional<int64_t> n = live_.CommittedTo(external_id)) return *live_.Find(*n);
  return absl::NotFoundError(
      absl::StrCat("external_id: no live allocation is committed to '", external_id, "'"));
}

void EtcdLedger::ForEachLive(absl::FunctionRef<void(const Allocation&)> fn) {
  absl::MutexLock lock(&mu_);
  RefreshForReadLocked();
  if (absl::StatusOr<Fence> fence = fence_.WriteFence(); fence.ok()) {
    (void)ReclaimExpiredLocked(*fence);  // a failure is in write_state_
  }
  const absl::Time now = clock_.Now();
  for (const auto& [n, a] : live_.records()) {
    if (unconfirmed_.contains(n)) continue;
    if (store::AsOf(a, now).state == a.state) fn(a);
  }
}

sched::Occupancy EtcdLedger::Occupancy() {
  sched::Occupancy occupancy(*fabric_);
  absl::MutexLock lock(&mu_);
  RefreshForReadLocked();
  // Reservations in flight and expired ones not yet reclaimed count as busy: conservative.
  live_.MarkHeld(occupancy);
  return occupancy;
}

int64_t EtcdLedger::held_gpus() {
  absl::MutexLock lock(&mu_);
  RefreshForReadLocked();
  if (absl::StatusOr<Fence> fence = fence_.WriteFence(); fence.ok()) {
    (void)ReclaimExpiredLocked(*fence);
  }
  return live_.held_gpus();
}

absl::Status EtcdLedger::WriteState() {
  {
    absl::MutexLock lock(&mu_);
    if (!loss_.ok()) return loss_;
  }
  TP_RETURN_IF_ERROR(MayWrite());
  absl::MutexLock lock(&mu_);
  return write_state_;
}

absl::Status EtcdLedger::ProbeWrites() {
  {
    absl::MutexLock lock(&mu_);
    // A reload that works shows etcd answers again (and brings the view up to date).
    if (!write_state_.ok() && loss_.ok()) (void)LoadLocked();
  }
  SampleStoreUsage();
  TP_RETURN_IF_ERROR(WriteState());
  PruneFinished();
  CompactHistoryIfDue();
  return absl::OkStatus();
}

std::optional<store::Ledger::StoreUsage> EtcdLedger::store_usage() {
  absl::MutexLock lock(&mu_);
  return usage_;
}

void EtcdLedger::SampleStoreUsage() {
  absl::StatusOr<EtcdStatus> status = etcd_.Status();
  if (!status.ok()) return;  // the last figure stands; WriteState says etcd is away
  absl::MutexLock lock(&mu_);
  usage_ = StoreUsage{.bytes = status->db_bytes, .quota_bytes = options_.quota_bytes};
}

void EtcdLedger::PruneFinished() {
  // etcd's default --max-txn-ops is 128: two deletes per record.
  constexpr int kPruneBatch = 60;
  // Bounded per call, so one sweep never holds etcd for long; the next sweep goes on.
  constexpr int kBatchesPerCall = 20;
  const std::string prefix = Key("done", "");
  for (int batch = 0; batch < kBatchesPerCall; ++batch) {
    if (!fence_.WriteFence().ok()) return;  // the leader's job
    etcdserverpb::TxnRequest read;
    etcdserverpb::RangeRequest* count = read.add_success()->mutable_request_range();
    *count = PrefixRequest(prefix);
    count->set_count_only(true);
    etcdserverpb::RangeRequest* oldest = read.add_success()->mutable_request_range();
    *oldest = PrefixRequest(prefix);
    oldest->set_limit(kPruneBatch);
    absl::StatusOr<etcdserverpb::TxnResponse> r = etcd_.Txn(read);
    if (!r.ok()) return;
    int64_t left = r->responses(0).response_range().count();
    const absl::Time cutoff = clock_.Now() - options_.finished_max_age;
    etcdserverpb::TxnRequest prune;
    for (const etcdserverpb::KeyValue& kv : r->responses(1).response_range().kvs()) {
      if (left <= 1) break;  // the newest stays: it numbers the next allocation
      absl::StatusOr<Allocation> a = DecodeAllocation(kv.key(), kv.value());
      const bool too_many = left > std::max<int64_t>(options_.keep_finished, 1);
      const bool too_old = a.ok() && a->finished_at < cutoff;
      if (!too_many && !too_old) break;  // in number order: the rest are kept this time
      Delete(prune, kv.key());
      if (a.ok() && !a->request_id.empty()) Delete(prune, Key("request", a->request_id));
      --left;
    }
    if (prune.success_size() == 0) return;
    if (absl::Status s = etcd_.Txn(prune).status(); !s.ok()) {
      std::cerr << "topoplaced: finished etcd records not pruned: " << s.message() << std::endl;
      return;
    }
  }
}

void EtcdLedger::CompactHistoryIfDue() {
  if (!fence_.WriteFence().ok()) return;  // the leader's job
  // etcd's revision now: the ledger's own changes and everything else under the same etcd
  // (host reports, other writers) count, as they all fill the same quota.
  etcdserverpb::TxnRequest read;
  etcdserverpb::RangeRequest* identity = read.add_success()->mutable_request_range();
  identity->set_key(Key("identity", ""));
  identity->set_count_only(true);
  absl::StatusOr<etcdserverpb::TxnResponse> r = etcd_.Txn(read);
  if (!r.ok()) return;
  const int64_t revision = r->header().revision();
  const absl::Time now = clock_.Now();
  int64_t target = 0;
  {
    absl::MutexLock lock(&mu_);
    const bool many = revision - compacted_ >= options_.compact_every;
    const bool old = now - compacted_at_ >= options_.compact_interval;
    target = revision - options_.keep_revisions;
    if ((!many && !old) || target <= compacted_) return;
  }
  if (absl::Status s = etcd_.Compact(target); !s.ok()) {
    std::cerr << "topoplaced: etcd history not compacted to revision " << target << ": "
              << s.message() << std::endl;
    return;
  }
  absl::MutexLock lock(&mu_);
  compacted_ = std::max(compacted_, target);
  compacted_at_ = now;
}

}  // namespace topoplace::store
