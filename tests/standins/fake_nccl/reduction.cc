#include "reduction.h"

#include <algorithm>
#include <cstdint>
#include <type_traits>

namespace fake_nccl {
namespace {

// Calls fn with a value of the C++ type that stores `type`.
template <typename Fn>
void WithType(ncclDataType_t type, Fn&& fn) {
  switch (type) {
    case ncclInt8:
      return fn(int8_t{});
    case ncclUint8:
      return fn(uint8_t{});
    case ncclInt32:
      return fn(int32_t{});
    case ncclUint32:
      return fn(uint32_t{});
    case ncclInt64:
      return fn(int64_t{});
    case ncclUint64:
      return fn(uint64_t{});
    case ncclFloat16:
      return fn(__half{});
    case ncclFloat32:
      return fn(float{});
    case ncclFloat64:
      return fn(double{});
    case ncclBfloat16:
      return fn(__nv_bfloat16{});
    case ncclFloat8e4m3:
      return fn(__nv_fp8_e4m3{});
    case ncclFloat8e5m2:
      return fn(__nv_fp8_e5m2{});
    case ncclNumTypes:
      break;
  }
}

// Narrow floating-point types are computed in float, everything else in its own type.
template <typename T>
using MathType = std::conditional_t<std::is_arithmetic_v<T>, T, float>;

// Applies dst[i] = f(src[i], dst[i]) computed in MathType<T>. Reductions are most of the
// stand-in's CPU time; the library is built at -O3 so this loop is vectorized.
template <typename T, typename F>
void Transform(void* dst, const void* src, size_t count, F f) {
  T* __restrict out = static_cast<T*>(dst);
  const T* __restrict in = static_cast<const T*>(src);
  for (size_t i = 0; i < count; ++i) {
    out[i] = static_cast<T>(f(static_cast<MathType<T>>(in[i]), static_cast<MathType<T>>(out[i])));
  }
}

}  // namespace

bool IsValidType(ncclDataType_t type) { return type >= ncclInt8 && type < ncclNumTypes; }

size_t TypeSize(ncclDataType_t type) {
  size_t size = 0;
  WithType(type, [&](auto value) { size = sizeof value; });
  return size;
}

void CopyScaled(void* dst, const void* src, size_t count, ncclDataType_t type, const void* scalar) {
  WithType(type, [&](auto tag) {
    using T = decltype(tag);
    const auto factor = static_cast<MathType<T>>(*static_cast<const T*>(scalar));
    Transform<T>(dst, src, count, [factor](auto in, auto) { return in * factor; });
  });
}

void Accumulate(void* acc, const void* in, size_t count, ncclDataType_t type, ncclRedOp_t op) {
  WithType(type, [&](auto tag) {
    using T = decltype(tag);
    switch (op) {
      case ncclProd:
        return Transform<T>(acc, in, count, [](auto x, auto a) { return a * x; });
      case ncclMax:
        return Transform<T>(acc, in, count, [](auto x, auto a) { return std::max(a, x); });
      case ncclMin:
        return Transform<T>(acc, in, count, [](auto x, auto a) { return std::min(a, x); });
      default:
        return Transform<T>(acc, in, count, [](auto x, auto a) { return a + x; });
    }
  });
}

void Divide(void* data, size_t count, ncclDataType_t type, int divisor) {
  WithType(type, [&](auto tag) {
    using T = decltype(tag);
    const auto d = static_cast<MathType<T>>(divisor);
    // In place: source and destination are the same buffer, so no __restrict here.
    T* values = static_cast<T*>(data);
    for (size_t i = 0; i < count; ++i) {
      values[i] = static_cast<T>(static_cast<MathType<T>>(values[i]) / d);
    }
  });
}

}  // namespace fake_nccl
