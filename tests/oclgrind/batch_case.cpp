// One batched solve on the OpenCL device, for tests/oclgrind/check.sh: run under
// Oclgrind, one configuration per process, so that its data-race, out-of-bounds,
// barrier-divergence and uninitialized-value checks see exactly one solve.
//
// usage: oclgrind_batch_case single|double N COUNT METHOD simd|collaborative|hybrid local|global
// Prints one line (statuses); exit 0, or 1 when the device's reports differ from the
// CPU's (every method here reports what batched::solve reports, in every organization).
//        oclgrind_batch_case planted-out-of-bounds
// A kernel that writes one element past its buffer: check.sh's proof that Oclgrind
// is interposed and that its findings reach the log the script reads.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "batched/batched.hpp"
#include "batched/opencl_batched.hpp"
#include "opencl/host.hpp"

namespace batched = flamex::batched;

template <class T>
int run(int n, std::size_t count, batched::Method method, batched::Organization organization, bool global)
{
    batched::SpdSpec spec;
    spec.n = n;
    spec.count = count;
    spec.cond_max = sizeof(T) == 4 ? 1e7 : 1e14; // some systems flagged, some repaired
    spec.seed = 77 + n;
    batched::Batch<T> b = batched::generate_spd<T>(spec);
    if (count > 2) b.rhs(1)[0] = static_cast<T>(0) / static_cast<T>(0); // an invalid system among them
    batched::Options options;
    options.method = method;
    batched::OpenClBatchOptions cl;
    cl.organization = organization;
    cl.global_scratch = global;
    const batched::Result<T> device = batched::solve_opencl(b, options, cl);
    const batched::Result<T> cpu = batched::solve(b, options);
    int differing = 0;
    for (std::size_t k = 0; k < count; ++k)
        if (device.report[k].status != cpu.report[k].status || device.report[k].solved_by != cpu.report[k].solved_by)
            ++differing;
    const batched::Summary s = batched::summarize(device);
    std::printf("ok=%zu flagged=%zu repaired=%zu invalid=%zu differing_from_cpu=%d\n", s.count_of(batched::Status::Ok),
                s.count_of(batched::Status::Flagged), s.count_of(batched::Status::Repaired),
                s.count_of(batched::Status::InvalidInput), differing);
    return differing == 0 ? 0 : 1;
}

int planted_out_of_bounds()
{
    namespace ocl = flamex::opencl;
    const auto context = ocl::Context::shared("", {true, false});
    const auto program = context->program("planted_out_of_bounds", "__kernel void past_the_end(__global double* x, long n)"
                                                                   " { x[n + get_global_id(0)] = 1.0; }");
    cl::Kernel k = program->kernel("past_the_end");
    const cl::Buffer x = context->allocate(4 * sizeof(double));
    ocl::launch(*context, k, cl::NDRange(1), cl::NDRange(1), x, cl_long(4));
    context->finish();
    std::printf("launched\n");
    return 0;
}

int main(int argc, char** argv)
{
    if (argc == 2 && !std::strcmp(argv[1], "planted-out-of-bounds")) return planted_out_of_bounds();
    const auto method = argc == 7 ? batched::parse_method(argv[4]) : std::nullopt;
    const auto organization = argc == 7 ? batched::parse_organization(argv[5]) : std::nullopt;
    if (!method || !organization || (std::strcmp(argv[1], "single") && std::strcmp(argv[1], "double"))) {
        std::fprintf(stderr, "usage: oclgrind_batch_case single|double N COUNT METHOD ORGANIZATION local|global\n");
        return 2;
    }
    const int n = std::atoi(argv[2]);
    const std::size_t count = std::strtoull(argv[3], nullptr, 10);
    const bool global = std::string(argv[6]) == "global";
    try {
        if (!std::strcmp(argv[1], "single")) return run<float>(n, count, *method, *organization, global);
        return run<double>(n, count, *method, *organization, global);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "oclgrind_batch_case: %s\n", e.what());
        return 2;
    }
}
