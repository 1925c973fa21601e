// SHA-256 against the FIPS 180 example vectors, and fingerprints of the
// canonical JSON form: equal whatever order keys were written in.
#include <catch2/catch.hpp>
#include <string>

#include "reporter/base/fingerprint.h"
#include "reporter/base/json_node.h"
#include "reporter/base/sha256.h"

using namespace vprof::reporter;

TEST_CASE("SHA-256 of the FIPS 180 example messages") {
  CHECK(Sha256Hex("") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  CHECK(Sha256Hex("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  // 448 bits: the padding needs a second block.
  CHECK(Sha256Hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq") ==
        "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  // 896 bits, two blocks of message.
  CHECK(Sha256Hex("abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopq"
                  "klmnopqrlmnopqrsmnopqrstnopqrstu") ==
        "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1");
  CHECK(Sha256Hex(std::string(1000000, 'a')) ==
        "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

TEST_CASE("SHA-256 at the padding boundaries") {
  // 55 bytes fit the length in the same block, 56 do not; 64 fill one exactly.
  // Digests from Python's hashlib.
  CHECK(Sha256Hex(std::string(55, 'a')) ==
        "9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318");
  CHECK(Sha256Hex(std::string(56, 'a')) ==
        "b35439a4ac6f0948b6d6f9e3c6af0f5f590ce20f1bde7090ef7970686ec6738a");
  CHECK(Sha256Hex(std::string(64, 'a')) ==
        "ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb");
}

TEST_CASE("canonical JSON: compact, keys sorted, strings escaped") {
  const JsonNode value =
      JsonNode::EmptyObject()
          .Set("zeta", JsonNode::Integer(-3))
          .Set("alpha", JsonNode::EmptyArray()
                            .Append(JsonNode::Text("a\"b\n"))
                            .Append(JsonNode())
                            .Append(JsonNode::Boolean(true)))
          .Set("Mid", JsonNode::EmptyObject().Set("b", JsonNode::Number(0.5)).Set("a", {}));
  CHECK(CanonicalJson(value) ==
        R"({"Mid":{"a":null,"b":0.5},"alpha":["a\"b\n",null,true],"zeta":-3})");
}

TEST_CASE("fingerprints do not depend on the order keys were written in") {
  const JsonNode one =
      JsonNode::EmptyObject()
          .Set("nccl_env", JsonNode::EmptyObject().Set(
                               "NCCL_ALGO", JsonNode::EmptyArray().Append(JsonNode::Text("Ring"))))
          .Set("contract", JsonNode());
  const JsonNode parsed =
      *ParseJson(R"({ "contract" : null, "nccl_env": {"NCCL_ALGO": ["Ring"]} })").value;
  const std::string canonical = R"({"contract":null,"nccl_env":{"NCCL_ALGO":["Ring"]}})";
  CHECK(CanonicalJson(one) == canonical);
  CHECK(Fingerprint(one) == Fingerprint(parsed));
  CHECK(Fingerprint(one) == "sha256:" + Sha256Hex(canonical));
  const JsonNode tree =
      *ParseJson(R"({"nccl_env": {"NCCL_ALGO": ["Tree"]}, "contract": null})").value;
  CHECK(Fingerprint(tree) != Fingerprint(one));
}
