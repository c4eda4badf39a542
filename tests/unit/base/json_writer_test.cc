// Specification of JsonWriter: for the same values in the same order it writes the very
// text nlohmann::ordered_json's dump(2) writes, so it can replace a DOM on a hot path
// without moving a stored byte or a recorded hash.
#include "base/json_writer.h"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace topoplace {
namespace {

using Json = nlohmann::ordered_json;

std::string Written(double value) {
  JsonWriter w;
  w.Number(value);
  return std::move(w).Take();
}

TEST(JsonWriter, ADocumentOfEveryKindIsWhatTheDomDumps) {
  JsonWriter w;
  w.BeginObject();
  w.Key("name");
  w.String("b00-n000 \"quoted\" back\\slash\ttab\nnew\x01line é");
  w.Key("empty_object");
  w.BeginObject();
  w.EndObject();
  w.Key("empty_array");
  w.BeginArray();
  w.EndArray();
  w.Key("nested");
  w.BeginArray();
  w.BeginObject();
  w.Key("rank");
  w.Number(size_t{7});
  w.Key("gpu");
  w.Number(-3);
  w.Key("big");
  w.Number(std::numeric_limits<uint64_t>::max());
  w.Key("least");
  w.Number(std::numeric_limits<int64_t>::min());
  w.EndObject();
  w.BeginArray();
  w.Number(1.0);
  w.Number(0.1);
  w.EndArray();
  w.Bool(false);
  w.Null();
  w.EndArray();
  w.Key("on");
  w.Bool(true);
  w.Key("notes");
  w.Strings({"a", "b"});
  w.Key("none");
  w.Strings({});
  w.EndObject();

  Json j;
  j["name"] = "b00-n000 \"quoted\" back\\slash\ttab\nnew\x01line é";
  j["empty_object"] = Json::object();
  j["empty_array"] = Json::array();
  j["nested"] = Json::array({Json{{"rank", size_t{7}},
                                  {"gpu", -3},
                                  {"big", std::numeric_limits<uint64_t>::max()},
                                  {"least", std::numeric_limits<int64_t>::min()}},
                             Json::array({1.0, 0.1}), false, nullptr});
  j["on"] = true;
  j["notes"] = std::vector<std::string>{"a", "b"};
  j["none"] = std::vector<std::string>{};
  EXPECT_EQ(std::move(w).Take(), j.dump(2));
}

TEST(JsonWriter, OtherIndentsAndARootScalarAreTheDomsToo) {
  JsonWriter w(4);
  w.BeginArray();
  w.BeginArray();
  w.Number(1);
  w.EndArray();
  w.EndArray();
  const Json nested = Json::array({Json::array({1})});
  EXPECT_EQ(std::move(w).Take(), nested.dump(4));
  JsonWriter flat(0);
  flat.BeginObject();
  flat.Key("a");
  flat.Number(2.5);
  flat.EndObject();
  const Json object = {{"a", 2.5}};
  EXPECT_EQ(std::move(flat).Take(), object.dump(0));
  EXPECT_EQ(Written(12.0), "12.0");
}

TEST(JsonWriter, NonFiniteNumbersAreNullAsTheDomWritesThem) {
  EXPECT_EQ(Written(std::numeric_limits<double>::quiet_NaN()), "null");
  EXPECT_EQ(Written(std::numeric_limits<double>::infinity()), "null");
  EXPECT_EQ(Written(-std::numeric_limits<double>::infinity()), "null");
  EXPECT_EQ(Written(-0.0), Json(-0.0).dump());
}

TEST(JsonWriter, EveryDoubleIsWrittenWithTheDomsDigits) {
  // Edge values, then doubles of random bit patterns (every exponent) and of the
  // magnitudes plans hold (bytes, seconds, ratios), each as the DOM writes it.
  std::vector<double> values = {0.0,
                                1.0,
                                0.1,
                                1e-5,
                                1e15,
                                1e16,
                                1e17,
                                123456789012345680.0,
                                5e-324,
                                std::numeric_limits<double>::min(),
                                std::numeric_limits<double>::max(),
                                std::numeric_limits<double>::epsilon()};
  std::mt19937_64 rng(20261207);
  for (int i = 0; i < 200000; ++i) {
    const uint64_t bits = rng();
    double d;
    std::memcpy(&d, &bits, sizeof d);
    if (std::isfinite(d)) values.push_back(d);
  }
  std::uniform_real_distribution<double> magnitude(-6, 20);
  for (int i = 0; i < 200000; ++i) values.push_back(std::pow(10.0, magnitude(rng)));
  for (double d : values) ASSERT_EQ(Written(d), Json(d).dump()) << "bits of " << d;
}

}  // namespace
}  // namespace topoplace
