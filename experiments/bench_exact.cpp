// Benchmark: the `exact` backend against the `blis` backend, in one run on one
// machine, with 1 and 2 threads:
//   EXDOT   x^T y, n = 1e7 (out of cache)                          target <= 1.3x blis
//   EXGEMV  y := -A x + y, n x n, n = 4096 (also the transposed)    target <= 2.5x
//           (2 threads: <= 2x)
//   EXTRSV  lower, no transpose, non-unit, well-conditioned, n = 4096  target <= 3x
//   LU      lu_piv_unb_var3 (the paper's Algorithm 7), n = 1024     target <= 5x
//           (also on the same matrix with entries scaled by 2^k, k uniform in [-40, 40]:
//           target within 1.3x of the uniform matrix's time, i.e. 1.3 times its ratio)
// (the targets of issue 13; uniform data, the wide classes are the SWEEP's)
//   SWEEP   EXDOT, 1 thread, on the data classes of reference/exact_data.hpp (uniform,
//           exponents spread over 2^+-10 .. 2^+-500, exact cancellation, subnormal-
//           heavy, mixed signs) at n = 1e7 and 1e5, each against blis ddot on the
//           same data: n = 1e7 uniform <= 1.3x, any class <= 4x; n = 1e5 <= 8x;
//           and EXGEMV N, T and EXTRSV, 1 thread, n = 4096, on matrices of each class
//           (matrix_sweep): uniform gemv <= 2.5x, trsv <= 3x; any class <= 5x
// Each time is the best of R runs (after one untimed warm-up run), the blis and
// exact runs interleaved; the inputs are restored outside the timed region. Prints a markdown table with the machine,
// the kernels' instruction set and, for the exact backend, whether 1 and 2
// threads gave the same bits. Not a test (ctest runs --quick as a smoke test).
//
//   level3  gemm and blocked LU (experiments/bench_exact_level3.cpp)
//
// usage: flamex_bench_exact [--reps R] [--quick] [--only dot|gemv|trsv|lu|sweep|sweep-rows|level3] [--threads T]
//                           [--gemm-sizes N,...|none] [--trsm-shapes TxR,...|none]
//                           [--lu-sizes N,...|none] [--lu-blocks NB,...] [--markdown] [--columns]
//   --markdown, --columns   the tables for docs/benchmarks.md (experiments/bench_report.hpp)
//   --quick   small sizes, 1 repetition: checks that everything runs
//   --only, --threads   one operation / one thread count (for profiling); sweep-rows:
//             only the gemv and trsv part of the sweep
//   --gemm-sizes, --trsm-shapes, --lu-sizes, --lu-blocks   the level3 tables' sizes
//             (none: that table is skipped; --lu-blocks: the blocked exact variants' blocks)
//
// BLIS parallelizes only its level-3 operations: its dot, gemv and trsv run on
// one thread whatever the thread count (the table says so), while the exact
// backend splits dot, gemv and the panels of trsv across its threads.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "blas/blas.hpp"
#include "exact/exact.hpp"
#include "experiments/bench_exact_level3.hpp"
#include "experiments/bench_report.hpp"
#include "reference/exact_data.hpp"
#include "reference/generators.hpp"
#include "variants/lu.hpp"

namespace {

namespace gen = flamex::gen;
using flamex::Blas;
using flamex::dim_t;
using flamex::Matrix;
using flamex::Obj;

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

// Best of `reps` timed runs of each of blis() and exact(), interleaved (blis,
// exact, blis, exact, ...) so that both see the same machine; each run is
// preceded by an untimed reset(), and one untimed warm-up run of each comes
// first. exact() runs last: its result is what the operands hold afterwards.
struct Times {
    double blis, exact;
};

Times best_of(int reps, const std::function<void()>& reset, const std::function<void()>& blis,
              const std::function<void()>& exact)
{
    Times best{1e300, 1e300};
    const auto timed = [&](const std::function<void()>& run, double& into, bool record) {
        reset();
        const auto t0 = Clock::now();
        run();
        if (record) into = std::min(into, seconds_since(t0));
    };
    timed(blis, best.blis, false); // warm-up: page faults, thread pools, lazily built tables
    timed(exact, best.exact, false);
    for (int r = 0; r < reps; ++r) {
        timed(blis, best.blis, true);
        timed(exact, best.exact, true);
    }
    return best;
}

using gen::well_conditioned_lower;
Matrix random_matrix(dim_t m, dim_t n, std::uint64_t seed) { return gen::uniform_matrix(m, n, seed); }

void copy_into(const Matrix& from, const Matrix& to)
{
    std::memcpy(to.view().buffer(), from.view().buffer(),
                sizeof(double) * static_cast<std::size_t>(from.view().col_stride() * (from.width() - 1) + from.length()));
}

bool same_bits(const Matrix& A, const Matrix& B)
{
    for (dim_t j = 0; j < A.width(); ++j)
        for (dim_t i = 0; i < A.length(); ++i) {
            const double a = A(i, j), b = B(i, j);
            if (std::memcmp(&a, &b, sizeof a) != 0) return false;
        }
    return true;
}

// Forwards every operation to a backend and adds its wall time to a per-operation
// total: where the time of a factorization goes.
class TimedBlas final : public Blas {
public:
    enum Op { TRSV, DOTS, GEMV, IAMAX, PIVOTS, INVSCAL, OTHER, OPS };
    static constexpr const char* NAMES[OPS] = {"trsv", "dots", "gemv", "iamax", "apply_pivots", "invscal", "other"};

    explicit TimedBlas(const Blas& inner) : inner_(inner) {}
    // f() timed into the total of op (defined first: the overrides below use it).
    template <class F>
    auto timed(Op op, F&& f) const
    {
        const auto t0 = Clock::now();
        auto r = f();
        seconds_[op] += seconds_since(t0);
        ++calls_[op];
        return r;
    }

    double total(Op op) const { return seconds_[op]; }
    int calls(Op op) const { return calls_[op]; }

    std::string name() const override { return inner_.name(); }
    bool reproducible() const override { return inner_.reproducible(); }
    double sum(Obj x) const override { return timed(OTHER, [&] { return inner_.sum(x); }); }
    double dot(Obj x, Obj y) const override { return timed(OTHER, [&] { return inner_.dot(x, y); }); }
    void dots(double alpha, Obj x, Obj y, double beta, Obj rho) const override
    {
        timed(DOTS, [&] { inner_.dots(alpha, x, y, beta, rho); return 0; });
    }
    void scal(double alpha, Obj x) const override { timed(OTHER, [&] { inner_.scal(alpha, x); return 0; }); }
    void invscal(double alpha, Obj x) const override { timed(INVSCAL, [&] { inner_.invscal(alpha, x); return 0; }); }
    void axpy(double alpha, Obj x, Obj y) const override { timed(OTHER, [&] { inner_.axpy(alpha, x, y); return 0; }); }
    void copy(Obj x, Obj y) const override { timed(OTHER, [&] { inner_.copy(x, y); return 0; }); }
    void gemv(flamex::Trans trans, double alpha, Obj A, Obj x, double beta, Obj y) const override
    {
        timed(GEMV, [&] { inner_.gemv(trans, alpha, A, x, beta, y); return 0; });
    }
    void trsv(flamex::Uplo uplo, flamex::Trans trans, flamex::Diag diag, Obj T, Obj x) const override
    {
        timed(TRSV, [&] { inner_.trsv(uplo, trans, diag, T, x); return 0; });
    }
    void ger(double alpha, Obj x, Obj y, Obj A) const override { timed(OTHER, [&] { inner_.ger(alpha, x, y, A); return 0; }); }
    void gemm(flamex::Trans ta, flamex::Trans tb, double alpha, Obj A, Obj B, double beta, Obj C) const override
    {
        timed(OTHER, [&] { inner_.gemm(ta, tb, alpha, A, B, beta, C); return 0; });
    }
    void trsm(flamex::Side side, flamex::Uplo uplo, flamex::Trans trans, flamex::Diag diag, double alpha, Obj T,
              Obj B) const override
    {
        timed(OTHER, [&] { inner_.trsm(side, uplo, trans, diag, alpha, T, B); return 0; });
    }
    void syrk(flamex::Uplo uplo, flamex::Trans trans, double alpha, Obj A, double beta, Obj C) const override
    {
        timed(OTHER, [&] { inner_.syrk(uplo, trans, alpha, A, beta, C); return 0; });
    }
    void trmv(flamex::Uplo uplo, flamex::Trans trans, flamex::Diag diag, Obj T, Obj x) const override
    {
        timed(OTHER, [&] { inner_.trmv(uplo, trans, diag, T, x); return 0; });
    }
    void trmm(flamex::Side side, flamex::Uplo uplo, flamex::Trans trans, flamex::Diag diag, double alpha, Obj T,
              Obj B) const override
    {
        timed(OTHER, [&] { inner_.trmm(side, uplo, trans, diag, alpha, T, B); return 0; });
    }
    void diag_invscal(Obj D, Obj x) const override { timed(OTHER, [&] { inner_.diag_invscal(D, x); return 0; }); }
    void diag_dots(double alpha, Obj x, Obj D, Obj y, double beta, Obj rho) const override
    {
        timed(OTHER, [&] { inner_.diag_dots(alpha, x, D, y, beta, rho); return 0; });
    }
    void diag_gemv(double alpha, Obj A, Obj D, Obj x, double beta, Obj y) const override
    {
        timed(OTHER, [&] { inner_.diag_gemv(alpha, A, D, x, beta, y); return 0; });
    }
    void sqrt(Obj alpha) const override { timed(OTHER, [&] { inner_.sqrt(alpha); return 0; }); }
    void reciprocal(Obj alpha) const override { timed(OTHER, [&] { inner_.reciprocal(alpha); return 0; }); }
    void gemm_ordered(Obj A, Obj B, Obj C) const override { timed(OTHER, [&] { inner_.gemm_ordered(A, B, C); return 0; }); }
    void trsm_ordered(flamex::Diag diag, Obj T, Obj B) const override
    {
        timed(OTHER, [&] { inner_.trsm_ordered(diag, T, B); return 0; });
    }
    dim_t iamax(Obj x) const override { return timed(IAMAX, [&] { return inner_.iamax(x); }); }
    void apply_pivots(flamex::PivObj p, Obj A) const override
    {
        timed(PIVOTS, [&] { inner_.apply_pivots(p, A); return 0; });
    }
    dim_t lu_block(dim_t m, dim_t n) const override { return inner_.lu_block(m, n); }
    double element(Obj A, dim_t i, dim_t j) const override { return inner_.element(A, i, j); }
    void acquire(Obj A) const override { inner_.acquire(A); }
    void release(Obj A) const override { inner_.release(A); }

private:
    const Blas& inner_;
    mutable double seconds_[OPS] = {};
    mutable int calls_[OPS] = {};
};

// --- the data sweep ----------------------------------------------------------------------

struct SweepRow {
    std::string name;
    dim_t n;
    double blis_s, exact_s; // per call
    double target;
};

// EXDOT against blis ddot, 1 thread, on every class at each length: each time
// the best of `reps` runs of `calls` calls (interleaved as in best_of).
std::vector<SweepRow> dot_sweep(const std::vector<dim_t>& lengths, int reps)
{
    const std::unique_ptr<Blas> blis = flamex::make_backend("blis", {1, 0, ""});
    const std::unique_ptr<Blas> exact = flamex::make_backend("exact", {1, 0, ""});
    std::vector<SweepRow> rows;
    for (const dim_t n : lengths) {
        const int calls = static_cast<int>(std::max<dim_t>(1, 10000000 / n / 10));
        Matrix x(n, 1), y(n, 1);
        std::vector<double> vx(static_cast<std::size_t>(n)), vy(vx.size());
        std::uint64_t seed = 100;
        for (const gen::DotDataClass& c : gen::dot_data_classes()) {
            gen::Random r(++seed);
            c.fill(r, vx, vy);
            std::memcpy(x.view().buffer(), vx.data(), sizeof(double) * vx.size());
            std::memcpy(y.view().buffer(), vy.data(), sizeof(double) * vy.size());
            volatile double sink = 0;
            const Times t = best_of(
                reps, [] {}, [&] { for (int k = 0; k < calls; ++k) sink = blis->dot(x, y); },
                [&] { for (int k = 0; k < calls; ++k) sink = exact->dot(x, y); });
            const bool uniform = &c == &gen::dot_data_classes().front();
            rows.push_back({c.name, n, t.blis / calls, t.exact / calls, n >= 10000000 ? (uniform ? 1.3 : 4.0) : 8.0});
        }
    }
    return rows;
}

// EXGEMV N and T (y := -A x + y) and EXTRSV (lower, no transpose, non-unit) on
// every class, 1 thread, against blis on the same data.
std::vector<SweepRow> matrix_sweep(dim_t n, int reps)
{
    const std::unique_ptr<Blas> blis = flamex::make_backend("blis", {1, 0, ""});
    const std::unique_ptr<Blas> exact = flamex::make_backend("exact", {1, 0, ""});
    std::vector<SweepRow> rows;
    std::uint64_t seed = 200;
    for (const gen::DotDataClass& c : gen::dot_data_classes()) {
        const bool uniform = &c == &gen::dot_data_classes().front();
        const gen::MatrixProblem p = gen::matrix_problem(c, n, ++seed);
        Matrix y(n, 1), x(n, 1);
        const auto reset_y = [&] { copy_into(p.x, y); };
        const auto reset_x = [&] { copy_into(p.x, x); };
        const Times tn = best_of(
            reps, reset_y, [&] { blis->gemv(flamex::Trans::No, -1.0, p.A, p.x, 1.0, y); },
            [&] { exact->gemv(flamex::Trans::No, -1.0, p.A, p.x, 1.0, y); });
        rows.push_back({std::string("gemv N, ") + c.name, n, tn.blis, tn.exact, uniform ? 2.5 : 5.0});
        const Times tt = best_of(
            reps, reset_y, [&] { blis->gemv(flamex::Trans::Yes, -1.0, p.At, p.x, 1.0, y); },
            [&] { exact->gemv(flamex::Trans::Yes, -1.0, p.At, p.x, 1.0, y); });
        rows.push_back({std::string("gemv T, ") + c.name, n, tt.blis, tt.exact, uniform ? 2.5 : 5.0});
        const Times ts = best_of(
            reps, reset_x, [&] { blis->trsv(flamex::Uplo::Lower, flamex::Trans::No, flamex::Diag::NonUnit, p.T, x); },
            [&] { exact->trsv(flamex::Uplo::Lower, flamex::Trans::No, flamex::Diag::NonUnit, p.T, x); });
        rows.push_back({std::string("trsv L N, ") + c.name, n, ts.blis, ts.exact, uniform ? 3.0 : 5.0});
    }
    return rows;
}

struct Row {
    int kind; // 0 dot, 1 gemv N, 2 gemv T, 3 trsv, 4 lu, 5 lu on the badly scaled matrix
    std::string op;
    std::string size;
    int threads;
    double blis_s, exact_s;
    double target;
};

// "512,1024" into sizes; "none": no sizes (that table is skipped).
bool parse_sizes(const char* text, std::vector<long>& sizes)
{
    sizes.clear();
    if (!std::strcmp(text, "none")) return true;
    const char* p = text;
    for (;;) {
        char* end = nullptr;
        const long v = std::strtol(p, &end, 10);
        if (end == p || v <= 0) return false;
        sizes.push_back(v);
        if (*end == '\0') return true;
        if (*end != ',') return false;
        p = end + 1;
    }
}

// "128x1920,256x1792" into shapes; "none": no shapes.
bool parse_shapes(const char* text, std::vector<std::pair<long, long>>& shapes)
{
    shapes.clear();
    if (!std::strcmp(text, "none")) return true;
    const char* p = text;
    for (;;) {
        char* end = nullptr;
        const long t = std::strtol(p, &end, 10);
        if (end == p || t <= 0 || *end != 'x') return false;
        p = end + 1;
        const long r = std::strtol(p, &end, 10);
        if (end == p || r <= 0) return false;
        shapes.emplace_back(t, r);
        if (*end == '\0') return true;
        if (*end != ',') return false;
        p = end + 1;
    }
}

struct Sizes {
    dim_t dot, gemv, trsv, lu;
};

using flamex::bench::cpu_clock;
using flamex::bench::cpu_model;
using flamex::bench::load_average;
using flamex::bench::Table;

const Table kTargets{"bench_exact.targets",
                     "| operation | size | threads | blis [s] | exact [s] | exact / blis | target | met | exact: 1 vs 2 threads |",
                     "|---|---|---|---|---|---|---|---|---|"};
const Table kDotSweep{"bench_exact.dot_sweep",
                      "| data | n | blis [ns/elem] | exact [ns/elem] | exact / blis | target | met |",
                      "|---|---|---|---|---|---|---|"};
const Table kMatrixSweep{"bench_exact.matrix_sweep", "| operation, data | blis [s] | exact [s] | exact / blis | target | met |",
                         "|---|---|---|---|---|---|"};
const Table kLuOperations{"bench_exact.lu_operations", "| operation | calls | blis [s] | exact [s] | exact / blis |",
                          "|---|---|---|---|---|"};
const Table kLuOperationsScaled{"bench_exact.lu_operations_scaled", kLuOperations.header, kLuOperations.alignment};

} // namespace

int main(int argc, char** argv)
{
    const flamex::bench::Report report("flamex_bench_exact", argc, argv);
    if (report.columns_only()) {
        std::vector<Table> tables = {kTargets, kDotSweep, kMatrixSweep, kLuOperations, kLuOperationsScaled};
        for (const Table& t : flamex::bench::level3_tables()) tables.push_back(t);
        report.print_columns(tables);
        return 0;
    }
    int reps = 5;
    bool quick = false;
    std::string only;
    int only_threads = 0;
    flamex::bench::Level3Options level3;
    for (int i = 1; i < argc; ++i) {
        if (!std::strcmp(argv[i], "--reps") && i + 1 < argc) {
            reps = std::max(1, std::atoi(argv[++i]));
        } else if (!std::strcmp(argv[i], "--quick")) {
            quick = true;
        } else if (!std::strcmp(argv[i], "--only") && i + 1 < argc) {
            only = argv[++i];
        } else if (!std::strcmp(argv[i], "--threads") && i + 1 < argc) {
            only_threads = std::atoi(argv[++i]);
        } else if (!std::strcmp(argv[i], "--trsm-shapes") && i + 1 < argc) {
            if (!parse_shapes(argv[++i], level3.trsm_shapes)) {
                std::fprintf(stderr, "flamex_bench_exact: --trsm-shapes takes a comma-separated list of TxR (triangle x right-hand sides) or 'none', got '%s'\n",
                             argv[i]);
                return 2;
            }
        } else if ((!std::strcmp(argv[i], "--gemm-sizes") || !std::strcmp(argv[i], "--lu-sizes") ||
                    !std::strcmp(argv[i], "--lu-blocks")) &&
                   i + 1 < argc) {
            std::vector<long>& sizes = !std::strcmp(argv[i], "--gemm-sizes") ? level3.gemm_sizes
                                       : !std::strcmp(argv[i], "--lu-sizes") ? level3.lu_sizes
                                                                            : level3.lu_blocks;
            if (!parse_sizes(argv[++i], sizes)) {
                std::fprintf(stderr, "flamex_bench_exact: %s takes a comma-separated list of positive sizes or 'none', got '%s'\n",
                             argv[i - 1], argv[i]);
                return 2;
            }
        } else {
            std::fprintf(stderr, "usage: flamex_bench_exact [--reps R] [--quick] [--only dot|gemv|trsv|lu|sweep|sweep-rows|level3] [--threads T] [--gemm-sizes N,...|none] [--trsm-shapes TxR,...|none] [--lu-sizes N,...|none] [--lu-blocks NB,...]\n");
            return 2;
        }
    }
    if (!only.empty() && only != "dot" && only != "gemv" && only != "trsv" && only != "lu" && only != "sweep" && only != "sweep-rows" &&
        only != "level3") {
        std::fprintf(stderr, "flamex_bench_exact: --only takes dot, gemv, trsv, lu, sweep, sweep-rows or level3\n");
        return 2;
    }
    if (only_threads != 0 && only_threads != 1 && only_threads != 2) {
        std::fprintf(stderr, "flamex_bench_exact: --threads takes 1 or 2\n");
        return 2;
    }
    const auto wanted = [&](const char* op) { return only.empty() || only == op; };
    Sizes sz = quick ? Sizes{100000, 256, 256, 128} : Sizes{10000000, 4096, 4096, 1024};
    if (quick) reps = 1;

    const unsigned hw = std::thread::hardware_concurrency();
    std::printf("## flamex exact backend vs blis\n\n");
    std::printf("- machine: %s, %s, %u hardware threads\n", cpu_model().c_str(), cpu_clock().c_str(), hw);
    std::printf("- exact kernels: %s\n", flamex::exact::kernel_isa());
    std::printf("- best of %d runs%s; load average at start: %s\n\n", reps, quick ? " (--quick sizes)" : "",
                load_average().c_str());
    std::fflush(stdout);

    // Operands (shared by all runs; 1 x 1 placeholders for operations not run).
    if (!wanted("dot")) sz.dot = 1;
    if (!wanted("gemv")) sz.gemv = 1;
    if (!wanted("trsv")) sz.trsv = 1;
    if (!wanted("lu")) sz.lu = 1;
    const Matrix dx = random_matrix(sz.dot, 1, 1), dy = random_matrix(sz.dot, 1, 2);
    const Matrix A = random_matrix(sz.gemv, sz.gemv, 3), gx = random_matrix(sz.gemv, 1, 4), gy0 = random_matrix(sz.gemv, 1, 5);
    const Matrix T = well_conditioned_lower(sz.trsv, 6), b = random_matrix(sz.trsv, 1, 7);
    const Matrix L0 = random_matrix(sz.lu, sz.lu, 8);
    const Matrix L0_scaled = gen::badly_scaled(L0, 40, 9);
    const flamex::LuVariant& var3 = flamex::find_lu_variant("lu_piv_unb_var3");

    std::vector<Row> rows;
    // Results of the exact backend per thread count, to compare bits.
    double dot_result[2] = {0, 0};
    Matrix gemv_result[2] = {Matrix(sz.gemv, 1), Matrix(sz.gemv, 1)};
    Matrix gemvt_result[2] = {Matrix(sz.gemv, 1), Matrix(sz.gemv, 1)};
    Matrix trsv_result[2] = {Matrix(sz.trsv, 1), Matrix(sz.trsv, 1)};
    Matrix lu_result[2] = {Matrix(sz.lu, sz.lu), Matrix(sz.lu, sz.lu)};
    Matrix lu_scaled_result[2] = {Matrix(sz.lu, sz.lu), Matrix(sz.lu, sz.lu)};

    for (int threads : {1, 2}) {
        if (only_threads != 0 && threads != only_threads) continue;
        const int k = threads - 1;
        // BLIS's thread count is global and set when a blis backend is made: make it here.
        const std::unique_ptr<Blas> blis = flamex::make_backend("blis", {threads, 0, ""});
        const std::unique_ptr<Blas> exact = flamex::make_backend("exact", {threads, 0, ""});
        const auto nothing = [] {};

        // EXDOT
        if (wanted("dot")) {
            volatile double sink = 0;
            double r = 0;
            const Times t = best_of(
                reps, nothing, [&] { sink = blis->dot(dx, dy); }, [&] { r = exact->dot(dx, dy); });
            dot_result[k] = r;
            rows.push_back({0, "EXDOT (dot)", std::to_string(sz.dot), threads, t.blis, t.exact, 1.3});
        }
        // EXGEMV, y := -A x + y and y := -A^T x + y
        for (flamex::Trans trans : {flamex::Trans::No, flamex::Trans::Yes}) {
            if (!wanted("gemv")) break;
            Matrix y(sz.gemv, 1);
            const auto reset = [&] { copy_into(gy0, y); };
            const Times t = best_of(
                reps, reset, [&] { blis->gemv(trans, -1.0, A, gx, 1.0, y); },
                [&] { exact->gemv(trans, -1.0, A, gx, 1.0, y); });
            copy_into(y, trans == flamex::Trans::No ? gemv_result[k] : gemvt_result[k]);
            rows.push_back({trans == flamex::Trans::No ? 1 : 2, trans == flamex::Trans::No ? "EXGEMV (gemv N)" : "EXGEMV (gemv T)",
                            std::to_string(sz.gemv) + "x" + std::to_string(sz.gemv), threads, t.blis, t.exact,
                            threads == 1 ? 2.5 : 2.0});
        }
        // EXTRSV
        if (wanted("trsv")) {
            Matrix x(sz.trsv, 1);
            const auto reset = [&] { copy_into(b, x); };
            const Times t = best_of(
                reps, reset, [&] { blis->trsv(flamex::Uplo::Lower, flamex::Trans::No, flamex::Diag::NonUnit, T, x); },
                [&] { exact->trsv(flamex::Uplo::Lower, flamex::Trans::No, flamex::Diag::NonUnit, T, x); });
            copy_into(x, trsv_result[k]);
            rows.push_back({3, "EXTRSV (trsv L N non-unit)", std::to_string(sz.trsv), threads, t.blis, t.exact, 3.0});
        }
        // LU, unblocked variant 3 with partial pivoting
        if (wanted("lu")) {
            Matrix LU(sz.lu, sz.lu);
            flamex::Pivots p(sz.lu);
            const auto reset = [&] { copy_into(L0, LU); };
            const Times t = best_of(
                reps, reset, [&] { flamex::lu(*blis, var3, LU, p); }, [&] { flamex::lu(*exact, var3, LU, p); });
            copy_into(LU, lu_result[k]);
            rows.push_back({4, "LU lu_piv_unb_var3", std::to_string(sz.lu), threads, t.blis, t.exact, 5.0});
            const auto reset_scaled = [&] { copy_into(L0_scaled, LU); };
            const Times ts = best_of(
                reps, reset_scaled, [&] { flamex::lu(*blis, var3, LU, p); }, [&] { flamex::lu(*exact, var3, LU, p); });
            copy_into(LU, lu_scaled_result[k]);
            rows.push_back({5, "LU lu_piv_unb_var3, entries x 2^k, k in [-40, 40] (target: 1.3x the uniform time)",
                            std::to_string(sz.lu), threads, ts.blis, ts.exact, 1.3 * t.exact / ts.blis});
        }
    }

    const bool reproducible[] = {
        std::memcmp(&dot_result[0], &dot_result[1], sizeof(double)) == 0,
        same_bits(gemv_result[0], gemv_result[1]),
        same_bits(gemvt_result[0], gemvt_result[1]),
        same_bits(trsv_result[0], trsv_result[1]),
        same_bits(lu_result[0], lu_result[1]),
        same_bits(lu_scaled_result[0], lu_scaled_result[1]),
    };

    char targets_caption[512];
    std::snprintf(targets_caption, sizeof targets_caption,
                  "The targets of issue 13 (uniform data; the scaled LU within 1.3x of the uniform LU's time, shown as 1.3 "
                  "times that row's ratio): each time the best of %d runs%s, the blis and exact runs interleaved; every "
                  "exact result compared for the same bits at 1 and 2 threads. blis runs dot, gemv and trsv on one thread "
                  "at any thread count (BLIS threads level 3 only).",
                  reps, quick ? " (--quick sizes: the targets are for the full sizes)" : "");
    if (!rows.empty()) report.begin(kTargets, targets_caption); // --only sweep or level3: no such table
    for (std::size_t i = 0; i < rows.size(); ++i) {
        const Row& r = rows[i];
        const double ratio = r.exact_s / r.blis_s;
        const bool both = only_threads == 0;
        std::printf("| %s | %s | %d | %.4g | %.4g | %.2f | <= %.3gx | %s | %s |\n", r.op.c_str(), r.size.c_str(), r.threads,
                    r.blis_s, r.exact_s, ratio, r.target, quick ? "- (quick)" : ratio <= r.target ? "yes" : "**no**",
                    !both ? "-" : reproducible[r.kind] ? "same bits" : "**differ**");
    }
    if (!rows.empty()) report.end(kTargets);
    if (wanted("sweep")) {
        const std::vector<dim_t> lengths = quick ? std::vector<dim_t>{100000, 1000} : std::vector<dim_t>{10000000, 100000};
        const std::vector<SweepRow> sweep = dot_sweep(lengths, reps);
        report.begin(kDotSweep, "EXDOT on the data classes of reference/exact_data.hpp, 1 thread, time per element "
                                "(the calls repeated at the shorter length), each against BLIS ddot on the same data:");
        for (const SweepRow& r : sweep) {
            const double ratio = r.exact_s / r.blis_s, per = 1e9 / static_cast<double>(r.n);
            std::printf("| %s | %ld | %.3f | %.3f | %.2f | <= %.1fx | %s |\n", r.name.c_str(), static_cast<long>(r.n),
                        r.blis_s * per, r.exact_s * per, ratio, r.target,
                        quick ? "- (quick)" : ratio <= r.target ? "yes" : "**no**");
        }
        report.end(kDotSweep);
    }
    if (wanted("sweep") || only == "sweep-rows") {
        const dim_t n = quick ? 256 : 4096;
        const std::vector<SweepRow> sweep = matrix_sweep(n, reps);
        char caption[256];
        std::snprintf(caption, sizeof caption,
                      "EXGEMV and EXTRSV data sweep, n = %ld, 1 thread (matrix_sweep: A's rows of the class's x, x the "
                      "class's y):",
                      static_cast<long>(n));
        report.begin(kMatrixSweep, caption);
        for (const SweepRow& r : sweep) {
            const double ratio = r.exact_s / r.blis_s;
            std::printf("| %s | %.4g | %.4g | %.2f | <= %.1fx | %s |\n", r.name.c_str(), r.blis_s, r.exact_s, ratio,
                        r.target, quick ? "- (quick)" : ratio <= r.target ? "yes" : "**no**");
        }
        report.end(kMatrixSweep);
    }
    if (wanted("lu")) {
        // Where the LU time goes: one more factorization per backend and matrix
        // (uniform, badly scaled), each BLAS call timed.
        const int threads = only_threads != 0 ? only_threads : 1;
        const std::unique_ptr<Blas> blis = flamex::make_backend("blis", {threads, 0, ""});
        const std::unique_ptr<Blas> exact = flamex::make_backend("exact", {threads, 0, ""});
        for (const Matrix* L : {&L0, static_cast<const Matrix*>(&L0_scaled)}) {
            TimedBlas tb(*blis), te(*exact);
            Matrix LU(sz.lu, sz.lu);
            flamex::Pivots p(sz.lu);
            copy_into(*L, LU);
            flamex::lu(tb, var3, LU, p);
            copy_into(*L, LU);
            flamex::lu(te, var3, LU, p);
            char caption[256];
            std::snprintf(caption, sizeof caption, "LU lu_piv_unb_var3%s, n = %ld, %d thread(s), one run, time per BLAS operation:",
                          L == &L0 ? "" : ", entries x 2^k, k in [-40, 40]", static_cast<long>(sz.lu), threads);
            const Table& table = L == &L0 ? kLuOperations : kLuOperationsScaled;
            report.begin(table, caption);
            double sb = 0, se = 0;
            for (int op = 0; op < TimedBlas::OPS; ++op) {
                const auto o = static_cast<TimedBlas::Op>(op);
                if (te.calls(o) == 0 && tb.calls(o) == 0) continue;
                sb += tb.total(o);
                se += te.total(o);
                std::printf("| %s | %d | %.4g | %.4g | %.2f |\n", TimedBlas::NAMES[op], te.calls(o), tb.total(o),
                            te.total(o), te.total(o) / tb.total(o));
            }
            std::printf("| all | | %.4g | %.4g | %.2f |\n", sb, se, se / sb);
            report.end(table);
        }
    }
    if (wanted("level3")) {
        level3.reps = reps;
        level3.quick = quick;
        level3.only_threads = only_threads;
        flamex::bench::run_level3(level3, report);
    }
    if (quick) std::printf("--quick: the targets are for the full sizes; these sizes only check that everything runs.\n");
    std::printf("load average at end: %s\n", load_average().c_str());
    return 0;
}
