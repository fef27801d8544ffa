// The main job: every LU variant on every backend, compared for accuracy, speed and
// reproducibility. Writes
//   lu_accuracy.csv         backend,variant,n,target_cond,backward_error,forward_error,seconds,zero_pivot
//   lu_reproducibility.csv  backend,variant,n,comparison,elements_differing,max_ulps
// into --out (default results/), for experiments/plot_lu.py.
//
// backward_error = ||P A - L U||_inf / (||A||_inf n u), forward_error =
// ||x - x*||_inf / ||x*||_inf for A x = A x* with x* = (1, ..., 1) solved through the
// factors. The reproducibility comparisons factor the same matrix with 1 and 2
// threads, twice, with two kernel block sizes of the backend, (blocked variants)
// with variant block sizes 16, 32 and 64, and against the exact backend.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "tools/lib/generators.hpp"
#include "variants/lu.hpp"

using namespace flamex;

namespace {

struct Options {
    std::string out = "results";
    std::vector<dim_t> sizes = {64, 128, 256};
    std::vector<double> conds = {1e2, 1e8, 1e16, 1e24, 1e32, 1e40};
    std::vector<std::string> backends; // empty: all registered
    dim_t repro_size = 128;
};

[[noreturn]] void usage(const std::string& why)
{
    std::cerr << "flamex_lu_variants: " << why << "\n"
              << "usage: flamex_lu_variants [--out DIR] [--sizes n1,n2,...] [--conds c1,c2,...]\n"
                 "                          [--backends b1,b2,...] [--repro-size n] [--full]\n";
    std::exit(2);
}

template <class T>
std::vector<T> parse_list(const std::string& text)
{
    std::vector<T> values;
    size_t start = 0;
    while (start <= text.size()) {
        const size_t comma = text.find(',', start);
        const std::string item = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
        char* end = nullptr;
        const double v = std::strtod(item.c_str(), &end);
        if (item.empty() || *end != '\0' || !(v > 0)) usage("bad list item '" + item + "'");
        values.push_back(static_cast<T>(v));
        if (comma == std::string::npos) break;
        start = comma + 1;
    }
    return values;
}

Options parse(int argc, char** argv)
{
    Options o;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        auto value = [&]() -> std::string {
            if (i + 1 >= argc) usage(a + " needs a value");
            return argv[++i];
        };
        if (a == "--out") o.out = value();
        else if (a == "--sizes") o.sizes = parse_list<dim_t>(value());
        else if (a == "--conds") o.conds = parse_list<double>(value());
        else if (a == "--backends") {
            const std::string v = value();
            for (size_t s = 0, c; s <= v.size(); s = c + 1) {
                c = v.find(',', s);
                o.backends.push_back(v.substr(s, c == std::string::npos ? std::string::npos : c - s));
                if (c == std::string::npos) break;
            }
        } else if (a == "--repro-size") o.repro_size = parse_list<dim_t>(value()).at(0);
        else if (a == "--full") {
            o.sizes = {128, 256, 512, 1024};
            o.conds = {1e2, 1e5, 1e8, 1e12, 1e16, 1e20, 1e24, 1e28, 1e32, 1e36, 1e40};
            o.repro_size = 512;
        } else if (a == "--help" || a == "-h") usage("help");
        else usage("unknown option " + a);
    }
    if (o.backends.empty())
        for (const BackendInfo& b : flamex::backends()) o.backends.push_back(b.name);
    return o;
}

// The test matrices: tools/lib/generators.hpp's LU matrices of the requested
// infinity-norm condition number (measured with MPFR in the generator's tests),
// generated once per (n, cond). Variants without pivoting get the rows already in
// partial-pivoting order (from lu_piv_unb_var3 on blis), so that they meet the same
// matrix, with the same condition number, that the pivoting variants factor.
class TestMatrices {
public:
    const Matrix& get(bool pivoting, dim_t n, double cond)
    {
        const auto key = std::make_tuple(pivoting, n, cond);
        auto found = cache_.find(key);
        if (found != cache_.end()) return found->second;
        Matrix A = gen::lu_matrix(n, cond, 1000 + static_cast<std::uint64_t>(n));
        if (!pivoting) {
            auto blas = make_backend("blis");
            Matrix LU = A;
            Pivots p(n);
            lu(*blas, find_lu_variant("lu_piv_unb_var3"), LU, p);
            apply_pivots_reference(p, A);
        }
        return cache_.emplace(key, std::move(A)).first->second;
    }

private:
    std::map<std::tuple<bool, dim_t, double>, Matrix> cache_;
};

double norm_inf(Obj A)
{
    double best = 0;
    for (dim_t i = 0; i < A.length(); ++i) {
        double row = 0;
        for (dim_t j = 0; j < A.width(); ++j) row += std::fabs(A(i, j));
        best = std::max(best, row);
    }
    return best;
}

double backward_error(Obj A, Obj LU, PivObj p)
{
    const dim_t n = A.length();
    std::vector<long double> PA(static_cast<size_t>(n * n));
    for (dim_t j = 0; j < n; ++j)
        for (dim_t i = 0; i < n; ++i) PA[static_cast<size_t>(i + j * n)] = A(i, j);
    for (dim_t i = 0; i < p.length(); ++i)
        for (dim_t j = 0; j < n; ++j)
            std::swap(PA[static_cast<size_t>(i + j * n)], PA[static_cast<size_t>(i + p(i, 0) + j * n)]);
    long double worst = 0;
    for (dim_t i = 0; i < n; ++i) {
        long double row = 0;
        for (dim_t j = 0; j < n; ++j) {
            long double s = 0;
            for (dim_t l = 0; l <= std::min(i, j); ++l) s += (l == i ? 1.0L : LU(i, l)) * static_cast<long double>(LU(l, j));
            row += std::fabs(PA[static_cast<size_t>(i + j * n)] - s);
        }
        worst = std::max(worst, row);
    }
    return static_cast<double>(worst / (static_cast<long double>(norm_inf(A)) * n * 0x1p-53L));
}

double forward_error(const Blas& blas, Obj A, Obj LU, PivObj p)
{
    const dim_t n = A.length();
    Matrix ones(n, 1), x(n, 1);
    for (dim_t i = 0; i < n; ++i) ones(i, 0) = 1.0;
    // b = A x*, in long double so that the error measured is the solver's
    for (dim_t i = 0; i < n; ++i) {
        long double s = 0;
        for (dim_t j = 0; j < n; ++j) s += A(i, j);
        x(i, 0) = static_cast<double>(s);
    }
    blas.apply_pivots(p, x);
    blas.trsv(LOWER, NO_TRANSPOSE, UNIT, LU, x);
    blas.trsv(UPPER, NO_TRANSPOSE, NONUNIT, LU, x);
    double worst = 0;
    for (dim_t i = 0; i < n; ++i) worst = std::max(worst, std::fabs(x(i, 0) - 1.0));
    return std::isnan(worst) ? 1.0 : std::min(worst, 1.0);
}

std::int64_t ulps_apart(double a, double b)
{
    if (std::memcmp(&a, &b, sizeof a) == 0) return 0;
    if (std::isnan(a) || std::isnan(b)) return INT64_MAX;
    auto key = [](double d) {
        std::int64_t k;
        std::memcpy(&k, &d, sizeof k);
        return k < 0 ? INT64_MIN - k : k;
    };
    const std::int64_t ka = key(a), kb = key(b);
    return ka > kb ? ka - kb : kb - ka;
}

struct Diff {
    dim_t elements = 0;
    std::int64_t max_ulps = 0;
};

Diff compare(Obj A, Obj B, PivObj pa, PivObj pb)
{
    Diff d;
    for (dim_t j = 0; j < A.width(); ++j)
        for (dim_t i = 0; i < A.length(); ++i) {
            const std::int64_t u = ulps_apart(A(i, j), B(i, j));
            if (u != 0) { ++d.elements; d.max_ulps = std::max(d.max_ulps, u); }
        }
    for (dim_t i = 0; i < pa.length(); ++i)
        if (pa(i, 0) != pb(i, 0)) { ++d.elements; d.max_ulps = INT64_MAX; }
    return d;
}

struct Factored {
    Matrix LU;
    Pivots p;
    LuInfo info;
    double seconds = 0;
};

// `block` is the variant's algorithmic block size; `kernel_block` the backend's
// internal one (BackendOptions::block, 0 for its default).
Factored factor(const std::string& backend, int threads, const LuVariant& v, Obj A, dim_t block,
                dim_t kernel_block = 0)
{
    auto blas = make_backend(backend, BackendOptions{threads, kernel_block, ""});
    Factored f{Matrix(A.length(), A.width()), Pivots(A.min_dim()), {}, 0};
    blas->copy(A, f.LU);
    LuControl control;
    control.block = block;
    const auto start = std::chrono::steady_clock::now();
    f.info = lu(*blas, v, f.LU, f.p, control);
    f.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return f;
}

void progress(size_t done, size_t total, const std::string& what)
{
    const int width = 30;
    const int filled = total ? static_cast<int>(width * done / total) : width;
    std::fprintf(stderr, "\r[%.*s%*s] %3zu%% %-48.48s", filled, "##############################", width - filled, "",
                 total ? 100 * done / total : 100, what.c_str());
    if (done == total) std::fputc('\n', stderr);
    std::fflush(stderr);
}

} // namespace

int main(int argc, char** argv)
{
    const Options o = parse(argc, argv);
    std::string cmd = "mkdir -p '" + o.out + "'";
    if (std::system(cmd.c_str()) != 0) usage("cannot create " + o.out);
    std::ofstream acc(o.out + "/lu_accuracy.csv"), rep(o.out + "/lu_reproducibility.csv");
    if (!acc || !rep) usage("cannot write into " + o.out);
    acc << "backend,variant,n,target_cond,backward_error,forward_error,seconds,zero_pivot\n";
    rep << "backend,variant,n,comparison,elements_differing,max_ulps\n";

    const auto& variants = lu_variants();
    TestMatrices matrices;
    const size_t total = o.backends.size() * variants.size() * (o.sizes.size() * o.conds.size() + 1);
    size_t done = 0;
    // differing: threads, runs and kernel block sizes, which a reproducible backend
    // must not see; by_block: the variant's own block size, which changes the
    // algorithm (another sequence of correctly rounded operations).
    struct Summary {
        std::string backend, variant;
        double worst_backward = 0;
        dim_t differing = 0, by_block = 0, vs_exact = -1;
    };
    const bool have_exact = std::find(o.backends.begin(), o.backends.end(), "exact") != o.backends.end();
    std::vector<Summary> summary;

    for (const std::string& backend : o.backends) {
        make_backend(backend); // fail early, with the registry's message, on an unknown name
        for (const LuVariant& v : variants) {
            Summary s{backend, v.name};
            for (dim_t n : o.sizes)
                for (double cond : o.conds) {
                    progress(done++, total, backend + " " + v.name + " n=" + std::to_string(n));
                    const Matrix& A = matrices.get(v.pivoting, n, cond);
                    Factored f = factor(backend, 1, v, A, 32);
                    auto blas = make_backend(backend);
                    const double be = backward_error(A, f.LU, f.p);
                    const double fe = f.info.ok() ? forward_error(*blas, A, f.LU, f.p) : 1.0;
                    s.worst_backward = std::max(s.worst_backward, be);
                    char line[256];
                    std::snprintf(line, sizeof line, "%s,%s,%lld,%.3g,%.6e,%.6e,%.6e,%lld\n", backend.c_str(),
                                  v.name.c_str(), static_cast<long long>(n), cond, be, fe, f.seconds,
                                  static_cast<long long>(f.info.zero_pivot));
                    acc << line;
                }
            progress(done++, total, backend + " " + v.name + " reproducibility");
            const Matrix& A = matrices.get(v.pivoting, o.repro_size, 1e8);
            const Factored one = factor(backend, 1, v, A, 16);
            auto record = [&](const std::string& comparison, const Factored& other, dim_t& tally) {
                const Diff d = compare(one.LU, other.LU, one.p, other.p);
                tally = std::max<dim_t>(tally, 0) + d.elements;
                rep << backend << ',' << v.name << ',' << o.repro_size << ',' << comparison << ',' << d.elements << ','
                    << d.max_ulps << '\n';
            };
            record("threads 1 vs 2", factor(backend, 2, v, A, 16), s.differing);
            record("run 1 vs run 2", factor(backend, 1, v, A, 16), s.differing);
            record("kernel block default vs 7", factor(backend, 1, v, A, 16, 7), s.differing);
            if (v.blocked) {
                record("variant block 16 vs 32", factor(backend, 1, v, A, 32), s.by_block);
                record("variant block 16 vs 64", factor(backend, 1, v, A, 64), s.by_block);
            }
            if (have_exact && backend != "exact") record("vs exact backend", factor("exact", 1, v, A, 16), s.vs_exact);
            summary.push_back(s);
        }
    }
    progress(total, total, "done");

    std::printf("\n%-12s %-18s %12s %14s %14s %12s\n", "backend", "variant", "max bwd err", "differ: runs",
                "differ: block", "vs exact");
    auto count = [](dim_t v) { return v < 0 ? std::string("-") : std::to_string(v); };
    for (const Summary& s : summary)
        std::printf("%-12s %-18s %12.3g %14s %14s %12s\n", s.backend.c_str(), s.variant.c_str(), s.worst_backward,
                    count(s.differing).c_str(), s.variant.rfind("_blk_") != std::string::npos ? count(s.by_block).c_str() : "-",
                    count(s.vs_exact).c_str());
    std::printf("\nmax bwd err: ||PA - LU|| / (||A|| n u) over all sizes and condition numbers.\n"
                "differ: entries of L\\U (and pivots) whose bits change between 1 and 2 threads, two runs, and\n"
                "        two kernel block sizes (runs), or between variant block sizes 16, 32, 64 (block);\n"
                "vs exact: entries that differ from the same variant on the exact backend.\n"
                "CSV files in %s/\n", o.out.c_str());
    return 0;
}
