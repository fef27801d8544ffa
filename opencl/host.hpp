// The OpenCL host layer under everything flamex runs on a device: the OpenCL BLAS
// backends (blas/opencl/: opencl-plain and the exact `opencl`, which also share
// blas/opencl/elementwise.hpp) and the batched solvers (batched/opencl_batched.cpp). Four pieces:
//
//   Context       one per device per process (Context::shared): the cl::Context, an
//                 in-order queue, and the programs compiled for it;
//   Program       a program built once per context and cached on disk, keyed by a
//                 hash of source + options + device + driver (a second run loads the
//                 binary; a corrupt entry is ignored and rebuilt);
//   DeviceMemory  the residency map: a FLAME object acquired by a backend lives in
//                 one device buffer until its last release; views become (buffer,
//                 element offset, strides); operands whose base is not acquired get
//                 a temporary residency for one operation (Binding);
//   launch()      sets a kernel's arguments in order and enqueues it.
//
// Every failure is a flamex::Error whose message starts with "opencl: ".
// Kernel sources live in kernels/NAME.cl and are embedded in the library at build
// time (embedded_source("NAME"), with `#include "OTHER.cl"` and `#include "OTHER.h"`
// lines expanded: the kernels both backends use are in kernels/elementwise.cl, the
// C-subset headers the kernels share with the host code are kernels/*.h). Context is
// thread-safe; a DeviceMemory and the cl::Kernel objects belong to one backend
// object (kernel arguments are state).
//
// A backend (see blas/opencl/plain_backend.cpp):
//   auto context = Context::shared(options.device, {true, /*int64_atomics*/ true});
//   auto program = context->program("exact", embedded_source("exact"));
//   cl::Kernel k = program->kernel("dot_partial");
//   DeviceMemory memory(context);              // acquire / release / element forward here
//   auto b = memory.bind({{x, Access::Read}, {y, Access::ReadWrite}});
//   launch(*context, k, cl::NDRange(groups * wg), cl::NDRange(wg),
//          cl_long(n), b[0].buffer, b[0].offset, b[0].inc, b[1].buffer, b[1].offset, b[1].inc);
//   b.commit();                                // downloads y if it was a temporary
#pragma once

#ifndef CL_HPP_TARGET_OPENCL_VERSION
#define CL_HPP_TARGET_OPENCL_VERSION 120
#endif
#ifndef CL_HPP_MINIMUM_OPENCL_VERSION
#define CL_HPP_MINIMUM_OPENCL_VERSION 120
#endif
#include <CL/opencl.hpp>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "opencl/devices.hpp"
#include "flame/flame.hpp"

namespace flamex::opencl {

// --- errors ---------------------------------------------------------------------

// "CL_OUT_OF_RESOURCES" etc.; "CL error N" for codes it does not know.
std::string error_name(cl_int code);
// Throws flamex::Error("opencl: <what>: <error name> (<code>)").
[[noreturn]] void fail(const std::string& what, cl_int code);
inline void check(cl_int code, const char* what)
{
    if (code != CL_SUCCESS) fail(what, code);
}
// CL_MEM_OBJECT_ALLOCATION_FAILURE, CL_OUT_OF_RESOURCES, CL_OUT_OF_HOST_MEMORY,
// CL_INVALID_BUFFER_SIZE: what a device says when memory runs out.
bool is_allocation_error(cl_int code);
// Throws the out-of-memory error naming the size requested and the device.
[[noreturn]] void allocation_failure(std::uint64_t bytes, const std::string& device, cl_int code);
// "8.0 MiB (8388608 bytes)"
std::string describe_bytes(std::uint64_t bytes);

// --- devices --------------------------------------------------------------------

// What a backend needs of a device; checked when a context is requested.
struct Requirements {
    bool fp64 = true;           // every flamex kernel computes in double
    bool int64_atomics = false; // the exact kernels' accumulators (cl_khr_int64_base_atomics)
};

struct DeviceHandle {
    cl::Platform platform;
    cl::Device device;
    OpenClDeviceInfo info;
};

// Every device of every platform (opencl_devices() with the handles). Throws when
// the ICD loader finds no platform.
std::vector<DeviceHandle> enumerate_devices();
// Throws flamex::Error naming the device and the missing extension.
void check_requirements(const OpenClDeviceInfo& device, const Requirements& requirements);
// The selection actually used: `option` if non-empty, else FLAMEX_OPENCL_DEVICE, else "".
std::string device_selection(const std::string& option);
// The index into `devices` that `selection` picks: all digits = index in the list;
// otherwise the first device whose name contains it (case-insensitive) and meets the
// requirements; empty = the first GPU or accelerator meeting them, else the first
// device meeting them. Throws when nothing matches or the match lacks a requirement.
std::size_t select_device(const std::vector<OpenClDeviceInfo>& devices, const std::string& selection,
                          const Requirements& requirements);

// --- the program cache ------------------------------------------------------------

// FLAMEX_OPENCL_CACHE if set ("" or "off" disables the cache), else
// $XDG_CACHE_HOME/flamex, else $HOME/.cache/flamex, else "" (no cache).
std::string program_cache_dir();

// Process-wide counters, for tests and diagnostics.
struct ProgramCacheStats {
    std::uint64_t built = 0;    // programs compiled from source
    std::uint64_t loaded = 0;   // programs loaded from a cached binary
    std::uint64_t rejected = 0; // cache entries found but unusable (corrupt, stale), then rebuilt
    std::uint64_t stored = 0;   // binaries written to the cache
};
ProgramCacheStats program_cache_stats();

// The options every flamex program is built with (standard OpenCL C 1.2, no
// relaxed math).
inline const char* const kDefaultBuildOptions = "-cl-std=CL1.2";

class Program {
public:
    enum class Origin { Source, DiskCache };

    const cl::Program& get() const { return program_; }
    Origin origin() const { return origin_; }
    const std::string& name() const { return name_; }
    // The cache file this program was stored to or loaded from ("" without a cache).
    const std::string& cache_file() const { return cache_file_; }
    // A new kernel object (kernel objects are not thread-safe: one per user).
    cl::Kernel kernel(const char* kernel_name) const;

    Program(std::string name, cl::Program program, Origin origin, std::string cache_file)
        : name_(std::move(name)), program_(std::move(program)), origin_(origin), cache_file_(std::move(cache_file)) {}

private:
    std::string name_;
    cl::Program program_;
    Origin origin_;
    std::string cache_file_;
};

// --- the context ------------------------------------------------------------------

class Context {
public:
    // The process-wide context of the device `selection` picks (see device_selection
    // and select_device); created on first use, then reused.
    static std::shared_ptr<Context> shared(const std::string& selection, const Requirements& requirements = {});
    // A new context, not shared: for tests of the program cache (cache_dir "" = none).
    static std::shared_ptr<Context> create(const std::string& selection, const Requirements& requirements,
                                           const std::string& cache_dir);

    const OpenClDeviceInfo& info() const { return device_.info; }
    const cl::Context& context() const { return context_; }
    const cl::Device& device() const { return device_.device; }
    const cl::CommandQueue& queue() const { return queue_; }
    const std::string& cache_dir() const { return cache_dir_; }

    // The program `name` built from `source` with `options`: compiled once per
    // context, loaded from the disk cache when a valid entry exists. A build failure
    // throws flamex::Error carrying the whole build log.
    std::shared_ptr<const Program> program(const std::string& name, const std::string& source,
                                           const std::string& options = kDefaultBuildOptions);

    // Device memory; allocation failures throw the out-of-memory error, and so does
    // a request that would take the buffers alive on this context past the device's
    // global memory (drivers such as PoCL overcommit and would fail later, or never).
    cl::Buffer allocate(std::uint64_t bytes) const;
    // Bytes in buffers allocated here and not yet released.
    std::uint64_t bytes_in_use() const { return in_use_->load(); }
    // Blocking transfers between host memory and a buffer (byte offsets).
    void write(const cl::Buffer& buffer, std::uint64_t offset, std::uint64_t bytes, const void* host) const;
    void read(const cl::Buffer& buffer, std::uint64_t offset, std::uint64_t bytes, void* host) const;
    void finish() const;

    Context(DeviceHandle device, std::string cache_dir);
    Context(const Context&) = delete;
    Context& operator=(const Context&) = delete;

private:
    std::shared_ptr<const Program> build(const std::string& name, const std::string& source, const std::string& options);

    DeviceHandle device_;
    cl::Context context_;
    cl::CommandQueue queue_;
    std::string cache_dir_;
    std::mutex mutex_;
    std::map<std::string, std::shared_ptr<const Program>> programs_;
    // Shared with the buffers' destructor callbacks, which may outlive the context.
    std::shared_ptr<std::atomic<std::uint64_t>> in_use_ = std::make_shared<std::atomic<std::uint64_t>>(0);
};

// kernels/NAME.cl as embedded at build time, each line `#include "OTHER.cl"` in it
// replaced by kernels/OTHER.cl (expanded the same way); throws for an unknown name.
const std::string& embedded_source(const std::string& name);

// --- kernel launches ----------------------------------------------------------------

namespace detail {
void set_arg(cl::Kernel& kernel, cl_uint index, std::size_t size, const void* value);
inline void set_one(cl::Kernel& kernel, cl_uint index, const cl::Buffer& b)
{
    const cl_mem m = b();
    set_arg(kernel, index, sizeof(cl_mem), &m);
}
inline void set_one(cl::Kernel& kernel, cl_uint index, const cl::LocalSpaceArg& local)
{
    set_arg(kernel, index, local.size_, nullptr);
}
inline void set_one(cl::Kernel& kernel, cl_uint index, cl_long v) { set_arg(kernel, index, sizeof v, &v); }
inline void set_one(cl::Kernel& kernel, cl_uint index, cl_int v) { set_arg(kernel, index, sizeof v, &v); }
inline void set_one(cl::Kernel& kernel, cl_uint index, cl_double v) { set_arg(kernel, index, sizeof v, &v); }
void enqueue(const Context& context, cl::Kernel& kernel, const cl::NDRange& global, const cl::NDRange& local);
} // namespace detail

// Sets the kernel's arguments in order (cl_long, cl_int, cl_double, cl::Buffer or
// cl::Local(bytes): pass exactly these types) and enqueues it on the context's queue.
template <class... Args>
void launch(const Context& context, cl::Kernel& kernel, const cl::NDRange& global, const cl::NDRange& local,
            const Args&... args)
{
    cl_uint index = 0;
    (detail::set_one(kernel, index++, args), ...);
    detail::enqueue(context, kernel, global, local);
}

// The largest work-group size `kernel` can run with on the context's device.
std::size_t kernel_max_work_group(const Context& context, const cl::Kernel& kernel);
// n rounded up to a multiple of `multiple`.
inline std::size_t round_up(std::size_t n, std::size_t multiple) { return (n + multiple - 1) / multiple * multiple; }

// --- residency ----------------------------------------------------------------------

// A view on the device: element (i, j) is at buffer[offset + i * rs + j * cs]; inc
// is the vector increment (View::vector_inc()). Empty views get a valid dummy buffer.
struct DeviceView {
    cl::Buffer buffer;
    cl_long offset = 0, rs = 1, cs = 1, inc = 1;
};

enum class Access { Read, ReadWrite };
struct Operand {
    Obj view;
    Access access;
};

// Process-wide transfer counters (host <-> device), for tests and diagnostics.
struct TransferStats {
    std::uint64_t uploads = 0, downloads = 0;        // whole-region transfers
    std::uint64_t uploaded_bytes = 0, downloaded_bytes = 0;
    std::uint64_t element_reads = 0;                 // single doubles read by element()
};
TransferStats transfer_stats();

class DeviceMemory {
public:
    explicit DeviceMemory(std::shared_ptr<Context> context);
    // Regions still resident are downloaded (best effort) and freed.
    ~DeviceMemory();
    DeviceMemory(const DeviceMemory&) = delete;
    DeviceMemory& operator=(const DeviceMemory&) = delete;

    // The first acquire of a base uploads all of it (the whole FLAME object when the
    // view has an owner, else the region the view spans) into one device buffer;
    // later acquires of views in that region only count.
    void acquire(Obj A);
    // The last release downloads the region and frees its buffer. Never throws: a
    // failed download is reported by the next operation (bind, acquire, element).
    void release(Obj A) noexcept;
    bool resident(Obj A) const;
    // A(i, j): one double read from the device when A is resident, else from the host.
    double element(Obj A, dim_t i, dim_t j) const;
    std::size_t resident_regions() const { return regions_.size(); }

    // The device views of one operation's operands. Operands inside a resident
    // region use its buffer; the others are uploaded to temporary buffers (operands
    // that overlap share one), and commit() downloads the written ones.
    class Binding {
    public:
        const DeviceView& operator[](std::size_t k) const { return views_.at(k); }
        // Downloads the temporaries of ReadWrite operands; call after the launches.
        void commit();

    private:
        friend class DeviceMemory;
        struct Writeback {
            cl::Buffer buffer;
            std::uint64_t device_offset; // bytes
            std::uintptr_t host;         // address of the first byte
            std::uint64_t bytes;
        };
        const Context* context_ = nullptr;
        std::vector<DeviceView> views_;
        std::vector<Writeback> writebacks_;
    };
    Binding bind(std::initializer_list<Operand> operands);

    const Context& context() const { return *context_; }

private:
    struct Region {
        std::uintptr_t host = 0; // first byte
        std::uint64_t bytes = 0;
        cl::Buffer buffer;
        int holds = 0;
    };
    // The region containing [lo, hi) (bytes), or nullptr; throws when a region
    // overlaps it without containing it.
    const Region* find(std::uintptr_t lo, std::uintptr_t hi) const;
    Region* find(std::uintptr_t lo, std::uintptr_t hi)
    {
        return const_cast<Region*>(static_cast<const DeviceMemory*>(this)->find(lo, hi));
    }
    void throw_pending() const;

    std::shared_ptr<Context> context_;
    std::map<std::uintptr_t, Region> regions_;
    cl::Buffer dummy_;
    mutable std::string pending_error_;
};

} // namespace flamex::opencl
