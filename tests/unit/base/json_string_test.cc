// Specification of the hand-rolled JSON string writer: whatever it writes, a real JSON
// parser reads back as the same text.
#include "base/json_string.h"

#include <nlohmann/json.hpp>
#include <string>

#include "gtest/gtest.h"

namespace topoplace {
namespace {

std::string Quoted(absl::string_view text) {
  std::string out = "prefix:";
  AppendJsonString(out, text);
  return out;
}

TEST(JsonString, PlainTextIsQuotedAndAppended) {
  EXPECT_EQ(Quoted("b00-n003"), "prefix:\"b00-n003\"");
  EXPECT_EQ(Quoted(""), "prefix:\"\"");
}

TEST(JsonString, QuotesBackslashesAndControlBytesAreEscaped) {
  EXPECT_EQ(Quoted("a\"b\\c\n\x01z"), "prefix:\"a\\\"b\\\\c\\n\\u0001z\"");
  EXPECT_EQ(Quoted("\"\""), "prefix:\"\\\"\\\"\"");
}

TEST(JsonString, ControlBytesAreEscapedAsNlohmannEscapesThem) {
  // The short forms where JSON has them, \u00xx in lower-case hex elsewhere; DEL as is.
  std::string all;
  for (int c = 1; c < 0x80; ++c) all.push_back(static_cast<char>(c));
  std::string out;
  AppendJsonString(out, all);
  EXPECT_EQ(out, nlohmann::json(all).dump());
  EXPECT_EQ(Quoted("\b\t\n\f\r\x1f"), "prefix:\"\\b\\t\\n\\f\\r\\u001f\"");
}

TEST(JsonString, EveryByteBelowTheUtf8RangeReadsBackUnchanged) {
  std::string all;
  for (int c = 1; c < 0x80; ++c) all.push_back(static_cast<char>(c));
  all += "tail \xc3\xa9";  // UTF-8 passes through
  std::string out;
  AppendJsonString(out, all);
  EXPECT_EQ(nlohmann::json::parse(out).get<std::string>(), all);
}

}  // namespace
}  // namespace topoplace
