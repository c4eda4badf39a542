// Whether the TSan build sees Abseil's synchronization and still sees races: `guarded`
// hands data between threads only through absl::Mutex (Lock, Await, CondVar) and
// absl::Notification (WaitForNotification and HasBeenNotified), and must run without a
// report; `unguarded` writes one counter from four threads without a lock, and
// `half_guarded` reads without the lock what another thread writes under it: both must be
// reported (the annotations must not order what the lock does not). Built and run only with
// TOPOPLACE_TSAN (tests/tsan/CMakeLists.txt).
#include <cstring>
#include <iostream>
#include <thread>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"

namespace {

int Guarded() {
  absl::Mutex mu;
  int counter = 0;
  std::vector<std::thread> threads;
  for (int i = 0; i < 4; ++i) {
    threads.emplace_back([&] {
      for (int j = 0; j < 1000; ++j) {
        absl::MutexLock lock(&mu);
        ++counter;
      }
    });
  }
  for (std::thread& t : threads) t.join();

  bool ready = false;
  int awaited = 0;
  std::thread waiter([&] {
    absl::MutexLock lock(&mu);
    mu.Await(absl::Condition(&ready));
    awaited += 1;
  });
  {
    absl::MutexLock lock(&mu);
    awaited = 5;
    ready = true;
  }
  waiter.join();

  absl::CondVar cv;
  bool signalled = false;
  int by_condvar = 0;
  std::thread signaller([&] {
    absl::MutexLock lock(&mu);
    by_condvar = 7;
    signalled = true;
    cv.Signal();
  });
  {
    absl::MutexLock lock(&mu);
    while (!signalled) cv.Wait(&mu);
  }
  const int seen_by_condvar = by_condvar;
  signaller.join();

  absl::Notification done;
  int payload = 0;
  std::thread producer([&] {
    payload = 42;
    done.Notify();
  });
  done.WaitForNotification();
  const int seen = payload;
  producer.join();

  absl::Notification polled;
  int polled_payload = 0;
  std::thread poller_source([&] {
    polled_payload = 9;
    polled.Notify();
  });
  while (!polled.HasBeenNotified()) std::this_thread::yield();
  const int seen_polled = polled_payload;
  poller_source.join();

  std::cout << counter << " " << awaited << " " << seen_by_condvar << " " << seen << " "
            << seen_polled << "\n";
  return counter == 4000 && awaited == 6 && seen_by_condvar == 7 && seen == 42 && seen_polled == 9
             ? 0
             : 1;
}

int Unguarded() {
  int counter = 0;
  std::vector<std::thread> threads;
  for (int i = 0; i < 4; ++i) {
    threads.emplace_back([&] {
      for (int j = 0; j < 1000; ++j) ++counter;
    });
  }
  for (std::thread& t : threads) t.join();
  std::cout << counter << "\n";
  return 0;
}

int HalfGuarded() {
  absl::Mutex mu;
  int value = 0;
  std::thread writer([&] {
    for (int j = 0; j < 1000; ++j) {
      absl::MutexLock lock(&mu);
      ++value;
    }
  });
  int seen = 0;
  for (int j = 0; j < 1000; ++j) seen += value;  // no lock
  writer.join();
  std::cout << seen << "\n";
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 2 && std::strcmp(argv[1], "guarded") == 0) return Guarded();
  if (argc == 2 && std::strcmp(argv[1], "unguarded") == 0) return Unguarded();
  if (argc == 2 && std::strcmp(argv[1], "half_guarded") == 0) return HalfGuarded();
  std::cerr << "usage: tsan_annotations_check guarded|unguarded|half_guarded\n";
  return 2;
}
