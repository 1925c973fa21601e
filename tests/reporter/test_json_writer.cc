// The JSON writer: structure, escaping and numbers.
#include <catch2/catch.hpp>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "mini_json.h"
#include "reporter/base/json_writer.h"

using vprof::reporter::JsonWriter;
using vprof::reporter::WriteJsonString;
using vprof::reporter::testing::JsonValue;

namespace {

std::string Escaped(std::string_view text) {
  std::ostringstream out;
  WriteJsonString(out, text);
  return out.str();
}

}  // namespace

TEST_CASE("strings are escaped") {
  CHECK(Escaped("plain") == "\"plain\"");
  CHECK(Escaped("a\"b\\c") == "\"a\\\"b\\\\c\"");
  CHECK(Escaped("line\nnext\ttab") == "\"line\\nnext\\ttab\"");
  CHECK(Escaped(std::string("\x01\x1f", 2)) == "\"\\u0001\\u001f\"");
  CHECK(Escaped("µs ×") == "\"µs ×\"");  // valid UTF-8 passes through
  CHECK(Escaped("a\xff"
                "b") == "\"a\\ufffdb\"");                         // invalid bytes do not
  CHECK(Escaped("\xe2\x82") == "\"\\ufffd\"");                    // a cut sequence: one
  CHECK(Escaped("\xed\xa0\x80") == "\"\\ufffd\\ufffd\\ufffd\"");  // a surrogate
}

TEST_CASE("a document reads back with the same values") {
  std::ostringstream out;
  JsonWriter json(out);
  json.BeginObject();
  json.Field("name", std::string("host \"a\""));
  json.Field("count", uint64_t{18446744073709551615ULL});
  json.Field("delta", int64_t{-5});
  json.Field("ratio", 15.72864);
  json.Field("flag", true);
  json.Field("nothing", std::optional<int>());
  json.Key("list");
  json.BeginArray();
  json.Int(1);
  json.BeginObject();
  json.EndObject();
  json.BeginArray();
  json.EndArray();
  json.EndArray();
  json.EndObject();

  CHECK(out.str().find("\"count\": 18446744073709551615") != std::string::npos);
  const JsonValue value = JsonValue::Parse(out.str());
  CHECK(value["name"].string() == "host \"a\"");
  CHECK(value["delta"].number() == -5);
  CHECK(value["ratio"].number() == 15.72864);
  CHECK(value["flag"].boolean());
  CHECK(value["nothing"].is_null());
  CHECK(value["list"][0].number() == 1);
  CHECK(value["list"][1].object().empty());
  CHECK(value["list"][2].array().empty());
}

TEST_CASE("non-finite doubles become null") {
  std::ostringstream out;
  JsonWriter json(out);
  json.BeginArray();
  json.Double(1.0 / 0.0);
  json.EndArray();
  CHECK(JsonValue::Parse(out.str())[0].is_null());
}

TEST_CASE("keys, plain or escaped, are laid out with commas and two-space indents") {
  std::ostringstream out;
  JsonWriter json(out);
  json.BeginObject();
  json.Field("a", 1);
  json.Key("inner");
  json.BeginObject();
  json.Field("tab\there", 2);
  json.Field("b", 3);
  json.EndObject();
  json.Field("say \"hi\"", 4);
  json.EndObject();
  CHECK(out.str() ==
        "{\n"
        "  \"a\": 1,\n"
        "  \"inner\": {\n"
        "    \"tab\\there\": 2,\n"
        "    \"b\": 3\n"
        "  },\n"
        "  \"say \\\"hi\\\"\": 4\n"
        "}");
}

TEST_CASE("an object or array begun on one line holds all it contains on that line") {
  std::ostringstream out;
  JsonWriter json(out);
  json.BeginObject();
  json.Key("rows");
  json.BeginArray();
  for (int row = 1; row <= 2; ++row) {
    json.BeginObject(JsonWriter::Layout::kOneLine);
    json.Field("row", row);
    json.Key("inner");
    json.BeginObject();  // inside a one-line level: one line too
    json.Field("tab\there", 2);
    json.Field("b", row * 10);
    json.EndObject();
    json.Key("list");
    json.BeginArray();
    json.Int(1);
    json.BeginArray();
    json.EndArray();
    json.Null();
    json.EndArray();
    json.Key("none");
    json.BeginObject();
    json.EndObject();
    json.EndObject();
  }
  json.BeginArray(JsonWriter::Layout::kOneLine);
  json.Int(7);
  json.String("x");
  json.EndArray();
  json.EndArray();
  json.Field("after", 3);  // indented again
  json.EndObject();
  CHECK(out.str() ==
        "{\n"
        "  \"rows\": [\n"
        "    {\"row\": 1, \"inner\": {\"tab\\there\": 2, \"b\": 10}, \"list\": [1, [], null], "
        "\"none\": {}},\n"
        "    {\"row\": 2, \"inner\": {\"tab\\there\": 2, \"b\": 20}, \"list\": [1, [], null], "
        "\"none\": {}},\n"
        "    [7, \"x\"]\n"
        "  ],\n"
        "  \"after\": 3\n"
        "}");
  CHECK(JsonValue::Parse(out.str())["rows"][1]["inner"]["b"].number() == 20);
}

TEST_CASE(
    "a list is written as its key and an array, of values, objects or what each item writes") {
  struct Row {
    int id;
    std::string name;
  };
  const std::vector<Row> rows = {{1, "a"}, {2, "b\"q"}};
  const std::map<std::string, int> counts = {{"x", 3}, {"y", 4}};
  std::ostringstream out;
  JsonWriter json(out);
  json.BeginObject();
  json.Values("names", std::vector<std::string>{"p", "q"});
  json.Values("ids", std::vector<int32_t>{-1, 2}, JsonWriter::Layout::kOneLine);
  json.Values("none", std::vector<uint64_t>{});
  json.Objects(
      "rows", rows,
      [&](const Row& row) {
        json.Field("id", row.id);
        json.Field("name", row.name);
      },
      JsonWriter::Layout::kOneLine);
  json.Objects("counts", counts, [&](const auto& entry) {
    json.Field("key", entry.first);
    json.Field("n", entry.second);
  });
  json.Array("pairs", rows, [&](const Row& row) {
    json.BeginArray(JsonWriter::Layout::kOneLine);
    json.Int(row.id);
    json.Bool(row.id > 1);
    json.EndArray();
  });
  json.Object("empty", [] {});
  json.EndObject();
  CHECK(out.str() ==
        "{\n"
        "  \"names\": [\n"
        "    \"p\",\n"
        "    \"q\"\n"
        "  ],\n"
        "  \"ids\": [-1, 2],\n"
        "  \"none\": [],\n"
        "  \"rows\": [\n"
        "    {\"id\": 1, \"name\": \"a\"},\n"
        "    {\"id\": 2, \"name\": \"b\\\"q\"}\n"
        "  ],\n"
        "  \"counts\": [\n"
        "    {\n"
        "      \"key\": \"x\",\n"
        "      \"n\": 3\n"
        "    },\n"
        "    {\n"
        "      \"key\": \"y\",\n"
        "      \"n\": 4\n"
        "    }\n"
        "  ],\n"
        "  \"pairs\": [\n"
        "    [1, false],\n"
        "    [2, true]\n"
        "  ],\n"
        "  \"empty\": {}\n"
        "}");
}
