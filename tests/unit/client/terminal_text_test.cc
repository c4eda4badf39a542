#include "client/terminal_text.h"

#include "gtest/gtest.h"

namespace topoplace::client {
namespace {

TEST(TerminalSafeTest, TerminalSafe_EscapesNewlinesAndAnsiSequences) {
  // An external id that would forge a table row and paint the terminal red.
  EXPECT_EQ(TerminalSafe("job-1\nA-999 committed\x1b[31m"), "job-1\\nA-999 committed\\x1b[31m");
  EXPECT_EQ(TerminalSafe("a\tb\rc\x7f"), "a\\tb\\rc\\x7f");
}

TEST(TerminalSafeTest, TerminalSafe_LeavesPrintableTextAndUtf8Alone) {
  EXPECT_EQ(TerminalSafe("slurm:4242 b01-n005"), "slurm:4242 b01-n005");
  EXPECT_EQ(TerminalSafe("grüße"), "grüße");
  // A backslash is escaped too, so an escaped sequence cannot be faked.
  EXPECT_EQ(TerminalSafe("a\\nb"), "a\\\\nb");
}

}  // namespace
}  // namespace topoplace::client
