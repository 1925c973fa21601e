#include "common/secret_text.h"

#include <cctype>

namespace vprof {
namespace {

bool ContainsIgnoringCase(std::string_view text, std::string_view upper_mark) {
  if (upper_mark.size() > text.size()) return false;
  for (size_t at = 0; at + upper_mark.size() <= text.size(); ++at) {
    size_t i = 0;
    while (i < upper_mark.size() &&
           std::toupper(static_cast<unsigned char>(text[at + i])) == upper_mark[i]) {
      ++i;
    }
    if (i == upper_mark.size()) return true;
  }
  return false;
}

// Where a URL's authority ends: the first '/', '?', '#' or space after it.
size_t AuthorityEnd(std::string_view text, size_t start) {
  size_t end = start;
  while (end < text.size() && text[end] != '/' && text[end] != '?' && text[end] != '#' &&
         !std::isspace(static_cast<unsigned char>(text[end]))) {
    ++end;
  }
  return end;
}

// "--api-key=v" → "api-key"; "" for an argument that is not an option.
std::string_view OptionName(std::string_view arg) {
  if (arg.size() < 2 || arg[0] != '-') return {};
  arg.remove_prefix(arg[1] == '-' ? 2 : 1);
  return arg.substr(0, arg.find('='));
}

// The last component of a positional "key=value" argument's key, as Hydra
// and shell launchers pass them ("wandb.api_key=X" → "api_key", "HF_TOKEN=X",
// "+db.password=X" → "password"); "" for any other argument (code such as
// "print(a=1)" has characters no key has).
std::string_view AssignedKeyTail(std::string_view arg) {
  const size_t eq = arg.find('=');
  if (eq == std::string_view::npos) return {};
  std::string_view key = arg.substr(0, eq);
  while (!key.empty() && (key[0] == '+' || key[0] == '~')) key.remove_prefix(1);
  if (key.empty()) return {};
  for (const char c : key) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '.' && c != '-' &&
        c != '/') {
      return {};
    }
  }
  const size_t last_separator = key.find_last_of("./");
  return last_separator == std::string_view::npos ? key : key.substr(last_separator + 1);
}

// Where the word that begins at `start` ends: the first whitespace or the
// next URL's "://".
size_t WordEnd(std::string_view text, size_t start) {
  size_t end = start;
  while (end < text.size() && !std::isspace(static_cast<unsigned char>(text[end])) &&
         text.substr(end, 3) != "://") {
    ++end;
  }
  return end;
}

}  // namespace

bool NameLooksSecret(std::string_view name) {
  static constexpr std::string_view kMarks[] = {"TOKEN",      "SECRET", "PASSWORD", "PASSWD",
                                                "CREDENTIAL", "AUTH",   "KEY"};
  for (std::string_view mark : kMarks) {
    if (ContainsIgnoringCase(name, mark)) return true;
  }
  return false;
}

std::string RedactUrlCredentials(std::string_view text) {
  std::string out;
  size_t copied = 0;
  for (size_t scheme = text.find("://"); scheme != std::string_view::npos;
       scheme = text.find("://", scheme + 3)) {
    const size_t start = scheme + 3;
    const size_t end = AuthorityEnd(text, start);
    const std::string_view authority = text.substr(start, end - start);
    size_t at = authority.rfind('@');
    const size_t colon = authority.substr(0, at).find(':');
    if (colon == std::string_view::npos) continue;  // no credentials, or a user name alone
    if (at == std::string_view::npos) {
      // A password may hold '/', '?' or '#' unescaped ("u:p/w#d?x@host"), which
      // parsers that split at the last '@' accept: then the authority ends
      // early, at one of them. The word's last '@' ends the password; a port
      // followed by an '@' in the path or query is redacted with it, rather
      // than a password leaked.
      at = text.substr(start, WordEnd(text, start) - start).rfind('@');
      if (at == std::string_view::npos) continue;
    }
    out.append(text.substr(copied, start + colon + 1 - copied));
    out.append(kRedactedMark);
    copied = start + at;
  }
  out.append(text.substr(copied));
  return out;
}

std::vector<std::string> RedactArgv(const std::vector<std::string>& argv) {
  std::vector<std::string> out;
  out.reserve(argv.size());
  bool value_is_secret = false;  // the previous argument was a secret option without '='
  for (const std::string& arg : argv) {
    // Its value, even one that begins with '-' ("--password -dashpass"); a
    // long option after it is taken for a flag's neighbour, not its value.
    if (value_is_secret && !arg.starts_with("--")) {
      out.emplace_back(kRedactedMark);
      value_is_secret = false;
      continue;
    }
    const std::string_view name = OptionName(arg);
    value_is_secret = false;
    const std::string_view key = name.empty() ? AssignedKeyTail(arg) : name;
    if (!key.empty() && NameLooksSecret(key)) {
      const size_t eq = arg.find('=');
      if (eq == std::string::npos) {
        value_is_secret = true;
        out.push_back(arg);
      } else {
        out.push_back(arg.substr(0, eq + 1) + std::string(kRedactedMark));
      }
      continue;
    }
    out.push_back(RedactUrlCredentials(arg));
  }
  return out;
}

}  // namespace vprof
