// What the ledger has acknowledged, kept outside SQLite: a small file next to the
// database (`<db>.ledger-watermark`) holding the ledger's identity, its epoch, and the
// highest event sequence and allocation number it acknowledged. A database that lost
// acknowledged changes (truncated to 0 bytes, its -wal deleted after a crash, an older
// backup put back) then reads as older than the watermark, and the ledger refuses to
// start on it instead of handing the lost allocations' GPUs and ids out again.
//
//   TP_ASSIGN_OR_RETURN(auto file, WatermarkFile::Open(db_path + ".ledger-watermark", true));
//   if (file->loaded()) ...compare...;
//   TP_RETURN_IF_ERROR(file->Write(mark));   // after every acknowledged change
//
// The record is one fixed-size line with a checksum, rewritten in place (pwrite at offset
// 0, then fdatasync when `sync`): one disk flush per change, as SQLite's own commit.
// Not thread-safe; the ledger calls it under its mutex.
#ifndef TOPOPLACE_SCHEDULER_LEDGER_ACK_WATERMARK_H_
#define TOPOPLACE_SCHEDULER_LEDGER_ACK_WATERMARK_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "absl/status/statusor.h"

namespace topoplace::ledger {

struct Watermark {
  std::string ledger_id;   // 32 hex digits, random, fixed for the ledger's life
  int64_t epoch = 1;       // +1 each time an operator accepts a loss and continues
  int64_t event_seq = 0;   // highest acknowledged events.seq
  int64_t allocation = 0;  // highest allocation number ever handed out
  // The store's own identity where it has one (etcd: its cluster id, 16 hex digits);
  // empty for SQLite. The etcd ledger keeps etcd's revision floor in event_seq.
  std::string store;
};

class WatermarkFile {
 public:
  // Opens `path`, reading the record if the file exists. DataLoss naming the file if it
  // exists but does not hold a valid record; Unavailable if it cannot be opened.
  // `sync`: flush every Write to disk (durability full).
  static absl::StatusOr<std::unique_ptr<WatermarkFile>> Open(const std::string& path, bool sync);
  ~WatermarkFile();
  WatermarkFile(const WatermarkFile&) = delete;
  WatermarkFile& operator=(const WatermarkFile&) = delete;

  // The record found at Open, if the file existed.
  const std::optional<Watermark>& loaded() const { return loaded_; }
  // Replaces the record. Unavailable naming the file if it cannot be written or flushed.
  absl::Status Write(const Watermark& mark);
  const std::string& path() const { return path_; }

  // A new random ledger id.
  static std::string NewLedgerId();

 private:
  WatermarkFile(std::string path, int fd, bool sync, std::optional<Watermark> loaded)
      : path_(std::move(path)), fd_(fd), sync_(sync), loaded_(std::move(loaded)) {}
  std::string path_;
  int fd_;
  bool sync_;
  std::optional<Watermark> loaded_;
};

}  // namespace topoplace::ledger

#endif  // TOPOPLACE_SCHEDULER_LEDGER_ACK_WATERMARK_H_
