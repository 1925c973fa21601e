// Command-line options of the simulated training program (sim_train).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace sim {

struct SimOptions {
  int steps = 20;
  int layers = 8;
  int bucket_layers = 2;         // layers per gradient bucket
  size_t bucket_elems = 262144;  // float32 elements per bucket
  uint64_t fwd_us = 300;
  uint64_t bwd_us = 600;
  int opt_kernels = 3;
  uint64_t opt_us = 100;
  int sync_every = 5;  // steps between weight broadcasts; 0: never
  size_t sync_elems = 1048576;
  int slow_rank = 3;  // -1: no straggler
  uint64_t slow_ms = 2;
  std::string log_dir;  // empty: no ground-truth logs
  // Bytes each rank copies to the next device after each step (cudaMemcpyPeerAsync); 0: none.
  size_t peer_copy_bytes = 0;
  // --graph-opt (a flag, no value): the optimizer's kernels are captured once into a CUDA graph
  // on a stream of their own and the graph is replayed on the compute stream each step
  // (cudaGraphLaunch), instead of the kernels being launched one by one.
  bool graph_opt = false;
  // Two eager steps, then one whole step (forward, backward, a fused optimizer) captured into a
  // CUDA graph and replayed --steps times, without NVTX ranges or collectives (trainer.cc,
  // RunGraphSteps).
  bool graph_step = false;
  // Milliseconds each rank waits before its first CUDA call: a program whose imports outlast
  // VPROF_STOP_AFTER_S starts CUDA after vprof's capture window has ended.
  uint64_t cuda_after_ms = 0;
  // Once trained, each rank forks a child that exits at once through exit(), as a data loader's
  // worker forked after CUDA started does: the rank fails unless the child exits 0.
  bool fork_child = false;
  // Each rank forks before any CUDA call and trains in the child, which exits through exit();
  // the parent waits and exits with the child's status, as vLLM's engine forks its workers.
  bool train_in_child = false;
  // Causes the ground-truth tests inject (tests/integration/test_ground_truth.py):
  // Float32 elements of a tensor-parallel all-reduce after each forward and each backward
  // layer, on a communicator of its own, on the compute stream; 0: none.
  size_t tp_elems = 0;
  // Float32 elements per rank of a sharded parameter all-gather before each forward layer, on
  // the world communicator and the compute stream; with it the gradient buckets are
  // reduce-scattered instead of all-reduced (sharded data parallel); 0: neither.
  size_t shard_elems = 0;
  // Microseconds the host sleeps before launching each forward and backward kernel (a program
  // whose host is slower than its GPU); 0: none.
  uint64_t launch_gap_us = 0;
  // The steps (from 1) that sleep launch_gap_us, the first so many; 0: every step. A program
  // whose first steps are slow (compilation, a cold cache) and whose later ones are not.
  int launch_gap_steps = 0;
  // cudaMalloc and cudaFree pairs of 1 MiB at the start of each step's forward; 0: none.
  int alloc_per_step = 0;
  // Milliseconds the slow rank's host sleeps at the start of each step, before forward (a data
  // loader that stalls): every collective of the step finds it late. 0: none.
  uint64_t late_start_ms = 0;
  // --late-buckets (a flag): every gradient bucket is handed to the all-reduce thread only
  // after the whole backward, in the same buckets and order (overlap turned off), instead of
  // as its last layer's gradients are ready.
  bool late_buckets = false;
  // Bytes each rank copies from the host to the device at the start of each step, before
  // forward (the batch's upload, cudaMemcpyAsync on the compute stream): from pageable memory,
  // or with --pinned-input (a flag) from pinned memory (cudaMallocHost), as a data loader with
  // pin_memory gives it. 0: none.
  size_t input_bytes = 0;
  bool pinned_input = false;

  int buckets() const { return (layers + bucket_layers - 1) / bucket_layers; }
};

// Prints the problem and the usage on stderr and returns false for an unknown option or a
// value out of range (or missing). Options take one value each, except the flags --graph-opt,
// --late-buckets, --pinned-input, --fork-child and --train-in-child.
bool ParseOptions(int argc, char** argv, SimOptions* options);

}  // namespace sim
