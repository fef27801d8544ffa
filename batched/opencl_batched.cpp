// The batched solvers on an OpenCL device: the host side of kernels/batched_solvers.cl
// (see batched/opencl_batched.hpp). One solve: validate as batched::solve does, pick
// the programs (precision x organization x where the workspace lives) and kernels,
// size the workspace and the chunks to the device, then per chunk: upload A and y,
// run the method's kernels, download x and the reports.
#include "batched/opencl_batched.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <limits>
#include <memory>

#include "opencl/host.hpp"
#include "kernels/batched_layout.h"
#include "variants/ldlt.hpp"

namespace flamex::batched {

const char* organization_name(Organization o)
{
    switch (o) {
    case Organization::Simd: return "simd";
    case Organization::Collaborative: return "collaborative";
    case Organization::Hybrid: return "hybrid";
    }
    return "?";
}

std::optional<Organization> parse_organization(std::string_view name)
{
    for (Organization o : {Organization::Simd, Organization::Collaborative, Organization::Hybrid})
        if (name == organization_name(o)) return o;
    return std::nullopt;
}

int default_cooperating(int n) { return std::max(1, (n + 1) / 2); }

namespace {

namespace ocl = flamex::opencl;
using Clock = std::chrono::steady_clock;

constexpr int kDefaultWorkGroup = 64;      // cooperating kernels
constexpr std::size_t kSimdWorkGroup = 64; // simd kernels
constexpr std::size_t kMaxGroups = std::size_t(1) << 20;
constexpr std::uint64_t kLocalSlack = 256; // alignment of the two local arguments

// The kernels' status codes (kernels/batched_layout.h) are batched::Status.
static_assert(ST_OK == static_cast<int>(Status::Ok) && ST_BREAKDOWN == static_cast<int>(Status::Breakdown) &&
                  ST_FLAGGED == static_cast<int>(Status::Flagged) && ST_REPAIRED == static_cast<int>(Status::Repaired) &&
                  ST_INVALID == static_cast<int>(Status::InvalidInput),
              "kernels/batched_layout.h's ST_* must be batched::Status");

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

[[noreturn]] void bad_argument(const std::string& what) { throw Error("batch solve (opencl): " + what); }

enum class KernelId { Ldlt, Householder, Dc, Residual };

const char* kernel_name(KernelId id)
{
    switch (id) {
    case KernelId::Ldlt: return "ldlt_solve";
    case KernelId::Householder: return "householder_pcr";
    case KernelId::Dc: return "dc_solve";
    case KernelId::Residual: return "residual";
    }
    return "?";
}

// Workspace of one system, as kernels/batched_layout.h lays it out.
struct Footprint {
    std::uint64_t real_bytes = 0, int_bytes = 0;
};

Footprint footprint(KernelId id, int n, std::size_t scalar)
{
    const std::uint64_t N = static_cast<std::uint64_t>(n);
    switch (id) {
    case KernelId::Ldlt: return {LDLT_REALS(N) * scalar, LDLT_INTS(N) * sizeof(cl_int)};
    case KernelId::Householder: return {HP_REALS(N) * scalar, HP_INTS(N) * sizeof(cl_int)};
    case KernelId::Dc: return {DC_REALS(N) * scalar, DC_INTS(N) * sizeof(cl_int)};
    case KernelId::Residual: return {RES_DOUBLES(N) * sizeof(cl_double), RES_INTS(N) * sizeof(cl_int)};
    }
    return {};
}

// One kernel as it will be launched.
struct Launch {
    KernelId id = KernelId::Ldlt;
    cl::Kernel kernel;
    bool simd = false;
    bool global_scratch = false; // workspace in the shared global buffers
    int t = 1;                   // lanes per system
    int S = 1;                   // systems per work-group
    std::size_t local = 1;       // work-group size
    Footprint unit;              // workspace per unit: a work-item (simd) or a work-group
    std::size_t max_units = 0;   // global workspace: work-items (simd) or work-groups it holds
};

template <class T>
class Engine {
public:
    // Checks the organization's parameters, then takes the device's context.
    Engine(const Batch<T>& batch, const OpenClBatchOptions& cl) : n_(batch.n), cl_(cl)
    {
        switch (cl.organization) {
        case Organization::Simd:
            if (cl.cooperating != 0 && cl.cooperating != 1)
                bad_argument("the simd organization runs one work-item per system; cooperating = " +
                             std::to_string(cl.cooperating) + " (give 0 or 1, or use hybrid)");
            t_ = 1;
            break;
        case Organization::Collaborative:
            if (cl.cooperating != 0 && cl.cooperating != n_)
                bad_argument("the collaborative organization runs n = " + std::to_string(n_) +
                             " work-items per system; cooperating = " + std::to_string(cl.cooperating) +
                             " (give 0 or n, or use hybrid)");
            t_ = n_;
            break;
        case Organization::Hybrid:
            if (cl.cooperating < 0 || cl.cooperating > n_)
                bad_argument("hybrid: cooperating work-items per system must be from 1 to n = " + std::to_string(n_) +
                             " (0 for the default " + std::to_string(default_cooperating(n_)) + "), got " +
                             std::to_string(cl.cooperating));
            t_ = cl.cooperating == 0 ? default_cooperating(n_) : cl.cooperating;
            break;
        default: bad_argument("unknown organization " + std::to_string(static_cast<int>(cl.organization)));
        }
        simd_ = cl.organization == Organization::Simd;
        if (cl.work_group < 0)
            bad_argument("work_group must be positive (0 for the default), got " + std::to_string(cl.work_group));
        work_group_ = cl.work_group == 0 ? std::max(kDefaultWorkGroup, t_) : cl.work_group;
        if (!simd_ && work_group_ < t_)
            bad_argument("a work-group of " + std::to_string(work_group_) + " work-items cannot hold one system of " +
                         std::to_string(t_) + " cooperating work-items");
        context_ = ocl::Context::shared(cl.device, ocl::Requirements{true, false});
        const std::uint64_t limit = cl.memory_limit != 0 ? cl.memory_limit : context_->info().global_memory / 2;
        memory_ = std::min<std::uint64_t>(limit, context_->info().global_memory);
        cl_device_fp_config fp = 0;
        if (context_->device().getInfo(CL_DEVICE_SINGLE_FP_CONFIG, &fp) == CL_SUCCESS)
            correct_fp32_ = (fp & CL_FP_CORRECTLY_ROUNDED_DIVIDE_SQRT) != 0;
    }

    const ocl::Context& context() const { return *context_; }
    std::uint64_t memory() const { return memory_; }
    int t() const { return t_; }

    std::shared_ptr<const ocl::Program> program(bool simd, bool global_scratch)
    {
        std::string options = ocl::kDefaultBuildOptions;
        options += std::string(" -DFLAMEX_DOUBLE=") + (sizeof(T) == 8 ? "1" : "0");
        options += std::string(" -DFLAMEX_SIMD=") + (simd ? "1" : "0");
        options += std::string(" -DFLAMEX_SCRATCH_GLOBAL=") + (global_scratch ? "1" : "0");
        if (sizeof(T) == 4 && correct_fp32_) options += " -cl-fp32-correctly-rounded-divide-sqrt";
        if (!cl_.build_options.empty()) options += " " + cl_.build_options;
        return context_->program("batched_solvers", ocl::embedded_source("batched_solvers"), options);
    }

    Launch prepare(KernelId id)
    {
        Launch L;
        L.id = id;
        const Footprint fp = footprint(id, n_, sizeof(T));
        if (simd_) {
            L.simd = true;
            L.global_scratch = true;
            L.kernel = program(true, false)->kernel(kernel_name(id));
            L.local = std::min(kSimdWorkGroup, ocl::kernel_max_work_group(*context_, L.kernel));
            L.unit = fp;
            return L;
        }
        L.t = id == KernelId::Residual ? std::min(n_, work_group_) : t_;
        if (!cl_.global_scratch) {
            L.kernel = program(false, false)->kernel(kernel_name(id));
            L.local = group_size(L);
            L.S = id == KernelId::Dc ? 1 : static_cast<int>(L.local) / L.t;
            cl_ulong static_local = 0;
            L.kernel.getWorkGroupInfo(context_->device(), CL_KERNEL_LOCAL_MEM_SIZE, &static_local);
            const std::uint64_t have = cl_.local_memory_limit != 0
                                           ? std::min(cl_.local_memory_limit, context_->info().local_memory)
                                           : context_->info().local_memory;
            const std::uint64_t avail = have > static_local + kLocalSlack ? have - static_local - kLocalSlack : 0;
            const std::uint64_t fit = avail / (fp.real_bytes + fp.int_bytes);
            if (fit >= 1) {
                if (fit < static_cast<std::uint64_t>(L.S)) { // fewer systems than lanes allow: drop the idle lanes
                    L.S = static_cast<int>(fit);
                    L.local = static_cast<std::size_t>(L.S) * static_cast<std::size_t>(L.t);
                }
                L.unit = {fp.real_bytes * L.S, fp.int_bytes * L.S};
                return L;
            }
        }
        // The workspace of a work-group in global memory.
        L.global_scratch = true;
        L.kernel = program(false, true)->kernel(kernel_name(id));
        L.local = group_size(L);
        L.S = id == KernelId::Dc ? 1 : static_cast<int>(L.local) / L.t;
        L.unit = {fp.real_bytes * L.S, fp.int_bytes * L.S};
        return L;
    }

    // Units of global workspace a launch for `items` systems would use at most.
    static std::size_t units_needed(const Launch& L, std::size_t items)
    {
        if (L.simd) return ocl::round_up(std::max<std::size_t>(items, 1), L.local);
        return (std::max<std::size_t>(items, 1) + L.S - 1) / L.S;
    }

    // Sizes the shared global workspace for the launches (each capped to a quarter of
    // the memory budget, but at least one unit) and allocates it. Returns its bytes.
    std::uint64_t allocate_scratch(std::vector<Launch*> launches, std::size_t count)
    {
        const std::uint64_t budget = std::min<std::uint64_t>(memory_ / 4, context_->info().max_allocation);
        std::uint64_t real_bytes = 0, int_bytes = 0;
        for (Launch* L : launches) {
            if (!L->global_scratch) continue;
            const std::uint64_t per = std::max(L->unit.real_bytes, L->unit.int_bytes);
            std::size_t cap = static_cast<std::size_t>(
                std::max<std::uint64_t>(1, budget / std::max<std::uint64_t>(per, 1)));
            if (L->simd) cap = std::max(L->local, cap / L->local * L->local);
            L->max_units = std::min(units_needed(*L, count), cap);
            real_bytes = std::max(real_bytes, L->max_units * L->unit.real_bytes);
            int_bytes = std::max(int_bytes, L->max_units * L->unit.int_bytes);
        }
        if (real_bytes == 0) return 0;
        if (real_bytes > context_->info().max_allocation || int_bytes > context_->info().max_allocation ||
            real_bytes + int_bytes > memory_)
            out_of_memory(real_bytes + int_bytes, "the workspace of one work-group");
        scratch_real_ = context_->allocate(real_bytes);
        scratch_int_ = context_->allocate(int_bytes);
        return real_bytes + int_bytes;
    }

    [[noreturn]] void out_of_memory(std::uint64_t bytes, const std::string& what) const
    {
        throw Error("opencl: out of device memory on '" + context_->info().name + "': " + what + " of order " +
                    std::to_string(n_) + " needs " + ocl::describe_bytes(bytes) + ", more than the " +
                    ocl::describe_bytes(memory_) +
                    (cl_.memory_limit != 0 ? " of memory_limit" : " (half the device's global memory) allowed"));
    }

    // Runs the kernel on `items` systems: arguments (n, items, first, args..., the
    // workspace pair), in waves of as many systems as the workspace (or kMaxGroups)
    // allows, `first` the wave's first item.
    template <class... Args>
    void run(Launch& L, std::size_t items, const Args&... args)
    {
        if (items == 0) return;
        cl_uint index = 3;
        (ocl::detail::set_one(L.kernel, index++, args), ...);
        if (L.global_scratch) {
            ocl::detail::set_one(L.kernel, index++, scratch_real_);
            ocl::detail::set_one(L.kernel, index++, scratch_int_);
        } else {
            ocl::detail::set_one(L.kernel, index++, cl::Local(static_cast<std::size_t>(L.unit.real_bytes)));
            ocl::detail::set_one(L.kernel, index++, cl::Local(static_cast<std::size_t>(L.unit.int_bytes)));
        }
        ocl::detail::set_one(L.kernel, 0, cl_int(n_));
        ocl::detail::set_one(L.kernel, 1, static_cast<cl_long>(items));
        const std::size_t wave_units = L.global_scratch ? L.max_units : kMaxGroups;
        const std::size_t per_unit = L.simd ? 1 : static_cast<std::size_t>(L.S);
        for (std::size_t first = 0; first < items;) {
            const std::size_t units = std::min(units_needed(L, items - first), wave_units);
            ocl::detail::set_one(L.kernel, 2, static_cast<cl_long>(first));
            const std::size_t global = L.simd ? units : units * L.local;
            ocl::detail::enqueue(*context_, L.kernel, cl::NDRange(global), cl::NDRange(L.local));
            first += units * per_unit;
        }
    }

private:
    std::size_t group_size(const Launch& L) const
    {
        const std::size_t most = ocl::kernel_max_work_group(*context_, L.kernel);
        if (most < static_cast<std::size_t>(L.t))
            throw Error("opencl: kernel " + std::string(kernel_name(L.id)) + " runs at most " + std::to_string(most) +
                        " work-items per work-group on '" + context_->info().name + "', fewer than the " +
                        std::to_string(L.t) + " cooperating work-items of one system");
        return std::min(static_cast<std::size_t>(work_group_), most);
    }

    int n_;
    OpenClBatchOptions cl_;
    std::shared_ptr<ocl::Context> context_;
    int t_ = 1;
    int work_group_ = kDefaultWorkGroup;
    bool simd_ = false;
    bool correct_fp32_ = false;
    std::uint64_t memory_ = 0;
    cl::Buffer scratch_real_, scratch_int_;
};

template <class T>
void check_batch(const Batch<T>& batch)
{
    const int n = batch.n;
    if (n < 1 || n > kMaxOrder)
        bad_argument("order n = " + std::to_string(n) + " is out of range [1, " + std::to_string(kMaxOrder) + "]");
    if (batch.A.size() != batch.count * n * n || batch.y.size() != batch.count * n)
        bad_argument("the batch's arrays do not hold " + std::to_string(batch.count) + " systems of order " +
                     std::to_string(n));
}

// What one run of the kernels computes.
enum class Job { Solve, Eigenvalues };

template <class T>
struct Outputs {
    std::vector<T> x;                   // Solve; the eigenvalues for Eigenvalues
    std::vector<cl_int> status, column, discarded;
    std::vector<double> residual, first;
};

template <class T>
Outputs<T> run_device(const Batch<T>& batch, Job job, Method method, bool residuals, double tolerance,
                      double threshold, const OpenClBatchOptions& cl, OpenClSolveInfo& info)
{
    const auto start = Clock::now();
    const int n = batch.n;
    const std::size_t count = batch.count;
    Engine<T> engine(batch, cl);
    const ocl::Context& ctx = engine.context();
    info = OpenClSolveInfo{};
    info.device = ctx.info().name;
    info.organization = cl.organization;
    info.cooperating = engine.t();

    const bool eig = job == Job::Eigenvalues;
    const bool ldlt = !eig && method == Method::Ldlt;
    const bool use_dc = eig || method == Method::DivideConquer || method == Method::Auto;
    const bool auto_ = !eig && method == Method::Auto;
    const bool check = !eig && (residuals || auto_);

    Launch main = engine.prepare(ldlt ? KernelId::Ldlt : KernelId::Householder);
    Launch dc, res;
    if (use_dc) dc = engine.prepare(KernelId::Dc);
    if (check) res = engine.prepare(KernelId::Residual);
    info.work_group = static_cast<int>(main.local);
    info.systems_per_group = main.S;
    info.local_scratch = !main.global_scratch;
    info.dc_local_scratch = use_dc && !dc.global_scratch;

    Outputs<T> out;
    out.x.assign(count * n, T(0));
    out.status.assign(count, ST_OK);
    if (ldlt) out.column.assign(count, 0);
    if (use_dc && !eig) out.discarded.assign(count, 0);
    if (check) {
        out.residual.assign(count, 0.0);
        out.first.assign(count, 0.0);
    }
    if (count == 0) {
        info.total = seconds_since(start);
        return out;
    }

    // Device memory: the shared workspace first, then as many systems per chunk as fit.
    std::vector<Launch*> launches = {&main};
    if (use_dc) launches.push_back(&dc);
    if (check) launches.push_back(&res);
    const std::uint64_t scratch = engine.allocate_scratch(launches, count);
    const std::uint64_t N = static_cast<std::uint64_t>(n), s = sizeof(T);
    std::uint64_t per_system = N * N * s + 2 * N * s + 4 /* status */;
    if (ldlt) per_system += 4;
    if (use_dc) per_system += (N * N + 3 * N) * s + 4 /* discarded */;
    if (check) per_system += 16;
    if (auto_) per_system += 4; // the list
    const std::uint64_t room = engine.memory() > scratch + 64 ? engine.memory() - scratch - 64 : 0;
    std::size_t chunk = static_cast<std::size_t>(std::min<std::uint64_t>(count, room / per_system));
    chunk = static_cast<std::size_t>(std::min<std::uint64_t>(chunk, ctx.info().max_allocation / (N * N * s)));
    if (chunk == 0) engine.out_of_memory(per_system + scratch, "one system with its workspace");

    const auto bytes = [&](std::uint64_t per) { return static_cast<std::uint64_t>(chunk) * per; };
    cl::Buffer dummy = ctx.allocate(8);
    cl::Buffer bA = ctx.allocate(bytes(N * N * s)), bY = ctx.allocate(bytes(N * s)), bX = ctx.allocate(bytes(N * s));
    cl::Buffer bStatus = ctx.allocate(bytes(4));
    cl::Buffer bColumn = ldlt ? ctx.allocate(bytes(4)) : dummy;
    cl::Buffer bTW = dummy, bTD = dummy, bTE = dummy, bTT = dummy, bDisc = dummy;
    if (use_dc) {
        bTW = ctx.allocate(bytes(N * N * s));
        bTD = ctx.allocate(bytes(N * s));
        bTE = ctx.allocate(bytes(N * s));
        bTT = ctx.allocate(bytes(N * s));
        bDisc = ctx.allocate(bytes(4));
    }
    cl::Buffer bRes = dummy, bFirst = dummy, bList = dummy, bCounter = dummy;
    if (check) {
        bRes = ctx.allocate(bytes(8));
        bFirst = ctx.allocate(bytes(8));
    }
    if (auto_) {
        bList = ctx.allocate(bytes(4));
        bCounter = ctx.allocate(4);
    }
    info.upload = seconds_since(start); // setup, counted as transfer time

    for (std::size_t first = 0; first < count; first += chunk) {
        const std::size_t m = std::min(chunk, count - first);
        ++info.chunks;
        auto t0 = Clock::now();
        ctx.write(bA, 0, m * N * N * s, batch.A.data() + first * N * N);
        ctx.write(bY, 0, m * N * s, batch.y.data() + first * N);
        info.upload += seconds_since(t0);

        t0 = Clock::now();
        if (ldlt) {
            engine.run(main, m, cl_int(main.t), cl_int(main.S), bA, bY, bX, bStatus, bColumn);
        } else {
            const cl_int mode = eig || method == Method::DivideConquer ? 2 : auto_ ? 3 : 1;
            engine.run(main, m, cl_int(main.t), cl_int(main.S), mode, bA, bY, bX, bStatus, bTW, bTD, bTE, bTT);
        }
        ctx.finish();
        info.factor += seconds_since(t0);

        if (eig || method == Method::DivideConquer) {
            t0 = Clock::now();
            engine.run(dc, m, cl_int(dc.t), cl_int(eig ? 1 : 0), cl_double(threshold), dummy, cl_int(0), bY, bX,
                       bStatus, bDisc, bX, bTW, bTD, bTE, bTT);
            ctx.finish();
            info.dc += seconds_since(t0);
        }
        if (check) {
            t0 = Clock::now();
            if (auto_) {
                const cl_int zero = 0;
                ctx.write(bCounter, 0, 4, &zero);
            }
            engine.run(res, m, cl_int(res.t), cl_int(res.S), cl_int(auto_ ? 1 : 0), cl_double(tolerance), dummy,
                       cl_int(0), bA, bY, bX, bStatus, bRes, bFirst, bCounter, bList);
            ctx.finish();
            info.residual += seconds_since(t0);
        }
        if (auto_) {
            cl_int flagged = 0;
            ctx.read(bCounter, 0, 4, &flagged);
            info.flagged += static_cast<std::size_t>(flagged);
            if (flagged > 0) {
                t0 = Clock::now();
                engine.run(dc, static_cast<std::size_t>(flagged), cl_int(dc.t), cl_int(0),
                           cl_double(threshold), bList, cl_int(1), bY, bX, bStatus, bDisc, bX, bTW, bTD, bTE, bTT);
                ctx.finish();
                info.dc += seconds_since(t0);
                t0 = Clock::now();
                engine.run(res, static_cast<std::size_t>(flagged), cl_int(res.t), cl_int(res.S),
                           cl_int(2), cl_double(tolerance), bList, cl_int(1), bA, bY, bX, bStatus, bRes, bFirst,
                           bCounter, bList);
                ctx.finish();
                info.residual += seconds_since(t0);
            }
        }

        t0 = Clock::now();
        ctx.read(bX, 0, m * N * s, out.x.data() + first * N);
        ctx.read(bStatus, 0, m * 4, out.status.data() + first);
        if (ldlt) ctx.read(bColumn, 0, m * 4, out.column.data() + first);
        if (use_dc && !eig) ctx.read(bDisc, 0, m * 4, out.discarded.data() + first);
        if (check) {
            ctx.read(bRes, 0, m * 8, out.residual.data() + first);
            ctx.read(bFirst, 0, m * 8, out.first.data() + first);
        }
        info.download += seconds_since(t0);
    }
    info.total = seconds_since(start);
    return out;
}

} // namespace

template <class T>
Result<T> solve_opencl(const Batch<T>& batch, const Options& options, const OpenClBatchOptions& cl,
                       OpenClSolveInfo* info)
{
    check_batch(batch);
    if (options.threads < 1) bad_argument("threads must be at least 1");
    switch (options.method) {
    case Method::Ldlt:
    case Method::HouseholderPcr:
    case Method::DivideConquer:
    case Method::Auto: break;
    default: bad_argument("unknown method " + std::to_string(static_cast<int>(options.method)));
    }
    (void)ldlt_variant<T>(options.ldlt_variant); // throws for an unknown variant, as batched::solve
    const int n = batch.n;
    const double tolerance = options.tolerance < 0 ? default_tolerance<T>(n) : options.tolerance;
    const double threshold = options.threshold < 0 ? default_threshold<T>() : options.threshold;

    OpenClSolveInfo local_info;
    OpenClSolveInfo& inf = info != nullptr ? *info : local_info;
    Outputs<T> out = run_device(batch, Job::Solve, options.method, options.residuals, tolerance, threshold, cl, inf);

    const double nan = std::numeric_limits<double>::quiet_NaN();
    const bool auto_ = options.method == Method::Auto;
    const bool check = options.residuals || auto_;
    Result<T> result;
    result.n = n;
    result.count = batch.count;
    result.tolerance = tolerance;
    result.threshold = threshold;
    result.x = std::move(out.x);
    result.report.assign(batch.count, SystemReport{});
    for (std::size_t k = 0; k < batch.count; ++k) {
        SystemReport& r = result.report[k];
        r.status = static_cast<Status>(out.status[k]);
        r.solved_by = auto_ ? (out.status[k] == ST_REPAIRED ? Method::DivideConquer : Method::HouseholderPcr)
                            : options.method;
        if (options.method == Method::Ldlt && out.status[k] == ST_BREAKDOWN) r.column = out.column[k];
        const bool by_dc = r.solved_by == Method::DivideConquer && out.status[k] != ST_INVALID;
        if (by_dc) r.discarded = static_cast<std::uint16_t>(out.discarded[k]);
        if (check) {
            r.residual = out.residual[k];
            r.first_residual = out.first[k];
        } else {
            r.residual = r.first_residual = nan;
        }
    }
    result.seconds = inf.total;
    return result;
}

template <class T>
std::vector<T> eigenvalues_opencl(const Batch<T>& batch, const OpenClBatchOptions& cl, OpenClSolveInfo* info)
{
    check_batch(batch);
    OpenClSolveInfo local_info;
    Outputs<T> out = run_device(batch, Job::Eigenvalues, Method::DivideConquer, false, 0.0, 0.0, cl,
                                info != nullptr ? *info : local_info);
    const int n = batch.n;
    for (std::size_t k = 0; k < batch.count; ++k)
        if (out.status[k] == ST_INVALID)
            std::fill(out.x.begin() + k * n, out.x.begin() + (k + 1) * n, std::numeric_limits<T>::quiet_NaN());
    return std::move(out.x);
}

template Result<float> solve_opencl<float>(const Batch<float>&, const Options&, const OpenClBatchOptions&,
                                           OpenClSolveInfo*);
template Result<double> solve_opencl<double>(const Batch<double>&, const Options&, const OpenClBatchOptions&,
                                             OpenClSolveInfo*);
template std::vector<float> eigenvalues_opencl<float>(const Batch<float>&, const OpenClBatchOptions&, OpenClSolveInfo*);
template std::vector<double> eigenvalues_opencl<double>(const Batch<double>&, const OpenClBatchOptions&,
                                                        OpenClSolveInfo*);

} // namespace flamex::batched
