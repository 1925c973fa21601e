#include "reporter/consistency/actual_layout.h"

#include <algorithm>
#include <map>

#include "reporter/gpu/export_names.h"

namespace vprof::reporter {

std::vector<CollectiveShapeReport> CollectiveShapesOf(const std::vector<ProcessRecord>& records,
                                                      const std::vector<ProcessReport>& processes,
                                                      const std::vector<size_t>& communicating,
                                                      uint64_t& left_out) {
  std::map<CollectiveShape, CollectiveShapeReport> by_shape;
  left_out = 0;
  for (const size_t i : communicating) {
    const CollectiveShapes& shapes = records[i].collective_shapes;
    left_out += shapes.calls_left_out;
    for (const auto& [shape, calls] : shapes.calls) {
      CollectiveShapeReport& row = by_shape[shape];
      row.calls += calls;
      if (processes[i].rank) {
        row.ranks.push_back(*processes[i].rank);
      } else {
        ++row.unranked_processes;
      }
    }
  }
  std::vector<CollectiveShapeReport> rows;
  rows.reserve(by_shape.size());
  for (auto& [shape, row] : by_shape) {
    row.function = std::string(NcclFunctionName(shape.function));
    row.datatype = shape.datatype < 0 ? "-" : std::string(NcclDataTypeName(shape.datatype));
    row.red_op = shape.red_op < 0 ? "-" : NcclRedOpName(shape.red_op);
    row.count = shape.count;
    row.comm_size = shape.comm_size;
    std::sort(row.ranks.begin(), row.ranks.end());
    rows.push_back(std::move(row));
  }
  return rows;
}

std::vector<RankPlacement> PlacementOf(const std::vector<ProcessRecord>& records,
                                       const std::vector<ProcessReport>& processes,
                                       const std::vector<size_t>& communicating) {
  std::vector<RankPlacement> placement;
  for (const size_t i : communicating) {
    RankPlacement& row = placement.emplace_back();
    row.rank = processes[i].rank;
    row.file = processes[i].file;
    row.host = processes[i].host;
    // Communicator ids are hashes: of several devices, the lowest, not the first id's.
    for (const auto& [comm_id, membership] : records[i].communicators) {
      if (membership.cuda_device >= 0 &&
          (row.cuda_device < 0 || membership.cuda_device < row.cuda_device)) {
        row.cuda_device = membership.cuda_device;
      }
    }
    row.gpu_uuid = records[i].gpu.UuidOf(row.cuda_device);
  }
  std::stable_sort(placement.begin(), placement.end(),
                   [](const RankPlacement& a, const RankPlacement& b) {
                     if (a.rank.has_value() != b.rank.has_value()) return a.rank.has_value();
                     if (a.rank != b.rank) return a.rank < b.rank;
                     return a.file < b.file;
                   });
  return placement;
}

JsonNode CollectiveShapesJson(const std::vector<CollectiveShapeReport>& shapes) {
  JsonNode rows = JsonNode::EmptyArray();
  for (const CollectiveShapeReport& shape : shapes) {
    JsonNode ranks = JsonNode::EmptyArray();
    for (const int32_t rank : shape.ranks) ranks.Append(JsonNode::Integer(rank));
    rows.Append(JsonNode::EmptyObject()
                    .Set("func", JsonNode::Text(shape.function))
                    .Set("dtype", JsonNode::Text(shape.datatype))
                    .Set("red_op", JsonNode::Text(shape.red_op))
                    .Set("count", JsonNode::Integer(static_cast<int64_t>(shape.count)))
                    .Set("comm_size", JsonNode::Integer(shape.comm_size))
                    .Set("ranks", std::move(ranks))
                    .Set("unranked", JsonNode::Integer(shape.unranked_processes)));
  }
  return rows;
}

JsonNode PlacementJson(const std::vector<RankPlacement>& placement) {
  std::map<std::string, int64_t> host_numbers;
  JsonNode rows = JsonNode::EmptyArray();
  for (const RankPlacement& row : placement) {
    if (!row.rank) continue;
    const int64_t host =
        host_numbers.try_emplace(row.host, static_cast<int64_t>(host_numbers.size())).first->second;
    rows.Append(JsonNode::EmptyObject()
                    .Set("rank", JsonNode::Integer(*row.rank))
                    .Set("host", JsonNode::Integer(host))
                    .Set("device", JsonNode::Integer(row.cuda_device)));
  }
  return rows;
}

}  // namespace vprof::reporter
