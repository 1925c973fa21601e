#include "profiler_events.h"

#include <strings.h>

#include <algorithm>
#include <cstdlib>
#include <initializer_list>
#include <string>
#include <vector>

#include "comm.h"
#include "monotonic_clock.h"
#include "profiler_plugin.h"
#include "reduction.h"

namespace fake_nccl::profiler {
namespace {

namespace abi = profiler_abi;

constexpr uint8_t kCollChannels = 2;
constexpr uint8_t kCollWarps = 16;
constexpr uint8_t kP2pChannels = 1;

// The masks NCCL tests before starting each kind of event.
constexpr uint64_t kUnderTask = abi::kProxyOp | abi::kProxyStep | abi::kKernelCh | abi::kNetPlugin;
constexpr uint64_t kCollMask = abi::kColl | kUnderTask;
constexpr uint64_t kP2pMask = abi::kP2p | kUnderTask;
constexpr uint64_t kCollApiMask = abi::kCollApi | kCollMask;
constexpr uint64_t kP2pApiMask = abi::kP2pApi | kP2pMask;
constexpr uint64_t kGroupMask = abi::kGroup | abi::kColl | abi::kP2p | kUnderTask;
constexpr uint64_t kGroupApiMask =
    abi::kGroupApi | abi::kCollApi | abi::kP2pApi | abi::kKernelLaunch | kGroupMask;

// NCCL's ncclFunc_t numbers (index of ncclComm::seq_number) and names.
enum Func {
  kBroadcast = 0,
  kReduce = 1,
  kAllGather = 2,
  kReduceScatter = 3,
  kAllReduce = 4,
  kSend = 6,
  kRecv = 7
};

const char* FuncName(int func) {
  switch (func) {
    case kBroadcast:
      return "Broadcast";
    case kReduce:
      return "Reduce";
    case kAllGather:
      return "AllGather";
    case kReduceScatter:
      return "ReduceScatter";
    case kAllReduce:
      return "AllReduce";
    case kSend:
      return "Send";
    default:
      return "Recv";
  }
}

// ncclDatatypeToString of NCCL 2.28, which has no case for ncclUint8.
const char* DatatypeName(ncclDataType_t type) {
  switch (type) {
    case ncclInt8:
      return "ncclInt8";
    case ncclInt32:
      return "ncclInt32";
    case ncclUint32:
      return "ncclUint32";
    case ncclInt64:
      return "ncclInt64";
    case ncclUint64:
      return "ncclUint64";
    case ncclFloat16:
      return "ncclFloat16";
    case ncclFloat32:
      return "ncclFloat32";
    case ncclFloat64:
      return "ncclFloat64";
    case ncclBfloat16:
      return "ncclBfloat16";
    case ncclFloat8e4m3:
      return "ncclFloat8e4m3";
    case ncclFloat8e5m2:
      return "ncclFloat8e5m2";
    default:
      return "Unknown";
  }
}

// One task of NCCL's planner: a collective or one send or receive.
struct Task {
  ncclComm* comm;
  bool coll;
  int func;
  const void* send_buff;
  void* recv_buff;
  size_t count;  // as the API event reports it
  ncclDataType_t type;
  int root;  // the root of a collective, the peer of a send or receive
  cudaStream_t stream;
  uint64_t mask = 0;  // the activation mask when the call was made
  void* group_api = nullptr;
  void* api = nullptr;
  void* event = nullptr;  // Coll or P2p
  void* channels[kCollChannels] = {};
};

// NCCL's per-thread ncclProfilerApiState.
enum class GroupApiState { kNone, kStarted, kStopped, kReset };
struct ApiState {
  void* group_api = nullptr;
  int depth = 0;  // profilerGroupDepth
  GroupApiState state = GroupApiState::kNone;
};
thread_local ApiState t_api;
// Tasks of the calls since the last launch; Operation::first_task indexes it.
thread_local std::vector<Task> t_tasks;

void AppendTasks(const Operation& op) {
  ncclComm& comm = *op.comm;
  const size_t size = TypeSize(op.type);
  auto add = [&](bool coll, int func, const void* send, void* recv, int root) {
    t_tasks.push_back({&comm, coll, func, send, recv, op.count, op.type, root, op.stream});
  };
  auto add_send = [&](const void* buff, int peer) { add(false, kSend, buff, nullptr, peer); };
  auto add_recv = [&](void* buff, int peer) { add(false, kRecv, nullptr, buff, peer); };
  if (op.kind == OpKind::kSend) return add_send(op.sendbuff, op.root);
  if (op.kind == OpKind::kRecv) return add_recv(op.recvbuff, op.root);
  if (op.count == 0 || comm.nranks == 1) return;  // discarded, or a copy
  const size_t block = op.count * size;
  switch (op.kind) {
    case OpKind::kAllToAll:
      for (int r = 0; r < comm.nranks; ++r) {
        add_send(static_cast<const char*>(op.sendbuff) + r * block, r);
        add_recv(static_cast<char*>(op.recvbuff) + r * block, r);
      }
      return;
    case OpKind::kGather:
      add_send(op.sendbuff, op.root);
      for (int r = 0; comm.rank == op.root && r < comm.nranks; ++r) {
        add_recv(static_cast<char*>(op.recvbuff) + r * block, r);
      }
      return;
    case OpKind::kScatter:
      for (int r = 0; comm.rank == op.root && r < comm.nranks; ++r) {
        add_send(static_cast<const char*>(op.sendbuff) + r * block, r);
      }
      add_recv(op.recvbuff, op.root);
      return;
    case OpKind::kBroadcast:
      return add(true, kBroadcast, op.sendbuff, op.recvbuff, op.root);
    case OpKind::kReduce:
      return add(true, kReduce, op.sendbuff, op.recvbuff, op.root);
    case OpKind::kAllGather:
      return add(true, kAllGather, op.sendbuff, op.recvbuff, 0);
    case OpKind::kReduceScatter:
      return add(true, kReduceScatter, op.sendbuff, op.recvbuff, 0);
    default:
      return add(true, kAllReduce, op.sendbuff, op.recvbuff, 0);
  }
}

abi::Descr5 Descr(uint64_t type, void* parent) {
  abi::Descr5 d{};
  d.type = type;
  d.parentObj = parent;
  return d;
}

void StartApiEvent(Task& task, void* context) {
  abi::Descr5 d = Descr(task.coll ? abi::kCollApi : abi::kP2pApi, t_api.group_api);
  if (task.coll && (task.mask & kCollApiMask)) {
    d.collApi = {FuncName(task.func), task.count,  DatatypeName(task.type),
                 task.root,           task.stream, false};
    task.api = Start(context, d);
  } else if (!task.coll && (task.mask & kP2pApiMask)) {
    d.p2pApi = {FuncName(task.func), task.count, DatatypeName(task.type), task.stream, false};
    task.api = Start(context, d);
  }
  Stop(task.api);  // at the end of the call: the handle lives on as its tasks' parent
}

void StartTaskEvent(Task& task, void* group) {
  ncclComm& comm = *task.comm;
  abi::Descr5 d = Descr(task.coll ? abi::kColl : abi::kP2p, task.api);
  d.rank = comm.rank;
  if (task.coll) {
    // The planner turns AllGather and Broadcast into byte counts.
    const bool bytes = task.func == kAllGather || task.func == kBroadcast;
    const size_t count = bytes ? task.count * TypeSize(task.type) : task.count;
    d.coll = {comm.seq_number[task.func]++,
              FuncName(task.func),
              task.send_buff,
              task.recv_buff,
              count,
              task.root,
              bytes ? "ncclInt8" : DatatypeName(task.type),
              kCollChannels,
              kCollWarps,
              comm.algo,
              comm.proto,
              group};
    if (task.mask & kCollMask) task.event = Start(comm.profiler_context, d);
  } else if (task.mask & kP2pMask) {
    void* buff = task.func == kSend ? const_cast<void*>(task.send_buff) : task.recv_buff;
    d.p2p = {FuncName(task.func), buff, DatatypeName(task.type), task.count, task.root,
             kP2pChannels,        group};
    task.event = Start(comm.profiler_context, d);
  }
}

// The tasks of `ops`, in order.
std::vector<Task*> TasksOf(std::span<const Operation> ops) {
  std::vector<Task*> tasks;
  for (const Operation& op : ops) {
    for (uint32_t i = 0; i < op.task_count; ++i) tasks.push_back(&t_tasks[op.first_task + i]);
  }
  return tasks;
}

const char* Pick(const char* variable, std::initializer_list<const char*> names,
                 const char* fallback) {
  const char* value = std::getenv(variable);
  if (value == nullptr) return fallback;
  const std::string first = std::string(value).substr(0, std::string(value).find(','));
  for (const char* name : names) {
    if (strcasecmp(first.c_str(), name) == 0) return name;
  }
  return fallback;  // an exclusion list ("^NVLS") or a name NCCL would reject
}

}  // namespace

void ChooseAlgorithm(ncclComm& comm) {
  comm.algo =
      Pick("NCCL_ALGO",
           {"RING", "TREE", "COLLNET_DIRECT", "COLLNET_CHAIN", "NVLS", "NVLS_TREE", "PAT"}, "RING");
  comm.proto = Pick("NCCL_PROTO", {"LL", "LL128", "SIMPLE"}, "SIMPLE");
}

void OnCall(Operation& op, int user_group_depth) {
  if (t_api.depth > 0) ++t_api.depth;  // the call's implicit group, inside a started one
  op.first_task = static_cast<uint32_t>(t_tasks.size());
  if (!op.comm->profiler_attached) return;
  AppendTasks(op);
  op.task_count = static_cast<uint32_t>(t_tasks.size()) - op.first_task;
  for (uint32_t i = 0; i < op.task_count; ++i) {
    Task& task = t_tasks[op.first_task + i];
    task.mask = Mask();
    if ((task.mask & kGroupApiMask) && t_api.depth == 0) {
      abi::Descr5 d = Descr(abi::kGroupApi, nullptr);
      d.groupApi = {false, user_group_depth + 1};
      t_api.group_api = Start(op.comm->profiler_context, d);
      t_api.depth = user_group_depth + 1;
      t_api.state = GroupApiState::kStarted;
    }
    if (t_api.state == GroupApiState::kStarted) {
      Record(t_api.group_api, abi::kStateGroupStartApiStop, nullptr);
      t_api.state = GroupApiState::kStopped;
    }
    task.group_api = t_api.group_api;
    StartApiEvent(task, op.comm->profiler_context);
  }
}

void OnGroupEnd() {
  if (t_api.depth > 0) --t_api.depth;
  if (t_api.depth == 0 && t_api.state == GroupApiState::kStopped) {
    Record(t_api.group_api, abi::kStateGroupEndApiStart, nullptr);
    t_api.state = GroupApiState::kReset;
  }
}

void OnLaunch(std::span<const Operation> ops) {
  const std::vector<Task*> tasks = TasksOf(ops);
  std::vector<ncclComm*> comms;  // one plan per communicator, in order of first use
  for (Task* task : tasks) {
    if (std::find(comms.begin(), comms.end(), task->comm) == comms.end()) {
      comms.push_back(task->comm);
    }
  }
  for (ncclComm* comm : comms) {
    std::vector<Task*> plan;  // the plan's collectives, then its sends and receives
    for (bool coll : {true, false}) {
      for (Task* task : tasks) {
        if (task->comm == comm && task->coll == coll) plan.push_back(task);
      }
    }
    const Task* first = nullptr;  // the first task with a mask decides the plan's events
    for (const Task* task : plan) {
      if (first == nullptr && task->mask != 0) first = task;
    }
    const uint64_t mask = first != nullptr ? first->mask : 0;
    if (mask & abi::kKernelLaunch) {
      abi::Descr5 d = Descr(abi::kKernelLaunch, first->group_api);
      d.kernelLaunch.stream = plan.front()->stream;
      Stop(Start(comm->profiler_context, d));
    }
    void* group =
        (mask & kGroupMask) ? Start(comm->profiler_context, Descr(abi::kGroup, nullptr)) : nullptr;
    for (Task* task : plan) StartTaskEvent(*task, group);
    for (Task* task : plan) Stop(task->event);
    Stop(group);
  }
}

void OnRunStart(std::span<const Operation> ops) {
  for (Task* task : TasksOf(ops)) {
    if (task->event == nullptr || !(task->mask & abi::kKernelCh)) continue;
    const uint8_t channels = task->coll ? kCollChannels : kP2pChannels;
    for (uint8_t c = 0; c < channels; ++c) {
      abi::Descr5 d = Descr(abi::kKernelCh, task->event);
      d.kernelCh = {c, standins::MonotonicNs()};
      task->channels[c] = Start(task->comm->profiler_context, d);
    }
  }
}

void OnRunEnd(std::span<const Operation> ops) {
  for (Task* task : TasksOf(ops)) {
    for (void*& channel : task->channels) {
      if (channel == nullptr) continue;
      abi::StateArgs args{};
      args.kernelChPTimer = standins::MonotonicNs();
      Record(channel, abi::kStateKernelChStop, &args);
      Stop(channel);
      channel = nullptr;
    }
  }
}

void AfterGroupEnd(bool launched) {
  if (t_api.group_api != nullptr && t_api.depth == 0) {
    Stop(t_api.group_api);
    t_api.group_api = nullptr;
  }
  if (launched) t_tasks.clear();
}

}  // namespace fake_nccl::profiler
