// A stand-in for a compiled Python extension module (vLLM's vllm/_C.abi3.so,
// Megatron's helpers): test_ray_titles.py copies it under such a path and
// retitle_worker loads it, since the path it is loaded from is all that
// tells a process's role.
extern "C" __attribute__((visibility("default"))) int role_extension_marker() { return 1; }
