// Finding the real implementation of a function vprof interposes.
//
// On real PyTorch, libnccl is a dependency of libtorch_cuda, loaded inside
// Python's RTLD_LOCAL extension scope, so dlsym(RTLD_NEXT, ...) finds nothing
// there (a naive wrapper segfaulted every rank). The order tried:
//   1. dlsym(RTLD_NEXT, name): the next definition in the global scope (also
//      the right answer when another interposer sits after vprof);
//   2. dlsym(RTLD_DEFAULT, "p" + name): NCCL's own pncclX aliases, which no
//      interposer defines;
//   3. every object loaded after vprof (dl_iterate_phdr order), opened with
//      RTLD_NOLOAD, asked for name and then "p" + name, and accepted only if
//      the object itself defines it. Objects before vprof (the executable,
//      earlier preloads) are skipped: an interposer loaded first calls vprof
//      through its own RTLD_NEXT, and calling it back would recurse.
// Never returns an address inside vprof itself. Never loads a library.
#pragma once

namespace vprof {

void* ResolveRealSymbol(const char* name);

// True when addr lies inside the object vprof was loaded from.
bool IsOwnAddress(const void* addr);

}  // namespace vprof
