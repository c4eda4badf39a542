#include "store/sqlite/sqlite_ledger.h"

#include <algorithm>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "store/ports/ledger_rules.h"
#include "store/sqlite/migrations.h"

namespace topoplace::store {
namespace {

using store::SqliteStatement;

constexpr store::Migration kMigrations[] = {
    {1,
     "CREATE TABLE allocations ("
     " id INTEGER PRIMARY KEY AUTOINCREMENT,"
     " state TEXT NOT NULL,"
     " external_id TEXT NOT NULL DEFAULT '',"
     " job_spec TEXT NOT NULL,"
     " policy TEXT NOT NULL,"
     " fabric_version INTEGER NOT NULL,"
     " plan_json TEXT NOT NULL,"
     " created_us INTEGER NOT NULL,"
     " expires_us INTEGER,"
     " finished_us INTEGER);"
     "CREATE INDEX allocations_live ON allocations(state) "
     " WHERE state IN ('reserved', 'committed');"
     // One row per GPU an allocation took; `live` rows are the GPUs held now, and the
     // partial UNIQUE index makes SQLite itself refuse a double booking.
     "CREATE TABLE allocation_gpus ("
     " allocation_id INTEGER NOT NULL REFERENCES allocations(id),"
     " host TEXT NOT NULL,"
     " gpu_index INTEGER NOT NULL,"
     " live INTEGER NOT NULL);"
     "CREATE INDEX allocation_gpus_by_allocation ON allocation_gpus(allocation_id);"
     "CREATE UNIQUE INDEX held_gpus ON allocation_gpus(host, gpu_index) WHERE live = 1;"
     "CREATE TABLE events ("
     " seq INTEGER PRIMARY KEY AUTOINCREMENT,"
     " at_us INTEGER NOT NULL,"
     " allocation_id INTEGER NOT NULL,"
     " kind TEXT NOT NULL,"
     " detail TEXT NOT NULL);"},
    // Reserve idempotency keys: a retried Reserve finds its first answer instead of
    // holding a second set of GPUs. NULL for reservations made without a key.
    {2,
     "ALTER TABLE allocations ADD COLUMN request_id TEXT;"
     "CREATE UNIQUE INDEX allocations_by_request_id ON allocations(request_id)"
     " WHERE request_id IS NOT NULL;"},
    // One row a write probe updates while writes have been failing (ProbeWrites).
    {3,
     "CREATE TABLE ledger_probe (id INTEGER PRIMARY KEY CHECK (id = 1), probed_us INTEGER);"
     "INSERT INTO ledger_probe VALUES (1, 0);"},
    // Each allocation's uplink offer in rows of its own; before, it was spliced into the
    // plan's JSON as "uplink_offer", from where this step copies every well-formed entry
    // (the plans keep the key; nothing reads it there any more). SQLite's JSON functions:
    // Debian 12 ships 3.40, built with them. Only plans naming the key are parsed, and
    // only object entries are read (json_extract on anything else would fail the step).
    {4,
     "CREATE TABLE allocation_uplink_offers ("
     " allocation_id INTEGER NOT NULL REFERENCES allocations(id),"
     " switch_name TEXT NOT NULL,"
     " bytes_per_second REAL NOT NULL);"
     "CREATE INDEX allocation_uplink_offers_by_allocation"
     " ON allocation_uplink_offers(allocation_id);"
     "INSERT INTO allocation_uplink_offers"
     " SELECT allocations.id, json_extract(offer.value, '$.switch'),"
     "  json_extract(offer.value, '$.bytes_per_second')"
     " FROM allocations, json_each(allocations.plan_json, '$.uplink_offer') AS offer"
     " WHERE instr(allocations.plan_json, '\"uplink_offer\"') > 0"
     "  AND json_valid(allocations.plan_json)"
     "  AND offer.type = 'object'"
     "  AND json_type(offer.value, '$.switch') = 'text'"
     "  AND json_type(offer.value, '$.bytes_per_second') IN ('integer', 'real')"
     " ORDER BY allocations.id, offer.key;"},
    // When each job is expected to end (the Reserve's run estimate); NULL: unknown.
    {5, "ALTER TABLE allocations ADD COLUMN expected_end_us INTEGER;"},
};

// Makes the AUTOINCREMENT counter of `table` at least ?1, so numbers continue above what
// a lost database had handed out.
absl::Status RaiseSequence(store::SqliteDb& db, absl::string_view table, int64_t at_least) {
  TP_ASSIGN_OR_RETURN(SqliteStatement insert,
                      db.Prepare("INSERT INTO sqlite_sequence (name, seq) SELECT ?1, 0 WHERE NOT"
                                 " EXISTS (SELECT 1 FROM sqlite_sequence WHERE name = ?1)"));
  insert.BindText(1, table);
  TP_RETURN_IF_ERROR(insert.Run());
  TP_ASSIGN_OR_RETURN(SqliteStatement raise,
                      db.Prepare("UPDATE sqlite_sequence SET seq = MAX(seq, ?2) WHERE name = ?1"));
  raise.BindText(1, table);
  raise.BindInt(2, at_least);
  return raise.Run();
}

// Held-GPU rows per INSERT: the same rows as one statement each, without a step and a
// reset per GPU (a 1,024-GPU Reserve spent ~2 ms in that loop, 1.0-1.3 ms less this way;
// 64 keeps the statement's 129 parameters far below SQLite's limit).
constexpr size_t kGpuRowsPerInsert = 64;

// "INSERT INTO allocation_gpus VALUES (?1, ?2, ?3, 1), (?1, ?4, ?5, 1), ...": `rows` rows
// of one allocation (?1), each a host and a GPU index.
absl::StatusOr<SqliteStatement> PrepareGpuRows(store::SqliteDb& db, size_t rows) {
  std::string sql = "INSERT INTO allocation_gpus VALUES ";
  for (size_t i = 0; i < rows; ++i) {
    absl::StrAppend(&sql, i == 0 ? "" : ", ", "(?1, ?", 2 + 2 * i, ", ?", 3 + 2 * i, ", 1)");
  }
  return db.Prepare(sql);
}

// Why changes cannot be written now, as WriteState() reports it.
absl::Status StorageFailure(absl::string_view path, absl::string_view cause) {
  return absl::UnavailableError(
      absl::StrCat("ledger: cannot write '", path, "': ", cause, "; reads are still served"));
}

absl::StatusOr<int64_t> QueryInt(store::SqliteDb& db, absl::string_view sql) {
  TP_ASSIGN_OR_RETURN(SqliteStatement q, db.Prepare(sql));
  TP_ASSIGN_OR_RETURN(bool row, q.Step());
  return row ? q.ColumnInt(0) : 0;
}

constexpr char kSelectAllocation[] =
    "SELECT id, state, external_id, job_spec, policy, fabric_version, plan_json, created_us,"
    " expires_us, finished_us, request_id, expected_end_us FROM allocations";

int64_t ToMicros(absl::Time t) { return absl::ToUnixMicros(t); }

void BindTime(SqliteStatement& s, int index, absl::Time t) {
  if (t == absl::InfiniteFuture()) {
    s.BindNull(index);
  } else {
    s.BindInt(index, ToMicros(t));
  }
}

absl::Time ColumnTime(const SqliteStatement& s, int index) {
  if (s.ColumnIsNull(index)) return absl::InfiniteFuture();
  return absl::FromUnixMicros(s.ColumnInt(index));
}

absl::StatusOr<ledger::Allocation> RowToAllocation(const SqliteStatement& row) {
  ledger::Allocation a;
  a.id = ledger::FormatAllocationId(row.ColumnInt(0));
  std::optional<ledger::AllocationState> state = ledger::ParseAllocationState(row.ColumnText(1));
  if (!state) {
    return absl::DataLossError(
        absl::StrCat("ledger row ", a.id, ": unknown state '", row.ColumnText(1), "'"));
  }
  a.state = *state;
  a.external_id = row.ColumnText(2);
  a.job_spec = row.ColumnText(3);
  a.policy = row.ColumnText(4);
  a.fabric_version = static_cast<uint64_t>(row.ColumnInt(5));
  a.plan_json = row.ColumnText(6);
  a.created_at = absl::FromUnixMicros(row.ColumnInt(7));
  a.expires_at = ColumnTime(row, 8);
  a.finished_at = ColumnTime(row, 9);
  if (!row.ColumnIsNull(10)) a.request_id = row.ColumnText(10);
  a.expected_end = ColumnTime(row, 11);
  return a;
}

// The GPUs and the uplink offer of allocation `n`, from their own tables.
absl::Status LoadParts(store::SqliteDb& db, int64_t n, ledger::Allocation& a) {
  TP_ASSIGN_OR_RETURN(SqliteStatement q, db.Prepare("SELECT host, gpu_index FROM allocation_gpus "
                                                    "WHERE allocation_id = ?1 ORDER BY rowid"));
  q.BindInt(1, n);
  while (true) {
    TP_ASSIGN_OR_RETURN(bool row, q.Step());
    if (!row) break;
    a.gpus.push_back({q.ColumnText(0), static_cast<int32_t>(q.ColumnInt(1))});
  }
  TP_ASSIGN_OR_RETURN(SqliteStatement offers,
                      db.Prepare("SELECT switch_name, bytes_per_second FROM"
                                 " allocation_uplink_offers WHERE allocation_id = ?1"
                                 " ORDER BY rowid"));
  offers.BindInt(1, n);
  while (true) {
    TP_ASSIGN_OR_RETURN(bool row, offers.Step());
    if (!row) return absl::OkStatus();
    a.uplink_offer.push_back({offers.ColumnText(0), offers.ColumnDouble(1)});
  }
}

}  // namespace

SqliteLedger::SqliteLedger(std::unique_ptr<store::SqliteDb> db, FabricPtr fabric,
                           const ledger::Clock& clock)
    : db_(std::move(db)),
      fabric_(std::move(fabric)),
      clock_(clock),
      live_(fabric_->gpus().size()) {}

absl::StatusOr<std::unique_ptr<SqliteLedger>> SqliteLedger::Open(const std::string& path,
                                                                 FabricPtr fabric,
                                                                 const ledger::Clock& clock,
                                                                 LedgerOptions options) {
  TP_ASSIGN_OR_RETURN(std::unique_ptr<store::SqliteDb> db,
                      store::OpenMigrated(path, options.durability, "ledger", kMigrations));
  std::unique_ptr<SqliteLedger> ledger(new SqliteLedger(std::move(db), std::move(fabric), clock));
  absl::MutexLock lock(&ledger->mu_);
  TP_RETURN_IF_ERROR(ledger->Rebuild());
  TP_RETURN_IF_ERROR(ledger->SealOrRefuse(path, options));
  ledger->ReclaimForRead();
  return ledger;
}

absl::Status SqliteLedger::SealOrRefuse(const std::string& path, const LedgerOptions& options) {
  TP_ASSIGN_OR_RETURN(const int64_t db_seq,
                      QueryInt(*db_, "SELECT COALESCE(MAX(seq), 0) FROM events"));
  TP_ASSIGN_OR_RETURN(const int64_t db_alloc,
                      QueryInt(*db_, "SELECT COALESCE(MAX(id), 0) FROM allocations"));
  const std::string mark_path = path + ".ledger-watermark";
  if (db_->read_only()) {
    write_state_ = absl::UnavailableError(absl::StrCat(
        "ledger: '", path,
        "' is read-only (file or file system permissions): reads are "
        "served, every change fails until it is writable and topoplaced is restarted"));
  }
  absl::StatusOr<std::unique_ptr<ledger::WatermarkFile>> file =
      ledger::WatermarkFile::Open(mark_path, options.durability == store::Durability::kFull);
  // A read-only database may sit where no watermark could ever be created.
  if (!file.ok() && !(db_->read_only() && absl::IsUnavailable(file.status()))) {
    return file.status();
  }
  const std::optional<ledger::Watermark> acknowledged =
      file.ok() ? (*file)->loaded() : std::optional<ledger::Watermark>();
  mark_ = {ledger::WatermarkFile::NewLedgerId(), 1, db_seq, db_alloc, ""};
  if (acknowledged) {
    mark_ = *acknowledged;
    const bool behind = db_seq < acknowledged->event_seq || db_alloc < acknowledged->allocation;
    if (behind && !options.accept_loss) {
      return absl::FailedPreconditionError(absl::StrCat(
          "ledger: '", path, "' holds changes up to event ", db_seq, " and allocation ",
          ledger::FormatAllocationId(db_alloc), ", but '", mark_path,
          "' records that the ledger "
          "acknowledged up to event ",
          acknowledged->event_seq, " and allocation ",
          ledger::FormatAllocationId(acknowledged->allocation),
          ": acknowledged allocations are missing (file truncated, its -wal deleted after a "
          "crash, or an older copy restored?). Restore the database, or start once with "
          "accept_ledger_loss = true (--accept-ledger-loss) to continue from what it holds"));
    }
    if (behind) {
      TP_RETURN_IF_ERROR(
          db_->InTransaction([&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) -> absl::Status {
            TP_RETURN_IF_ERROR(RaiseSequence(*db_, "allocations", acknowledged->allocation));
            return RaiseSequence(*db_, "events", acknowledged->event_seq);
          }));
      ++mark_.epoch;
      warnings_.push_back(absl::StrCat("ledger: accepted the loss of changes after event ", db_seq,
                                       " (acknowledged up to ", acknowledged->event_seq,
                                       "); epoch ", mark_.epoch,
                                       ", new allocations are numbered "
                                       "above ",
                                       ledger::FormatAllocationId(acknowledged->allocation)));
    }
    mark_.event_seq = std::max(mark_.event_seq, db_seq);
    mark_.allocation = std::max(mark_.allocation, db_alloc);
  } else if (db_seq > 0 && file.ok()) {
    warnings_.push_back(absl::StrCat("ledger: no watermark next to '", path,
                                     "' (first start of this version?); created ", mark_path,
                                     " from the database"));
  }
  if (!file.ok()) return absl::OkStatus();  // read-only: nothing can change anyway
  watermark_ = *std::move(file);
  {
    absl::MutexLock seal_lock(&seal_mu_);
    published_ = mark_;
    sealed_seq_ = mark_.event_seq;
  }
  if (db_->read_only()) return absl::OkStatus();
  return watermark_->Write(mark_);
}

absl::Status SqliteLedger::WriteChange(const std::function<absl::Status()>& body) {
  if (db_->read_only()) return write_state_;
  last_event_seq_ = 0;
  absl::Status s = db_->InTransaction(body);
  if (s.ok()) {
    mark_.event_seq = std::max(mark_.event_seq, last_event_seq_);
    // Sealed in the watermark by Seal() after mu_ is released, before the caller answers.
    absl::MutexLock seal_lock(&seal_mu_);
    published_ = mark_;
    write_state_ = absl::OkStatus();
    return s;
  }
  if (absl::IsUnavailable(s)) {
    write_state_ = StorageFailure(db_->path(), s.message());
    return write_state_;
  }
  return s;
}

absl::StatusOr<ledger::Allocation> SqliteLedger::Reserve(const store::ReserveRequest& request) {
  return Acknowledged(ReserveUnsealed(request));
}

absl::StatusOr<ledger::Allocation> SqliteLedger::Commit(const std::string& id,
                                                        const std::string& external_id) {
  return Acknowledged(CommitUnsealed(id, external_id));
}

absl::StatusOr<ledger::Allocation> SqliteLedger::Release(const std::string& id) {
  return Acknowledged(ReleaseUnsealed(id));
}

absl::StatusOr<ledger::Allocation> SqliteLedger::Renew(const std::string& id, absl::Duration ttl) {
  return Acknowledged(RenewUnsealed(id, ttl));
}

absl::StatusOr<ledger::Allocation> SqliteLedger::Acknowledged(
    absl::StatusOr<ledger::Allocation> result) {
  if (!result.ok()) return result;
  TP_RETURN_IF_ERROR(Seal());
  return result;
}

absl::Status SqliteLedger::Seal() {
  absl::MutexLock lock(&seal_mu_);
  const int64_t target = published_.event_seq;
  while (sealed_seq_ < target) {
    if (sealing_) {
      // Another caller is writing the watermark; its write may cover this change too.
      const auto done = [this]() ABSL_NO_THREAD_SAFETY_ANALYSIS { return !sealing_; };
      seal_mu_.Await(absl::Condition(&done));
      continue;
    }
    // Group commit: one write and one flush seal every change published so far.
    sealing_ = true;
    const ledger::Watermark mark = published_;
    seal_mu_.Unlock();
    absl::Status s = watermark_->Write(mark);
    seal_mu_.Lock();
    sealing_ = false;
    if (!s.ok()) {
      seal_mu_.Unlock();
      {
        absl::MutexLock state_lock(&mu_);
        write_state_ = StorageFailure(watermark_->path(), s.message());
      }
      seal_mu_.Lock();
      return absl::UnavailableError(s.message());
    }
    sealed_seq_ = std::max(sealed_seq_, mark.event_seq);
  }
  return absl::OkStatus();
}

void SqliteLedger::ReclaimForRead() {
  // A failed write is in write_state_ (WriteChange); the answer does not depend on it.
  (void)ReclaimExpiredLocked();
}

absl::Status SqliteLedger::WriteState() {
  absl::MutexLock lock(&mu_);
  return write_state_;
}

absl::Status SqliteLedger::ProbeWrites() {
  {
    absl::MutexLock lock(&mu_);
    if (write_state_.ok() || db_->read_only()) return write_state_;
    (void)WriteChange([&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) -> absl::Status {
      TP_ASSIGN_OR_RETURN(SqliteStatement probe,
                          db_->Prepare("UPDATE ledger_probe SET probed_us = ?1 WHERE id = 1"));
      probe.BindInt(1, ToMicros(clock_.Now()));
      return probe.Run();
    });
    if (write_state_.ok()) (void)ReclaimExpiredLocked();
  }
  // Writable again only if the watermark is too: a failed seal sets write_state_ back.
  (void)Seal();
  return WriteState();
}

std::optional<GpuId> SqliteLedger::ResolveGpu(const ledger::GpuRef& ref) const {
  return fabric_->FindGpu(ref.host, ref.index);
}

absl::Status SqliteLedger::Rebuild() {
  TP_ASSIGN_OR_RETURN(
      SqliteStatement q,
      db_->Prepare(absl::StrCat(kSelectAllocation,
                                " WHERE state IN ('reserved', 'committed') ORDER BY id")));
  std::vector<std::pair<int64_t, ledger::Allocation>> rows;
  while (true) {
    TP_ASSIGN_OR_RETURN(bool row, q.Step());
    if (!row) break;
    TP_ASSIGN_OR_RETURN(ledger::Allocation a, RowToAllocation(q));
    rows.emplace_back(q.ColumnInt(0), std::move(a));
  }
  for (auto& [n, a] : rows) {
    TP_RETURN_IF_ERROR(LoadParts(*db_, n, a));
    std::vector<GpuId> held;
    for (const ledger::GpuRef& ref : a.gpus) {
      std::optional<GpuId> gpu = ResolveGpu(ref);
      if (!gpu) {
        warnings_.push_back(absl::StrCat(a.id, ": GPU ", ref.host, "/gpu", ref.index,
                                         " is not in fabric '", fabric_->name(), "'"));
        continue;
      }
      // The UNIQUE index on held GPUs makes this impossible short of a corrupt file.
      if (const int64_t other = live_.Holder(*gpu); other != 0) {
        return absl::DataLossError(absl::StrCat("ledger: GPU ", ref.host, "/gpu", ref.index,
                                                " held by both ", ledger::FormatAllocationId(other),
                                                " and ", a.id));
      }
      held.push_back(*gpu);
    }
    std::vector<GpuId> sorted = held;
    std::sort(sorted.begin(), sorted.end());
    if (std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end()) {
      return absl::DataLossError(absl::StrCat("ledger: ", a.id, " holds a GPU twice"));
    }
    live_.Add(n, std::move(a), std::move(held));
  }
  return absl::OkStatus();
}

absl::Status SqliteLedger::AppendEvent(int64_t n, absl::string_view kind,
                                       absl::string_view detail) {
  TP_ASSIGN_OR_RETURN(SqliteStatement insert,
                      db_->Prepare("INSERT INTO events (at_us, allocation_id, kind, detail) "
                                   "VALUES (?1, ?2, ?3, ?4)"));
  insert.BindInt(1, ToMicros(clock_.Now()));
  insert.BindInt(2, n);
  insert.BindText(3, kind);
  insert.BindText(4, detail);
  TP_RETURN_IF_ERROR(insert.Run());
  last_event_seq_ = db_->LastInsertRowId();
  return absl::OkStatus();
}

absl::Status SqliteLedger::InsertHeldGpus(int64_t n, const std::vector<ledger::GpuRef>& gpus) {
  std::optional<SqliteStatement> full;  // kGpuRowsPerInsert rows, prepared once
  for (size_t from = 0; from < gpus.size(); from += kGpuRowsPerInsert) {
    const size_t rows = std::min(kGpuRowsPerInsert, gpus.size() - from);
    std::optional<SqliteStatement> last;  // the fewer rows that are left
    std::optional<SqliteStatement>& insert = rows == kGpuRowsPerInsert ? full : last;
    if (!insert) {
      TP_ASSIGN_OR_RETURN(SqliteStatement prepared, PrepareGpuRows(*db_, rows));
      insert.emplace(std::move(prepared));
    }
    insert->BindInt(1, n);
    for (size_t i = 0; i < rows; ++i) {
      insert->BindText(static_cast<int>(2 + 2 * i), gpus[from + i].host);
      insert->BindInt(static_cast<int>(3 + 2 * i), gpus[from + i].index);
    }
    TP_RETURN_IF_ERROR(insert->Run());
    TP_RETURN_IF_ERROR(insert->Reset());
  }
  return absl::OkStatus();
}

absl::StatusOr<ledger::Allocation> SqliteLedger::ReserveUnsealed(
    const store::ReserveRequest& request) {
  TP_ASSIGN_OR_RETURN(ledger::Allocation a, NewReservation(*fabric_, request, clock_.Now()));
  absl::MutexLock lock(&mu_);
  TP_RETURN_IF_ERROR(ReclaimExpiredLocked().status());
  if (!request.request_id.empty()) {
    TP_ASSIGN_OR_RETURN(std::optional<int64_t> used, FindRequestIdLocked(request.request_id));
    if (used) return store::RequestIdUsed(request.request_id, *used);
  }
  TP_ASSIGN_OR_RETURN(const std::vector<int64_t> releasing, LiveReleasing(live_, request));
  TP_RETURN_IF_ERROR(CheckFree(*fabric_, live_, request, releasing));
  int64_t n = 0;
  TP_RETURN_IF_ERROR(WriteChange([&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) -> absl::Status {
    // The victims first, in the same transaction: their GPUs are free for this one's rows.
    for (const int64_t victim : releasing) {
      TP_RETURN_IF_ERROR(FinishRowsLocked(victim, ledger::AllocationState::kReleased, a.created_at,
                                          "released for the reservation that follows"));
    }
    TP_ASSIGN_OR_RETURN(SqliteStatement insert,
                        db_->Prepare("INSERT INTO allocations (state, job_spec, policy,"
                                     " fabric_version, plan_json, created_us, expires_us,"
                                     " request_id, expected_end_us)"
                                     " VALUES ('reserved', ?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)"));
    insert.BindText(1, a.job_spec);
    insert.BindText(2, a.policy);
    insert.BindInt(3, static_cast<int64_t>(a.fabric_version));
    insert.BindText(4, a.plan_json);
    insert.BindInt(5, ToMicros(a.created_at));
    BindTime(insert, 6, a.expires_at);
    if (a.request_id.empty()) {
      insert.BindNull(7);
    } else {
      insert.BindText(7, a.request_id);
    }
    BindTime(insert, 8, a.expected_end);
    TP_RETURN_IF_ERROR(insert.Run());
    n = db_->LastInsertRowId();
    mark_.allocation = std::max(mark_.allocation, n);  // sealed with the commit
    TP_RETURN_IF_ERROR(InsertHeldGpus(n, a.gpus));
    TP_ASSIGN_OR_RETURN(SqliteStatement offer,
                        db_->Prepare("INSERT INTO allocation_uplink_offers VALUES (?1, ?2, ?3)"));
    for (const ledger::UplinkOffer& o : a.uplink_offer) {
      offer.BindInt(1, n);
      offer.BindText(2, o.switch_name);
      offer.BindDouble(3, o.bytes_per_second);
      TP_RETURN_IF_ERROR(offer.Run());
      TP_RETURN_IF_ERROR(offer.Reset());
    }
    return AppendEvent(n, "reserve",
                       absl::StrCat(a.gpus.size(), " GPUs until ", absl::FormatTime(a.expires_at)));
  }));
  a.id = ledger::FormatAllocationId(n);
  for (const int64_t victim : releasing) live_.Remove(victim);
  live_.Add(n, a, request.gpus);
  return a;
}

absl::StatusOr<ledger::Allocation> SqliteLedger::CommitUnsealed(const std::string& id,
                                                                const std::string& external_id) {
  TP_RETURN_IF_ERROR(store::CheckExternalId(external_id));
  TP_ASSIGN_OR_RETURN(const int64_t n, store::AllocationNumber(id));
  absl::MutexLock lock(&mu_);
  TP_ASSIGN_OR_RETURN(const ledger::Allocation* live, LiveLocked(n));
  ledger::Allocation a = *live;
  TP_ASSIGN_OR_RETURN(const bool already, CheckCommit(a, external_id, live_));
  if (already) return a;
  TP_RETURN_IF_ERROR(WriteChange([&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) -> absl::Status {
    TP_ASSIGN_OR_RETURN(SqliteStatement update,
                        db_->Prepare("UPDATE allocations SET state = 'committed',"
                                     " external_id = ?2, expires_us = NULL WHERE id = ?1"));
    update.BindInt(1, n);
    update.BindText(2, external_id);
    TP_RETURN_IF_ERROR(update.Run());
    return AppendEvent(n, "commit", external_id);
  }));
  a.state = ledger::AllocationState::kCommitted;
  a.external_id = external_id;
  a.expires_at = absl::InfiniteFuture();
  live_.Replace(n, a);
  return a;
}

absl::Status SqliteLedger::FinishRowsLocked(int64_t n, ledger::AllocationState state,
                                            absl::Time now, absl::string_view event_detail) {
  TP_ASSIGN_OR_RETURN(SqliteStatement update,
                      db_->Prepare("UPDATE allocations SET state = ?2, finished_us = ?3"
                                   " WHERE id = ?1"));
  update.BindInt(1, n);
  update.BindText(2, ledger::AllocationStateName(state));
  update.BindInt(3, ToMicros(now));
  TP_RETURN_IF_ERROR(update.Run());
  TP_ASSIGN_OR_RETURN(SqliteStatement free, db_->Prepare("UPDATE allocation_gpus SET live = 0"
                                                         " WHERE allocation_id = ?1"));
  free.BindInt(1, n);
  TP_RETURN_IF_ERROR(free.Run());
  return AppendEvent(n, ledger::AllocationStateName(state), event_detail);
}

absl::StatusOr<ledger::Allocation> SqliteLedger::Finish(int64_t n, ledger::AllocationState state,
                                                        absl::string_view event_detail) {
  const absl::Time now = clock_.Now();
  TP_RETURN_IF_ERROR(WriteChange([&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) -> absl::Status {
    return FinishRowsLocked(n, state, now, event_detail);
  }));
  return FinishedAs(live_.Remove(n), state, now);
}

absl::StatusOr<ledger::Allocation> SqliteLedger::ReleaseUnsealed(const std::string& id) {
  TP_ASSIGN_OR_RETURN(const int64_t n, store::AllocationNumber(id));
  absl::MutexLock lock(&mu_);
  const ledger::Allocation* live = live_.Find(n);
  if (live == nullptr) return LoadFinished(n);
  const std::string external_id = live->external_id;
  return Finish(n, ledger::AllocationState::kReleased, external_id);
}

absl::StatusOr<const ledger::Allocation*> SqliteLedger::LiveLocked(int64_t n) {
  TP_RETURN_IF_ERROR(ReclaimExpiredLocked().status());
  if (const ledger::Allocation* live = live_.Find(n)) return live;
  TP_ASSIGN_OR_RETURN(ledger::Allocation finished, LoadFinished(n));
  return Finished(finished);
}

absl::StatusOr<ledger::Allocation> SqliteLedger::LoadFinished(int64_t n) {
  TP_ASSIGN_OR_RETURN(SqliteStatement q,
                      db_->Prepare(absl::StrCat(kSelectAllocation, " WHERE id = ?1")));
  q.BindInt(1, n);
  TP_ASSIGN_OR_RETURN(bool row, q.Step());
  if (!row) return store::UnknownAllocation(n);
  TP_ASSIGN_OR_RETURN(ledger::Allocation a, RowToAllocation(q));
  TP_RETURN_IF_ERROR(LoadParts(*db_, n, a));
  return a;
}

absl::StatusOr<ledger::Allocation> SqliteLedger::Get(const std::string& id) {
  TP_ASSIGN_OR_RETURN(const int64_t n, store::AllocationNumber(id));
  absl::MutexLock lock(&mu_);
  ReclaimForRead();
  if (const ledger::Allocation* live = live_.Find(n)) return store::AsOf(*live, clock_.Now());
  return LoadFinished(n);
}

absl::StatusOr<std::optional<int64_t>> SqliteLedger::FindRequestIdLocked(
    const std::string& request_id) {
  TP_ASSIGN_OR_RETURN(SqliteStatement q,
                      db_->Prepare("SELECT id FROM allocations WHERE request_id = ?1"));
  q.BindText(1, request_id);
  TP_ASSIGN_OR_RETURN(bool row, q.Step());
  if (!row) return std::nullopt;
  return q.ColumnInt(0);
}

absl::StatusOr<ledger::Allocation> SqliteLedger::FindByRequestId(const std::string& request_id) {
  absl::MutexLock lock(&mu_);
  ReclaimForRead();
  TP_ASSIGN_OR_RETURN(std::optional<int64_t> n, FindRequestIdLocked(request_id));
  if (!n) {
    return absl::NotFoundError(
        absl::StrCat("request_id: no allocation was reserved with '", request_id, "'"));
  }
  if (const ledger::Allocation* live = live_.Find(*n)) return store::AsOf(*live, clock_.Now());
  return LoadFinished(*n);
}

absl::StatusOr<ledger::Allocation> SqliteLedger::RenewUnsealed(const std::string& id,
                                                               absl::Duration ttl) {
  TP_RETURN_IF_ERROR(store::CheckTtl(ttl));
  TP_ASSIGN_OR_RETURN(const int64_t n, store::AllocationNumber(id));
  absl::MutexLock lock(&mu_);
  TP_ASSIGN_OR_RETURN(const ledger::Allocation* live, LiveLocked(n));
  ledger::Allocation a = *live;
  TP_RETURN_IF_ERROR(CheckRenewable(a));
  const absl::Time expires = clock_.Now() + ttl;
  TP_RETURN_IF_ERROR(WriteChange([&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) -> absl::Status {
    TP_ASSIGN_OR_RETURN(SqliteStatement update,
                        db_->Prepare("UPDATE allocations SET expires_us = ?2 WHERE id = ?1"));
    update.BindInt(1, n);
    BindTime(update, 2, expires);
    TP_RETURN_IF_ERROR(update.Run());
    return AppendEvent(n, "renew", absl::StrCat("until ", absl::FormatTime(expires)));
  }));
  a.expires_at = expires;
  live_.Replace(n, a);
  return a;
}

absl::StatusOr<ledger::Allocation> SqliteLedger::GetByExternalId(const std::string& external_id) {
  absl::MutexLock lock(&mu_);
  if (std::optional<int64_t> n = live_.CommittedTo(external_id)) return *live_.Find(*n);
  return absl::NotFoundError(
      absl::StrCat("external_id: no live allocation is committed to '", external_id, "'"));
}

void SqliteLedger::ForEachLive(absl::FunctionRef<void(const ledger::Allocation&)> fn) {
  absl::MutexLock lock(&mu_);
  ReclaimForRead();
  for (const auto& [n, a] : live_.records()) {
    // Past expiry but not yet recorded (the disk refused the write): not live any more.
    if (store::AsOf(a, clock_.Now()).state == a.state) fn(a);
  }
}

absl::StatusOr<int> SqliteLedger::ReclaimExpired() {
  absl::StatusOr<int> reclaimed;
  {
    absl::MutexLock lock(&mu_);
    reclaimed = ReclaimExpiredLocked();
  }
  if (reclaimed.ok() && *reclaimed > 0) TP_RETURN_IF_ERROR(Seal());
  return reclaimed;
}

absl::StatusOr<int> SqliteLedger::ReclaimExpiredLocked() {
  const absl::Time now = clock_.Now();
  int reclaimed = 0;
  // Earliest expiry first; Finish removes the entry, so the loop always advances.
  while (std::optional<int64_t> n = live_.EarliestExpiredAt(now)) {
    TP_RETURN_IF_ERROR(
        Finish(*n, ledger::AllocationState::kExpired, "reservation not committed in time")
            .status());
    ++reclaimed;
    CountExpired(1);
  }
  return reclaimed;
}

sched::Occupancy SqliteLedger::Occupancy() {
  sched::Occupancy occupancy(*fabric_);
  absl::MutexLock lock(&mu_);
  // Expired reservations still count here until the next reclaim: conservative, never
  // hands out a GPU twice.
  live_.MarkHeld(occupancy);
  return occupancy;
}

int64_t SqliteLedger::held_gpus() {
  absl::MutexLock lock(&mu_);
  return live_.held_gpus();
}

}  // namespace topoplace::store
