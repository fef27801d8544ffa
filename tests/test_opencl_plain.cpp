// The OpenCL host layer and the `opencl-plain` backend: every operation against
// the blis backend on views with offsets and strides (resident and not), every LU
// variant, several work-group sizes, device selection, the program cache, and the
// error paths (unknown device, broken kernel, no platform, out of memory).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include <unistd.h>

#include "blas/blas.hpp"
#include "opencl/devices.hpp"
#include "opencl/host.hpp"
#include "support/test_support.hpp"
#include "variants/lu.hpp"

namespace {

// In a child process started by OpenCLErrors.NoPlatformIsAClearError (with the ICD
// loader pointed at an empty vendor directory): report what making the backend
// says, and exit before GoogleTest starts.
const bool kChildRan = [] {
    const char* mode = std::getenv("FLAMEX_OPENCL_TEST_CHILD");
    if (mode == nullptr || std::string(mode) != "no-platform") return false;
    try {
        flamex::make_backend("opencl-plain");
        std::printf("no error\n");
    } catch (const flamex::Error& e) {
        std::printf("flamex::Error: %s\n", e.what());
    } catch (...) {
        std::printf("another exception\n");
    }
    std::fflush(stdout);
    std::_Exit(0);
}();

using flamex::Blas;
using flamex::dim_t;
using flamex::Matrix;
using flamex::Obj;
using flamex::OpenClDeviceInfo;
using flamex::Pivots;
using flamex::PivObj;
using flamex::Resident;
namespace ocl = flamex::opencl;
namespace ts = flamex::test;

// Relative to max(1, |reference|): reductions add in another order than BLIS.
constexpr double kTol = 1e-12;


const Blas& blis()
{
    static const std::unique_ptr<Blas> b = flamex::make_backend("blis");
    return *b;
}

const Blas& plain()
{
    static const std::unique_ptr<Blas> b = flamex::make_backend("opencl-plain");
    return *b;
}

// A random m x n matrix whose diagonal is pushed away from zero, so that triangular
// blocks taken on its diagonal are well conditioned.
Matrix big_matrix(dim_t m, dim_t n, std::uint64_t seed)
{
    Matrix A = ts::random_matrix(m, n, seed);
    for (dim_t i = 0; i < std::min(m, n); ++i) A(i, i) += A(i, i) < 0 ? -4.0 : 4.0;
    return A;
}

double rel(double a, double ref) { return std::fabs(a - ref) / std::max(1.0, std::fabs(ref)); }

using Op = std::function<double(const Blas&, Obj)>;

// Runs `op` with blis and with `backend` on two copies of `big`, the second both as
// it is (temporary residency per operation) and held resident; compares the
// returned values and the whole matrices (so writes outside the views show too).
void expect_matches(const std::string& what, const Matrix& big, const Op& op, const Blas& backend = plain(),
                    double tol = kTol)
{
    for (const bool resident : {false, true}) {
        SCOPED_TRACE(what + (resident ? " [resident]" : " [temporary]"));
        Matrix a = big, b = big;
        const double expected = op(blis(), a);
        double got = 0.0;
        if (resident) {
            Resident hold(backend, b);
            got = op(backend, b);
        } else {
            got = op(backend, b);
        }
        if (std::isnan(expected))
            EXPECT_TRUE(std::isnan(got));
        else
            EXPECT_LE(rel(got, expected), tol) << "got " << got << ", expected " << expected;
        EXPECT_LE(ts::max_relative_difference(b, a), tol);
    }
}

// --- devices and selection ---------------------------------------------------------------

TEST(OpenCLDevices, ListsDevicesWithTheirProperties)
{
    REQUIRE_OPENCL();
    const std::vector<OpenClDeviceInfo> devices = flamex::opencl_devices();
    ASSERT_FALSE(devices.empty());
    for (std::size_t i = 0; i < devices.size(); ++i) {
        const OpenClDeviceInfo& d = devices[i];
        EXPECT_EQ(d.index, i);
        EXPECT_FALSE(d.name.empty());
        EXPECT_FALSE(d.platform.empty());
        EXPECT_GT(d.compute_units, 0u);
        EXPECT_GT(d.global_memory, 0u);
        EXPECT_GT(d.max_work_group, 0u);
        const std::string line = flamex::describe_device(d);
        EXPECT_NE(line.find(d.name), std::string::npos) << line;
        EXPECT_NE(line.find("fp64"), std::string::npos) << line;
    }
    EXPECT_TRUE(std::any_of(devices.begin(), devices.end(), [](const OpenClDeviceInfo& d) { return d.fp64; }));
}

std::vector<OpenClDeviceInfo> fake_devices()
{
    std::vector<OpenClDeviceInfo> list(3);
    list[0].name = "Tiny Embedded GPU";
    list[0].type = "GPU";
    list[0].fp64 = false;
    list[1].name = "pthread-skylake CPU";
    list[1].type = "CPU";
    list[1].fp64 = true;
    list[1].int64_atomics = true;
    list[2].name = "GeForce RTX GPU 4090";
    list[2].type = "GPU";
    list[2].fp64 = true;
    list[2].int64_atomics = false;
    for (std::size_t i = 0; i < list.size(); ++i) list[i].index = i;
    return list;
}

std::string error_of(const std::function<void()>& f)
{
    try {
        f();
    } catch (const flamex::Error& e) {
        return e.what();
    }
    return "(no error)";
}

TEST(OpenCLDevices, SelectionByIndexNameAndDefault)
{
    const auto devices = fake_devices();
    const ocl::Requirements plain_needs{true, false}, exact_needs{true, true};
    EXPECT_EQ(ocl::select_device(devices, "1", plain_needs), 1u);
    EXPECT_EQ(ocl::select_device(devices, " 2 ", plain_needs), 2u);
    EXPECT_EQ(ocl::select_device(devices, "geforce", plain_needs), 2u);
    EXPECT_EQ(ocl::select_device(devices, "SKYLAKE", plain_needs), 1u);
    // Default: the first GPU meeting the requirements, else the first device that does.
    EXPECT_EQ(ocl::select_device(devices, "", plain_needs), 2u);
    EXPECT_EQ(ocl::select_device(devices, "", exact_needs), 1u);
    // A name matching several devices picks the first that meets the requirements.
    EXPECT_EQ(ocl::select_device(devices, "gpu", plain_needs), 2u);

    std::string e = error_of([&] { ocl::select_device(devices, "7", plain_needs); });
    EXPECT_NE(e.find("no OpenCL device with index 7"), std::string::npos) << e;
    EXPECT_NE(e.find("GeForce RTX GPU 4090"), std::string::npos) << e; // the list of devices
    e = error_of([&] { ocl::select_device(devices, "radeon", plain_needs); });
    EXPECT_NE(e.find("no OpenCL device matches 'radeon'"), std::string::npos) << e;
    e = error_of([&] { ocl::select_device(devices, "0", plain_needs); });
    EXPECT_NE(e.find("cl_khr_fp64"), std::string::npos) << e;
    EXPECT_NE(e.find("Tiny Embedded GPU"), std::string::npos) << e;
    e = error_of([&] { ocl::select_device(devices, "tiny", plain_needs); });
    EXPECT_NE(e.find("cl_khr_fp64"), std::string::npos) << e;
    e = error_of([&] { ocl::select_device(devices, "2", exact_needs); });
    EXPECT_NE(e.find("cl_khr_int64_base_atomics"), std::string::npos) << e;
    e = error_of([&] { ocl::select_device({}, "", plain_needs); });
    EXPECT_NE(e.find("no device"), std::string::npos) << e;
}

TEST(OpenCLDevices, UnknownDeviceIsAClearError)
{
    REQUIRE_OPENCL();
    flamex::BackendOptions options;
    options.device = "no-such-device-anywhere";
    std::string e = error_of([&] { flamex::make_backend("opencl-plain", options); });
    EXPECT_NE(e.find("no OpenCL device matches 'no-such-device-anywhere'"), std::string::npos) << e;
    options.device = "4096";
    e = error_of([&] { flamex::make_backend("opencl-plain", options); });
    EXPECT_NE(e.find("no OpenCL device with index 4096"), std::string::npos) << e;
}

TEST(OpenCLDevices, EnvironmentSelectsTheDeviceUnlessTheOptionDoes)
{
    REQUIRE_OPENCL();
    ::setenv("FLAMEX_OPENCL_DEVICE", "no-such-device-anywhere", 1);
    const std::string e = error_of([] { flamex::make_backend("opencl-plain"); });
    flamex::BackendOptions options;
    options.device = flamex::opencl_devices().front().name; // the option wins over the environment
    const std::string name = flamex::make_backend("opencl-plain", options)->name();
    ::unsetenv("FLAMEX_OPENCL_DEVICE");
    EXPECT_NE(e.find("no-such-device-anywhere"), std::string::npos) << e;
    EXPECT_EQ(name, "opencl-plain");
}

// --- errors ------------------------------------------------------------------------------

TEST(OpenCLErrors, BrokenKernelShowsTheBuildLog)
{
    REQUIRE_OPENCL();
    auto context = ocl::Context::create("", {}, "");
    const std::string source = "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n"
                               "__kernel void broken(__global double* x) { x[0] = flamex_undeclared_name + 1.0; }\n";
    const std::string e = error_of([&] { context->program("broken", source); });
    EXPECT_NE(e.find("program 'broken' failed to build"), std::string::npos) << e;
    EXPECT_NE(e.find("build log"), std::string::npos) << e;
    EXPECT_NE(e.find("flamex_undeclared_name"), std::string::npos) << e; // the compiler's own words
}

TEST(OpenCLErrors, NoPlatformIsAClearError)
{
    // A child process whose ICD loader finds no vendor at all.
    const std::string output = flamex::test::output_without_opencl_platform("FLAMEX_OPENCL_TEST_CHILD");
    EXPECT_NE(output.find("flamex::Error: opencl: no OpenCL platform found"), std::string::npos) << output;
}

TEST(OpenCLErrors, OutOfDeviceMemoryNamesTheSize)
{
    REQUIRE_OPENCL();
    auto context = ocl::Context::shared("");
    std::string e = error_of([&] { context->allocate(std::uint64_t{1} << 60); });
    EXPECT_NE(e.find("out of device memory"), std::string::npos) << e;
    EXPECT_NE(e.find("(1152921504606846976 bytes)"), std::string::npos) << e;

    // A view whose strides span 8 TiB (never read: the allocation fails first).
    double two[2] = {1.0, 2.0};
    const Obj huge(two, 1, dim_t{1} << 40, 0, 0, 1, 2);
    e = error_of([&] { plain().acquire(huge); });
    EXPECT_NE(e.find("out of device memory"), std::string::npos) << e;
    EXPECT_NE(e.find("TiB"), std::string::npos) << e;

    // Buffers alive past the device's global memory: refused by flamex, since
    // drivers such as PoCL overcommit (never touched, so nothing is really used).
    {
        auto fresh = ocl::Context::create("", {}, "");
        std::vector<cl::Buffer> buffers;
        e = "(no error)";
        for (int i = 0; i < 1000 && e == "(no error)"; ++i)
            e = error_of([&] { buffers.push_back(fresh->allocate(fresh->info().max_allocation)); });
        EXPECT_NE(e.find("out of device memory"), std::string::npos) << e;
        EXPECT_NE(e.find("already in use"), std::string::npos) << e;
        EXPECT_GT(fresh->bytes_in_use(), 0u);
        buffers.clear();
        fresh->finish();
        // Released buffers are counted out (drivers may run the callback a little later).
        for (int i = 0; i < 100 && fresh->bytes_in_use() != 0; ++i) ::usleep(10000);
        EXPECT_EQ(fresh->bytes_in_use(), 0u);
    }

    // The message a driver's allocation failure becomes.
    e = error_of([] { ocl::allocation_failure(123456789, "Some GPU", CL_MEM_OBJECT_ALLOCATION_FAILURE); });
    EXPECT_NE(e.find("out of device memory on 'Some GPU'"), std::string::npos) << e;
    EXPECT_NE(e.find("117.7 MiB (123456789 bytes)"), std::string::npos) << e;
    EXPECT_NE(e.find("CL_MEM_OBJECT_ALLOCATION_FAILURE"), std::string::npos) << e;
    EXPECT_TRUE(ocl::is_allocation_error(CL_OUT_OF_RESOURCES));
}

TEST(OpenCLErrors, WorkGroupSizeFromTheEnvironmentIsChecked)
{
    REQUIRE_OPENCL();
    ::setenv("FLAMEX_OPENCL_WG", "lots", 1);
    const std::string e = error_of([] { flamex::make_backend("opencl-plain"); });
    ::setenv("FLAMEX_OPENCL_WG", "16", 1);
    const std::string ok = error_of([] { flamex::make_backend("opencl-plain"); });
    ::unsetenv("FLAMEX_OPENCL_WG");
    EXPECT_NE(e.find("FLAMEX_OPENCL_WG"), std::string::npos) << e;
    EXPECT_EQ(ok, "(no error)");
}

// --- the program cache -----------------------------------------------------------------

struct TempDir {
    std::filesystem::path path;
    explicit TempDir(const std::string& tag)
        : path(std::filesystem::temp_directory_path() /
               ("flamex-" + tag + "-" + std::to_string(::getpid()) + "-" + std::to_string(std::rand())))
    {
        std::filesystem::remove_all(path);
    }
    ~TempDir()
    {
        std::error_code ec;
        std::filesystem::remove_all(path, ec);
    }
};

const std::string kProbeSource = "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n"
                                  "__kernel void probe(__global double* x, double a) { x[get_global_id(0)] *= a; }\n";

// Builds the probe program in a fresh context on `dir` and checks it runs.
ocl::Program::Origin build_probe(const std::string& dir, std::string* file = nullptr)
{
    auto context = ocl::Context::create("", {}, dir);
    auto program = context->program("probe", kProbeSource);
    cl::Kernel kernel = program->kernel("probe");
    double host[4] = {1, 2, 3, 4};
    cl::Buffer buffer = context->allocate(sizeof host);
    context->write(buffer, 0, sizeof host, host);
    ocl::launch(*context, kernel, cl::NDRange(4), cl::NullRange, buffer, cl_double(2.5));
    context->read(buffer, 0, sizeof host, host);
    EXPECT_EQ(host[3], 10.0);
    if (file != nullptr) *file = program->cache_file();
    return program->origin();
}

TEST(OpenCLProgramCache, SecondContextLoadsTheBinary)
{
    REQUIRE_OPENCL();
    TempDir dir("ocl-cache");
    const ocl::ProgramCacheStats s0 = ocl::program_cache_stats();
    std::string file;
    EXPECT_EQ(build_probe(dir.path.string(), &file), ocl::Program::Origin::Source);
    const ocl::ProgramCacheStats s1 = ocl::program_cache_stats();
    EXPECT_EQ(s1.built, s0.built + 1);
    EXPECT_EQ(s1.stored, s0.stored + 1);
    ASSERT_TRUE(std::filesystem::exists(file)) << file;
    EXPECT_EQ(std::filesystem::path(file).parent_path(), dir.path);

    EXPECT_EQ(build_probe(dir.path.string()), ocl::Program::Origin::DiskCache);
    const ocl::ProgramCacheStats s2 = ocl::program_cache_stats();
    EXPECT_EQ(s2.loaded, s1.loaded + 1);
    EXPECT_EQ(s2.built, s1.built); // not compiled again

    // Other build options are another entry.
    auto context = ocl::Context::create("", {}, dir.path.string());
    EXPECT_EQ(context->program("probe", kProbeSource, "-cl-std=CL1.2 -DFLAMEX_OTHER=1")->origin(),
              ocl::Program::Origin::Source);
    // Within one context a program is built once.
    EXPECT_EQ(context->program("probe", kProbeSource).get(), context->program("probe", kProbeSource).get());
}

TEST(OpenCLProgramCache, CorruptEntryIsIgnoredAndRebuilt)
{
    REQUIRE_OPENCL();
    TempDir dir("ocl-corrupt");
    std::string file;
    ASSERT_EQ(build_probe(dir.path.string(), &file), ocl::Program::Origin::Source);
    const auto size = std::filesystem::file_size(file);

    const std::vector<std::function<void()>> corruptions = {
        [&] { std::ofstream(file, std::ios::binary | std::ios::trunc) << "not a program binary"; },
        [&] { std::filesystem::resize_file(file, size / 2); },
        [&] { // one byte in the middle of the binary: the header still matches
            std::fstream f(file, std::ios::binary | std::ios::in | std::ios::out);
            f.seekg(static_cast<std::streamoff>(size / 2));
            const char c = static_cast<char>(f.get());
            f.seekp(static_cast<std::streamoff>(size / 2));
            f.put(static_cast<char>(c ^ 0x5a));
        },
    };
    for (std::size_t i = 0; i < corruptions.size(); ++i) {
        SCOPED_TRACE("corruption " + std::to_string(i));
        corruptions[i]();
        const ocl::ProgramCacheStats before = ocl::program_cache_stats();
        EXPECT_EQ(build_probe(dir.path.string()), ocl::Program::Origin::Source);
        const ocl::ProgramCacheStats after = ocl::program_cache_stats();
        EXPECT_EQ(after.rejected, before.rejected + 1);
        EXPECT_EQ(after.built, before.built + 1);
        // Rewritten whole: the next build loads it, and its check accepts it. (Not its
        // size: PoCL's binary also holds the kernel variants its own cache has compiled
        // by then, which other tests running beside this one change.)
        EXPECT_EQ(build_probe(dir.path.string()), ocl::Program::Origin::DiskCache);
        EXPECT_EQ(ocl::program_cache_stats().rejected, after.rejected);
    }
}

TEST(OpenCLProgramCache, DirectoryFollowsTheEnvironment)
{
    const char* saved_cache = std::getenv("FLAMEX_OPENCL_CACHE");
    const char* saved_xdg = std::getenv("XDG_CACHE_HOME");
    const std::string cache = saved_cache ? saved_cache : "", xdg = saved_xdg ? saved_xdg : "";
    ::setenv("FLAMEX_OPENCL_CACHE", "/some/where", 1);
    EXPECT_EQ(ocl::program_cache_dir(), "/some/where");
    ::setenv("FLAMEX_OPENCL_CACHE", "off", 1);
    EXPECT_EQ(ocl::program_cache_dir(), "");
    ::unsetenv("FLAMEX_OPENCL_CACHE");
    ::setenv("XDG_CACHE_HOME", "/xdg", 1);
    EXPECT_EQ(ocl::program_cache_dir(), "/xdg/flamex");
    ::unsetenv("XDG_CACHE_HOME");
    if (const char* home = std::getenv("HOME")) {
        EXPECT_EQ(ocl::program_cache_dir(), std::string(home) + "/.cache/flamex");
    }
    if (saved_cache) ::setenv("FLAMEX_OPENCL_CACHE", cache.c_str(), 1);
    if (saved_xdg) ::setenv("XDG_CACHE_HOME", xdg.c_str(), 1);
}

TEST(OpenCLProgramCache, KernelSourcesAreEmbedded)
{
    const std::string& source = ocl::embedded_source("plain");
    EXPECT_NE(source.find("__kernel void trsm_left"), std::string::npos);
    EXPECT_NE(source.find("__kernel void iamax_finish"), std::string::npos);
    const std::string e = error_of([] { ocl::embedded_source("no_such_kernels"); });
    EXPECT_NE(e.find("no_such_kernels"), std::string::npos) << e;
}

// --- every operation against blis ------------------------------------------------------

TEST(OpenCLPlain, IsRegistered)
{
    REQUIRE_OPENCL();
    EXPECT_EQ(plain().name(), "opencl-plain");
    EXPECT_FALSE(plain().reproducible());
    bool listed = false;
    for (const auto& b : flamex::backends()) listed = listed || b.name == "opencl-plain";
    EXPECT_TRUE(listed);
}

// Vectors of the 40 x 30 test matrix: columns (unit stride) and rows (stride 40),
// starting away from (0, 0).
Obj column(Obj G, dim_t i, dim_t j, dim_t n) { return G.sub(i, j, n, 1); }
Obj row(Obj G, dim_t i, dim_t j, dim_t n) { return G.sub(i, j, 1, n); }

TEST(OpenCLPlain, SumDotDots)
{
    REQUIRE_OPENCL();
    const Matrix G = big_matrix(40, 30, 1);
    const Matrix tall = big_matrix(700, 3, 2); // long enough for several work-groups
    for (const dim_t n : {1, 2, 17, 29}) {
        const std::string tag = " n=" + std::to_string(n);
        expect_matches("sum column" + tag, G, [n](const Blas& b, Obj g) { return b.sum(column(g, 3, 2, n)); });
        expect_matches("sum row" + tag, G, [n](const Blas& b, Obj g) { return b.sum(row(g, 5, 1, n)); });
        expect_matches("dot column.row" + tag, G,
                       [n](const Blas& b, Obj g) { return b.dot(column(g, 7, 4, n), row(g, 2, 0, n)); });
        for (const double alpha : {1.0, -1.0, 0.5, 0.0})
            for (const double beta : {1.0, 0.0, -2.0}) {
                const std::string ab = tag + " alpha=" + std::to_string(alpha) + " beta=" + std::to_string(beta);
                expect_matches("dots" + ab, G, [=](const Blas& b, Obj g) {
                    b.dots(alpha, row(g, 1, 0, n), column(g, 3, 2, n), beta, g.sub(0, 29, 1, 1));
                    return 0.0;
                });
            }
    }
    expect_matches("sum long", tall, [](const Blas& b, Obj g) { return b.sum(column(g, 13, 1, 650)); });
    expect_matches("dot long", tall,
                   [](const Blas& b, Obj g) { return b.dot(column(g, 13, 1, 650), column(g, 40, 2, 650)); });
    expect_matches("dots long", tall, [](const Blas& b, Obj g) {
        b.dots(-1.0, column(g, 13, 1, 650), column(g, 40, 2, 650), 1.0, g.sub(0, 0, 1, 1));
        return 0.0;
    });
    expect_matches("empty", G, [](const Blas& b, Obj g) {
        b.dots(2.0, g.sub(0, 0, 0, 1), g.sub(0, 1, 0, 1), 3.0, g.sub(5, 5, 1, 1));
        return b.sum(g.sub(0, 0, 0, 1)) + b.dot(g.sub(0, 0, 1, 0), g.sub(1, 0, 1, 0));
    });
}

TEST(OpenCLPlain, ScalInvscalAxpyCopy)
{
    REQUIRE_OPENCL();
    const Matrix G = big_matrix(40, 30, 3);
    for (const double alpha : {2.5, -1.0, 0.0, 1.0}) {
        const std::string a = " alpha=" + std::to_string(alpha);
        expect_matches("scal column" + a, G, [=](const Blas& b, Obj g) { b.scal(alpha, column(g, 4, 3, 20)); return 0.0; });
        expect_matches("scal row" + a, G, [=](const Blas& b, Obj g) { b.scal(alpha, row(g, 6, 2, 25)); return 0.0; });
        expect_matches("axpy column->row" + a, G, [=](const Blas& b, Obj g) {
            b.axpy(alpha, column(g, 10, 1, 19), row(g, 2, 3, 19));
            return 0.0;
        });
    }
    for (const double alpha : {3.0, -0.7}) {
        const std::string a = " alpha=" + std::to_string(alpha);
        expect_matches("invscal column" + a, G, [=](const Blas& b, Obj g) { b.invscal(alpha, column(g, 1, 8, 33)); return 0.0; });
        expect_matches("invscal row" + a, G, [=](const Blas& b, Obj g) { b.invscal(alpha, row(g, 39, 0, 30)); return 0.0; });
    }
    // invscal divides: compare bit for bit with the host's division.
    {
        Matrix x(3, 1, {1.0, 2.0, 10.0}), y = x;
        plain().invscal(3.0, x);
        for (dim_t i = 0; i < 3; ++i) EXPECT_EQ(x(i, 0), y(i, 0) / 3.0);
    }
    expect_matches("copy column->row", G, [](const Blas& b, Obj g) { b.copy(column(g, 0, 0, 28), row(g, 35, 1, 28)); return 0.0; });
    expect_matches("copy row->column", G, [](const Blas& b, Obj g) { b.copy(row(g, 3, 2, 21), column(g, 15, 29, 21)); return 0.0; });
    expect_matches("copy matrix", G, [](const Blas& b, Obj g) { b.copy(g.sub(1, 2, 13, 9), g.sub(20, 15, 13, 9)); return 0.0; });
    expect_matches("copy wide matrix", G, [](const Blas& b, Obj g) { b.copy(g.sub(0, 0, 2, 30), g.sub(37, 0, 2, 30)); return 0.0; });
    // Between two objects, neither, one or both resident.
    for (int mode = 0; mode < 4; ++mode) {
        SCOPED_TRACE("mode " + std::to_string(mode));
        const Matrix src = ts::random_matrix(9, 7, 11);
        Matrix dst(12, 10);
        const Obj to = dst.view().sub(2, 3, 9, 7);
        {
            std::unique_ptr<Resident> hs, hd;
            if (mode & 1) hs = std::make_unique<Resident>(plain(), src);
            if (mode & 2) hd = std::make_unique<Resident>(plain(), dst);
            plain().copy(src, to);
        }
        EXPECT_TRUE(ts::bitwise_equal(to, src));
        EXPECT_EQ(dst(0, 0), 0.0);
        EXPECT_EQ(dst(11, 9), 0.0);
    }
}

TEST(OpenCLPlain, GemvEveryCase)
{
    REQUIRE_OPENCL();
    const Matrix G = big_matrix(40, 30, 4);
    for (const flamex::Trans t : {flamex::NO_TRANSPOSE, flamex::TRANSPOSE})
        for (const double alpha : {1.0, -1.0, 0.0})
            for (const double beta : {1.0, 0.0, 0.5}) {
                const bool tr = t == flamex::TRANSPOSE;
                const std::string c = std::string(tr ? "T" : "N") + " alpha=" + std::to_string(alpha) +
                                      " beta=" + std::to_string(beta);
                // A is 12 x 9 at (2, 3); x a row vector, y a column vector, elsewhere.
                expect_matches("gemv " + c, G, [=](const Blas& b, Obj g) {
                    const Obj A = g.sub(2, 3, 12, 9);
                    b.gemv(t, alpha, A, row(g, 20, 0, tr ? 12 : 9), beta, column(g, 16, 20, tr ? 9 : 12));
                    return 0.0;
                });
                expect_matches("gemv column x, row y " + c, G, [=](const Blas& b, Obj g) {
                    const Obj A = g.sub(25, 1, 7, 15);
                    b.gemv(t, alpha, A, column(g, 0, 20, tr ? 7 : 15), beta, row(g, 39, 2, tr ? 15 : 7));
                    return 0.0;
                });
            }
    expect_matches("gemv k=0", G, [](const Blas& b, Obj g) {
        b.gemv(flamex::NO_TRANSPOSE, 1.0, g.sub(0, 0, 5, 0), g.sub(0, 0, 0, 1), 2.0, column(g, 10, 10, 5));
        return 0.0;
    });
    expect_matches("gemv 1x1", G, [](const Blas& b, Obj g) {
        b.gemv(flamex::TRANSPOSE, -1.0, g.sub(3, 3, 1, 1), g.sub(9, 9, 1, 1), 1.0, g.sub(12, 12, 1, 1));
        return 0.0;
    });
}

TEST(OpenCLPlain, TrsvAllEightCases)
{
    REQUIRE_OPENCL();
    const Matrix G = big_matrix(40, 30, 5);
    for (const flamex::Uplo u : {flamex::LOWER, flamex::UPPER})
        for (const flamex::Trans t : {flamex::NO_TRANSPOSE, flamex::TRANSPOSE})
            for (const flamex::Diag d : {flamex::NONUNIT, flamex::UNIT}) {
                const std::string c = std::string(u == flamex::LOWER ? "L" : "U") + (t == flamex::TRANSPOSE ? "T" : "N") +
                                      (d == flamex::UNIT ? "U" : "N");
                // T on the diagonal (well conditioned), x a column or a row elsewhere.
                expect_matches("trsv column " + c, G, [=](const Blas& b, Obj g) {
                    b.trsv(u, t, d, g.sub(3, 3, 14, 14), column(g, 20, 25, 14));
                    return 0.0;
                });
                expect_matches("trsv row " + c, G, [=](const Blas& b, Obj g) {
                    b.trsv(u, t, d, g.sub(0, 0, 11, 11), row(g, 30, 12, 11));
                    return 0.0;
                });
                expect_matches("trsv 1x1 " + c, G, [=](const Blas& b, Obj g) {
                    b.trsv(u, t, d, g.sub(7, 7, 1, 1), g.sub(30, 0, 1, 1));
                    return 0.0;
                });
            }
}

TEST(OpenCLPlain, Ger)
{
    REQUIRE_OPENCL();
    const Matrix G = big_matrix(40, 30, 6);
    for (const double alpha : {1.0, -1.0, 0.25, 0.0})
        expect_matches("ger alpha=" + std::to_string(alpha), G, [=](const Blas& b, Obj g) {
            b.ger(alpha, column(g, 20, 0, 13), row(g, 38, 3, 11), g.sub(2, 14, 13, 11));
            b.ger(alpha, row(g, 0, 0, 5), column(g, 30, 29, 8), g.sub(33, 4, 5, 8));
            return 0.0;
        });
}

TEST(OpenCLPlain, GemmEveryCase)
{
    REQUIRE_OPENCL();
    const Matrix G = big_matrix(40, 30, 7);
    const dim_t m = 7, n = 9, k = 11;
    for (const flamex::Trans ta : {flamex::NO_TRANSPOSE, flamex::TRANSPOSE})
        for (const flamex::Trans tb : {flamex::NO_TRANSPOSE, flamex::TRANSPOSE})
            for (const double alpha : {1.0, -1.0, 0.0})
                for (const double beta : {1.0, 0.0, 0.5}) {
                    const bool tra = ta == flamex::TRANSPOSE, trb = tb == flamex::TRANSPOSE;
                    const std::string c = std::string(tra ? "T" : "N") + (trb ? "T" : "N") + " alpha=" +
                                          std::to_string(alpha) + " beta=" + std::to_string(beta);
                    expect_matches("gemm " + c, G, [=](const Blas& b, Obj g) {
                        const Obj A = tra ? g.sub(1, 0, k, m) : g.sub(1, 0, m, k);
                        const Obj B = trb ? g.sub(13, 2, n, k) : g.sub(13, 2, k, n);
                        b.gemm(ta, tb, alpha, A, B, beta, g.sub(28, 17, m, n));
                        return 0.0;
                    });
                }
    expect_matches("gemm k=0", G, [](const Blas& b, Obj g) {
        b.gemm(flamex::NO_TRANSPOSE, flamex::NO_TRANSPOSE, 1.0, g.sub(0, 0, 4, 0), g.sub(0, 0, 0, 5), 3.0,
               g.sub(10, 10, 4, 5));
        return 0.0;
    });
    expect_matches("gemm larger", big_matrix(70, 60, 8), [](const Blas& b, Obj g) {
        b.gemm(flamex::NO_TRANSPOSE, flamex::TRANSPOSE, -1.0, g.sub(0, 0, 33, 27), g.sub(35, 0, 29, 27), 1.0,
               g.sub(36, 28, 33, 29));
        return 0.0;
    });
}

TEST(OpenCLPlain, TrsmEveryCase)
{
    REQUIRE_OPENCL();
    const Matrix G = big_matrix(40, 30, 9);
    for (const flamex::Side s : {flamex::LEFT, flamex::RIGHT})
        for (const flamex::Uplo u : {flamex::LOWER, flamex::UPPER})
            for (const flamex::Trans t : {flamex::NO_TRANSPOSE, flamex::TRANSPOSE})
                for (const flamex::Diag d : {flamex::NONUNIT, flamex::UNIT})
                    for (const double alpha : {1.0, -0.5, 0.0}) {
                        const bool left = s == flamex::LEFT;
                        const std::string c = std::string(left ? "Left" : "Right") + (u == flamex::LOWER ? " L" : " U") +
                                              (t == flamex::TRANSPOSE ? "T" : "N") + (d == flamex::UNIT ? "U" : "N") +
                                              " alpha=" + std::to_string(alpha);
                        // B is 10 x 6; T is 10 x 10 (left) or 6 x 6 (right), on the diagonal.
                        expect_matches("trsm " + c, G, [=](const Blas& b, Obj g) {
                            const Obj T = left ? g.sub(2, 2, 10, 10) : g.sub(5, 5, 6, 6);
                            b.trsm(s, u, t, d, alpha, T, g.sub(22, 14, 10, 6));
                            return 0.0;
                        });
                    }
    expect_matches("trsm one row", G, [](const Blas& b, Obj g) {
        b.trsm(flamex::RIGHT, flamex::UPPER, flamex::NO_TRANSPOSE, flamex::NONUNIT, 1.0, g.sub(0, 0, 12, 12),
               row(g, 30, 14, 12));
        return 0.0;
    });
}

TEST(OpenCLPlain, IamaxFirstLargestMagnitude)
{
    REQUIRE_OPENCL();
    const Matrix G = big_matrix(40, 30, 10);
    const Matrix tall = big_matrix(700, 2, 12);
    for (const dim_t n : {1, 2, 9, 30})
        expect_matches("iamax row n=" + std::to_string(n), G, [n](const Blas& b, Obj g) {
            return static_cast<double>(b.iamax(row(g, 17, 0, n)));
        });
    expect_matches("iamax column", G, [](const Blas& b, Obj g) { return static_cast<double>(b.iamax(column(g, 3, 5, 37))); });
    expect_matches("iamax long", tall, [](const Blas& b, Obj g) { return static_cast<double>(b.iamax(column(g, 9, 1, 690))); });

    // Ties go to the first index; a NaN beats every number and the first NaN wins
    // (BLIS's amaxv, checked against it here); empty gives 0.
    const double nan = std::numeric_limits<double>::quiet_NaN(), inf = std::numeric_limits<double>::infinity();
    const std::vector<std::vector<double>> cases = {
        {1, -7, 7, 3, 2},      {1, nan, 3, 5, 2},        {nan, 1, 7, nan, 7}, {1, 2, 7, -7, nan},
        {inf, 1, nan, -inf, 2}, {0.0, -0.0, 0.0},        {-inf, 3, inf},      {2, 2, 2, 2},
    };
    for (const auto& values : cases) {
        Matrix x(static_cast<dim_t>(values.size()), 1, values);
        const dim_t expected = blis().iamax(x);
        EXPECT_EQ(plain().iamax(x), expected);
        // The same values spread over many work-groups, at the end of a long vector.
        Matrix y(600, 1);
        for (dim_t i = 0; i < static_cast<dim_t>(values.size()); ++i) y(590 + i, 0) = values[static_cast<std::size_t>(i)];
        EXPECT_EQ(plain().iamax(y), blis().iamax(y));
    }
    Matrix e(3, 3);
    EXPECT_EQ(plain().iamax(e.view().sub(0, 0, 0, 1)), 0);
}

TEST(OpenCLPlain, ApplyPivots)
{
    REQUIRE_OPENCL();
    const Matrix G = big_matrix(40, 30, 13);
    Pivots p(6);
    const int offsets[6] = {3, 0, 5, 1, 2, 0}; // offsets within the 12 rows below
    for (int i = 0; i < 6; ++i) p[i] = offsets[i];
    expect_matches("apply_pivots", G, [&](const Blas& b, Obj g) {
        b.apply_pivots(p, g.sub(4, 3, 12, 17));
        b.apply_pivots(p.view().sub(2, 0, 3, 1), g.sub(30, 1, 8, 9));
        return 0.0;
    });
    expect_matches("apply_pivots on a column", G, [&](const Blas& b, Obj g) {
        b.apply_pivots(p, column(g, 20, 29, 15));
        return 0.0;
    });
    Pivots none(4);
    expect_matches("identity pivots", G, [&](const Blas& b, Obj g) {
        b.apply_pivots(none, g.sub(0, 0, 4, 4));
        return 0.0;
    });
}

// BLIS's rules for zero scalars: beta == 0 overwrites the output without reading
// it (a NaN there disappears), alpha == 0 in scal stores zeros, alpha == 0 in ger,
// axpy, gemv and gemm leaves the product out (an Inf in it does not make a NaN).
TEST(OpenCLPlain, ZeroScalarsFollowBlis)
{
    REQUIRE_OPENCL();
    const double nan = std::numeric_limits<double>::quiet_NaN(), inf = std::numeric_limits<double>::infinity();
    Matrix G = big_matrix(12, 10, 15);
    for (dim_t i = 0; i < 12; ++i) G(i, 9) = nan; // outputs full of NaN
    G(0, 0) = inf;                                // an Inf among the inputs
    const auto same = [](Obj a, Obj b) {
        for (dim_t j = 0; j < a.width(); ++j)
            for (dim_t i = 0; i < a.length(); ++i) {
                const double x = a(i, j), y = b(i, j);
                if (!(std::isnan(x) && std::isnan(y)) && !(x == y || rel(x, y) <= kTol)) return false;
            }
        return true;
    };
    const std::vector<std::pair<std::string, std::function<void(const Blas&, Obj)>>> cases = {
        {"dots beta=0", [](const Blas& b, Obj g) { b.dots(1.0, g.sub(0, 0, 5, 1), g.sub(0, 1, 5, 1), 0.0, g.sub(3, 9, 1, 1)); }},
        {"gemv beta=0", [](const Blas& b, Obj g) { b.gemv(flamex::NO_TRANSPOSE, 1.0, g.sub(0, 1, 6, 4), g.sub(7, 2, 4, 1), 0.0, g.sub(0, 9, 6, 1)); }},
        {"gemv alpha=0", [](const Blas& b, Obj g) { b.gemv(flamex::TRANSPOSE, 0.0, g.sub(0, 0, 4, 3), g.sub(5, 0, 4, 1), 2.0, g.sub(8, 5, 3, 1)); }},
        {"gemm beta=0", [](const Blas& b, Obj g) { b.gemm(flamex::NO_TRANSPOSE, flamex::NO_TRANSPOSE, 1.0, g.sub(0, 1, 5, 3), g.sub(6, 1, 3, 1), 0.0, g.sub(2, 9, 5, 1)); }},
        {"gemm alpha=0", [](const Blas& b, Obj g) { b.gemm(flamex::NO_TRANSPOSE, flamex::TRANSPOSE, 0.0, g.sub(0, 0, 3, 2), g.sub(4, 0, 4, 2), 0.5, g.sub(8, 4, 3, 4)); }},
        {"scal alpha=0", [](const Blas& b, Obj g) { b.scal(0.0, g.sub(0, 9, 12, 1)); }},
        {"axpy alpha=0", [](const Blas& b, Obj g) { b.axpy(0.0, g.sub(0, 0, 5, 1), g.sub(0, 5, 5, 1)); }},
        {"ger alpha=0", [](const Blas& b, Obj g) { b.ger(0.0, g.sub(0, 0, 3, 1), g.sub(11, 0, 1, 2), g.sub(5, 6, 3, 2)); }},
        {"trsm alpha=0", [](const Blas& b, Obj g) { b.trsm(flamex::LEFT, flamex::LOWER, flamex::NO_TRANSPOSE, flamex::NONUNIT, 0.0, g.sub(1, 1, 4, 4), g.sub(6, 8, 4, 2)); }},
    };
    for (const auto& [what, op] : cases) {
        SCOPED_TRACE(what);
        Matrix a = G, b = G;
        op(blis(), a);
        op(plain(), b);
        EXPECT_TRUE(same(b, a));
    }
}

// Views flamex does not own, with row-major strides (rs = n, cs = 1) and a gap:
// the strides are honoured, not assumed column-major.
TEST(OpenCLPlain, GeneralStridesOnUnownedViews)
{
    REQUIRE_OPENCL();
    const dim_t rows = 16, cols = 14, ld = 15; // row-major, one padding element per row
    std::vector<double> base(static_cast<std::size_t>(rows * ld));
    const Matrix source = big_matrix(rows, cols, 14);
    for (dim_t i = 0; i < rows; ++i)
        for (dim_t j = 0; j < ld; ++j) base[static_cast<std::size_t>(i * ld + j)] = j < cols ? source(i, j) : -99.0;
    // Works in place on `data`; returns dot + iamax.
    const auto run = [&](const Blas& b, std::vector<double>& data) {
        const Obj W(data.data(), ld, 1, 0, 0, rows, cols);
        b.gemm(flamex::TRANSPOSE, flamex::NO_TRANSPOSE, 0.5, W.sub(0, 0, 5, 4), W.sub(0, 5, 5, 6), 1.0, W.sub(8, 6, 4, 6));
        b.gemv(flamex::NO_TRANSPOSE, -1.0, W.sub(1, 1, 6, 5), W.sub(10, 0, 1, 5), 2.0, W.sub(1, 8, 6, 1));
        b.trsm(flamex::LEFT, flamex::LOWER, flamex::TRANSPOSE, flamex::NONUNIT, 1.0, W.sub(0, 0, 6, 6), W.sub(6, 0, 6, 3));
        b.trsv(flamex::UPPER, flamex::NO_TRANSPOSE, flamex::NONUNIT, W.sub(7, 7, 5, 5), W.sub(12, 2, 1, 5));
        b.ger(2.0, W.sub(0, 13, 4, 1), W.sub(15, 0, 1, 3), W.sub(12, 9, 4, 3));
        Pivots p(3);
        p[0] = 2;
        p[1] = 1;
        p[2] = 0;
        b.apply_pivots(p, W.sub(4, 0, 4, cols));
        b.copy(W.sub(0, 0, 3, 2), W.sub(13, 11, 3, 2));
        return b.dot(W.sub(2, 0, 1, 10), W.sub(3, 3, 10, 1)) + static_cast<double>(b.iamax(W.sub(0, 4, 16, 1)));
    };
    std::vector<double> expected = base;
    const double expected_value = run(blis(), expected);
    for (const bool resident : {false, true}) {
        SCOPED_TRACE(resident ? "resident" : "temporary");
        std::vector<double> got = base;
        double value = 0.0;
        if (resident) {
            Resident hold(plain(), Obj(got.data(), ld, 1, 0, 0, rows, ld)); // not owned: its span is uploaded
            value = run(plain(), got);
        } else {
            value = run(plain(), got);
        }
        EXPECT_LE(rel(value, expected_value), kTol);
        for (std::size_t i = 0; i < got.size(); ++i) EXPECT_LE(rel(got[i], expected[i]), kTol) << "element " << i;
    }
}

// --- residency ---------------------------------------------------------------------------

TEST(OpenCLPlain, ResidentObjectsStayOnTheDevice)
{
    REQUIRE_OPENCL();
    const Blas& b = plain();
    Matrix A = ts::random_matrix(6, 5, 21);
    const Matrix original = A;
    const ocl::TransferStats s0 = ocl::transfer_stats();
    {
        Resident hold(b, A);
        {
            Resident again(b, A.view().sub(1, 1, 2, 2)); // a view of the same object: counted, not uploaded
            b.scal(2.0, A.view().sub(0, 0, 6, 1));
            b.axpy(1.0, A.view().sub(0, 1, 6, 1), A.view().sub(0, 2, 6, 1));
        }
        const ocl::TransferStats s1 = ocl::transfer_stats();
        EXPECT_EQ(s1.uploads, s0.uploads + 1);
        EXPECT_EQ(s1.uploaded_bytes, s0.uploaded_bytes + 30 * sizeof(double));
        EXPECT_EQ(s1.downloads, s0.downloads); // nothing came back yet
        EXPECT_EQ(A(0, 0), original(0, 0));    // the host copy is stale while resident
        EXPECT_EQ(b.element(A, 0, 0), 2.0 * original(0, 0));
        EXPECT_EQ(b.element(A.view().sub(2, 2, 3, 3), 1, 0), original(3, 2) + original(3, 1));
        EXPECT_EQ(ocl::transfer_stats().element_reads, s1.element_reads + 2);
    }
    const ocl::TransferStats s2 = ocl::transfer_stats();
    EXPECT_EQ(s2.downloads, s0.downloads + 1);
    EXPECT_EQ(A(0, 0), 2.0 * original(0, 0));
    EXPECT_EQ(A(4, 2), original(4, 2) + original(4, 1));
    EXPECT_EQ(b.element(A, 4, 2), A(4, 2)); // not resident: read from the host

    // A factorization uploads A once and downloads it once.
    Matrix L = ts::random_matrix(20, 20, 22);
    Pivots p(20);
    const ocl::TransferStats s3 = ocl::transfer_stats();
    flamex::lu(b, flamex::find_lu_variant("lu_piv_blk_var5"), L, p, {5, nullptr});
    const ocl::TransferStats s4 = ocl::transfer_stats();
    EXPECT_EQ(s4.uploads, s3.uploads + 1);
    EXPECT_EQ(s4.downloads, s3.downloads + 1);
    EXPECT_GT(s4.element_reads, s3.element_reads);
}

TEST(OpenCLPlain, ViewsOverlappingAResidentRegionAreRejected)
{
    REQUIRE_OPENCL();
    std::vector<double> data(40, 1.0);
    const Obj part(data.data() + 10, 1, 10, 0, 0, 10, 1); // elements 10..19, not owned
    const Obj across(data.data() + 5, 1, 10, 0, 0, 10, 1); // elements 5..14
    Resident hold(plain(), part);
    const std::string e = error_of([&] { plain().scal(2.0, across); });
    EXPECT_NE(e.find("overlaps a resident object"), std::string::npos) << e;
    plain().scal(3.0, part.sub(2, 0, 3, 1)); // inside: fine
    EXPECT_EQ(plain().element(part, 3, 0), 3.0);
}

// --- LU --------------------------------------------------------------------------------

Matrix lu_input(const flamex::LuVariant& v, dim_t m, dim_t n, std::uint64_t seed)
{
    Matrix A = ts::random_matrix(m, n, seed);
    if (!v.pivoting)
        for (dim_t i = 0; i < std::min(m, n); ++i) A(i, i) += A(i, i) < 0 ? -double(std::max(m, n)) : double(std::max(m, n));
    return A;
}

struct LuResult {
    Matrix LU;
    Pivots p;
    flamex::LuInfo info;
};

LuResult factor(const Blas& b, const flamex::LuVariant& v, const Matrix& A, dim_t block)
{
    LuResult r{A, Pivots(std::min(A.length(), A.width())), {}};
    r.info = flamex::lu(b, v, r.LU, r.p, {block, nullptr});
    return r;
}

void expect_lu_matches_blis(const Blas& backend, const flamex::LuVariant& v, dim_t m, dim_t n, dim_t block,
                            std::uint64_t seed)
{
    SCOPED_TRACE(v.name + " " + std::to_string(m) + "x" + std::to_string(n) + " block " + std::to_string(block));
    const Matrix A = lu_input(v, m, n, seed);
    const LuResult ours = factor(backend, v, A, block), ref = factor(blis(), v, A, block);
    EXPECT_EQ(ours.info.zero_pivot, ref.info.zero_pivot);
    ASSERT_EQ(ours.p.size(), ref.p.size());
    for (dim_t i = 0; i < ours.p.size(); ++i) EXPECT_EQ(ours.p[i], ref.p[i]) << "pivot " << i;
    EXPECT_LE(ts::max_relative_difference(ours.LU, ref.LU), 1e-10);
    EXPECT_LE(ts::lu_backward_error(A, ours.LU, v.pivoting ? ours.p.view() : PivObj()), 2.0);
}

TEST(OpenCLPlain, EveryLuVariantMatchesBlis)
{
    REQUIRE_OPENCL();
    std::uint64_t seed = 300;
    for (const flamex::LuVariant& v : flamex::lu_variants())
        for (const auto& [m, n] : std::vector<std::pair<dim_t, dim_t>>{{1, 1}, {23, 23}, {26, 15}, {15, 26}})
            expect_lu_matches_blis(plain(), v, m, n, 6, ++seed);
}

TEST(OpenCLPlain, ZeroPivotIsReportedAsOnBlis)
{
    REQUIRE_OPENCL();
    for (const char* name : {"lu_piv_unb_var3", "lu_piv_blk_var5", "lu_nopiv_unb_var5"}) {
        const flamex::LuVariant& v = flamex::find_lu_variant(name);
        Matrix A = lu_input(v, 8, 8, 77);
        for (dim_t i = 0; i < 8; ++i) A(i, 3) = 0.0; // column 4 is zero
        const LuResult ours = factor(plain(), v, A, 3), ref = factor(blis(), v, A, 3);
        EXPECT_EQ(ours.info.zero_pivot, ref.info.zero_pivot) << name;
        EXPECT_EQ(ours.info.zero_pivot, 4) << name;
    }
}

TEST(OpenCLPlain, SolveMatchesBlis)
{
    REQUIRE_OPENCL();
    const dim_t n = 25;
    const Matrix A = ts::random_matrix(n, n, 41), b = ts::random_matrix(n, 1, 42);
    Matrix x(n, 1), y(n, 1);
    const flamex::LuVariant& v = flamex::find_lu_variant("lu_piv_blk_var4");
    const flamex::SolveReport ours = flamex::solve(plain(), v, A, b, x, 2, {7, nullptr});
    const flamex::SolveReport ref = flamex::solve(blis(), v, A, b, y, 2, {7, nullptr});
    EXPECT_TRUE(ours.info.ok());
    EXPECT_LE(ts::max_relative_difference(x, y), 1e-10);
    EXPECT_LE(ours.residual_norm, 1e-12);
    EXPECT_LE(ref.residual_norm, 1e-12);
}

// --- work-group sizes --------------------------------------------------------------------

TEST(OpenCLPlain, ThreeWorkGroupSizes)
{
    REQUIRE_OPENCL();
    const Matrix G = big_matrix(40, 30, 50);
    const Matrix tall = big_matrix(700, 2, 51);
    std::vector<Matrix> gemm_results, trsm_results;
    for (const dim_t wg : {dim_t{8}, dim_t{37}, dim_t{128}}) {
        SCOPED_TRACE("work-group size " + std::to_string(wg));
        flamex::BackendOptions options;
        options.block = wg;
        const std::unique_ptr<Blas> b = flamex::make_backend("opencl-plain", options);
        expect_matches("dot", tall, [](const Blas& x, Obj g) { return x.dot(column(g, 0, 0, 700), column(g, 0, 1, 700)); }, *b);
        expect_matches("sum", G, [](const Blas& x, Obj g) { return x.sum(row(g, 4, 0, 30)); }, *b);
        expect_matches("iamax", tall, [](const Blas& x, Obj g) { return static_cast<double>(x.iamax(column(g, 1, 1, 650))); }, *b);
        expect_matches("gemv T", G, [](const Blas& x, Obj g) {
            x.gemv(flamex::TRANSPOSE, -1.0, g.sub(0, 0, 30, 20), column(g, 0, 25, 30), 1.0, row(g, 35, 0, 20));
            return 0.0;
        }, *b);
        Matrix c = G, t = G;
        b->gemm(flamex::TRANSPOSE, flamex::NO_TRANSPOSE, 1.0, c.view().sub(0, 0, 19, 13), c.view().sub(0, 14, 19, 15), 0.5,
                c.view().sub(20, 14, 13, 15));
        b->trsm(flamex::RIGHT, flamex::UPPER, flamex::NO_TRANSPOSE, flamex::NONUNIT, 2.0, t.view().sub(0, 0, 17, 17),
                t.view().sub(20, 0, 19, 17));
        gemm_results.push_back(c);
        trsm_results.push_back(t);
        for (const char* name : {"lu_piv_unb_var3", "lu_piv_blk_var5", "lu_nopiv_blk_var2"})
            expect_lu_matches_blis(*b, flamex::find_lu_variant(name), 30, 30, 8, 600 + static_cast<std::uint64_t>(wg));
    }
    // gemm sums each element in order and trsm substitutes column by column, whatever
    // the work-group size: those results are identical across sizes.
    for (std::size_t i = 1; i < gemm_results.size(); ++i) {
        EXPECT_TRUE(ts::bitwise_equal(gemm_results[i], gemm_results[0]));
        EXPECT_TRUE(ts::bitwise_equal(trsm_results[i], trsm_results[0]));
    }
}

} // namespace
