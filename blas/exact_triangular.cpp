// The `exact` backend's triangular solves, trsv and trsm (exact_backend.hpp):
// Alg. 5 of Iakymchuk et al. in its left-looking order. The
// unknowns are taken in blocks of `block` rows (BackendOptions::block, default
// 64); a block's rows first accumulate the panel of every column already solved
// (one local EXGEMV into the block's per-row accumulators), then the block is
// solved in sub-blocks of SUB_BLOCK rows (a sub-panel EXGEMV and the small
// triangle), each x_k from its own exact residual: nothing is rounded between
// the panel and the division. The left-looking order keeps each row's folds
// in registers over the whole panel and needs only `block` Accumulators; the
// right-looking order of the paper gives the same exact residuals. On data
// whose panels end on the radix path (exblas::PanelHistory, handed from one
// block's panel to the next), the blocks are one kernel block of rows (32) and
// their sub-panels go product by product into the accumulators. (A view with
// neither unit stride gets one exact dot product per residual instead.) trsm
// solves its right-hand sides this way, each independently, except that
// right-hand sides lying side by side in memory (side RIGHT, column-major B) go
// through the kernel together, 32 at a time: for each unknown, one kernel pass
// over the unknowns already solved gives all their residuals.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

#include "blas/exact_backend.hpp"
#include "blas/exact_finish.hpp"
#include "blas/exact_scratch.hpp"
#include "blas/exact_trsm.hpp"

namespace flamex::exact_backend {
namespace {

// Rows of a triangular block solved after one sub-panel (their small triangle
// is added product by product): 8 rows fill an AVX-512 vector of the panel
// kernel (4 left half of it empty; measured: the exact LU lu_piv_unb_var3 at
// n = 1024, made of such solves and gemv, 4% faster with 8).
constexpr index_t SUB_BLOCK = 8;

static_assert(2 * NC + 2 * (SUB_BLOCK - 1) + 2 <= exblas::MAX_TERMS, "terms of one unknown of a sub-block");

Triangle triangle(Uplo uplo, Trans trans, Diag diag, Obj T)
{
    return {op(T, trans), (uplo == Uplo::Lower) == (trans == Trans::No), diag == Diag::Unit};
}

// Reads the lines of rows [r0, r0 + nr) over columns [c0, c1) (a sub-block's
// sub-panel and triangle) all at once, one double a line, so that their misses
// overlap: the block's panel read only the columns before the block, so every
// line of them comes from memory, and with E's rows contiguous each column lies
// a page or more from the next. Called a sub-block ahead. (Measured, perf,
// trsv n = 4096 on 2^+-500 data: read column after column, each read waited
// for its own miss, half the solver's own time; with prefetches a sub-block
// ahead instead of these reads, still half.) Only elements of E's triangle
// (lower or upper) are read, as bits (no floating-point operation on them);
// their union only keeps the reads.
void fetch_sub_block(const Mat& E, bool lower, index_t r0, index_t nr, index_t c0, index_t c1)
{
    constexpr index_t LINE = 64 / sizeof(double);
    const auto inside = [lower](index_t r, index_t j) { return lower ? j <= r : j >= r; };
    std::uint64_t seen = 0;
    const auto read = [&seen](const double* p) {
        std::uint64_t bits;
        std::memcpy(&bits, p, sizeof bits);
        seen |= bits;
    };
    if (E.rs == 1) {
        for (index_t j = c0; j < c1; ++j)
            for (const index_t r : {r0, r0 + nr - 1})
                if (inside(r, j)) read(&E.p[r + j * E.cs]);
    } else if (E.cs == 1) {
        for (index_t r = r0; r < r0 + nr; ++r) {
            const index_t from = lower ? c0 : std::max(c0, r), to = lower ? std::min(c1, r + 1) : c1;
            for (index_t j = from; j < to; j += LINE) read(&E.p[r * E.rs + j]);
            if (from < to) read(&E.p[r * E.rs + to - 1]);
        }
    }
    const volatile std::uint64_t kept = seen;
    (void)kept;
}

// A sub-panel of rows [r0, r0 + nr) and columns [c0, c0 + nc) product by
// product into the rows' accumulators (comps, nr * NC, zeros): for rows whose
// block's panel ended on the radix path (exblas::PanelHistory), whose products
// spread too widely for the folds. There each product spilled from the last
// fold as two components (r and e of its TwoProd, each an Accumulator
// addition) after a walk through every fold; here it is one Accumulator
// addition of its exact 106-bit product. (perf, trsv n = 4096 on 2^+-500 data,
// one thread: the sub-panels 7.8% of the time through the kernel, 4.4% this
// way with their lines read ahead, fetch_sub_block.)
void sub_panel_products(const Mat& E, index_t r0, index_t nr, index_t c0, index_t nc, const double* x,
                        Accumulator* acc, double* comps)
{
    std::fill(comps, comps + nr * NC, 0.0);
    for (index_t j = c0; j < c0 + nc; ++j)
        for (index_t r = 0; r < nr; ++r) acc[r].add_product(E(r0 + r, j), x[j]);
}

} // namespace

void ExactBackend::trsv(Uplo uplo, Trans trans, Diag diag, Obj T, Obj x) const
{
    check::trsv("trsv", T, x);
    const index_t n = T.length();
    if (n == 0) return;
    solve_strided(triangle(uplo, trans, diag, T), 1.0, x.buffer(), x.vector_inc(), true);
}

void ExactBackend::trsm(Side side, Uplo uplo, Trans trans, Diag diag, double alpha, Obj T, Obj B) const
{
    check::trsm("trsm", side, T, B);
    const bool left = side == Side::Left;
    // Right: X op(T) = alpha B, i.e. op(T)^T x = alpha b for every row of B.
    const Triangle tri = triangle(uplo, left ? trans : flip(trans), diag, T);
    const index_t n = T.length(), nrhs = left ? B.width() : B.length();
    if (n == 0 || nrhs == 0) return;
    const index_t inc = left ? B.row_stride() : B.col_stride();  // along one right-hand side
    const index_t step = left ? B.col_stride() : B.row_stride(); // from one to the next
    double* pb = B.buffer();
    if (exact_trsm::use_split(trsm_split_, n, nrhs)) { // large: on the exact gemm engine, the same bits
        const exact_trsm::System system{tri.E.p, tri.E.rs, tri.E.cs, n, tri.forward, tri.unit, alpha, pb, inc, step, engine_};
        // Tiles the split gives up (data it cannot decide): the per-element kernels below.
        const exact_trsm::PerElement per_element = [&](index_t r0, index_t r1) {
            if (step == 1)
                solve_lanes(tri, alpha, pb + r0, inc, r1 - r0);
            else
                for (index_t r = r0; r < r1; ++r) solve_strided(tri, alpha, pb + r * step, inc, false);
        };
        parallel(parts_for(nrhs * n * n / 2), [&](int t, int P) {
            const auto [lo, hi] = share(nrhs, t, P);
            exact_trsm::solve(system, lo, hi, per_element);
        });
        return;
    }
    if (nrhs == 1) {
        solve_strided(tri, alpha, pb, inc, true);
        return;
    }
    const int parts = parts_for(nrhs * n * n / 2);
    if (step == 1) {
        // The right-hand sides lie next to each other (the rows of a column-major
        // B, side RIGHT): blocks of them go through the SIMD kernel together.
        parallel(parts, [&](int t, int P) {
            const auto [lo, hi] = share(nrhs, t, P, exblas::COLUMNS_ROW_BLOCK);
            solve_lanes(tri, alpha, pb + lo, inc, hi - lo);
        });
        return;
    }
    parallel(parts, [&](int t, int P) {
        const auto [lo, hi] = share(nrhs, t, P);
        for (index_t r = lo; r < hi; ++r) solve_strided(tri, alpha, pb + r * step, inc, false);
    });
}

void ExactBackend::panel(const Mat& E, index_t r0, index_t nr, index_t c0, index_t nc, const double* x,
                         Accumulator* acc, double* comps, bool may_thread, exblas::PanelHistory* history) const
{
    const int parts = may_thread ? parts_for(nr * nc) : 1;
    if (parts == 1) {
        panel_serial(E, r0, nr, c0, nc, x, 1, acc, comps, history);
        return;
    }
    std::fill(comps, comps + nr * NC, 0.0);
    Accumulator* extra = accumulators(workspace().parts, nr * (parts - 1));
    parallel(parts, [&](int t, int T) {
        const auto [lo, hi] = share(nc, t, T, 8);
        Accumulator* a = acc;
        if (t > 0) {
            a = extra + (t - 1) * nr;
            for (index_t r = 0; r < nr; ++r) a[r].reset();
        }
        panel_serial(E, r0, nr, c0 + lo, hi - lo, x, 1, a, nullptr, t == 0 ? history : nullptr);
    });
    for (int t = 1; t < parts; ++t)
        for (index_t r = 0; r < nr; ++r) acc[r].merge(extra[(t - 1) * nr + r]);
}

void ExactBackend::solve_strided(const Triangle& tri, double alpha, double* x, index_t inc, bool may_thread) const
{
    if (inc == 1) {
        solve(tri, alpha, x, may_thread);
        return;
    }
    const index_t n = tri.E.m;
    std::vector<double>& v = workspace().vec;
    v.resize(static_cast<std::size_t>(n));
    for (index_t k = 0; k < n; ++k) v[static_cast<std::size_t>(k)] = x[k * inc];
    solve(tri, alpha, v.data(), may_thread);
    for (index_t k = 0; k < n; ++k) x[k * inc] = v[static_cast<std::size_t>(k)];
}

double ExactBackend::solve_finish(Accumulator& a, const double* comps, double alpha, double b, bool unit, double diagonal)
{
    if (a.is_empty()) {
        Terms t;
        for (int p = 0; p < NC; ++p) t.add(-comps[p]);
        if (alpha == 1.0)
            t.add(b);
        else
            t.add_product(alpha, b);
        double out;
        const bool spread = spreads(comps);
        if (t.ok && (unit ? exblas::round_sum(t.t, t.n, out, spread) : exblas::divide_sum(t.t, t.n, diagonal, out, spread)))
            return out;
    }
    for (int p = 0; p < NC; ++p) a.add_component(comps[p]);
    return solve_one(a, alpha, b, unit, diagonal);
}

void ExactBackend::solve_lanes(const Triangle& tri, double alpha, double* X, index_t ldx, index_t R) const
{
    const Mat& E = tri.E;
    const index_t n = E.m;
    Workspace& ws = workspace();
    Accumulator* acc = accumulators(ws.acc, ROWS);
    double* comps = doubles(ws.comps, ROWS * NC);
    for (index_t r0 = 0; r0 < R; r0 += ROWS) {
        const index_t nr = std::min(ROWS, R - r0);
        double* Xb = X + r0;
        for (index_t step = 0; step < n; ++step) {
            const index_t k = tri.forward ? step : n - 1 - step;
            const index_t j0 = tri.forward ? 0 : k + 1, j1 = tri.forward ? k : n;
            for (index_t q = 0; q < nr; ++q) acc[q].reset();
            exblas::accumulate_columns(nr, j1 - j0, Xb + j0 * ldx, ldx, E.p + k * E.rs + j0 * E.cs, E.cs, acc, comps);
            const double diagonal = tri.unit ? 1.0 : E(k, k);
            for (index_t q = 0; q < nr; ++q) {
                double& x = Xb[q + k * ldx];
                x = solve_finish(acc[q], comps + q * NC, alpha, x, tri.unit, diagonal);
            }
        }
    }
}

void ExactBackend::solve(const Triangle& tri, double alpha, double* x, bool may_thread) const
{
    const Mat& E = tri.E;
    const index_t n = E.m, bs = block_;
    Workspace& ws = workspace();
    Accumulator* acc = accumulators(ws.acc, std::min(bs, n));
    double* cpanel = doubles(ws.comps, (std::min(bs, n) + SUB_BLOCK) * NC);
    double* csub = cpanel + std::min(bs, n) * NC;
    // x_k from its residual alpha b_k - (acc + panel and sub-panel components
    // + the products of its sub-block): directly from those few terms when
    // possible (exblas::divide_sum), else in the Accumulator.
    const auto unknown = [&](Accumulator& a, const double* c1, const double* c2, index_t k, index_t j0, index_t j1) {
        const double b = x[k], diagonal = tri.unit ? 1.0 : E(k, k);
        if (a.is_empty()) {
            Terms t;
            for (int p = 0; p < NC; ++p) {
                t.add(-c1[p]);
                t.add(-c2[p]);
            }
            for (index_t j = j0; j < j1; ++j) t.add_product(E(k, j), -x[j]);
            if (alpha == 1.0)
                t.add(b);
            else
                t.add_product(alpha, b);
            double out;
            const bool spread = spreads(c1) || spreads(c2);
            if (t.ok && (tri.unit ? exblas::round_sum(t.t, t.n, out, spread)
                                  : exblas::divide_sum(t.t, t.n, diagonal, out, spread)))
                return out;
        }
        for (int p = 0; p < NC; ++p) {
            a.add_component(c1[p]);
            a.add_component(c2[p]);
        }
        for (index_t j = j0; j < j1; ++j) a.add_product(E(k, j), x[j]);
        return solve_one(a, alpha, b, tri.unit, diagonal);
    };
    // Equations with neither unit stride (a view with general strides): each
    // row's residual is one exact dot product over the unknowns solved so far
    // (the block's panel is split between threads first when it is large).
    const bool dot_rows = E.rs != 1 && E.cs != 1;
    // The blocks after the first start on cache lines when E's rows are
    // contiguous, and so do their panels (rows_to_line): the first block is
    // shortened, forward to end where a line starts, backward to start there.
    const bool align = n >= ALIGN_MIN_ROWS && bs % LINE_DOUBLES == 0 && bs > LINE_DOUBLES;
    // What the blocks' panels saw of the data, from one block to the next; a
    // block whose panel ended on the radix path adds its sub-panels product by
    // product (sub_panel_products), the others through the kernel.
    exblas::PanelHistory history;
    // The rows of the next block: after a panel that ended on the radix path,
    // one block of the kernel (COLUMNS_ROW_BLOCK rows) instead of a pair. On
    // the radix path each block of the kernel walks its columns alone, so a
    // pair walks them no faster, while a block's sub-panels grow with its rows
    // (half the products of a block of 64 rows are its sub-panels' for 32).
    const auto block_rows = [&] { return history.on_radix() ? std::min(bs, exblas::COLUMNS_ROW_BLOCK) : bs; };
    const auto sub_panel = [&](index_t r0, index_t nr, index_t c0, index_t nc, Accumulator* a) {
        if (history.on_radix())
            sub_panel_products(E, r0, nr, c0, nc, x, a, csub);
        else
            panel_serial(E, r0, nr, c0, nc, x, 1, a, csub);
    };
    // The lines of sub_panel_products' rows, read a sub-block ahead (the
    // kernel fetches its columns ahead itself; reading them here too made the
    // exact LU at n = 1024, its data in cache, 3% slower).
    const auto fetch_ahead = [&](index_t r0, index_t nr, index_t c0, index_t c1) {
        if (history.on_radix() && nr > 0) fetch_sub_block(E, tri.forward, r0, nr, c0, c1);
    };
    if (tri.forward) {
        const index_t ahead = align ? rows_to_line(E, 0) : 0;
        for (index_t i = 0, nb = 0; i < n; i += nb) {
            nb = std::min(i == 0 && ahead != 0 ? ahead + bs - LINE_DOUBLES : block_rows(), n - i);
            for (index_t r = 0; r < nb; ++r) acc[r].reset();
            if (dot_rows) {
                const bool split = may_thread && parts_for(nb * i) > 1;
                if (split) panel(E, i, nb, 0, i, x, acc, cpanel, true, nullptr);
                const index_t c0 = split ? i : 0;
                for (index_t k = i; k < i + nb; ++k) {
                    exact::accumulate_dot(acc[k - i], k - c0, E.p + k * E.rs + c0 * E.cs, E.cs, x + c0, 1);
                    x[k] = solve_one(acc[k - i], alpha, x[k], tri.unit, tri.unit ? 1.0 : E(k, k));
                }
                continue;
            }
            panel(E, i, nb, 0, i, x, acc, cpanel, may_thread, &history); // columns solved in earlier blocks
            const index_t first = std::min(SUB_BLOCK, nb); // the first sub-block's rows, [i, i + first)
            fetch_ahead(i, first, i, i + first);
            for (index_t k0 = i; k0 < i + nb; k0 += SUB_BLOCK) {
                const index_t ns = std::min(SUB_BLOCK, i + nb - k0), k1 = k0 + ns;
                const index_t next = std::min(SUB_BLOCK, i + nb - k1); // the next sub-block's rows, fetched during this one
                fetch_ahead(k1, next, i, k1 + next);
                sub_panel(k0, ns, i, k0 - i, acc + (k0 - i)); // earlier sub-blocks
                for (index_t k = k0; k < k0 + ns; ++k)
                    x[k] = unknown(acc[k - i], cpanel + (k - i) * NC, csub + (k - k0) * NC, k, k0, k);
            }
        }
    } else {
        const index_t ahead = align ? rows_to_line(E, n - bs) : 0;
        for (index_t hi = n; hi > 0;) {
            const index_t nb = std::min(hi == n ? bs - ahead : block_rows(), hi), lo = hi - nb;
            for (index_t r = 0; r < nb; ++r) acc[r].reset();
            if (dot_rows) {
                const bool split = may_thread && parts_for(nb * (n - hi)) > 1;
                if (split) panel(E, lo, nb, hi, n - hi, x, acc, cpanel, true, nullptr);
                const index_t c1 = split ? hi : n;
                for (index_t k = hi - 1; k >= lo; --k) {
                    exact::accumulate_dot(acc[k - lo], c1 - k - 1, E.p + k * E.rs + (k + 1) * E.cs, E.cs, x + k + 1, 1);
                    x[k] = solve_one(acc[k - lo], alpha, x[k], tri.unit, tri.unit ? 1.0 : E(k, k));
                }
                hi = lo;
                continue;
            }
            panel(E, lo, nb, hi, n - hi, x, acc, cpanel, may_thread, &history);
            const index_t last = std::min(SUB_BLOCK, nb); // the first sub-block's rows, [hi - last, hi)
            fetch_ahead(hi - last, last, hi - last, hi);
            for (index_t k1 = hi; k1 > lo;) {
                const index_t ns = std::min(SUB_BLOCK, k1 - lo), k0 = k1 - ns;
                const index_t next = std::min(SUB_BLOCK, k0 - lo); // the next sub-block's rows, fetched during this one
                fetch_ahead(k0 - next, next, k0 - next, hi);
                sub_panel(k0, ns, k1, hi - k1, acc + (k0 - lo));
                for (index_t k = k1 - 1; k >= k0; --k)
                    x[k] = unknown(acc[k - lo], cpanel + (k - lo) * NC, csub + (k - k0) * NC, k, k + 1, k1);
                k1 = k0;
            }
            hi = lo;
        }
    }
}

} // namespace flamex::exact_backend
