// What vprof keeps out of its traces and manifests: the values of variables and
// options whose names say they are secrets, and the passwords of URLs that
// carry credentials (scheme://user:password@host), wherever they appear. Shared
// by the capture side (run header) and the launcher (manifest.json).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace vprof {

inline constexpr std::string_view kRedactedMark = "<redacted>";

// Whether a name (a variable's, or an option's without its dashes) says its
// value is a secret: it holds TOKEN, SECRET, PASSWORD, PASSWD, CREDENTIAL, AUTH
// or KEY, in any case.
bool NameLooksSecret(std::string_view name);

// `text` with the password of every URL credential replaced by kRedactedMark
// ("postgres://user:<redacted>@db/x"), also one that holds '/', '?' or '#'
// ("postgres://u:<redacted>@host/db" for "postgres://u:p/w#d?x@host/db");
// unchanged when it has none.
std::string RedactUrlCredentials(std::string_view text);

// A command line as recorded: the value of every option whose name looks
// secret ("--api-key=<redacted>", or the argument after "--api-key" unless it
// begins with "--"), of every positional "key=value" whose key's last
// component looks secret ("wandb.api_key=<redacted>", "HF_TOKEN=<redacted>"),
// and URL credentials in any argument, redacted.
std::vector<std::string> RedactArgv(const std::vector<std::string>& argv);

}  // namespace vprof
