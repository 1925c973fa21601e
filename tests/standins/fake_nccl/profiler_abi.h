// The profiler plugin interface as the stand-in (playing NCCL) calls it: the structs NCCL 2.27
// (v4), 2.28 (v5) and 2.29+ (v6) look up in a plugin, and the descriptors they pass. Our own
// declarations, kept apart from vprof's (interpose/nccl_plugin/nccl_profiler_abi.h) on purpose: the
// two are written independently from NCCL's layout, so a mistake in one shows up as a mismatch in
// the tests instead of being shared. Offsets are pinned by the static_asserts below.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <cstdint>

#include "nccl.h"

namespace fake_nccl::profiler_abi {

// Event type bits (descriptor type, activation mask).
inline constexpr uint64_t kGroup = 0x1;
inline constexpr uint64_t kColl = 0x2;
inline constexpr uint64_t kP2p = 0x4;
inline constexpr uint64_t kProxyOp = 0x8;
inline constexpr uint64_t kProxyStep = 0x10;
inline constexpr uint64_t kProxyCtrl = 0x20;
inline constexpr uint64_t kKernelCh = 0x40;
inline constexpr uint64_t kNetPlugin = 0x80;
inline constexpr uint64_t kGroupApi = 0x100;
inline constexpr uint64_t kCollApi = 0x200;
inline constexpr uint64_t kP2pApi = 0x400;
inline constexpr uint64_t kKernelLaunch = 0x800;

// recordEventState states the stand-in sends.
inline constexpr int kStateKernelChStop = 22;
inline constexpr int kStateGroupStartApiStop = 23;
inline constexpr int kStateGroupEndApiStart = 24;

using Logger = void (*)(int level, unsigned long flags, const char* file, int line, const char* fmt,
                        ...);

// v4: the type is one byte; Coll and P2p name the group as their parent.
struct Descr4 {
  uint8_t type;
  void* parentObj;
  int rank;
  union {
    struct {
      uint64_t seqNumber;
      const char* func;
      const void* sendBuff;
      void* recvBuff;
      size_t count;
      int root;
      const char* datatype;
      uint8_t nChannels;
      uint8_t nWarps;
      const char* algo;
      const char* proto;
    } coll;
    struct {
      const char* func;
      void* buff;
      const char* datatype;
      size_t count;
      int peer;
      uint8_t nChannels;
    } p2p;
    struct {
      uint8_t channelId;
      uint64_t pTimer;
    } kernelCh;
    struct {
      pid_t pid;
      uint8_t channelId;
      int peer, nSteps, chunkSize, isSend;
    } proxyOp;
  };
};

// v5 and v6 (v6 only adds copy-engine events, which the stand-in never sends, so the common
// part is all it needs; the size is v6's, 112 bytes, same as v5's).
struct Descr5 {
  uint64_t type;
  void* parentObj;
  int rank;
  union {
    struct {
      bool graphCaptured;
      int groupDepth;
    } groupApi;
    struct {
      const char* func;
      size_t count;
      const char* datatype;
      int root;
      void* stream;
      bool graphCaptured;
    } collApi;
    struct {
      const char* func;
      size_t count;
      const char* datatype;
      void* stream;
      bool graphCaptured;
    } p2pApi;
    struct {
      void* stream;
    } kernelLaunch;
    struct {
      uint64_t seqNumber;
      const char* func;
      const void* sendBuff;
      void* recvBuff;
      size_t count;
      int root;
      const char* datatype;
      uint8_t nChannels;
      uint8_t nWarps;
      const char* algo;
      const char* proto;
      void* parentGroup;
    } coll;
    struct {
      const char* func;
      void* buff;
      const char* datatype;
      size_t count;
      int peer;
      uint8_t nChannels;
      void* parentGroup;
    } p2p;
    struct {
      uint8_t channelId;
      uint64_t pTimer;
    } kernelCh;
    char v6_size[88];  // the largest v6 member (the copy-engine collective)
  };
};

union StateArgs {
  size_t proxyStepTransSize;
  int proxyCtrlAppended;
  void* netPluginData;
  uint64_t kernelChPTimer;
};

struct Plugin4 {
  const char* name;
  ncclResult_t (*init)(void** context, int* eActivationMask, const char* commName,
                       uint64_t commHash, int nNodes, int nranks, int rank, Logger logfn);
  ncclResult_t (*startEvent)(void* context, void** eHandle, Descr4* eDescr);
  ncclResult_t (*stopEvent)(void* eHandle);
  ncclResult_t (*recordEventState)(void* eHandle, int eState, StateArgs* eStateArgs);
  ncclResult_t (*finalize)(void* context);
};

// v5 and v6: commId moved ahead of the mask.
struct Plugin5 {
  const char* name;
  ncclResult_t (*init)(void** context, uint64_t commId, int* eActivationMask, const char* commName,
                       int nNodes, int nranks, int rank, Logger logfn);
  ncclResult_t (*startEvent)(void* context, void** eHandle, Descr5* eDescr);
  ncclResult_t (*stopEvent)(void* eHandle);
  ncclResult_t (*recordEventState)(void* eHandle, int eState, StateArgs* eStateArgs);
  ncclResult_t (*finalize)(void* context);
};

static_assert(sizeof(Descr4) == 104 && offsetof(Descr4, coll) == 24);
static_assert(offsetof(Descr4, coll.count) == 56 && offsetof(Descr4, coll.nWarps) == 81);
static_assert(offsetof(Descr4, coll.proto) == 96 && offsetof(Descr4, p2p.peer) == 56);
static_assert(offsetof(Descr4, kernelCh.pTimer) == 32 && offsetof(Descr4, proxyOp.peer) == 32);
static_assert(sizeof(Descr5) == 112 && offsetof(Descr5, coll.parentGroup) == 104);
static_assert(offsetof(Descr5, groupApi.groupDepth) == 28 && offsetof(Descr5, collApi.root) == 48);
static_assert(offsetof(Descr5, collApi.graphCaptured) == 64 &&
              offsetof(Descr5, p2pApi.stream) == 48);
static_assert(offsetof(Descr5, p2p.nChannels) == 60 && offsetof(Descr5, p2p.parentGroup) == 64);
static_assert(sizeof(StateArgs) == 8 && offsetof(Plugin5, finalize) == 40);

}  // namespace fake_nccl::profiler_abi
