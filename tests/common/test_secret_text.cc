// What vprof redacts from the command lines, variables and manifests it records.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "common/secret_text.h"

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

TEST_CASE("a URL password holding '/', '#' or '?' is redacted whole") {
  CHECK(vprof::RedactUrlCredentials("postgres://u:p/w#d?x@host/db") ==
        "postgres://u:<redacted>@host/db");
  CHECK(vprof::RedactUrlCredentials("NCCL_X=a,redis://:s/e?c#r@r:6379/0 b") ==
        "NCCL_X=a,redis://:<redacted>@r:6379/0 b");
  // The next URL of the same word is not taken for the first one's host.
  CHECK(vprof::RedactUrlCredentials("http://h:1/x,ssh://git@github.com/r") ==
        "http://h:1/x,ssh://git@github.com/r");
}

TEST_CASE("a secret option's value is redacted when it begins with a dash") {
  CHECK(vprof::RedactArgv({"prog", "--password", "-dashpass", "--lr", "1"}) ==
        Args{"prog", "--password", "<redacted>", "--lr", "1"});
  CHECK(vprof::RedactArgv({"prog", "-token", "-", "-v"}) ==
        Args{"prog", "-token", "<redacted>", "-v"});
}

TEST_CASE("positional key=value arguments are redacted by their key's last component") {
  const Args argv = {"train.py",        "wandb.api_key=X1",  "HF_TOKEN=X2",
                     "db.password=X3",  "+db.secret=X4",     "tokenizer.name=gpt2",
                     "trainer.lr=3e-4", "print(password=1)", "db/url=mysql://r:X5@h/x"};
  const Args expected = {"train.py",
                         "wandb.api_key=<redacted>",
                         "HF_TOKEN=<redacted>",
                         "db.password=<redacted>",
                         "+db.secret=<redacted>",
                         "tokenizer.name=gpt2",
                         "trainer.lr=3e-4",
                         "print(password=1)",
                         "db/url=mysql://r:<redacted>@h/x"};
  CHECK(vprof::RedactArgv(argv) == expected);
}
