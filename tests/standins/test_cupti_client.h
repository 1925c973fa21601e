// A CUPTI client for the fake libcupti.so.13's tests: a clock of its own, buffers it hands to
// CUPTI and keeps once completed, and the records of one kind found in them.
#pragma once

#include <cupti.h>

#include <catch2/catch.hpp>
#include <cstdint>
#include <cstdlib>
#include <vector>

#include "monotonic_clock.h"

namespace cupti_test {

// The client's clock: far from CLOCK_MONOTONIC, so converted times are recognisable.
inline constexpr uint64_t kClientOffsetNs = 1'000'000'000'000;
inline uint64_t CUPTIAPI ClientClock() { return standins::MonotonicNs() + kClientOffsetNs; }

inline constexpr size_t kBufferBytes = 1 << 16;
inline std::vector<std::vector<uint8_t>> g_completed;  // valid bytes of each completed buffer
inline bool g_give_no_buffer = false;

inline void CUPTIAPI BufferRequested(uint8_t** buffer, size_t* size, size_t* max_records) {
  *buffer = g_give_no_buffer ? nullptr : static_cast<uint8_t*>(std::aligned_alloc(8, kBufferBytes));
  *size = g_give_no_buffer ? 0 : kBufferBytes;
  *max_records = 0;
}

inline void CUPTIAPI BufferCompleted(CUcontext, uint32_t, uint8_t* buffer, size_t, size_t valid) {
  g_completed.emplace_back(buffer, buffer + valid);
  std::free(buffer);
}

// Copies every record out of the completed buffers, walking them with cuptiActivityGetNextRecord.
template <typename Record>
std::vector<Record> RecordsOfKind(CUpti_ActivityKind kind) {
  std::vector<Record> out;
  for (std::vector<uint8_t>& buffer : g_completed) {
    CUpti_Activity* record = nullptr;
    CUptiResult r;
    while ((r = cuptiActivityGetNextRecord(buffer.data(), buffer.size(), &record)) ==
           CUPTI_SUCCESS) {
      if (record->kind == kind) out.push_back(*reinterpret_cast<const Record*>(record));
    }
    REQUIRE(r == CUPTI_ERROR_MAX_LIMIT_REACHED);
  }
  return out;
}

}  // namespace cupti_test
