// The OpenCL host layer: errors, device enumeration and selection, contexts, launches.
#include "opencl/host.hpp"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>

namespace flamex {
namespace opencl {

// --- errors ---------------------------------------------------------------------

std::string error_name(cl_int code)
{
    switch (code) {
#define FLAMEX_CL_ERROR(name) \
    case name: return #name;
        FLAMEX_CL_ERROR(CL_SUCCESS)
        FLAMEX_CL_ERROR(CL_DEVICE_NOT_FOUND)
        FLAMEX_CL_ERROR(CL_DEVICE_NOT_AVAILABLE)
        FLAMEX_CL_ERROR(CL_COMPILER_NOT_AVAILABLE)
        FLAMEX_CL_ERROR(CL_MEM_OBJECT_ALLOCATION_FAILURE)
        FLAMEX_CL_ERROR(CL_OUT_OF_RESOURCES)
        FLAMEX_CL_ERROR(CL_OUT_OF_HOST_MEMORY)
        FLAMEX_CL_ERROR(CL_PROFILING_INFO_NOT_AVAILABLE)
        FLAMEX_CL_ERROR(CL_MEM_COPY_OVERLAP)
        FLAMEX_CL_ERROR(CL_IMAGE_FORMAT_MISMATCH)
        FLAMEX_CL_ERROR(CL_IMAGE_FORMAT_NOT_SUPPORTED)
        FLAMEX_CL_ERROR(CL_BUILD_PROGRAM_FAILURE)
        FLAMEX_CL_ERROR(CL_MAP_FAILURE)
        FLAMEX_CL_ERROR(CL_MISALIGNED_SUB_BUFFER_OFFSET)
        FLAMEX_CL_ERROR(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST)
        FLAMEX_CL_ERROR(CL_COMPILE_PROGRAM_FAILURE)
        FLAMEX_CL_ERROR(CL_LINKER_NOT_AVAILABLE)
        FLAMEX_CL_ERROR(CL_LINK_PROGRAM_FAILURE)
        FLAMEX_CL_ERROR(CL_DEVICE_PARTITION_FAILED)
        FLAMEX_CL_ERROR(CL_KERNEL_ARG_INFO_NOT_AVAILABLE)
        FLAMEX_CL_ERROR(CL_INVALID_VALUE)
        FLAMEX_CL_ERROR(CL_INVALID_DEVICE_TYPE)
        FLAMEX_CL_ERROR(CL_INVALID_PLATFORM)
        FLAMEX_CL_ERROR(CL_INVALID_DEVICE)
        FLAMEX_CL_ERROR(CL_INVALID_CONTEXT)
        FLAMEX_CL_ERROR(CL_INVALID_QUEUE_PROPERTIES)
        FLAMEX_CL_ERROR(CL_INVALID_COMMAND_QUEUE)
        FLAMEX_CL_ERROR(CL_INVALID_HOST_PTR)
        FLAMEX_CL_ERROR(CL_INVALID_MEM_OBJECT)
        FLAMEX_CL_ERROR(CL_INVALID_IMAGE_FORMAT_DESCRIPTOR)
        FLAMEX_CL_ERROR(CL_INVALID_IMAGE_SIZE)
        FLAMEX_CL_ERROR(CL_INVALID_SAMPLER)
        FLAMEX_CL_ERROR(CL_INVALID_BINARY)
        FLAMEX_CL_ERROR(CL_INVALID_BUILD_OPTIONS)
        FLAMEX_CL_ERROR(CL_INVALID_PROGRAM)
        FLAMEX_CL_ERROR(CL_INVALID_PROGRAM_EXECUTABLE)
        FLAMEX_CL_ERROR(CL_INVALID_KERNEL_NAME)
        FLAMEX_CL_ERROR(CL_INVALID_KERNEL_DEFINITION)
        FLAMEX_CL_ERROR(CL_INVALID_KERNEL)
        FLAMEX_CL_ERROR(CL_INVALID_ARG_INDEX)
        FLAMEX_CL_ERROR(CL_INVALID_ARG_VALUE)
        FLAMEX_CL_ERROR(CL_INVALID_ARG_SIZE)
        FLAMEX_CL_ERROR(CL_INVALID_KERNEL_ARGS)
        FLAMEX_CL_ERROR(CL_INVALID_WORK_DIMENSION)
        FLAMEX_CL_ERROR(CL_INVALID_WORK_GROUP_SIZE)
        FLAMEX_CL_ERROR(CL_INVALID_WORK_ITEM_SIZE)
        FLAMEX_CL_ERROR(CL_INVALID_GLOBAL_OFFSET)
        FLAMEX_CL_ERROR(CL_INVALID_EVENT_WAIT_LIST)
        FLAMEX_CL_ERROR(CL_INVALID_EVENT)
        FLAMEX_CL_ERROR(CL_INVALID_OPERATION)
        FLAMEX_CL_ERROR(CL_INVALID_GL_OBJECT)
        FLAMEX_CL_ERROR(CL_INVALID_BUFFER_SIZE)
        FLAMEX_CL_ERROR(CL_INVALID_MIP_LEVEL)
        FLAMEX_CL_ERROR(CL_INVALID_GLOBAL_WORK_SIZE)
        FLAMEX_CL_ERROR(CL_INVALID_PROPERTY)
        FLAMEX_CL_ERROR(CL_INVALID_IMAGE_DESCRIPTOR)
        FLAMEX_CL_ERROR(CL_INVALID_COMPILER_OPTIONS)
        FLAMEX_CL_ERROR(CL_INVALID_LINKER_OPTIONS)
        FLAMEX_CL_ERROR(CL_INVALID_DEVICE_PARTITION_COUNT)
#undef FLAMEX_CL_ERROR
    case -1001: return "CL_PLATFORM_NOT_FOUND_KHR";
    default: return "CL error " + std::to_string(code);
    }
}

void fail(const std::string& what, cl_int code)
{
    throw Error("opencl: " + what + ": " + error_name(code) + " (" + std::to_string(code) + ")");
}

bool is_allocation_error(cl_int code)
{
    return code == CL_MEM_OBJECT_ALLOCATION_FAILURE || code == CL_OUT_OF_RESOURCES ||
           code == CL_OUT_OF_HOST_MEMORY || code == CL_INVALID_BUFFER_SIZE;
}

std::string describe_bytes(std::uint64_t bytes)
{
    static const char* const units[] = {"bytes", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    double v = static_cast<double>(bytes);
    int u = 0;
    while (v >= 1024.0 && u < 6) {
        v /= 1024.0;
        ++u;
    }
    char text[64];
    if (u == 0)
        std::snprintf(text, sizeof text, "%llu bytes", static_cast<unsigned long long>(bytes));
    else
        std::snprintf(text, sizeof text, "%.1f %s (%llu bytes)", v, units[u], static_cast<unsigned long long>(bytes));
    return text;
}

void allocation_failure(std::uint64_t bytes, const std::string& device, cl_int code)
{
    throw Error("opencl: out of device memory on '" + device + "': could not allocate " + describe_bytes(bytes) +
                " (" + error_name(code) + ")");
}

// --- devices --------------------------------------------------------------------

namespace {

template <cl_int Name, class Handle>
auto info_of(const Handle& handle)
{
    cl_int err = CL_SUCCESS;
    auto value = handle.template getInfo<Name>(&err);
    check(err, "querying device information");
    return value;
}

// OpenCL strings may carry their terminating NUL; drop it and surrounding blanks.
std::string clean(std::string s)
{
    while (!s.empty() && (s.back() == '\0' || std::isspace(static_cast<unsigned char>(s.back())))) s.pop_back();
    std::size_t b = 0;
    while (b < s.size() && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
    return s.substr(b);
}

bool has_extension(const std::string& extensions, const std::string& name)
{
    std::size_t at = 0;
    while ((at = extensions.find(name, at)) != std::string::npos) {
        const std::size_t end = at + name.size();
        const bool starts = at == 0 || extensions[at - 1] == ' ';
        const bool ends = end == extensions.size() || extensions[end] == ' ' || extensions[end] == '\0';
        if (starts && ends) return true;
        at = end;
    }
    return false;
}

std::string lower(std::string s)
{
    for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
}

std::string device_list(const std::vector<OpenClDeviceInfo>& devices)
{
    if (devices.empty()) return "none";
    std::string list;
    for (const OpenClDeviceInfo& d : devices)
        list += (list.empty() ? "" : "; ") + std::to_string(d.index) + ": " + d.name;
    return list;
}

bool meets(const OpenClDeviceInfo& d, const Requirements& r)
{
    return (!r.fp64 || d.fp64) && (!r.int64_atomics || d.int64_atomics);
}

} // namespace

std::vector<DeviceHandle> enumerate_devices()
{
    std::vector<cl::Platform> platforms;
    const cl_int err = cl::Platform::get(&platforms);
    if (err == -1001 /* CL_PLATFORM_NOT_FOUND_KHR */ || (err == CL_SUCCESS && platforms.empty()))
        throw Error("opencl: no OpenCL platform found: the ICD loader found no driver (install one, e.g. Debian's "
                    "pocl-opencl-icd for the CPU, and check /etc/OpenCL/vendors or OCL_ICD_VENDORS)");
    check(err, "listing OpenCL platforms");

    std::vector<DeviceHandle> all;
    for (const cl::Platform& platform : platforms) {
        std::vector<cl::Device> devices;
        const cl_int derr = platform.getDevices(CL_DEVICE_TYPE_ALL, &devices);
        if (derr == CL_DEVICE_NOT_FOUND) continue;
        check(derr, "listing the devices of an OpenCL platform");
        for (const cl::Device& device : devices) {
            OpenClDeviceInfo d;
            d.index = all.size();
            d.platform = clean(info_of<CL_PLATFORM_NAME>(platform));
            d.platform_version = clean(info_of<CL_PLATFORM_VERSION>(platform));
            d.name = clean(info_of<CL_DEVICE_NAME>(device));
            d.vendor = clean(info_of<CL_DEVICE_VENDOR>(device));
            d.version = clean(info_of<CL_DEVICE_VERSION>(device));
            d.driver_version = clean(info_of<CL_DRIVER_VERSION>(device));
            d.c_version = clean(info_of<CL_DEVICE_OPENCL_C_VERSION>(device));
            const cl_device_type type = info_of<CL_DEVICE_TYPE>(device);
            d.type = (type & CL_DEVICE_TYPE_GPU) ? "GPU"
                     : (type & CL_DEVICE_TYPE_CPU) ? "CPU"
                     : (type & CL_DEVICE_TYPE_ACCELERATOR) ? "accelerator"
                                                           : "other";
            const std::string extensions = info_of<CL_DEVICE_EXTENSIONS>(device);
            d.fp64 = has_extension(extensions, "cl_khr_fp64");
            d.int64_atomics = has_extension(extensions, "cl_khr_int64_base_atomics");
            d.compute_units = info_of<CL_DEVICE_MAX_COMPUTE_UNITS>(device);
            d.global_memory = info_of<CL_DEVICE_GLOBAL_MEM_SIZE>(device);
            d.max_allocation = info_of<CL_DEVICE_MAX_MEM_ALLOC_SIZE>(device);
            d.max_work_group = info_of<CL_DEVICE_MAX_WORK_GROUP_SIZE>(device);
            d.local_memory = info_of<CL_DEVICE_LOCAL_MEM_SIZE>(device);
            all.push_back({platform, device, d});
        }
    }
    return all;
}

void check_requirements(const OpenClDeviceInfo& device, const Requirements& requirements)
{
    if (requirements.fp64 && !device.fp64)
        throw Error("opencl: device " + std::to_string(device.index) + " '" + device.name +
                    "' has no double precision (cl_khr_fp64), which every flamex kernel needs");
    if (requirements.int64_atomics && !device.int64_atomics)
        throw Error("opencl: device " + std::to_string(device.index) + " '" + device.name +
                    "' has no 64-bit atomics (cl_khr_int64_base_atomics), which the exact OpenCL kernels need");
}

std::string device_selection(const std::string& option)
{
    if (!option.empty()) return option;
    const char* env = std::getenv("FLAMEX_OPENCL_DEVICE");
    return env != nullptr ? env : "";
}

std::size_t select_device(const std::vector<OpenClDeviceInfo>& devices, const std::string& selection,
                          const Requirements& requirements)
{
    const std::string wanted = clean(selection);
    if (devices.empty()) throw Error("opencl: the OpenCL platforms offer no device");
    if (wanted.empty()) {
        for (const OpenClDeviceInfo& d : devices)
            if (d.type != "CPU" && d.type != "other" && meets(d, requirements)) return d.index;
        for (const OpenClDeviceInfo& d : devices)
            if (meets(d, requirements)) return d.index;
        check_requirements(devices.front(), requirements); // throws, naming what is missing
        throw Error("opencl: no OpenCL device meets the requirements (devices: " + device_list(devices) + ")");
    }
    if (std::all_of(wanted.begin(), wanted.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); })) {
        const unsigned long long index = wanted.size() > 18 ? ~0ULL : std::stoull(wanted);
        if (index >= devices.size())
            throw Error("opencl: no OpenCL device with index " + wanted + " (devices: " + device_list(devices) + ")");
        check_requirements(devices[index], requirements);
        return static_cast<std::size_t>(index);
    }
    const std::string key = lower(wanted);
    const OpenClDeviceInfo* first = nullptr;
    for (const OpenClDeviceInfo& d : devices) {
        if (lower(d.name).find(key) == std::string::npos) continue;
        if (meets(d, requirements)) return d.index;
        if (first == nullptr) first = &d;
    }
    if (first == nullptr)
        throw Error("opencl: no OpenCL device matches '" + wanted + "' (devices: " + device_list(devices) +
                    "); select by index or by part of the name");
    check_requirements(*first, requirements);
    throw Error("opencl: device '" + first->name + "' does not meet the requirements");
}

// --- the context ------------------------------------------------------------------

Context::Context(DeviceHandle device, std::string cache_dir) : device_(std::move(device)), cache_dir_(std::move(cache_dir))
{
    cl_int err = CL_SUCCESS;
    context_ = cl::Context(device_.device, nullptr, nullptr, nullptr, &err);
    if (err != CL_SUCCESS) fail("creating a context on '" + device_.info.name + "'", err);
    queue_ = cl::CommandQueue(context_, device_.device, 0, &err);
    if (err != CL_SUCCESS) fail("creating a command queue on '" + device_.info.name + "'", err);
}

namespace {
DeviceHandle pick(const std::string& selection, const Requirements& requirements)
{
    std::vector<DeviceHandle> handles = enumerate_devices();
    std::vector<OpenClDeviceInfo> infos;
    for (const DeviceHandle& h : handles) infos.push_back(h.info);
    return handles[select_device(infos, device_selection(selection), requirements)];
}
} // namespace

std::shared_ptr<Context> Context::shared(const std::string& selection, const Requirements& requirements)
{
    // Never destroyed: releasing OpenCL objects from static destructors races the
    // drivers' own teardown at exit.
    static std::mutex* mutex = new std::mutex;
    static auto* contexts = new std::map<cl_device_id, std::shared_ptr<Context>>;
    DeviceHandle device = pick(selection, requirements);
    std::lock_guard<std::mutex> lock(*mutex);
    std::shared_ptr<Context>& slot = (*contexts)[device.device()];
    if (!slot) slot = std::make_shared<Context>(std::move(device), program_cache_dir());
    return slot;
}

std::shared_ptr<Context> Context::create(const std::string& selection, const Requirements& requirements,
                                         const std::string& cache_dir)
{
    return std::make_shared<Context>(pick(selection, requirements), cache_dir);
}

namespace {
struct Allocation {
    std::shared_ptr<std::atomic<std::uint64_t>> in_use;
    std::uint64_t bytes;
};

void CL_CALLBACK buffer_released(cl_mem, void* data)
{
    auto* a = static_cast<Allocation*>(data);
    *a->in_use -= a->bytes;
    delete a;
}
} // namespace

cl::Buffer Context::allocate(std::uint64_t bytes) const
{
    const std::string device = "out of device memory on '" + info().name + "': could not allocate " + describe_bytes(bytes);
    if (bytes > info().max_allocation)
        throw Error("opencl: " + device + ", more than the device's largest allocation of " +
                    describe_bytes(info().max_allocation));
    const std::uint64_t size = bytes == 0 ? 8 : bytes, in_use = in_use_->load();
    if (in_use + size > info().global_memory)
        throw Error("opencl: " + device + " with " + describe_bytes(in_use) + " already in use, of " +
                    describe_bytes(info().global_memory));
    cl_int err = CL_SUCCESS;
    cl::Buffer buffer(context_, CL_MEM_READ_WRITE, static_cast<std::size_t>(size), nullptr, &err);
    if (is_allocation_error(err)) allocation_failure(bytes, info().name, err);
    check(err, "allocating device memory");
    auto* record = new Allocation{in_use_, size};
    err = ::clSetMemObjectDestructorCallback(buffer(), buffer_released, record);
    if (err != CL_SUCCESS) {
        delete record;
        fail("registering a buffer's release", err);
    }
    *in_use_ += size;
    return buffer;
}

void Context::write(const cl::Buffer& buffer, std::uint64_t offset, std::uint64_t bytes, const void* host) const
{
    if (bytes == 0) return;
    const cl_int err = queue_.enqueueWriteBuffer(buffer, CL_TRUE, static_cast<std::size_t>(offset),
                                                 static_cast<std::size_t>(bytes), host);
    if (is_allocation_error(err)) allocation_failure(bytes, info().name, err);
    check(err, "uploading to the device");
}

void Context::read(const cl::Buffer& buffer, std::uint64_t offset, std::uint64_t bytes, void* host) const
{
    if (bytes == 0) return;
    const cl_int err = queue_.enqueueReadBuffer(buffer, CL_TRUE, static_cast<std::size_t>(offset),
                                                static_cast<std::size_t>(bytes), host);
    if (is_allocation_error(err)) allocation_failure(bytes, info().name, err);
    check(err, "downloading from the device");
}

void Context::finish() const { check(queue_.finish(), "waiting for the device"); }

// --- launches -----------------------------------------------------------------------

namespace detail {

namespace {
std::string kernel_name(const cl::Kernel& kernel)
{
    cl_int err = CL_SUCCESS;
    std::string name = kernel.getInfo<CL_KERNEL_FUNCTION_NAME>(&err);
    return err == CL_SUCCESS ? clean(name) : std::string("?");
}
} // namespace

void set_arg(cl::Kernel& kernel, cl_uint index, std::size_t size, const void* value)
{
    const cl_int err = ::clSetKernelArg(kernel(), index, size, value);
    if (err != CL_SUCCESS) fail("setting argument " + std::to_string(index) + " of kernel " + kernel_name(kernel), err);
}

void enqueue(const Context& context, cl::Kernel& kernel, const cl::NDRange& global, const cl::NDRange& local)
{
    // The standard makes a work-group larger than the kernel's CL_KERNEL_WORK_GROUP_SIZE
    // an error, but NVIDIA's driver (seen on an H100) returned CL_SUCCESS for one:
    // refuse it here, on every device alike (the query is a host-side lookup, 7 ns on
    // PoCL, against microseconds a launch).
    std::size_t group = 1;
    for (cl_uint d = 0; d < local.dimensions(); ++d) group *= local.get()[d];
    if (const std::size_t most = kernel_max_work_group(context, kernel); local.dimensions() > 0 && group > most)
        throw Error("opencl: launching kernel " + kernel_name(kernel) + ": " + error_name(CL_INVALID_WORK_GROUP_SIZE) +
                    " (a work-group of " + std::to_string(group) + " work-items; kernel " + kernel_name(kernel) +
                    " allows at most " + std::to_string(most) + " on '" + context.info().name + "')");
    const cl_int err = context.queue().enqueueNDRangeKernel(kernel, cl::NullRange, global, local);
    if (is_allocation_error(err) && err != CL_INVALID_BUFFER_SIZE)
        throw Error("opencl: out of device resources on '" + context.info().name + "' launching kernel " +
                    kernel_name(kernel) + " (" + error_name(err) + ")");
    if (err != CL_SUCCESS) fail("launching kernel " + kernel_name(kernel), err);
}

} // namespace detail

std::size_t kernel_max_work_group(const Context& context, const cl::Kernel& kernel)
{
    cl_int err = CL_SUCCESS;
    const std::size_t n = kernel.getWorkGroupInfo<CL_KERNEL_WORK_GROUP_SIZE>(context.device(), &err);
    check(err, "querying a kernel's work-group size");
    return n == 0 ? 1 : n;
}

} // namespace opencl

// --- the public listing -----------------------------------------------------------------

std::vector<OpenClDeviceInfo> opencl_devices()
{
    std::vector<OpenClDeviceInfo> list;
    for (const opencl::DeviceHandle& h : opencl::enumerate_devices()) list.push_back(h.info);
    return list;
}

std::string describe_device(const OpenClDeviceInfo& d)
{
    char memory[32];
    std::snprintf(memory, sizeof memory, "%.1f GiB", static_cast<double>(d.global_memory) / (1024.0 * 1024.0 * 1024.0));
    return std::to_string(d.index) + ": " + d.name + " (" + d.platform + ", " + d.version + ", driver " +
           d.driver_version + ") " + d.type + ", " + std::to_string(d.compute_units) + " compute units, " + memory +
           ", fp64 " + (d.fp64 ? "yes" : "no") + ", int64 atomics " + (d.int64_atomics ? "yes" : "no");
}

} // namespace flamex
