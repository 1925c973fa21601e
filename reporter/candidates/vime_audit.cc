#include "reporter/candidates/vime_audit.h"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "reporter/base/json_node.h"
#include "reporter/base/safe_file.h"

namespace vprof::reporter {
namespace {

using Type = JsonNode::Type;

std::string KeyPath(const std::string& prefix, std::string_view key) {
  return prefix.empty() ? std::string(key) : prefix + "." + std::string(key);
}

// The member `key` of `object`; null when absent (vime writes None as null).
const JsonNode& MemberOf(const JsonNode& object, std::string_view key) {
  static const JsonNode kAbsent;
  const auto found = object.object().find(std::string(key));
  return found == object.object().end() ? kAbsent : found->second;
}

// Reads the entries of one audit file, remembering the first thing wrong.
class AuditReader {
 public:
  explicit AuditReader(const std::string& file) : file_(file) {}

  VimeAuditLoad Read(std::string_view text) {
    VimeAuditLoad load;
    JsonParse parsed = ParseJson(text);
    if (!parsed.value) {
      load.error = file_ + ": not valid JSON: " + parsed.error;
      return load;
    }
    VimeAudit audit;
    audit.file = file_;
    if (ReadTop(*parsed.value, audit)) {
      load.audit = std::move(audit);
    } else {
      load.error = error_;
    }
    return load;
  }

 private:
  bool Fail(const std::string& path, std::string_view expected, const JsonNode& got) {
    return Fail(path, std::string(expected) + ", got " + std::string(JsonTypeName(got.type())));
  }

  bool Fail(const std::string& path, const std::string& what) {
    error_ = file_ + ": " + (path.empty() ? "" : "key '" + path + "': ") + "expected " + what;
    return false;
  }

  bool ReadTop(const JsonNode& top, VimeAudit& audit) {
    if (top.type() == Type::kObject) {
      audit.entries.emplace_back();
      return ReadEntry(top, "", audit.entries.back());
    }
    if (top.type() != Type::kArray) {
      return Fail("", "an object (a vime result cube or drift report) or an array of them", top);
    }
    if (top.array().empty()) return Fail("", std::string("at least one audit entry, got []"));
    for (size_t i = 0; i < top.array().size(); ++i) {
      const JsonNode& node = top.array()[i];
      const std::string path = "[" + std::to_string(i) + "]";
      if (node.type() != Type::kObject) {
        return Fail(path, "an object (a vime result cube or drift report)", node);
      }
      audit.entries.emplace_back();
      if (!ReadEntry(node, path, audit.entries.back())) return false;
    }
    return true;
  }

  bool ReadEntry(const JsonNode& entry_node, const std::string& path, VimeAuditEntry& entry) {
    const JsonNode& version = MemberOf(entry_node, "schema_version");
    if (version.type() != Type::kNull && version.integer() != kVimeAuditSchemaVersion) {
      return Fail(
          KeyPath(path, "schema_version"),
          std::to_string(kVimeAuditSchemaVersion) + " (the version this reader knows)" + ", got " +
              (version.type() == Type::kNumber ? CanonicalJson(version)
                                               : std::string(JsonTypeName(version.type()))));
    }
    const JsonNode* metrics = RequiredObject(entry_node, "metrics", path);
    if (!metrics) return false;
    const JsonNode* provenance = RequiredObject(entry_node, "runtime_provenance", path);
    if (!provenance) return false;
    const std::string metrics_path = KeyPath(path, "metrics");
    const std::string provenance_path = KeyPath(path, "runtime_provenance");

    std::optional<double> metadata_warnings;
    std::optional<double> metadata_failures;
    std::optional<double> dlogp_warnings;
    bool metrics_fallback = false;
    bool metrics_strict_failure = false;
    bool provenance_fallback = false;
    bool provenance_strict_failure = false;
    if (!Rank(entry_node, path, entry.rank) ||
        !Number(*metrics, "max_abs_dlogp", metrics_path, entry.max_abs_dlogp) ||
        !Number(*metrics, "warning_count", metrics_path, dlogp_warnings) ||
        !Number(*metrics, "metadata_warning_count", metrics_path, metadata_warnings) ||
        !Number(*metrics, "metadata_failure_count", metrics_path, metadata_failures) ||
        !Flag(*metrics, "runtime_fallback", metrics_path, metrics_fallback) ||
        !Flag(*metrics, "runtime_strict_failure", metrics_path, metrics_strict_failure) ||
        !Flag(*provenance, "fallback", provenance_path, provenance_fallback) ||
        !Flag(*provenance, "strict_failure", provenance_path, provenance_strict_failure) ||
        !Text(*provenance, "operator", provenance_path, entry.operator_name) ||
        !Text(*provenance, "contract_id", provenance_path, entry.contract_id) ||
        !Backend(entry_node, *provenance, path, entry.backend_id)) {
      return false;
    }
    if (!entry.operator_name && !entry.backend_id) {
      return Fail(provenance_path,
                  "an \"operator\" or a backend (\"backend_id\", \"actual_backend\", "
                  "\"requested_backend\", or axes.logp_backend) to link candidates to, got none");
    }
    entry.dlogp_warnings = dlogp_warnings.value_or(0);
    entry.fallback = metrics_fallback || provenance_fallback;
    entry.strict_failure = metrics_strict_failure || provenance_strict_failure;
    const JsonNode& status = MemberOf(entry_node, "status");
    if (status.type() != Type::kNull) return Status(status, KeyPath(path, "status"), entry.status);
    if (entry.strict_failure || metadata_failures.value_or(0) > 0) {
      entry.status = AuditStatus::kFailure;
    } else if (entry.dlogp_warnings > 0 || metadata_warnings.value_or(0) > 0 || entry.fallback ||
               entry.max_abs_dlogp.value_or(0) > 0) {
      entry.status = AuditStatus::kWarning;
    } else {
      entry.status = AuditStatus::kPass;
    }
    return true;
  }

  const JsonNode* RequiredObject(const JsonNode& object, std::string_view key,
                                 const std::string& path) {
    const JsonNode& value = MemberOf(object, key);
    if (value.type() == Type::kObject) return &value;
    if (object.object().contains(std::string(key))) {
      Fail(KeyPath(path, key), "an object", value);
    } else {
      Fail(KeyPath(path, key), std::string("an object, got nothing (the key is missing)"));
    }
    return nullptr;
  }

  bool Rank(const JsonNode& object, const std::string& path, std::optional<int64_t>& out) {
    const JsonNode& value = MemberOf(object, "rank");
    if (value.type() == Type::kNull) return true;
    if (!value.integer()) return Fail(KeyPath(path, "rank"), "an integer or null", value);
    out = *value.integer();
    return true;
  }

  bool Number(const JsonNode& object, std::string_view key, const std::string& path,
              std::optional<double>& out) {
    const JsonNode& value = MemberOf(object, key);
    if (value.type() == Type::kNull) return true;
    if (value.type() != Type::kNumber) return Fail(KeyPath(path, key), "a number or null", value);
    out = value.number();
    return true;
  }

  // vime writes these flags as booleans, or as 1.0 / 0.0 among its metrics.
  bool Flag(const JsonNode& object, std::string_view key, const std::string& path, bool& out) {
    const JsonNode& value = MemberOf(object, key);
    if (value.type() == Type::kBool) {
      out = value.boolean();
    } else if (value.type() == Type::kNumber) {
      out = value.number() != 0;
    } else if (value.type() != Type::kNull) {
      return Fail(KeyPath(path, key), "true, false, a number or null", value);
    }
    return true;
  }

  // An empty string names nothing, as vime's own readers treat it.
  bool Text(const JsonNode& object, std::string_view key, const std::string& path,
            std::optional<std::string>& out) {
    const JsonNode& value = MemberOf(object, key);
    if (value.type() == Type::kNull) return true;
    if (value.type() != Type::kString) return Fail(KeyPath(path, key), "a string or null", value);
    if (!value.text().empty()) out = value.text();
    return true;
  }

  // axes.logp_backend is a list when the samples of one audit ran on several.
  bool Names(const JsonNode& object, std::string_view key, const std::string& path,
             std::optional<std::string>& out) {
    const JsonNode& value = MemberOf(object, key);
    if (value.type() != Type::kArray) return Text(object, key, path, out);
    std::string joined;
    for (const JsonNode& name : value.array()) {
      if (name.type() != Type::kString) {
        return Fail(KeyPath(path, key), "a string, a list of strings or null", name);
      }
      joined += (joined.empty() ? "" : ", ") + name.text();
    }
    if (!joined.empty()) out = joined;
    return true;
  }

  bool Backend(const JsonNode& entry_node, const JsonNode& provenance, const std::string& path,
               std::optional<std::string>& out) {
    const std::string provenance_path = KeyPath(path, "runtime_provenance");
    if (!Text(provenance, "backend_id", provenance_path, out)) return false;
    if (!out && !Text(provenance, "actual_backend", provenance_path, out)) return false;
    const JsonNode& axes = MemberOf(entry_node, "axes");
    if (axes.type() != Type::kNull && axes.type() != Type::kObject) {
      return Fail(KeyPath(path, "axes"), "an object or null", axes);
    }
    if (!out && axes.type() == Type::kObject &&
        !Names(axes, "logp_backend", KeyPath(path, "axes"), out)) {
      return false;
    }
    if (!out && !Text(provenance, "requested_backend", provenance_path, out)) return false;
    return true;
  }

  bool Status(const JsonNode& value, const std::string& path, AuditStatus& out) {
    const std::string expected = "\"pass\", \"warning\" or \"failure\"";
    if (value.type() != Type::kString) return Fail(path, expected, value);
    for (const AuditStatus status :
         {AuditStatus::kPass, AuditStatus::kWarning, AuditStatus::kFailure}) {
      if (value.text() == AuditStatusName(status)) {
        out = status;
        return true;
      }
    }
    return Fail(path, expected + ", got \"" + value.text() + "\"");
  }

  const std::string& file_;
  std::string error_;
};

}  // namespace

VimeAuditLoad LoadVimeAudit(const std::string& path) {
  VimeAuditLoad load;
  std::error_code ignored;
  if (std::filesystem::is_directory(path, ignored)) {
    load.error = path + ": is a directory, not an audit file";
    return load;
  }
  // An audit lists operators; the bound only keeps a mistaken path from
  // filling memory.
  constexpr size_t kMaxAuditBytes = size_t{256} << 20;
  RegularFileRead read = ReadNamedFile(path, kMaxAuditBytes);
  if (!read.contents) {
    load.error = read.error + " (the audit)";
    return load;
  }
  const std::string& text = *read.contents;
  return ParseVimeAudit(text, path);
}

VimeAuditLoad ParseVimeAudit(std::string_view text, const std::string& file) {
  return AuditReader(file).Read(text);
}

}  // namespace vprof::reporter
