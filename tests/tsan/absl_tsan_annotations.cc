// ThreadSanitizer annotations for Debian's Abseil, which is not built with TSan: linked
// into every executable of a TOPOPLACE_TSAN build (`make tsan`), with -rdynamic so that
// gRPC's and Abseil's own calls reach it too.
//
// Without it, TSan sees neither absl::Mutex's acquire and release (they happen inside the
// uninstrumented library) nor absl::Notification's hand-off, and reports every access
// guarded by them as a data race: two Reserves each under the ledger's mutex were flagged.
// Each entry point below calls Abseil's own function (found with dlsym(RTLD_NEXT)) and
// tells TSan what it did, with the annotations of <sanitizer/tsan_interface.h>: a lock is
// acquired (read or write, tried or not), released, or, for Await and CondVar waits,
// released and acquired again around the wait (for reading if this thread holds it so); a
// Notification releases when notified and acquires when a wait returns notified. A
// condition Abseil evaluates for Await is evaluated under the lock's clock; one of
// LockWhen is passed as given (nothing of ours locks that way; Notification does, inside
// one annotated call). Abseil's entry points call one another
// (CondVar::WaitWithTimeout calls WaitWithDeadline), so only the outermost call on a
// thread is described. Only synchronization is described; our own
// accesses stay instrumented, so a real race is still reported (checked by
// the tsan_annotations tests).
//
// Not in the normal build: it defines Abseil's symbols and relies on ELF interposition.
#include <dlfcn.h>
#include <sanitizer/tsan_interface.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "absl/base/options.h"
#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"

#define TP_STR2(x) #x
#define TP_STR(x) TP_STR2(x)

namespace {

// Abseil's own definition of the function mangled as `prefix`, Abseil's inline namespace,
// `rest`; aborts naming it when the library has none (another Abseil version).
void* Real(const char* prefix, const char* rest) {
  const std::string ns = TP_STR(ABSL_OPTION_INLINE_NAMESPACE_NAME);
  const std::string name = std::string(prefix) + std::to_string(ns.size()) + ns + rest;
  void* f = dlsym(RTLD_NEXT, name.c_str());
  if (f == nullptr) {
    std::fprintf(stderr, "absl_tsan_annotations: Abseil has no %s\n", name.c_str());
    std::abort();
  }
  return f;
}

template <typename Fn>
Fn RealMember(const char* rest) {
  return reinterpret_cast<Fn>(Real("_ZN4absl", rest));
}
template <typename Fn>
Fn RealConstMember(const char* rest) {
  return reinterpret_cast<Fn>(Real("_ZNK4absl", rest));
}

thread_local int depth = 0;

// True for the outermost annotated call on this thread while it runs.
class Outermost {
 public:
  Outermost() : outer_(depth++ == 0) {}
  ~Outermost() { --depth; }
  Outermost(const Outermost&) = delete;
  Outermost& operator=(const Outermost&) = delete;
  explicit operator bool() const { return outer_; }

 private:
  const bool outer_;
};

// `call` takes `mu` (flags: __tsan_mutex_read_lock, __tsan_mutex_try_lock); for a try,
// `taken(result)` says whether it did.
template <typename Call, typename Taken>
auto Locking(void* mu, unsigned flags, Call call, Taken taken) {
  Outermost outer;
  if (outer) __tsan_mutex_pre_lock(mu, flags);
  auto result = call();
  if (outer) {
    __tsan_mutex_post_lock(mu, flags | (taken(result) ? 0 : __tsan_mutex_try_lock_failed), 0);
  }
  return result;
}
template <typename Call>
void Locking(void* mu, unsigned flags, Call call) {
  Locking(
      mu, flags,
      [&] {
        call();
        return true;
      },
      [](bool) { return true; });
}

// `call` gives `mu` up.
template <typename Call>
void Unlocking(void* mu, unsigned flags, Call call) {
  Outermost outer;
  if (outer) __tsan_mutex_pre_unlock(mu, flags);
  call();
  if (outer) __tsan_mutex_post_unlock(mu, flags);
}

// The mutexes this thread holds for reading: a wait under one gives it up and takes it
// back for reading.
thread_local std::vector<const void*> read_held;
unsigned HeldFlags(const void* mu) {
  return std::find(read_held.begin(), read_held.end(), mu) != read_held.end()
             ? __tsan_mutex_read_lock
             : 0;
}
void ReadTaken(const void* mu) { read_held.push_back(mu); }
void ReadGivenUp(const void* mu) {
  auto it = std::find(read_held.begin(), read_held.end(), mu);
  if (it != read_held.end()) read_held.erase(it);
}

// A waiter's condition as Abseil evaluates it: with the lock held, but inside the call (in
// the waiting thread, or in the one unlocking), where the annotations around the call do
// not reach. Its evaluation acquires and releases the lock's clock, as holding it would.
struct GuardedCondition {
  const absl::Condition* condition;
  void* mu;
};
bool EvalGuarded(GuardedCondition* g) {
  __tsan_acquire(g->mu);
  const bool holds = g->condition->Eval();
  __tsan_release(g->mu);
  return holds;
}

// `call(condition)` waits, with `mu` given up, until `condition` holds (or without one:
// until woken), and returns holding `mu` again, as it held it before (for reading or
// writing). The condition handed to `call` is made before `mu` is given up, so a thread
// that evaluates it while unlocking (it took `mu` after that) sees it made.
template <typename Call>
auto Waiting(void* mu, const absl::Condition* condition, Call call) {
  Outermost outer;
  if (!outer) return call(condition);
  GuardedCondition g{condition, mu};
  const absl::Condition guarded(&EvalGuarded, &g);
  const unsigned flags = HeldFlags(mu);
  __tsan_mutex_pre_unlock(mu, flags);
  __tsan_mutex_post_unlock(mu, flags);
  auto result = call(condition != nullptr ? &guarded : nullptr);
  __tsan_mutex_pre_lock(mu, flags);
  __tsan_mutex_post_lock(mu, flags, 0);
  return result;
}

constexpr auto kIfTrue = [](bool taken) { return taken; };
constexpr auto kAlways = [](bool) { return true; };

using absl::Condition;
using absl::CondVar;
using absl::Duration;
using absl::Mutex;
using absl::Notification;
using absl::Time;

}  // namespace

namespace absl {
ABSL_NAMESPACE_BEGIN

void Mutex::Lock() {
  static auto real = RealMember<void (*)(Mutex*)>("5Mutex4LockEv");
  Locking(this, 0, [&] { real(this); });
}
void Mutex::ReaderLock() {
  static auto real = RealMember<void (*)(Mutex*)>("5Mutex10ReaderLockEv");
  Locking(this, __tsan_mutex_read_lock, [&] { real(this); });
  ReadTaken(this);
}
bool Mutex::TryLock() {
  static auto real = RealMember<bool (*)(Mutex*)>("5Mutex7TryLockEv");
  return Locking(
      this, __tsan_mutex_try_lock, [&] { return real(this); }, kIfTrue);
}
bool Mutex::ReaderTryLock() {
  static auto real = RealMember<bool (*)(Mutex*)>("5Mutex13ReaderTryLockEv");
  const bool taken = Locking(
      this, __tsan_mutex_try_lock | __tsan_mutex_read_lock, [&] { return real(this); }, kIfTrue);
  if (taken) ReadTaken(this);
  return taken;
}
void Mutex::Unlock() {
  static auto real = RealMember<void (*)(Mutex*)>("5Mutex6UnlockEv");
  Unlocking(this, 0, [&] { real(this); });
}
void Mutex::ReaderUnlock() {
  static auto real = RealMember<void (*)(Mutex*)>("5Mutex12ReaderUnlockEv");
  ReadGivenUp(this);
  Unlocking(this, __tsan_mutex_read_lock, [&] { real(this); });
}
void Mutex::LockWhen(const Condition& c) {
  static auto real =
      RealMember<void (*)(Mutex*, const Condition&)>("5Mutex8LockWhenERKNS0_9ConditionE");
  Locking(this, 0, [&] { real(this, c); });
}
bool Mutex::LockWhenWithTimeout(const Condition& c, Duration d) {
  static auto real = RealMember<bool (*)(Mutex*, const Condition&, Duration)>(
      "5Mutex19LockWhenWithTimeoutERKNS0_9ConditionENS0_8DurationE");
  return Locking(
      this, 0, [&] { return real(this, c, d); }, kAlways);  // held either way
}
bool Mutex::LockWhenWithDeadline(const Condition& c, Time t) {
  static auto real = RealMember<bool (*)(Mutex*, const Condition&, Time)>(
      "5Mutex20LockWhenWithDeadlineERKNS0_9ConditionENS0_4TimeE");
  return Locking(
      this, 0, [&] { return real(this, c, t); }, kAlways);
}
void Mutex::ReaderLockWhen(const Condition& c) {
  static auto real =
      RealMember<void (*)(Mutex*, const Condition&)>("5Mutex14ReaderLockWhenERKNS0_9ConditionE");
  Locking(this, __tsan_mutex_read_lock, [&] { real(this, c); });
  ReadTaken(this);
}
bool Mutex::ReaderLockWhenWithTimeout(const Condition& c, Duration d) {
  static auto real = RealMember<bool (*)(Mutex*, const Condition&, Duration)>(
      "5Mutex25ReaderLockWhenWithTimeoutERKNS0_9ConditionENS0_8DurationE");
  const bool r = Locking(
      this, __tsan_mutex_read_lock, [&] { return real(this, c, d); }, kAlways);
  ReadTaken(this);
  return r;
}
bool Mutex::ReaderLockWhenWithDeadline(const Condition& c, Time t) {
  static auto real = RealMember<bool (*)(Mutex*, const Condition&, Time)>(
      "5Mutex26ReaderLockWhenWithDeadlineERKNS0_9ConditionENS0_4TimeE");
  const bool r = Locking(
      this, __tsan_mutex_read_lock, [&] { return real(this, c, t); }, kAlways);
  ReadTaken(this);
  return r;
}
void Mutex::Await(const Condition& c) {
  static auto real =
      RealMember<void (*)(Mutex*, const Condition&)>("5Mutex5AwaitERKNS0_9ConditionE");
  Waiting(this, &c, [&](const Condition* until) {
    real(this, *until);
    return true;
  });
}
bool Mutex::AwaitWithTimeout(const Condition& c, Duration d) {
  static auto real = RealMember<bool (*)(Mutex*, const Condition&, Duration)>(
      "5Mutex16AwaitWithTimeoutERKNS0_9ConditionENS0_8DurationE");
  return Waiting(this, &c, [&](const Condition* until) { return real(this, *until, d); });
}
bool Mutex::AwaitWithDeadline(const Condition& c, Time t) {
  static auto real = RealMember<bool (*)(Mutex*, const Condition&, Time)>(
      "5Mutex17AwaitWithDeadlineERKNS0_9ConditionENS0_4TimeE");
  return Waiting(this, &c, [&](const Condition* until) { return real(this, *until, t); });
}

void CondVar::Wait(Mutex* mu) {
  static auto real = RealMember<void (*)(CondVar*, Mutex*)>("7CondVar4WaitEPNS0_5MutexE");
  Waiting(mu, nullptr, [&](const Condition*) {
    real(this, mu);
    return true;
  });
}
bool CondVar::WaitWithTimeout(Mutex* mu, Duration d) {
  static auto real = RealMember<bool (*)(CondVar*, Mutex*, Duration)>(
      "7CondVar15WaitWithTimeoutEPNS0_5MutexENS0_8DurationE");
  return Waiting(mu, nullptr, [&](const Condition*) { return real(this, mu, d); });
}
bool CondVar::WaitWithDeadline(Mutex* mu, Time t) {
  static auto real = RealMember<bool (*)(CondVar*, Mutex*, Time)>(
      "7CondVar16WaitWithDeadlineEPNS0_5MutexENS0_4TimeE");
  return Waiting(mu, nullptr, [&](const Condition*) { return real(this, mu, t); });
}

void Notification::Notify() {
  static auto real = RealMember<void (*)(Notification*)>("12Notification6NotifyEv");
  Outermost outer;
  if (outer) {
    __tsan_release(this);
    __tsan_release(&notified_yet_);  // HasBeenNotified() loads it in instrumented code
  }
  real(this);
}
void Notification::WaitForNotification() const {
  static auto real =
      RealConstMember<void (*)(const Notification*)>("12Notification19WaitForNotificationEv");
  Outermost outer;
  real(this);
  if (outer) __tsan_acquire(const_cast<Notification*>(this));
}
bool Notification::WaitForNotificationWithTimeout(Duration d) const {
  static auto real = RealConstMember<bool (*)(const Notification*, Duration)>(
      "12Notification30WaitForNotificationWithTimeoutENS0_8DurationE");
  Outermost outer;
  const bool notified = real(this, d);
  if (outer && notified) __tsan_acquire(const_cast<Notification*>(this));
  return notified;
}
bool Notification::WaitForNotificationWithDeadline(Time t) const {
  static auto real = RealConstMember<bool (*)(const Notification*, Time)>(
      "12Notification31WaitForNotificationWithDeadlineENS0_4TimeE");
  Outermost outer;
  const bool notified = real(this, t);
  if (outer && notified) __tsan_acquire(const_cast<Notification*>(this));
  return notified;
}

ABSL_NAMESPACE_END
}  // namespace absl
