// DumpedJsonSize counts what DumpJson writes, for every kind of value and
// every string the serialiser escapes or replaces.
#include "base/json.h"

#include <string>

#include <gtest/gtest.h>

namespace optrace {
namespace {

using json = nlohmann::ordered_json;

TEST(DumpedJsonSize, IsTheLengthOfTheDump) {
  const std::string invalid_utf8 = std::string("a\xff") + "b\xc3";  // each bad byte becomes U+FFFD
  json values = json::array({json(),
                             true,
                             false,
                             0,
                             -7,
                             1234567890123ull,
                             0.1,
                             -0.0,
                             1e300,
                             2.5e-8,
                             "",
                             "plain",
                             "quote \" backslash \\ slash /",
                             "\n\t\r\b\f",
                             std::string("\x01\x1f", 2),
                             "caf\xc3\xa9 \xe2\x86\x92 \xf0\x9f\x94\xa5",
                             invalid_utf8,
                             json::object(),
                             json::array(),
                             {{"key \"q\"", {1, 2, {{"x", nullptr}}}}, {invalid_utf8, "v"}}});
  for (const json& v : values) EXPECT_EQ(DumpedJsonSize(v), DumpJson(v).size()) << DumpJson(v);
  EXPECT_EQ(DumpedJsonSize(values), DumpJson(values).size());
  EXPECT_EQ(DumpedJsonSize(json::object({{"a", 1}})), 7u);  // {"a":1}
}

}  // namespace
}  // namespace optrace
