// The trace schema's messages and enums (schema/vprof_trace.proto) that
// widely included reporter headers name without needing their layout: held
// through a pointer, passed by reference, or an enum in an optional. Such a
// header includes this rather than vprof_trace.pb.h, whose parse alone costs
// each translation unit about 1.5 s; the files that read the messages include
// vprof_trace.pb.h themselves.
#pragma once

namespace vprof::trace {

class GpuCaptureStatus;
class GpuGraphNodes;
class GpuMemoryOp;
class InjectionStatus;
class LaunchCostCalibration;
enum EndReason : int;  // as protoc declares it, so this is the same enum

}  // namespace vprof::trace
