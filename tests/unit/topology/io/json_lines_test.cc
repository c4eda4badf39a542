#include "topology/io/json_lines.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace topoplace {
namespace {

using ::testing::ElementsAre;

TEST(RecordLines, FindsTheStartLineOfEveryTopLevelArrayElement) {
  auto lines = RecordLines(
      "{\"a\": [\n {\"x\": \"[{\\\"\"},\n\n {}\n],\n \"b\": [[1],\n [2]], \"c\": {\"d\": [{}]}}");
  EXPECT_THAT(lines["a"], ElementsAre(2, 4));
  EXPECT_THAT(lines["b"], ElementsAre(6, 7));
  EXPECT_FALSE(lines.contains("d"));  // nested deeper than the top level
}

TEST(RecordLines, CountsScalarElementsSoLaterLinesStayRight) {
  auto lines = RecordLines("{\"a\": [\n\"x\",\n 5,\n {}\n]}");
  EXPECT_THAT(lines["a"], ElementsAre(2, 3, 4));
}

TEST(PositionOf, CountsLinesAndColumnsFromOne) {
  TextPosition p = PositionOf("ab\ncd", 4);
  EXPECT_EQ(p.line, 2);
  EXPECT_EQ(p.column, 2);
}

}  // namespace
}  // namespace topoplace
