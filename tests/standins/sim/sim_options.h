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
  // Milliseconds each rank waits before its first CUDA call: a program whose imports outlast
  // VPROF_STOP_AFTER_S starts CUDA after vprof's capture window has ended.
  uint64_t cuda_after_ms = 0;
  // Once trained, each rank forks a child that exits at once through exit(), as a data loader's
  // worker forked after CUDA started does: the rank fails unless the child exits 0.
  bool fork_child = false;
  // Each rank forks before any CUDA call and trains in the child, which exits through exit();
  // the parent waits and exits with the child's status, as vLLM's engine forks its workers.
  bool train_in_child = false;

  int buckets() const { return (layers + bucket_layers - 1) / bucket_layers; }
};

// Prints the problem and the usage on stderr and returns false for an unknown option or a
// value out of range (or missing). Options take one value each, except the flag --graph-opt.
bool ParseOptions(int argc, char** argv, SimOptions* options);

}  // namespace sim
