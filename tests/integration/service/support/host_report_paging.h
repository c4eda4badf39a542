// The paging specification every host report store meets (SQLite and etcd): stores three
// reports and lists them in pages by count and by byte budget.
#ifndef TOPOPLACE_TESTS_INTEGRATION_SERVICE_SUPPORT_HOST_REPORT_PAGING_H_
#define TOPOPLACE_TESTS_INTEGRATION_SERVICE_SUPPORT_HOST_REPORT_PAGING_H_

#include <string>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "store/ports/host_report_store.h"

namespace topoplace::testing {

// Precondition: `store` is empty and writable.
inline void ExpectHostReportPaging(store::HostReportStore& store) {
  for (const char* host : {"c", "a", "b"}) {
    auto put = store.Put(host, std::string(10, 'x'), 1);
    ASSERT_TRUE(put.ok()) << put.status();
    EXPECT_FALSE(*put);
  }
  auto replaced = store.Put("b", std::string(10, 'y'), 2);
  ASSERT_TRUE(replaced.ok()) << replaced.status();
  EXPECT_TRUE(*replaced);
  auto hosts = [&](absl::string_view after, int limit, size_t max_bytes) {
    absl::StatusOr<store::HostReportPage> page = store.List(after, limit, max_bytes);
    EXPECT_TRUE(page.ok()) << page.status();
    std::string out;
    for (const store::StoredHostReport& r : page->reports) out += r.host;
    return absl::StrCat(out, page->more ? "+" : "");
  };
  EXPECT_EQ(hosts("", 10, 1 << 20), "abc");
  EXPECT_EQ(hosts("", 2, 1 << 20), "ab+");
  EXPECT_EQ(hosts("", 3, 1 << 20), "abc");
  EXPECT_EQ(hosts("", 10, 15), "ab+");  // 20 bytes: the page ends after passing 15
  EXPECT_EQ(hosts("b", 10, 15), "c");
  EXPECT_EQ(hosts("", 10, 0), "a+");  // never an empty page while reports remain
  EXPECT_EQ(hosts("c", 10, 0), "");
  auto b = store.List("a", 1, 1 << 20);
  ASSERT_TRUE(b.ok() && b->reports.size() == 1);
  EXPECT_EQ(b->reports[0].report_json, std::string(10, 'y'));
  EXPECT_EQ(b->reports[0].received_unix_ms, 2);
}

}  // namespace topoplace::testing

#endif  // TOPOPLACE_TESTS_INTEGRATION_SERVICE_SUPPORT_HOST_REPORT_PAGING_H_
