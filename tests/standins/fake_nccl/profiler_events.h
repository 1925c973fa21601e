// The profiler events NCCL 2.28 emits for its API calls and kernel launches, emitted by the
// stand-in in the same order, with the same parents and the same quirks (read from NCCL's
// src/plugin/profiler.cc, enqueue.cc and group.cc):
//   - every call opens an implicit group; the GroupApi event starts with the first task of the
//     outermost group (groupDepth counts the implicit one: 1 for a lone call) and stops after
//     the outermost ncclGroupEnd has launched;
//   - each call's tasks get a CollApi or P2pApi event (started and stopped inside the call);
//     AlltoAll, Gather and Scatter become Send/Recv tasks, one per peer; collectives with count
//     0, and every collective on a one-rank communicator (a copy in NCCL), make no task;
//   - at launch, per communicator: KernelLaunch (parent: the GroupApi), then Group, the Coll
//     events (parent: their CollApi; seqNumber per communicator and function, from 0) and P2p
//     events, stopped before the work runs ("stop" means enqueued); AllGather and Broadcast
//     report their count in bytes with datatype ncclInt8;
//   - with KernelCh in the mask, each task's channels get a KernelCh event around the work
//     (here its host execution), parent the Coll or P2p event, pTimer from CLOCK_MONOTONIC in
//     place of the GPU's globaltimer.
// Algorithm and protocol come from NCCL_ALGO and NCCL_PROTO (first name of the list, defaults
// RING and SIMPLE); collectives report 2 channels and 16 warps, point-to-point 1 channel. No
// ProxyOp events: the stand-in has no network proxy.
#pragma once

#include <span>

#include "operation.h"

struct ncclComm;

namespace fake_nccl::profiler {

// At a communicator's creation: its algorithm and protocol (again once the plugin is attached).
void ChooseAlgorithm(ncclComm& comm);

// A call that passed its argument checks, made at the user's group depth: the GroupApi event if
// it is the first of its group, and the API event of each of its tasks, which op remembers.
void OnCall(Operation& op, int user_group_depth);
// The end of a group (the implicit one of every call, or ncclGroupEnd), before any launch.
void OnGroupEnd();
// Operations about to run: the launch events of their tasks.
void OnLaunch(std::span<const Operation> ops);
// Around running operations: the KernelCh events of their tasks.
void OnRunStart(std::span<const Operation> ops);
void OnRunEnd(std::span<const Operation> ops);
// After a group end (and its launch, if it was the outermost: `launched`).
void AfterGroupEnd(bool launched);

}  // namespace fake_nccl::profiler
