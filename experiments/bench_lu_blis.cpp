// Benchmark: every LU variant on the `blis` backend against libflame's own
// same-numbered routine and against FLA_LU_piv, in one run on one machine.
// Prints a markdown table of best-of-R seconds and the ratios; not a test.
//
// usage: flamex_bench_lu_blis [--sizes 256,512,1024,2048] [--reps R] [--block NB] [--only SUBSTRING]
//                             [--quick] [--markdown] [--columns]
//   --quick   n = 64, 128, one run: checks that everything runs
//   --markdown, --columns   the table for docs/benchmarks.md (experiments/bench_report.hpp)
#include "flame/libflame.hpp"

#include <algorithm>
#include <chrono>
#include <cstring>

#include "experiments/bench_report.hpp"
#include "support/libflame_reference.hpp"
#include "reference/generators.hpp"
#include "variants/lu.hpp"

namespace {

namespace gen = flamex::gen;
using flamex::Matrix;
using flamex::Pivots;


template <class F>
double best_of(int reps, const Matrix& A0, F run)
{
    double best = 1e300;
    for (int r = 0; r < reps; ++r) {
        Matrix A = A0;
        const auto t0 = std::chrono::steady_clock::now();
        run(A);
        best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    }
    return best;
}

const flamex::bench::Table kVariants{
    "bench_lu_blis.variants",
    "| variant | n | flamex [s] | libflame same variant [s] | ratio | FLA_LU_piv [s] | ratio to FLA_LU_piv |",
    "|---|---|---|---|---|---|---|"};

std::vector<long> parse_sizes(const char* text)
{
    std::vector<long> sizes;
    for (const char* p = text; *p;) {
        char* end = nullptr;
        sizes.push_back(std::strtol(p, &end, 10));
        if (end == p || sizes.back() < 1) {
            std::fprintf(stderr, "bad --sizes %s\n", text);
            std::exit(2);
        }
        p = *end == ',' ? end + 1 : end;
    }
    return sizes;
}

} // namespace

int main(int argc, char** argv)
{
    const flamex::bench::Report report("flamex_bench_lu_blis", argc, argv);
    if (report.columns_only()) {
        report.print_columns({kVariants});
        return 0;
    }
    const bool quick = flamex::bench::take_flag(argc, argv, "--quick");
    std::vector<long> sizes = quick ? std::vector<long>{64, 128} : std::vector<long>{256, 512, 1024, 2048};
    int reps = quick ? 1 : 3;
    long block = 128;
    std::string only;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!std::strcmp(argv[i], "--sizes")) sizes = parse_sizes(argv[i + 1]);
        else if (!std::strcmp(argv[i], "--reps")) reps = std::max(1, std::atoi(argv[i + 1]));
        else if (!std::strcmp(argv[i], "--block")) block = std::max(1L, std::atol(argv[i + 1]));
        else if (!std::strcmp(argv[i], "--only")) only = argv[i + 1];
        else {
            std::fprintf(stderr, "usage: flamex_bench_lu_blis [--sizes n,...] [--reps R] [--block NB] [--only SUBSTRING] "
                                 "[--quick] [--markdown] [--columns]\n");
            return 2;
        }
    }
    auto blas = flamex::make_backend("blis");
    flamex::LuControl control;
    control.block = block;

    char caption[256];
    std::snprintf(caption, sizeof caption,
                  "Every LU variant on `blis` against libflame's same variant (block %ld, the same inner variant) and "
                  "`FLA_LU_piv`, one thread, best of %d%s.",
                  block, reps, quick ? " (--quick sizes)" : "");
    report.begin(kVariants, caption);
    for (long n : sizes) {
        const Matrix general = gen::uniform_matrix(n, n, 1), dominant = gen::diagonally_dominant(n, 2);
        const double t_fla_lu_piv = best_of(reps, general, [&](Matrix& A) {
            Pivots p(n);
            FLA_LU_piv(flamex::fla::to_fla(A.view()), flamex::fla::to_fla(p.view()));
        });
        for (const flamex::LuVariant& v : flamex::lu_variants()) {
            if (v.name.find(only) == std::string::npos) continue;
            const Matrix& A0 = v.pivoting ? general : dominant;
            const double ours = best_of(reps, A0, [&](Matrix& A) {
                Pivots p(v.pivoting ? n : 0);
                flamex::lu(*blas, v, A, p, control);
            });
            const double theirs = best_of(reps, A0, [&](Matrix& A) {
                Pivots p(v.pivoting ? n : 0);
                flamex::test::libflame_lu(v, A, p, block);
            });
            std::printf("| %s | %ld | %.4f | %.4f | %.3f | %.4f | %.3f |\n", v.name.c_str(), n, ours, theirs,
                        ours / theirs, t_fla_lu_piv, ours / t_fla_lu_piv);
            std::fflush(stdout);
        }
    }
    report.end(kVariants);
    return 0;
}
