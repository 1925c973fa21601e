// sim_train: the simulated training program's executable. Like the Python interpreter running
// PyTorch, it does not link NCCL or the CUDA runtime itself: it dlopens libsim_model.so (found
// next to this executable) with RTLD_LOCAL, so libnccl.so.2 is loaded into a local scope where
// dlsym(RTLD_NEXT, "ncclAllReduce") from a preloaded library cannot find it.
#include <dlfcn.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <string>

int main(int argc, char** argv) {
  std::error_code error;
  const std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", error);
  if (error) {
    std::fprintf(stderr, "sim_train: cannot resolve /proc/self/exe: %s\n", error.message().c_str());
    return 1;
  }
  const std::string model = (exe.parent_path() / "libsim_model.so").string();
  // Never dlclosed: the fake CUDA runtime's stream workers run until the process exits.
  void* handle = dlopen(model.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    std::fprintf(stderr, "sim_train: %s\n", dlerror());
    return 1;
  }
  using SimMain = int (*)(int, char**);
  const auto sim_main = reinterpret_cast<SimMain>(dlsym(handle, "sim_main"));
  if (sim_main == nullptr) {
    std::fprintf(stderr, "sim_train: %s\n", dlerror());
    return 1;
  }
  const int status = sim_main(argc, argv);
  std::fflush(stdout);
  return status;
}
