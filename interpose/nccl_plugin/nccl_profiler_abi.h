// NCCL's profiler plugin interface, as vprof speaks it: versions 4 (NCCL
// 2.27), 5 (NCCL 2.28) and 6 (NCCL 2.29 and later).
//
// NCCL ships no header for this interface with the library (only an example
// plugin in its source tree), so these are vprof's own declarations of the
// layout NCCL passes across the C ABI. Names are ours; sizes, offsets, bit
// values and enum values are NCCL's, and the static_asserts at the end pin
// the offsets to numbers worked out by hand from the x86-64 System V layout
// rules, so an edit that moves a field does not compile.
//
// How NCCL uses it: it dlopens the library NCCL_PROFILER_PLUGIN names, looks
// up the newest struct it knows (ncclProfiler_v6, then _v5, then _v4), calls
// init once per communicator, and from then on startEvent / stopEvent /
// recordEventState for the event types the plugin enabled. One activation
// mask (an int inside NCCL) serves every communicator of the process: each
// init overwrites it.
#pragma once

#include <nccl.h>
#include <sys/types.h>

#include <cstddef>
#include <cstdint>

namespace vprof::nccl_abi {

// Event types, one bit each: the descriptor's `type` holds one of them, and
// the activation mask is an OR of those the plugin wants.
enum EventType : uint64_t {
  kGroup = 1u << 0,          // a kernel plan (NCCL-internal group of operations)
  kColl = 1u << 1,           // a collective inside a plan
  kP2p = 1u << 2,            // a send or receive inside a plan
  kProxyOp = 1u << 3,        // network proxy operation (proxy thread)
  kProxyStep = 1u << 4,      // one step of a proxy operation
  kProxyCtrl = 1u << 5,      // proxy thread state
  kKernelCh = 1u << 6,       // a kernel's work on one channel, GPU-timed
  kNetPlugin = 1u << 7,      // defined by the network plugin
  kGroupApi = 1u << 8,       // v5+: ncclGroupStart..End (explicit or implicit)
  kCollApi = 1u << 9,        // v5+: one collective API call
  kP2pApi = 1u << 10,        // v5+: one ncclSend / ncclRecv call
  kKernelLaunch = 1u << 11,  // v5+: the launch of a plan's kernel
  kCeColl = 1u << 12,        // v6: copy-engine collective
  kCeSync = 1u << 13,        // v6: copy-engine synchronisation
  kCeBatch = 1u << 14,       // v6: copy-engine batch
};

// recordEventState's state argument. NCCL numbers them in one enum shared by
// every version (gaps are states other versions renamed).
enum EventState : int {
  kProxyOpInProgress = 19,
  kProxyStepSendGpuWait = 8,
  kProxyStepSendPeerWait = 20,
  kProxyStepSendWait = 9,
  kProxyStepRecvWait = 10,
  kProxyStepRecvFlushWait = 11,
  kProxyStepRecvGpuWait = 12,
  kProxyCtrlIdle = 13,
  kProxyCtrlActive = 14,
  kProxyCtrlSleep = 15,
  kProxyCtrlWakeup = 16,
  kProxyCtrlAppend = 17,
  kProxyCtrlAppendEnd = 18,
  kNetPluginUpdate = 21,
  kKernelChStop = 22,       // args->kernel_ch.timer: the channel's end on the GPU clock
  kGroupStartApiStop = 23,  // v5+: the API part of a group event ended
  kGroupEndApiStart = 24,   // v5+: ncclGroupEnd began
  kCeCollStart = 25,        // v6
  kCeCollComplete = 26,     // v6
  kCeSyncStart = 27,        // v6
  kCeSyncComplete = 28,     // v6
  kCeBatchStart = 29,       // v6
  kCeBatchComplete = 30,    // v6
};

// NCCL's logger, handed to init; vprof logs through its own.
using DebugLogger = void (*)(int level, unsigned long flags, const char* file, int line,
                             const char* fmt, ...);

// The per-type payloads. Strings are NCCL's own static strings ("AllReduce",
// "ncclFloat32", "RING", "SIMPLE"): they outlive the call.
struct CollPayloadV4 {
  uint64_t seq_number;  // per communicator and collective function, from 0
  const char* func;
  const void* send_buff;
  void* recv_buff;
  size_t count;  // AllGather and Broadcast: bytes (datatype is then ncclInt8)
  int root;
  const char* datatype;
  uint8_t n_channels;
  uint8_t n_warps;
  const char* algo;
  const char* proto;
};
struct P2pPayloadV4 {
  const char* func;
  void* buff;
  const char* datatype;
  size_t count;
  int peer;
  uint8_t n_channels;
};
struct ProxyOpPayload {
  pid_t pid;  // the process that created the parent event: parent_obj is only ours when it is us
  uint8_t channel_id;
  int peer;
  int n_steps;
  int chunk_size;
  int is_send;
};
struct ProxyStepPayload {
  int step;
};
struct KernelChPayload {
  uint8_t channel_id;
  uint64_t timer;  // the channel's start, from the GPU's globaltimer
};
struct NetPluginPayload {
  int64_t id;
  void* data;
};

// v5 appended the plan's group to these (parent_obj became the API event).
struct CollPayloadV5 {
  uint64_t seq_number;
  const char* func;
  const void* send_buff;
  void* recv_buff;
  size_t count;
  int root;
  const char* datatype;
  uint8_t n_channels;
  uint8_t n_warps;
  const char* algo;
  const char* proto;
  void* parent_group;
};
struct P2pPayloadV5 {
  const char* func;
  void* buff;
  const char* datatype;
  size_t count;
  int peer;
  uint8_t n_channels;
  void* parent_group;
};
struct GroupApiPayload {
  bool graph_captured;  // NCCL's example header says int: same bytes for 0/1 on little-endian
  int group_depth;
};
struct CollApiPayload {
  const char* func;
  size_t count;
  const char* datatype;
  int root;
  void* stream;
  bool graph_captured;
};
struct P2pApiPayload {
  const char* func;
  size_t count;
  const char* datatype;
  void* stream;
  bool graph_captured;
};
struct KernelLaunchPayload {
  void* stream;
};

// v6's copy-engine events; vprof never enables them, they are declared so
// that the v6 descriptor has NCCL's size.
struct CeCollPayload {
  uint64_t seq_number;
  const char* func;
  const void* send_buff;
  void* recv_buff;
  size_t count;
  int root;
  const char* datatype;
  const char* sync_strategy;
  bool intra_batch_sync;
  uint32_t batch_size;
  uint32_t num_batches;
  uint32_t ce_seq_num;
  void* stream;
};
struct CeSyncPayload {
  bool is_complete;
  int n_ranks;
};
struct CeBatchPayload {
  int num_ops;
  size_t total_bytes;
  bool use_intra_sync;
};

// startEvent's descriptor. v4 has a one-byte type; v5 widened it to 64 bits
// for the API event types, which do not fit in 8.
struct EventDescrV4 {
  uint8_t type;
  void* parent_obj;  // a handle this plugin returned earlier, or null
  int rank;
  union {
    CollPayloadV4 coll;
    P2pPayloadV4 p2p;
    ProxyOpPayload proxy_op;
    ProxyStepPayload proxy_step;
    KernelChPayload kernel_ch;
    NetPluginPayload net_plugin;
  };
};

struct EventDescrV5 {
  uint64_t type;
  void* parent_obj;  // Coll/P2p: the API event; KernelLaunch, API events: the group API event
  int rank;
  union {
    GroupApiPayload group_api;
    CollApiPayload coll_api;
    P2pApiPayload p2p_api;
    KernelLaunchPayload kernel_launch;
    CollPayloadV5 coll;
    P2pPayloadV5 p2p;
    ProxyOpPayload proxy_op;
    ProxyStepPayload proxy_step;
    KernelChPayload kernel_ch;
    NetPluginPayload net_plugin;
  };
};

struct EventDescrV6 {
  uint64_t type;
  void* parent_obj;
  int rank;
  union {
    GroupApiPayload group_api;
    CollApiPayload coll_api;
    P2pApiPayload p2p_api;
    KernelLaunchPayload kernel_launch;
    CollPayloadV5 coll;
    P2pPayloadV5 p2p;
    ProxyOpPayload proxy_op;
    ProxyStepPayload proxy_step;
    KernelChPayload kernel_ch;
    NetPluginPayload net_plugin;
    CeCollPayload ce_coll;
    CeSyncPayload ce_sync;
    CeBatchPayload ce_batch;
  };
};

// recordEventState's optional argument; the same in v4, v5 and v6.
union StateArgs {
  struct {
    size_t trans_size;
  } proxy_step;
  struct {
    int appended_proxy_ops;
  } proxy_ctrl;
  struct {
    void* data;
  } net_plugin;
  struct {
    uint64_t timer;  // kKernelChStop: the channel's end, from the GPU's globaltimer
  } kernel_ch;
};

// The exported structs. Only init's parameter order differs: v5 moved the
// communicator hash ahead of the mask and renamed it commId.
struct PluginV4 {
  const char* name;
  ncclResult_t (*init)(void** context, int* activation_mask, const char* comm_name,
                       uint64_t comm_hash, int n_nodes, int nranks, int rank, DebugLogger log);
  ncclResult_t (*start_event)(void* context, void** handle, EventDescrV4* descr);
  ncclResult_t (*stop_event)(void* handle);
  ncclResult_t (*record_event_state)(void* handle, EventState state, StateArgs* args);
  ncclResult_t (*finalize)(void* context);
};

template <typename Descr>
struct PluginV5Layout {
  const char* name;
  ncclResult_t (*init)(void** context, uint64_t comm_hash, int* activation_mask,
                       const char* comm_name, int n_nodes, int nranks, int rank, DebugLogger log);
  ncclResult_t (*start_event)(void* context, void** handle, Descr* descr);
  ncclResult_t (*stop_event)(void* handle);
  ncclResult_t (*record_event_state)(void* handle, EventState state, StateArgs* args);
  ncclResult_t (*finalize)(void* context);
};
using PluginV5 = PluginV5Layout<EventDescrV5>;
using PluginV6 = PluginV5Layout<EventDescrV6>;

// The layout, checked against offsets worked out by hand.
static_assert(sizeof(EventState) == 4);
static_assert(offsetof(EventDescrV4, parent_obj) == 8 && offsetof(EventDescrV4, rank) == 16);
static_assert(offsetof(EventDescrV4, coll) == 24 && sizeof(EventDescrV4) == 104);
static_assert(offsetof(CollPayloadV4, count) == 32 && offsetof(CollPayloadV4, root) == 40);
static_assert(offsetof(CollPayloadV4, datatype) == 48 && offsetof(CollPayloadV4, n_channels) == 56);
static_assert(offsetof(CollPayloadV4, n_warps) == 57 && offsetof(CollPayloadV4, algo) == 64);
static_assert(offsetof(CollPayloadV4, proto) == 72 && sizeof(CollPayloadV4) == 80);
static_assert(offsetof(P2pPayloadV4, count) == 24 && offsetof(P2pPayloadV4, peer) == 32);
static_assert(offsetof(P2pPayloadV4, n_channels) == 36 && sizeof(P2pPayloadV4) == 40);
static_assert(offsetof(CollPayloadV5, parent_group) == 80 &&
              offsetof(P2pPayloadV5, parent_group) == 40);
static_assert(offsetof(ProxyOpPayload, channel_id) == 4 && offsetof(ProxyOpPayload, peer) == 8);
static_assert(offsetof(KernelChPayload, timer) == 8);
static_assert(offsetof(GroupApiPayload, group_depth) == 4);
static_assert(offsetof(CollApiPayload, root) == 24 && offsetof(CollApiPayload, stream) == 32);
static_assert(offsetof(CollApiPayload, graph_captured) == 40);
static_assert(offsetof(P2pApiPayload, stream) == 24 &&
              offsetof(P2pApiPayload, graph_captured) == 32);
static_assert(offsetof(EventDescrV5, coll) == 24 && sizeof(EventDescrV5) == 112);
static_assert(offsetof(CeCollPayload, sync_strategy) == 56 &&
              offsetof(CeCollPayload, stream) == 80);
static_assert(offsetof(EventDescrV6, coll) == 24 && sizeof(EventDescrV6) == 112);
static_assert(sizeof(StateArgs) == 8);
static_assert(offsetof(PluginV4, finalize) == 40 && offsetof(PluginV5, finalize) == 40);

}  // namespace vprof::nccl_abi
