#include "reporter/consistency/run_contract.h"

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <utility>
#include <vector>

#include "reporter/base/safe_file.h"
#include "reporter/consistency/nccl_selection.h"

namespace vprof::reporter {
namespace {

// NCCL's algorithms and protocols, as NCCL_ALGO and NCCL_PROTO spell them.
constexpr std::array kNcclAlgorithms = {"Ring",     "Tree", "CollnetDirect", "CollnetChain", "NVLS",
                                        "NVLSTree", "PAT"};
constexpr std::array kNcclProtocols = {"LL", "LL128", "Simple"};

constexpr std::array kModes = {ConsistencyMode::kOff, ConsistencyMode::kAuto,
                               ConsistencyMode::kStrict};
constexpr std::array kAxes = {ConsistencyAxis::kNcclAlgo, ConsistencyAxis::kNcclProto,
                              ConsistencyAxis::kNcclChannels, ConsistencyAxis::kAllReduceBackend};
constexpr std::array kBackends = {AllReduceBackend::kNccl, AllReduceBackend::kCustomAllReduce};

template <typename Names>
std::string OneOf(const Names& names) {
  std::string text;
  for (size_t i = 0; i < names.size(); ++i) {
    if (i > 0) text += i + 1 == names.size() ? " or " : ", ";
    text += std::string(names[i]);
  }
  return text;
}

template <typename Enum, size_t N, typename NameOf>
std::string OneOfNames(const std::array<Enum, N>& values, NameOf name_of) {
  std::array<std::string_view, N> names;
  for (size_t i = 0; i < N; ++i) names[i] = name_of(values[i]);
  return OneOf(names);
}

// How a value that is not what was expected is quoted in a message.
std::string Described(const JsonNode& value) {
  switch (value.type()) {
    case JsonNode::Type::kString:
      return "\"" + value.text() + "\"";
    case JsonNode::Type::kNumber:
      return CanonicalJson(value);
    case JsonNode::Type::kBool:
      return value.boolean() ? "true" : "false";
    default:
      return std::string(JsonTypeName(value.type()));
  }
}

// Reads one contract, remembering the first thing wrong with it.
class ContractReader {
 public:
  explicit ContractReader(const std::string& file) : file_(file) {}

  RunContractLoad Read(std::string_view text) {
    RunContractLoad load;
    JsonParse parsed = ParseJson(text);
    if (!parsed.value) {
      load.error = file_ + ": not valid JSON: " + parsed.error;
      return load;
    }
    RunContract contract;
    contract.file = file_;
    if (ReadTop(*parsed.value, contract)) {
      load.contract = std::move(contract);
    } else {
      load.error = file_ + ": " + error_;
    }
    return load;
  }

 private:
  bool Fail(std::string_view field, std::string_view expected, const JsonNode* got) {
    error_ = "field '" + std::string(field) + "': expected " + std::string(expected);
    if (got != nullptr) error_ += ", got " + Described(*got);
    return false;
  }

  bool OnlyFields(const JsonNode& object, std::string_view where,
                  std::initializer_list<std::string_view> fields) {
    for (const auto& [key, value] : object.object()) {
      if (std::find(fields.begin(), fields.end(), key) != fields.end()) continue;
      const std::string field = where.empty() ? key : std::string(where) + "." + key;
      error_ = "field '" + field + "': unknown field; expected one of " +
               OneOf(std::vector<std::string_view>(fields));
      return false;
    }
    return true;
  }

  bool ReadTop(const JsonNode& top, RunContract& contract) {
    if (top.type() != JsonNode::Type::kObject) {
      error_ = "expected a JSON object at the top, got " + std::string(JsonTypeName(top.type()));
      return false;
    }
    if (!OnlyFields(top, "",
                    {"version", "consistency", "nccl", "custom_allreduce_allowed",
                     "all_reduce_backend", "fallback_axes", "alignment"})) {
      return false;
    }
    const auto& fields = top.object();
    const auto version = fields.find("version");
    if (version == fields.end()) {
      error_ = "field 'version': missing; expected 1";
      return false;
    }
    if (version->second.integer() != kRunContractVersion) {
      return Fail("version", "1", &version->second);
    }
    if (const auto mode = fields.find("consistency"); mode != fields.end()) {
      if (!ReadEnum(mode->second, "consistency", kModes, ConsistencyModeName,
                    contract.consistency)) {
        return false;
      }
    }
    if (const auto nccl = fields.find("nccl"); nccl != fields.end()) {
      if (!ReadNccl(nccl->second, contract)) return false;
    }
    if (const auto allowed = fields.find("custom_allreduce_allowed"); allowed != fields.end()) {
      if (allowed->second.type() != JsonNode::Type::kBool) {
        return Fail("custom_allreduce_allowed", "true or false", &allowed->second);
      }
      contract.custom_allreduce_allowed = allowed->second.boolean();
    }
    if (const auto backend = fields.find("all_reduce_backend"); backend != fields.end()) {
      AllReduceBackend value = AllReduceBackend::kNccl;
      if (!ReadEnum(backend->second, "all_reduce_backend", kBackends, AllReduceBackendName,
                    value)) {
        return false;
      }
      contract.all_reduce_backend = value;
      if (value == AllReduceBackend::kCustomAllReduce && !contract.custom_allreduce_allowed) {
        return Fail("custom_allreduce_allowed",
                    "true when all_reduce_backend is \"custom_allreduce\"", nullptr);
      }
    }
    if (const auto axes = fields.find("fallback_axes"); axes != fields.end()) {
      if (!ReadAxes(axes->second, contract.fallback_axes)) return false;
    }
    if (const auto alignment = fields.find("alignment"); alignment != fields.end()) {
      if (!ReadAlignment(alignment->second, contract)) return false;
    }
    return true;
  }

  bool ReadAlignment(const JsonNode& value, RunContract& contract) {
    const char* expected =
        "an object with \"profile\" (A0 to A5) and \"reference\" (a run directory)";
    if (value.type() != JsonNode::Type::kObject) return Fail("alignment", expected, &value);
    if (!OnlyFields(value, "alignment", {"profile", "reference"})) return false;
    const auto& fields = value.object();
    const auto profile = fields.find("profile");
    if (profile == fields.end() || profile->second.type() != JsonNode::Type::kString ||
        profile->second.text().size() != 2 || profile->second.text()[0] != 'A' ||
        profile->second.text()[1] < '0' || profile->second.text()[1] > '5') {
      return Fail("alignment.profile", "one of A0, A1, A2, A3, A4, A5",
                  profile == fields.end() ? nullptr : &profile->second);
    }
    const auto reference = fields.find("reference");
    if (reference == fields.end() || reference->second.type() != JsonNode::Type::kString ||
        reference->second.text().empty()) {
      return Fail("alignment.reference", "the reference run's directory",
                  reference == fields.end() ? nullptr : &reference->second);
    }
    contract.alignment = RunContract::Alignment{profile->second.text(), reference->second.text()};
    return true;
  }

  template <typename Enum, size_t N, typename NameOf>
  bool ReadEnum(const JsonNode& value, std::string_view field, const std::array<Enum, N>& values,
                NameOf name_of, Enum& out) {
    if (value.type() == JsonNode::Type::kString) {
      for (const Enum candidate : values) {
        if (value.text() == name_of(candidate)) {
          out = candidate;
          return true;
        }
      }
    }
    return Fail(field, OneOfNames(values, [&](Enum e) { return name_of(e); }), &value);
  }

  bool ReadAxes(const JsonNode& value, std::set<ConsistencyAxis>& axes) {
    const std::string expected =
        "an array of axis names (" + OneOfNames(kAxes, ConsistencyAxisName) + ")";
    if (value.type() != JsonNode::Type::kArray) return Fail("fallback_axes", expected, &value);
    for (size_t i = 0; i < value.array().size(); ++i) {
      ConsistencyAxis axis = ConsistencyAxis::kNcclAlgo;
      if (!ReadEnum(value.array()[i], "fallback_axes[" + std::to_string(i) + "]", kAxes,
                    ConsistencyAxisName, axis)) {
        return false;
      }
      axes.insert(axis);
    }
    return true;
  }

  template <size_t N>
  bool ReadNames(const JsonNode& value, std::string_view field,
                 const std::array<const char*, N>& known, std::set<std::string>& names) {
    const std::string expected = "a non-empty array of names from " + OneOf(known);
    if (value.type() != JsonNode::Type::kArray || value.array().empty()) {
      return Fail(field, expected, &value);
    }
    for (size_t i = 0; i < value.array().size(); ++i) {
      const JsonNode& name = value.array()[i];
      const std::string element = std::string(field) + "[" + std::to_string(i) + "]";
      bool is_known = false;
      if (name.type() == JsonNode::Type::kString) {
        for (const char* candidate : known) {
          is_known |= NormalizeNcclName(candidate) == NormalizeNcclName(name.text());
        }
      }
      if (!is_known) return Fail(element, "one of " + OneOf(known) + " (case ignored)", &name);
      names.insert(NormalizeNcclName(name.text()));
    }
    return true;
  }

  bool ReadChannelBound(const JsonNode& value, std::string_view field, uint32_t at_least,
                        std::optional<uint32_t>& bound) {
    const std::optional<int64_t>& number = value.integer();
    if (!number || *number < at_least || *number > std::numeric_limits<uint32_t>::max()) {
      return Fail(field, "an integer ≥ " + std::to_string(at_least), &value);
    }
    bound = static_cast<uint32_t>(*number);
    return true;
  }

  bool ReadChannels(const JsonNode& value, RunContract& contract) {
    if (value.type() != JsonNode::Type::kObject || value.object().empty()) {
      return Fail("nccl.channels", "an object with \"min\", \"max\" or both", &value);
    }
    if (!OnlyFields(value, "nccl.channels", {"min", "max"})) return false;
    const auto& fields = value.object();
    if (const auto min = fields.find("min"); min != fields.end()) {
      if (!ReadChannelBound(min->second, "nccl.channels.min", 1, contract.min_channels)) {
        return false;
      }
    }
    if (const auto max = fields.find("max"); max != fields.end()) {
      if (!ReadChannelBound(max->second, "nccl.channels.max", contract.min_channels.value_or(1),
                            contract.max_channels)) {
        return false;
      }
    }
    return true;
  }

  bool ReadNccl(const JsonNode& value, RunContract& contract) {
    if (value.type() != JsonNode::Type::kObject) {
      return Fail("nccl", "an object with \"algorithms\", \"protocols\" or \"channels\"", &value);
    }
    if (!OnlyFields(value, "nccl", {"algorithms", "protocols", "channels"})) return false;
    const auto& fields = value.object();
    if (const auto algorithms = fields.find("algorithms"); algorithms != fields.end()) {
      if (!ReadNames(algorithms->second, "nccl.algorithms", kNcclAlgorithms,
                     contract.nccl_algorithms)) {
        return false;
      }
    }
    if (const auto protocols = fields.find("protocols"); protocols != fields.end()) {
      if (!ReadNames(protocols->second, "nccl.protocols", kNcclProtocols,
                     contract.nccl_protocols)) {
        return false;
      }
    }
    if (const auto channels = fields.find("channels"); channels != fields.end()) {
      if (!ReadChannels(channels->second, contract)) return false;
    }
    return true;
  }

  const std::string& file_;
  std::string error_;
};

JsonNode NamesJson(const std::set<std::string>& names) {
  if (names.empty()) return JsonNode();
  JsonNode array = JsonNode::EmptyArray();
  for (const std::string& name : names) array.Append(JsonNode::Text(name));
  return array;
}

JsonNode BoundJson(const std::optional<uint32_t>& bound) {
  return bound ? JsonNode::Integer(*bound) : JsonNode();
}

}  // namespace

std::string_view ConsistencyAxisName(ConsistencyAxis axis) {
  switch (axis) {
    case ConsistencyAxis::kNcclAlgo:
      return "nccl_algo";
    case ConsistencyAxis::kNcclProto:
      return "nccl_proto";
    case ConsistencyAxis::kNcclChannels:
      return "nccl_channels";
    case ConsistencyAxis::kAllReduceBackend:
      return "all_reduce_backend";
  }
  return "unknown";
}

std::string_view AllReduceBackendName(AllReduceBackend backend) {
  return backend == AllReduceBackend::kNccl ? "nccl" : "custom_allreduce";
}

JsonNode RunContract::ToJson() const {
  JsonNode channels;
  if (min_channels || max_channels) {
    channels = JsonNode::EmptyObject()
                   .Set("min", BoundJson(min_channels))
                   .Set("max", BoundJson(max_channels));
  }
  JsonNode axes = JsonNode::EmptyArray();
  for (const ConsistencyAxis axis : fallback_axes) {  // enum order
    axes.Append(JsonNode::Text(std::string(ConsistencyAxisName(axis))));
  }
  JsonNode json =
      JsonNode::EmptyObject()
          .Set("version", JsonNode::Integer(kRunContractVersion))
          .Set("consistency", JsonNode::Text(std::string(ConsistencyModeName(consistency))))
          .Set("nccl", JsonNode::EmptyObject()
                           .Set("algorithms", NamesJson(nccl_algorithms))
                           .Set("protocols", NamesJson(nccl_protocols))
                           .Set("channels", std::move(channels)))
          .Set("custom_allreduce_allowed", JsonNode::Boolean(custom_allreduce_allowed))
          .Set("all_reduce_backend",
               all_reduce_backend
                   ? JsonNode::Text(std::string(AllReduceBackendName(*all_reduce_backend)))
                   : JsonNode())
          .Set("fallback_axes", std::move(axes));
  // Only when declared: contracts without it keep the fingerprint they had.
  if (alignment) {
    json.Set("alignment", JsonNode::EmptyObject()
                              .Set("profile", JsonNode::Text(alignment->profile))
                              .Set("reference", JsonNode::Text(alignment->reference)));
  }
  return json;
}

RunContractLoad LoadRunContract(const std::string& path) {
  RunContractLoad load;
  std::error_code ignored;
  if (std::filesystem::is_directory(path, ignored)) {
    load.error = path + ": is a directory, not a contract file";
    return load;
  }
  // A contract is a few lines; the bound only keeps a mistaken path from
  // filling memory.
  constexpr size_t kMaxContractBytes = size_t{64} << 20;
  RegularFileRead read = ReadNamedFile(path, kMaxContractBytes);
  if (!read.contents) {
    load.error = read.error + " (the contract)";
    return load;
  }
  return ParseRunContract(*read.contents, path);
}

RunContractLoad ParseRunContract(std::string_view text, const std::string& file) {
  return ContractReader(file).Read(text);
}

}  // namespace vprof::reporter
