// The batched solvers of batched/batched.hpp on an OpenCL device (kernels/
// batched_solvers.cl), with the three organizations of Abbas-Turki and Graillat
// (2017) for the work-items of one system:
//
//   simd           one work-item per system, start to end, its workspace in global
//                  memory (the paper's "SIMD" version; no barrier at all);
//   collaborative  n work-items per system sharing the system in local memory
//                  (the paper's "collaborative" version);
//   hybrid         p work-items per system (OpenClBatchOptions::cooperating, 1 .. n;
//                  default (n + 1) / 2, the paper's n* ~ n/2).
//
// A work-group of the cooperating organizations holds work_group / t systems
// (t = n or p; the D&C kernel one). Every method of batched.hpp runs with every
// organization: ldlt (right-looking), householder-pcr, dc (the tridiagonalization
// kernel, then one D&C kernel), auto (householder-pcr and the residual check for
// all, the flagged systems compacted on the device into a list, D&C and a second
// residual check for that list only).
//
// CONTRACT: the data layout, Options, Result and the per-system reports are exactly
// batched.hpp's: statuses, solved_by, discarded, column, residual (computed on the
// device in double, the CPU's formula in the CPU's order) and first_residual. The
// kernels perform the CPU's operations in the CPU's order (see the .cl file), so
// the results are identical for every organization, cooperating count and
// work-group size, bit-identical from run to run, and the CPU's bits (batched::solve,
// ldlt_variant 3): division and square root are correctly rounded in double on every
// device and in single precision where the device offers it (the host then builds
// with -cl-fp32-correctly-rounded-divide-sqrt), and hypot is the shared code's own
// (kernels/batched_system.h), not the device's. Checked on PoCL and on an NVIDIA H100
// (every method, organization and order 1..64 in both precisions). The one exception
// IEEE 754 allows: a NaN made by arithmetic (0 / 0 in a singular system) has the
// hardware's sign and payload (x86's default NaN is negative, NVIDIA's positive).
// Options::ldlt_variant is validated as on the CPU, but the device always runs the
// right-looking variant (3); Options::threads is validated and otherwise unused.
//
// DEVICE: OpenClBatchOptions::device (else FLAMEX_OPENCL_DEVICE) selects it as
// everywhere in flamex (an index, or part of the name; default the first GPU, else
// the first device); cl_khr_fp64 is required, also for float batches (the residual
// is computed in double). Large batches are processed in chunks that fit the
// device memory (or memory_limit).
//
// ERRORS: flamex::Error, message starting with "opencl: " for the device side (no
// platform, no matching device, no fp64, a kernel build failure with its build log,
// out of device memory) and with "batch solve (opencl): " for bad arguments (the
// batch, Options, organization parameters). Numerical trouble is reported per
// system, as on the CPU.
//
// For `flamex batch solve --device-backend opencl --organization simd|collaborative|
// hybrid [--cooperating p] [--work-group w] [--device SEL]`: parse_organization()
// and solve_opencl(); the Result is the CPU's type, so the output code is shared.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "batched/batched.hpp"

namespace flamex::batched {

enum class Organization : std::uint8_t { Simd = 0, Collaborative = 1, Hybrid = 2 };
const char* organization_name(Organization o); // "simd", "collaborative", "hybrid"
std::optional<Organization> parse_organization(std::string_view name);

// The hybrid organization's default number of cooperating work-items: (n + 1) / 2.
int default_cooperating(int n);

struct OpenClBatchOptions {
    Organization organization = Organization::Hybrid;
    int cooperating = 0;          // hybrid: work-items per system, 1 .. n; 0 = default_cooperating(n).
                                  // simd and collaborative take no count (0, or 1 resp. n)
    int work_group = 0;           // work-items per work-group of the cooperating kernels (>= the
                                  // cooperating count); 0 = 64. simd kernels always use 64.
    std::string device;           // device selection; "" = FLAMEX_OPENCL_DEVICE, else the default
    bool global_scratch = false;  // cooperating kernels: workspace in global memory even where the
                                  // local memory would hold it (the fallback otherwise taken
                                  // automatically only when it does not)
    std::uint64_t memory_limit = 0; // bytes of device memory to use at most (0 = half the device's)
    std::uint64_t local_memory_limit = 0; // bytes of local memory per work-group to use at most (0 = the
                                          // device's): fewer systems per group, or the global fallback
    std::string build_options;    // appended to the kernels' build options (experiments, tests)
};

// What a device solve did, for benchmarks and diagnostics.
struct OpenClSolveInfo {
    std::string device;            // the device's name
    Organization organization = Organization::Hybrid;
    int cooperating = 0;           // work-items per system (1 for simd)
    int work_group = 0;            // work-items per work-group of the main kernel
    int systems_per_group = 0;     // systems per work-group of the main kernel
    bool local_scratch = false;    // the main kernel's workspace in local memory
    bool dc_local_scratch = false; // the D&C kernel's (when it ran)
    std::size_t chunks = 0;        // pieces the batch was processed in
    std::size_t flagged = 0;       // auto: systems the check sent to D&C
    // Seconds: transfers; the ldlt or Householder(+PCR) kernel; the D&C kernel; the
    // residual checks; total = the whole solve (Result::seconds). Stages are timed
    // with a queue finish between them.
    double upload = 0, factor = 0, dc = 0, residual = 0, download = 0, total = 0;
};

// Solves every system of the batch on the device. Throws flamex::Error for bad
// arguments (as batched::solve, and organization parameters out of range) and for
// device failures; numerical trouble is reported per system.
template <class T>
Result<T> solve_opencl(const Batch<T>& batch, const Options& options, const OpenClBatchOptions& cl = {},
                       OpenClSolveInfo* info = nullptr);

// The eigenvalues of every system (Householder tridiagonalization and divide and
// conquer on the device), ascending: count * n values, system k's at k * n. A system
// with a NaN or infinity in its lower triangle gets NaNs.
template <class T>
std::vector<T> eigenvalues_opencl(const Batch<T>& batch, const OpenClBatchOptions& cl = {},
                                  OpenClSolveInfo* info = nullptr);

} // namespace flamex::batched
