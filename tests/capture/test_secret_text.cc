// What vprof redacts from the command lines, variables and manifests it records.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "capture/core/secret_text.h"

using Args = std::vector<std::string>;

TEST_CASE("secret names are told by their marks in any case") {
  for (const char* name :
       {"API_TOKEN", "hf_token", "Db_Password", "passwd", "AWS_SECRET_ACCESS_KEY", "api-key",
        "apiKey", "GOOGLE_APPLICATION_CREDENTIALS", "auth"}) {
    INFO(name);
    CHECK(vprof::NameLooksSecret(name));
  }
  for (const char* name : {"NCCL_ALGO", "MASTER_ADDR", "lr", "batch-size", "model"}) {
    INFO(name);
    CHECK_FALSE(vprof::NameLooksSecret(name));
  }
}

TEST_CASE("a URL's password is replaced, its user, host and path kept") {
  CHECK(vprof::RedactUrlCredentials("postgres://user:pass@host/db") ==
        "postgres://user:<redacted>@host/db");
  // Two URLs, an '@' inside the password, and one URL without a password.
  CHECK(vprof::RedactUrlCredentials(
            "a=https://u:p@q@h:1/x b=ssh://git@github.com/r c=redis://:pw@r") ==
        "a=https://u:<redacted>@h:1/x b=ssh://git@github.com/r c=redis://:<redacted>@r");
  // No authority with credentials: unchanged, including an '@' after the host.
  CHECK(vprof::RedactUrlCredentials("https://host/path?mail=a:b@c") ==
        "https://host/path?mail=a:b@c");
  CHECK(vprof::RedactUrlCredentials("no url here") == "no url here");
}

TEST_CASE("option values with secret names are redacted in both spellings, URLs in any argument") {
  const Args argv = {"python3",
                     "train.py",
                     "--api-key=abc123",
                     "--hf-token",
                     "hf_xyz",
                     "--lr",
                     "3e-4",
                     "-password",
                     "--verbose",
                     "--db",
                     "mysql://root:toor@db/x",
                     "--auth-token"};
  const Args expected = {"python3",
                         "train.py",
                         "--api-key=<redacted>",
                         "--hf-token",
                         "<redacted>",
                         "--lr",
                         "3e-4",
                         "-password",
                         "--verbose",
                         "--db",
                         "mysql://root:<redacted>@db/x",
                         "--auth-token"};
  CHECK(vprof::RedactArgv(argv) == expected);
}
