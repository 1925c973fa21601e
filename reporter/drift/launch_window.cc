#include "reporter/drift/launch_window.h"

#include <algorithm>
#include <map>
#include <tuple>
#include <unordered_map>

#include "reporter/gpu/vprof_kernels.h"
#include "reporter/trace/kernel_dimension.h"
#include "reporter/trace/trace_reader.h"
#include "vprof_trace.pb.h"

namespace vprof::reporter {
namespace {

namespace pb = vprof::trace;

// When each API call made in the window started, by correlation id.
using WindowCalls = std::unordered_map<uint32_t, uint64_t>;

WindowCalls ReadWindowCalls(const std::string& path, uint64_t after_ns, uint64_t until_ns,
                            LaunchWindow* w) {
  WindowCalls calls;
  TraceReader reader(path);
  pb::TracePacket p;
  while (reader.Next(&p)) {
    if (!p.has_gpu_batch()) continue;
    const pb::GpuBatch& batch = p.gpu_batch();
    w->kernels_in_trace = w->kernels_in_trace || batch.kernel_size() > 0;
    w->launches_in_trace = w->launches_in_trace || batch.api_size() > 0;
    w->dropped_in_trace += batch.dropped();
    for (const pb::ApiCall& api : batch.api()) {
      if (api.start_ns() > after_ns && api.start_ns() <= until_ns) {
        calls.emplace(api.correlation_id(), api.start_ns());
      }
    }
  }
  if (reader.problem() != ReadProblem::kNone) w->problem = reader.problem_detail();
  return calls;
}

}  // namespace

LaunchWindow ReadLaunchWindow(const std::string& path, uint64_t after_ns, uint64_t until_ns) {
  LaunchWindow w;
  const WindowCalls calls = ReadWindowCalls(path, after_ns, until_ns, &w);
  if (calls.empty()) return w;
  std::unordered_map<uint64_t, std::string> names;
  using Key = std::tuple<uint64_t, std::array<uint32_t, 3>, std::array<uint32_t, 3>>;
  std::map<Key, size_t> index;
  TraceReader reader(path);
  pb::TracePacket p;
  while (reader.Next(&p)) {
    if (p.has_interned_string()) names[p.interned_string().iid()] = p.interned_string().str();
    if (!p.has_gpu_batch()) continue;
    for (const pb::GpuGraphReplay& replay : p.gpu_batch().graph_replay()) {
      w.graph_replays += calls.count(replay.correlation_id());
    }
    for (const pb::GpuKernel& k : p.gpu_batch().kernel()) {
      const auto call = calls.find(k.correlation_id());
      if (call == calls.end() || IsVprofKernel(names[k.name_iid()])) continue;
      const Key key{
          k.name_iid(),
          {KernelDimension(k.grid_x()), KernelDimension(k.grid_y()), KernelDimension(k.grid_z())},
          {KernelDimension(k.block_x()), KernelDimension(k.block_y()),
           KernelDimension(k.block_z())}};
      const auto [at, added] = index.emplace(key, w.launches.size());
      if (added) {
        w.launches.push_back(
            {names[k.name_iid()], std::get<1>(key), std::get<2>(key), 0, call->second});
      }
      KernelLaunches& launches = w.launches[at->second];
      ++launches.count;
      launches.first_ns = std::min(launches.first_ns, call->second);
      ++w.kernels;
    }
  }
  std::stable_sort(w.launches.begin(), w.launches.end(),
                   [](const auto& x, const auto& y) { return x.first_ns < y.first_ns; });
  return w;
}

}  // namespace vprof::reporter
