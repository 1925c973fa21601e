// CUDA_INJECTION64_PATH, honoured as the real driver honours it: on the first
// call that initialises CUDA in a process (the runtime's first call into
// cuInit), the library the variable names is dlopen'ed and its
// `int InitializeInjection(void)` called, once per process.
#pragma once

namespace fake_cudart {

// Call at the top of every API function that initialises the runtime. Cheap
// after the first call.
void InitializeOnce();

}  // namespace fake_cudart
