// OpenCL devices as flamex sees them: what `flamex devices` lists, and what the
// `--device` option (BackendOptions::device, env FLAMEX_OPENCL_DEVICE) selects from.
// This header does not include the OpenCL headers; the host layer behind the OpenCL
// backends is opencl/host.hpp.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace flamex {

struct OpenClDeviceInfo {
    std::size_t index = 0;          // position in the flattened list of every platform's devices
    std::string platform;           // platform name
    std::string platform_version;
    std::string name;               // device name
    std::string vendor;
    std::string version;            // CL_DEVICE_VERSION
    std::string driver_version;
    std::string c_version;          // CL_DEVICE_OPENCL_C_VERSION
    std::string type;               // "CPU", "GPU", "accelerator" or "other"
    bool fp64 = false;              // cl_khr_fp64
    bool int64_atomics = false;     // cl_khr_int64_base_atomics
    unsigned compute_units = 0;
    std::uint64_t global_memory = 0;   // bytes
    std::uint64_t max_allocation = 0;  // bytes, CL_DEVICE_MAX_MEM_ALLOC_SIZE
    std::size_t max_work_group = 0;
    std::uint64_t local_memory = 0;    // bytes
};

// Every device of every platform, in the order selection by index uses. Throws
// flamex::Error when there is no OpenCL platform at all.
std::vector<OpenClDeviceInfo> opencl_devices();

// One line per device for a listing, e.g.
// "0: pthread-skylake (Portable Computing Language, OpenCL 3.0 PoCL ...) CPU, 2 compute units, 4.1 GiB, fp64 yes, int64 atomics yes"
std::string describe_device(const OpenClDeviceInfo& device);

} // namespace flamex
