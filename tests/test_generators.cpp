// The seeded generators of ill-conditioned problems (reference/generators.hpp) and
// the MPFR references (reference/mpfr_reference.hpp): every generator reaches its
// requested condition number within a factor 10, MEASURED with the MPFR condition
// functions; generation is deterministic in its arguments; the references are
// exact on exactly representable constructions, correctly rounded where the exact
// value is known, and agree with the blis backend (within the classical error
// bounds) and with long double evaluations on well-conditioned data.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <memory>
#include <sstream>
#include <string>
#include <unistd.h>
#include <vector>

#include "blas/blas.hpp"
#include "support/test_support.hpp"
#include "reference/generators.hpp"
#include "io/matrix_market.hpp"
#include "reference/mpfr_reference.hpp"
#include "variants/chol.hpp"
#include "variants/lu.hpp"

using flamex::dim_t;
using flamex::Diag;
using flamex::Error;
using flamex::Matrix;
using flamex::Obj;
using flamex::Pivots;
using flamex::Trans;
using flamex::Uplo;
namespace gen = flamex::gen;
namespace ref = flamex::mpfr_ref;
using flamex::test::max_nan;

namespace {

constexpr double kUnit = std::numeric_limits<double>::epsilon() / 2;

std::string sci(double v)
{
    std::ostringstream s;
    s.precision(3);
    s << std::scientific << v;
    return s.str();
}

// measured within [target / 10, target * 10]
void expect_within_factor_10(double measured, double target, const std::string& what)
{
    EXPECT_TRUE(measured >= target / 10 && measured <= target * 10)
        << what << ": target " << sci(target) << ", measured " << sci(measured);
}

bool same_bits(Obj A, Obj B) { return flamex::test::bitwise_equal(A, B); }

// FNV-1a over the bits of the entries, column by column.
std::uint64_t fingerprint(Obj A, std::uint64_t h = 0xcbf29ce484222325ULL)
{
    for (dim_t j = 0; j < A.width(); ++j)
        for (dim_t i = 0; i < A.length(); ++i) {
            std::uint64_t bits;
            std::memcpy(&bits, &A(i, j), sizeof bits);
            for (int k = 0; k < 8; ++k) {
                h ^= (bits >> (8 * k)) & 0xff;
                h *= 0x100000001b3ULL;
            }
        }
    return h;
}

Matrix column(const std::vector<double>& v) { return Matrix(static_cast<dim_t>(v.size()), 1, v); }

Matrix from_rows(dim_t m, dim_t n, const std::vector<double>& row_major)
{
    Matrix A(m, n);
    for (dim_t i = 0; i < m; ++i)
        for (dim_t j = 0; j < n; ++j) A(i, j) = row_major[static_cast<std::size_t>(i * n + j)];
    return A;
}

std::unique_ptr<flamex::Blas> blis() { return flamex::make_backend("blis"); }

const Uplo kUplos[] = {Uplo::Lower, Uplo::Upper};
const Diag kDiags[] = {Diag::NonUnit, Diag::Unit};

std::string form(Uplo u, Diag d)
{
    return std::string(u == Uplo::Lower ? "lower" : "upper") + (d == Diag::Unit ? " unit" : " non-unit");
}

} // namespace

// --- random numbers ---------------------------------------------------------------------

TEST(GenRandom, EngineAndDistributionsAreFixed)
{
    // std::mt19937_64's 10000th output is fixed by the standard.
    gen::Random r(5489);
    for (int i = 0; i < 9999; ++i) r.bits();
    EXPECT_EQ(r.bits(), 9981545732273789042ULL);

    gen::Random a(7), b(7);
    for (int i = 0; i < 1000; ++i) {
        const double u = a.uniform01();
        EXPECT_GE(u, 0.0);
        EXPECT_LT(u, 1.0);
        EXPECT_EQ(std::ldexp(u, 53), std::floor(std::ldexp(u, 53))); // a multiple of 2^-53
        const double s = a.symmetric();
        EXPECT_GE(s, -1.0);
        EXPECT_LT(s, 1.0);
        const double h = std::fabs(a.signed_half_to_one());
        EXPECT_GE(h, 0.5);
        EXPECT_LT(h, 1.0);
        EXPECT_LT(a.below(7), 7u);
        const long long k = a.integer(-3, 3);
        EXPECT_GE(k, -3);
        EXPECT_LE(k, 3);
    }
    for (int i = 0; i < 1000; ++i) {
        b.uniform01();
        b.symmetric();
        b.signed_half_to_one();
        b.below(7);
        b.integer(-3, 3);
    }
    EXPECT_EQ(a.bits(), b.bits()); // the same draws consume the same stream

    // Every value of a small range appears, and a permutation is one.
    gen::Random c(11);
    std::vector<int> seen(5, 0);
    for (int i = 0; i < 500; ++i) ++seen[c.below(5)];
    for (int count : seen) EXPECT_GT(count, 50);
    std::vector<dim_t> p = c.permutation(100);
    std::sort(p.begin(), p.end());
    for (dim_t i = 0; i < 100; ++i) EXPECT_EQ(p[static_cast<std::size_t>(i)], i);

    EXPECT_NE(gen::mix_seed(1, 2), gen::mix_seed(1, 3));
    EXPECT_NE(gen::mix_seed(1, 2), gen::mix_seed(2, 2));
    EXPECT_EQ(gen::mix_seed(1, 2, 3, 4), gen::mix_seed(1, 2, 3, 4));
}

// --- dot ------------------------------------------------------------------------------------

TEST(GenDot, ReachesTargetCondition)
{
    for (dim_t n : {10, 100, 1000})
        for (double target : {1e2, 1e8, 1e16, 1e32, 1e64, 1e100}) {
            if (n == 10 && target > 1e70) continue; // beyond what 5 cancelling steps can do
            const gen::DotProblem p = gen::dot(n, target, 2024);
            ASSERT_EQ(p.x.length(), n);
            ASSERT_EQ(p.y.length(), n);
            expect_within_factor_10(ref::cond_dot(p.x, p.y), target, "dot n=" + std::to_string(n));
        }
}

TEST(GenDot, SameSeedSameBitsOtherSeedsDiffer)
{
    const gen::DotProblem a = gen::dot(100, 1e30, 5), b = gen::dot(100, 1e30, 5), c = gen::dot(100, 1e30, 6);
    EXPECT_TRUE(same_bits(a.x, b.x));
    EXPECT_TRUE(same_bits(a.y, b.y));
    EXPECT_FALSE(same_bits(a.x, c.x));
    EXPECT_FALSE(same_bits(a.y, c.y));
}

TEST(GenDot, ConditionComesFromCancellation)
{
    // The exponents of x span only about log2(cond)/2 bits: the other half of the
    // condition number is cancellation in the running sum.
    const gen::DotProblem p = gen::dot(200, 1e40, 9);
    double xmax = 0, xmin = HUGE_VAL;
    for (dim_t i = 0; i < 200; ++i) {
        xmax = flamex::test::max_nan(xmax, std::fabs(p.x(i, 0)));
        xmin = std::min(xmin, std::fabs(p.x(i, 0)));
    }
    EXPECT_LT(std::log2(xmax / xmin), 0.5 * std::log2(1e40) + 12);
    const double exact = ref::dot(p.x, p.y);
    double sum_abs = 0;
    for (dim_t i = 0; i < 200; ++i) sum_abs += std::fabs(p.x(i, 0) * p.y(i, 0));
    EXPECT_LT(std::fabs(exact) / sum_abs, 1e-38);
}

TEST(GenDot, RejectsBadRequests)
{
    EXPECT_THROW(gen::dot(1, 1e8, 0), Error);
    EXPECT_THROW(gen::dot(10, 1.0, 0), Error);
    EXPECT_THROW(gen::dot(10, 1e301, 0), Error);
    EXPECT_THROW(gen::dot(10, std::nan(""), 0), Error);
    EXPECT_THROW(gen::lu_matrix(1, 1e8, 0), Error);
    EXPECT_THROW(gen::trsv(10, 0.5, 0), Error);
    EXPECT_THROW(gen::gemv(10, 10, 1e200, 0), Error); // one ill row: at most 1e150
}

// --- spd ---------------------------------------------------------------------------------------

// Q diag Q^T: exactly symmetric, positive definite (Cholesky runs through) for
// cond well below 1/u, kappa_inf within a factor n of the kappa_2 asked for, and seeded.
TEST(GenSpd, SymmetricPositiveDefiniteOfTheTargetCondition)
{
    const dim_t n = 32;
    for (double cond : {1e2, 1e8}) {
        const Matrix A = gen::spd_matrix(n, cond, 7);
        for (dim_t j = 0; j < n; ++j)
            for (dim_t i = 0; i < n; ++i) ASSERT_EQ(std::memcmp(&A(i, j), &A(j, i), sizeof(double)), 0) << i << "," << j;
        Matrix L = A;
        EXPECT_TRUE(flamex::chol(*blis(), flamex::find_chol_variant("chol_unb_var3"), L).ok()) << cond;
        const double kappa = ref::kappa_inf(A);
        EXPECT_GT(kappa, cond / static_cast<double>(n)) << cond;
        EXPECT_LT(kappa, cond * static_cast<double>(n)) << cond;
    }
}

TEST(GenSpd, SameSeedSameBitsOtherSeedsDiffer)
{
    const Matrix a = gen::spd_matrix(16, 1e6, 3), b = gen::spd_matrix(16, 1e6, 3), c = gen::spd_matrix(16, 1e6, 4);
    EXPECT_TRUE(same_bits(a, b));
    EXPECT_FALSE(same_bits(a, c));
}

TEST(GenSpd, RejectsBadRequests)
{
    EXPECT_THROW(gen::spd_matrix(1, 1e8, 0), Error);
    EXPECT_THROW(gen::spd_matrix(10, 0.5, 0), Error);
    EXPECT_THROW(gen::spd_matrix(10, std::nan(""), 0), Error);
}

// --- gemv ------------------------------------------------------------------------------------

TEST(GenGemv, ReachesTargetCondition)
{
    for (gen::GemvStyle style : {gen::GemvStyle::OneIllRow, gen::GemvStyle::AllRows})
        for (dim_t n : {32, 64})
            for (double target : {1e2, 1e8, 1e16, 1e32, 1e64, 1e100}) {
                const gen::GemvProblem p = gen::gemv(n, n, target, 77, style);
                expect_within_factor_10(ref::cond_gemv(p.A, p.x), target,
                                        std::string(style == gen::GemvStyle::OneIllRow ? "one ill row" : "all rows") +
                                            " n=" + std::to_string(n));
            }
}

TEST(GenGemv, OneIllRowIsThePapersConstruction)
{
    const gen::GemvProblem p = gen::gemv(40, 30, 1e20, 3);
    ASSERT_EQ(p.A.length(), 40);
    ASSERT_EQ(p.A.width(), 30);
    ASSERT_EQ(p.x.length(), 30);
    ASSERT_GE(p.ill_row, 0);
    ASSERT_LT(p.ill_row, 40);
    for (dim_t i = 0; i < 40; ++i) {
        if (i == p.ill_row) continue;
        for (dim_t j = 0; j < 30; ++j) {
            EXPECT_GE(p.A(i, j), 0.0);
            EXPECT_LT(p.A(i, j), 1.0);
        }
    }
    // The ill row and x form an ill-conditioned dot product (about cond^2).
    Matrix row(30, 1);
    for (dim_t j = 0; j < 30; ++j) row(j, 0) = p.A(p.ill_row, j);
    EXPECT_GT(ref::cond_dot(row, p.x), 1e30);
}

TEST(GenGemv, SameSeedSameBitsOtherSeedsDiffer)
{
    for (gen::GemvStyle style : {gen::GemvStyle::OneIllRow, gen::GemvStyle::AllRows}) {
        const gen::GemvProblem a = gen::gemv(20, 20, 1e24, 1, style), b = gen::gemv(20, 20, 1e24, 1, style),
                               c = gen::gemv(20, 20, 1e24, 2, style);
        EXPECT_TRUE(same_bits(a.A, b.A));
        EXPECT_TRUE(same_bits(a.x, b.x));
        EXPECT_FALSE(same_bits(a.A, c.A));
    }
}

// --- trsv ------------------------------------------------------------------------------------

TEST(GenTrsv, ReachesTargetConditionInAllFourForms)
{
    for (Uplo uplo : kUplos)
        for (Diag diag : kDiags)
            for (dim_t n : {32, 64})
                for (double target : {1e2, 1e8, 1e16, 1e32, 1e64, 1e100}) {
                    const gen::TrsvProblem p = gen::trsv(n, target, 314, uplo, diag);
                    expect_within_factor_10(ref::cond_trsv(uplo, Trans::No, diag, p.T, p.b), target,
                                            "trsv " + form(uplo, diag) + " n=" + std::to_string(n));
                }
}

TEST(GenTrsv, TriangularStructure)
{
    for (Uplo uplo : kUplos)
        for (Diag diag : kDiags) {
            const gen::TrsvProblem p = gen::trsv(24, 1e30, 8, uplo, diag);
            EXPECT_EQ(p.uplo, uplo);
            EXPECT_EQ(p.diag, diag);
            for (dim_t i = 0; i < 24; ++i)
                for (dim_t j = 0; j < 24; ++j) {
                    const bool outside = uplo == Uplo::Lower ? j > i : j < i;
                    if (outside) {
                        EXPECT_EQ(p.T(i, j), 0.0) << form(uplo, diag) << " (" << i << "," << j << ")";
                    }
                    if (i == j && diag == Diag::Unit) {
                        EXPECT_EQ(p.T(i, i), 1.0);
                    }
                    if (i == j) {
                        EXPECT_NE(p.T(i, i), 0.0);
                    }
                }
        }
}

TEST(GenTrsv, SameSeedSameBitsOtherSeedsDiffer)
{
    const gen::TrsvProblem a = gen::trsv(30, 1e40, 4), b = gen::trsv(30, 1e40, 4), c = gen::trsv(30, 1e40, 5);
    EXPECT_TRUE(same_bits(a.T, b.T));
    EXPECT_TRUE(same_bits(a.b, b.b));
    EXPECT_FALSE(same_bits(a.T, c.T));
}

// --- lu --------------------------------------------------------------------------------------

TEST(GenLu, ReachesTargetCondition)
{
    for (dim_t n : {32, 64})
        for (double target : {1e2, 1e8, 1e16, 1e32, 1e40, 1e64, 1e100}) {
            const Matrix A = gen::lu_matrix(n, target, 99);
            ASSERT_EQ(A.length(), n);
            ASSERT_EQ(A.width(), n);
            expect_within_factor_10(ref::kappa_inf(A), target, "lu n=" + std::to_string(n));
        }
}

TEST(GenLu, IllConditioningSurvivesRowScaling)
{
    // Not a badly scaled row: equilibrating the rows keeps kappa_inf (within 10x).
    const Matrix A = gen::lu_matrix(40, 1e30, 12);
    Matrix D = A;
    for (dim_t i = 0; i < 40; ++i) {
        double big = 0;
        for (dim_t j = 0; j < 40; ++j) big = std::max(big, std::fabs(A(i, j)));
        int e = 0;
        std::frexp(big, &e);
        for (dim_t j = 0; j < 40; ++j) D(i, j) = std::ldexp(A(i, j), -e);
    }
    expect_within_factor_10(ref::kappa_inf(D), 1e30, "row-equilibrated lu");
}

TEST(GenLu, SameSeedSameBitsOtherSeedsDiffer)
{
    const Matrix a = gen::lu_matrix(30, 1e25, 1), b = gen::lu_matrix(30, 1e25, 1), c = gen::lu_matrix(30, 1e25, 2);
    EXPECT_TRUE(same_bits(a, b));
    EXPECT_FALSE(same_bits(a, c));
}

// The generated bits are a function of the arguments only (own distributions, no
// libm, no FMA contraction): these fingerprints must hold on every platform.
// A deliberate change of a generator changes them; update them with it.
// The badly scaled LU's matrix: each entry A's times 2^k, |k| <= e, every k used
// (the spread is what the exact kernels' wide-range paths are measured on).
TEST(GenBadlyScaled, EntriesArePowerOfTwoMultiplesOverTheWholeRange)
{
    const Matrix A = gen::uniform_matrix(40, 30, 5);
    const Matrix S = gen::badly_scaled(A, 7, 9);
    std::vector<int> seen(15, 0);
    for (dim_t j = 0; j < A.width(); ++j)
        for (dim_t i = 0; i < A.length(); ++i) {
            ASSERT_NE(A(i, j), 0.0);
            const double ratio = S(i, j) / A(i, j);
            int k = 0;
            ASSERT_EQ(std::frexp(ratio, &k), 0.5) << "entry (" << i << ", " << j << ") is no power-of-two multiple";
            ASSERT_LE(std::abs(k - 1), 7);
            ++seen[static_cast<std::size_t>(k - 1 + 7)];
        }
    for (int count : seen) EXPECT_GT(count, 0);
    const Matrix again = gen::badly_scaled(A, 7, 9), other = gen::badly_scaled(A, 7, 10);
    dim_t same_as_again = 0, same_as_other = 0;
    for (dim_t j = 0; j < A.width(); ++j)
        for (dim_t i = 0; i < A.length(); ++i) {
            same_as_again += std::memcmp(&again(i, j), &S(i, j), sizeof(double)) == 0;
            same_as_other += std::memcmp(&other(i, j), &S(i, j), sizeof(double)) == 0;
        }
    EXPECT_EQ(same_as_again, 40 * 30);
    EXPECT_LT(same_as_other, 40 * 30 / 2);
}

TEST(GenProblem, FingerprintsAreStable)
{
    const gen::DotProblem d = gen::dot(50, 1e20, 1);
    const gen::GemvProblem g = gen::gemv(12, 12, 1e20, 1);
    const gen::TrsvProblem t = gen::trsv(12, 1e20, 1);
    const Matrix A = gen::lu_matrix(12, 1e20, 1);
    const std::uint64_t fd = fingerprint(d.y, fingerprint(d.x));
    const std::uint64_t fg = fingerprint(g.x, fingerprint(g.A));
    const std::uint64_t ft = fingerprint(t.b, fingerprint(t.T));
    const std::uint64_t fa = fingerprint(A);
    EXPECT_EQ(fd, 0xc251ffc4a1d99caeULL) << std::hex << "dot 0x" << fd;
    EXPECT_EQ(fg, 0x3f96fd454497eaadULL) << std::hex << "gemv 0x" << fg;
    EXPECT_EQ(ft, 0x36eed60333266688ULL) << std::hex << "trsv 0x" << ft;
    EXPECT_EQ(fa, 0x5c890516c39c66f4ULL) << std::hex << "lu 0x" << fa;
}

// --- the command-line interface ------------------------------------------------------------------

TEST(GenProblem, KindNames)
{
    for (gen::Kind k : {gen::Kind::Dot, gen::Kind::Gemv, gen::Kind::Trsv, gen::Kind::Lu}) {
        ASSERT_TRUE(gen::parse_kind(gen::kind_name(k)).has_value());
        EXPECT_EQ(*gen::parse_kind(gen::kind_name(k)), k);
        EXPECT_FALSE(gen::condition_definition(k).empty());
    }
    EXPECT_FALSE(gen::parse_kind("gemm").has_value());
    EXPECT_FALSE(gen::parse_kind("").has_value());
}

TEST(GenProblem, WriteProblemRoundTrips)
{
    char dir_template[] = "/tmp/flamex_gen_XXXXXX";
    ASSERT_NE(mkdtemp(dir_template), nullptr);
    const std::string dir = dir_template;
    struct Case {
        gen::Kind kind;
        std::vector<std::string> names;
    };
    const Case cases[] = {{gen::Kind::Dot, {"x", "y"}},
                          {gen::Kind::Gemv, {"A", "x"}},
                          {gen::Kind::Trsv, {"T", "b"}},
                          {gen::Kind::Lu, {"A", "b"}}};
    for (const Case& c : cases) {
        gen::Spec spec;
        spec.kind = c.kind;
        spec.n = 16;
        spec.cond = 1e20;
        spec.seed = 17;
        spec.uplo = Uplo::Upper;
        spec.diag = Diag::Unit;
        const std::string prefix = dir + "/" + gen::kind_name(c.kind);
        const gen::Written w = gen::write_problem(spec, prefix);
        const gen::Problem p = gen::generate(spec);
        ASSERT_EQ(w.files.size(), c.names.size());
        for (std::size_t k = 0; k < c.names.size(); ++k) {
            EXPECT_EQ(w.files[k], prefix + "_" + c.names[k] + ".mtx");
            const Matrix back = flamex::io::read_matrix_market(w.files[k]);
            EXPECT_TRUE(same_bits(back, p.operand(c.names[k]))) << w.files[k];
            std::ifstream in(w.files[k]);
            std::stringstream text;
            text << in.rdbuf();
            EXPECT_NE(text.str().find("flamex gen " + std::string(gen::kind_name(c.kind))), std::string::npos);
            EXPECT_NE(text.str().find("measured cond"), std::string::npos);
        }
        EXPECT_EQ(w.measured_cond, gen::measure_condition(p));
        expect_within_factor_10(w.measured_cond, 1e20, std::string("written ") + gen::kind_name(c.kind));
        EXPECT_THROW(p.operand("nope"), Error);
    }
    // The trsv options reach the generator: upper, unit diagonal.
    gen::Spec spec;
    spec.kind = gen::Kind::Trsv;
    spec.n = 8;
    spec.cond = 1e10;
    spec.uplo = Uplo::Upper;
    spec.diag = Diag::Unit;
    const Matrix T = gen::generate(spec).operand("T");
    for (dim_t i = 0; i < 8; ++i) {
        EXPECT_EQ(T(i, i), 1.0);
        for (dim_t j = 0; j < i; ++j) EXPECT_EQ(T(i, j), 0.0);
    }
    // Without measuring, the condition number is NaN and the comment leaves it out.
    spec.kind = gen::Kind::Dot;
    const gen::Written quiet = gen::write_problem(spec, dir + "/quiet", false);
    EXPECT_TRUE(std::isnan(quiet.measured_cond));
    std::filesystem::remove_all(dir);
}

// --- MPFR references: exact values --------------------------------------------------------------

TEST(GenMpfrRef, DotOfSmallIntegersIsExact)
{
    const Matrix x = column({3, -7, 11, 2, 0, -5}), y = column({4, 6, -1, 9, 123, -2});
    // 12 - 42 - 11 + 18 + 0 + 10 = -13
    EXPECT_EQ(ref::dot(x, y), -13.0);
    const ref::Real e = ref::dot_exact(x, y);
    EXPECT_EQ(mpfr_cmp_si(e.get(), -13), 0);
}

TEST(GenMpfrRef, DotIsCorrectlyRounded)
{
    const double p53 = std::ldexp(1.0, 53), u = std::ldexp(1.0, -53);
    // Catastrophic cancellation: naive summation gives 0.
    EXPECT_EQ(ref::dot(column({p53, 1, -p53}), column({1, 1, 1})), 1.0);
    // Ties to even: 1 + 2^-53 -> 1; (1 + 2^-52) + 2^-53 -> 1 + 2^-51.
    EXPECT_EQ(ref::dot(column({1, u}), column({1, 1})), 1.0);
    EXPECT_EQ(ref::dot(column({1 + 2 * u, u}), column({1, 1})), 1 + 4 * u);
    // Just above a tie: 1 + 2^-53 + 2^-105 -> 1 + 2^-52.
    EXPECT_EQ(ref::dot(column({1, u, std::ldexp(1.0, -105)}), column({1, 1, 1})), 1 + 2 * u);
    // A product below the subnormal range still counts: 2^-600 * 2^-600 tips a tie.
    const double tiny = std::ldexp(1.0, -600);
    EXPECT_EQ(ref::dot(column({1, u, tiny}), column({1, 1, tiny})), 1 + 2 * u);
    // Subnormal result, correctly rounded: 3 * 2^-1075 -> 2 * 2^-1074 (tie to even).
    const double s = std::ldexp(1.0, -1074);
    EXPECT_EQ(ref::dot(column({s}), column({1.5})), 2 * s);
    // Overflowing exact value -> inf.
    EXPECT_EQ(ref::dot(column({1e308, 1e308}), column({10, 10})), HUGE_VAL);
    // Signed zeros: a sum of -0 products is -0, x + (-x) is +0.
    EXPECT_TRUE(std::signbit(ref::dot(column({-0.0, 0.0}), column({1, -1}))));
    EXPECT_FALSE(std::signbit(ref::dot(column({1, -1}), column({1, 1}))));
}

TEST(GenMpfrRef, GemvOfSmallIntegersIsExact)
{
    const Matrix A = from_rows(3, 2, {1, 2, -3, 4, 5, -6});
    const Matrix x = column({7, -1}), xt = column({1, 2, 3});
    Matrix y = column({1, 1, 1});
    // y := 2 A x - 3 y = 2 (5, -25, 41) - 3 = (7, -53, 79)
    ref::gemv(Trans::No, 2.0, A, x, -3.0, y);
    EXPECT_EQ(y(0, 0), 7.0);
    EXPECT_EQ(y(1, 0), -53.0);
    EXPECT_EQ(y(2, 0), 79.0);
    // A^T (1, 2, 3) = (1 - 6 + 15, 2 + 8 - 18) = (10, -8); beta = 0 ignores y (NaN).
    Matrix z = column({std::nan(""), std::nan("")});
    ref::gemv(Trans::Yes, 1.0, A, xt, 0.0, z);
    EXPECT_EQ(z(0, 0), 10.0);
    EXPECT_EQ(z(1, 0), -8.0);
    const Matrix plain = ref::gemv(A, x);
    EXPECT_EQ(plain(1, 0), -25.0);
    // One rounding per component: (2^53 + 1 + 1) exactly -> 2^53 + 2.
    const double p53 = std::ldexp(1.0, 53);
    const Matrix r = ref::gemv(from_rows(1, 3, {p53, 1, 1}), column({1, 1, 1}));
    EXPECT_EQ(r(0, 0), p53 + 2);
}

TEST(GenMpfrRef, TriangularSolvesOfIntegerSystemsAreExact)
{
    // op(T) x = b with integer x; T has power-of-two diagonals so b = op(T) x is
    // an exact small integer vector and x is recovered bit for bit.
    const dim_t n = 6;
    const std::vector<double> xs = {3, -1, 4, -1, 5, -9};
    for (Uplo uplo : kUplos)
        for (Diag diag : kDiags)
            for (Trans trans : {Trans::No, Trans::Yes}) {
                Matrix T(n, n);
                for (dim_t i = 0; i < n; ++i)
                    for (dim_t j = 0; j < n; ++j) {
                        const bool in = uplo == Uplo::Lower ? j < i : j > i;
                        if (in) T(i, j) = static_cast<double>((i * 7 + j * 3) % 5) - 2;
                        if (i == j) T(i, i) = diag == Diag::Unit ? 99.0 : ((i % 2) ? -2.0 : 4.0); // 99: must not be read
                    }
                auto op = [&](dim_t i, dim_t j) {
                    const double v = trans == Trans::Yes ? T(j, i) : T(i, j);
                    if (i == j) return diag == Diag::Unit ? 1.0 : v;
                    return v;
                };
                const bool lower_eff = (uplo == Uplo::Lower) != (trans == Trans::Yes);
                Matrix b(n, 1);
                for (dim_t i = 0; i < n; ++i) {
                    double s = 0;
                    for (dim_t j = 0; j < n; ++j)
                        if (i == j || (lower_eff ? j < i : j > i)) s += op(i, j) * xs[static_cast<std::size_t>(j)];
                    b(i, 0) = s;
                }
                const Matrix x = ref::trsv(uplo, trans, diag, T, b);
                for (dim_t i = 0; i < n; ++i)
                    EXPECT_EQ(x(i, 0), xs[static_cast<std::size_t>(i)])
                        << form(uplo, diag) << (trans == Trans::Yes ? " trans" : "") << " entry " << i;
                EXPECT_EQ(ref::trsv_error(x, uplo, trans, diag, T, b), 0.0);
            }
}

TEST(GenMpfrRef, TriangularSolveIsCorrectlyRounded)
{
    // T = [3 0; 1 7], b = (1, 1): x = (1/3, 2/21), whose roundings IEEE division gives.
    const Matrix T = from_rows(2, 2, {3, 0, 1, 7});
    const Matrix x = ref::trsv(Uplo::Lower, Trans::No, Diag::NonUnit, T, column({1, 1}));
    EXPECT_EQ(x(0, 0), 1.0 / 3.0);
    EXPECT_EQ(x(1, 0), 2.0 / 21.0);
    // A component exactly halfway between two doubles: [1 1; 0 1] x = (1 + 2^-52, 2^-53)
    // has x = (1 + 2^-53, 2^-53), and the tie 1 + 2^-53 rounds to even, 1.
    const double u = std::ldexp(1.0, -53);
    const Matrix U = from_rows(2, 2, {1, 1, 0, 1});
    const Matrix y = ref::trsv(Uplo::Upper, Trans::No, Diag::NonUnit, U, column({1 + 2 * u, u}));
    EXPECT_EQ(y(0, 0), 1.0);
    EXPECT_EQ(y(1, 0), u);
    EXPECT_THROW(ref::trsv(Uplo::Lower, Trans::No, Diag::NonUnit, from_rows(2, 2, {1, 0, 1, 0}), column({1, 1})),
                 Error);
}

TEST(GenMpfrRef, GeneralSolveOfUnimodularSystemIsExact)
{
    // A = L U with integer unit triangular factors (det 1): x integer, b = A x exact.
    const Matrix L = from_rows(4, 4, {1, 0, 0, 0, 2, 1, 0, 0, -1, 3, 1, 0, 4, -2, 5, 1});
    const Matrix U = from_rows(4, 4, {1, -3, 2, 7, 0, 1, 4, -1, 0, 0, 1, 2, 0, 0, 0, 1});
    Matrix A(4, 4);
    for (dim_t i = 0; i < 4; ++i)
        for (dim_t j = 0; j < 4; ++j)
            for (dim_t k = 0; k < 4; ++k) A(i, j) += L(i, k) * U(k, j);
    const std::vector<double> xs = {2, -5, 1, 3};
    Matrix b(4, 1);
    for (dim_t i = 0; i < 4; ++i)
        for (dim_t j = 0; j < 4; ++j) b(i, 0) += A(i, j) * xs[static_cast<std::size_t>(j)];
    const Matrix x = ref::solve(A, b);
    for (dim_t i = 0; i < 4; ++i) EXPECT_EQ(x(i, 0), xs[static_cast<std::size_t>(i)]);
    EXPECT_LT(ref::solve_error(x, A, b), 1e-60); // pivoting divides: high precision, not exact
    EXPECT_THROW(ref::solve(from_rows(2, 2, {1, 2, 2, 4}), column({1, 1})), Error); // exactly singular
}

TEST(GenMpfrRef, ConditionNumbersOfKnownCases)
{
    const double e = std::ldexp(1.0, -20);
    // x^T y = 2^-20, sum |x_i y_i| = 2 - 2^-20: cond = 2^22 - 2.
    EXPECT_EQ(ref::cond_dot(column({1, 1}), column({1, -1 + e})), std::ldexp(1.0, 22) - 2);
    EXPECT_EQ(ref::cond_dot(column({1, 2}), column({3, 4})), 2.0);
    EXPECT_EQ(ref::cond_dot(column({1, -1}), column({1, 1})), HUGE_VAL);
    // || |A||x| || / ||Ax|| for A = [1 -1; 1 1] (2 rows), x = (1, 1 - 2^-10):
    // |A||x| = (2 - 2^-10, 2 - 2^-10), Ax = (2^-10, 2 - 2^-10): 1.
    const double f = std::ldexp(1.0, -10);
    EXPECT_EQ(ref::cond_gemv(from_rows(2, 2, {1, -1, 1, 1}), column({1, 1 - f})), 1.0);
    EXPECT_EQ(ref::cond_gemv(from_rows(1, 2, {1, -1}), column({1, 1 - f})), std::ldexp(1.0, 11) - 1);
    // kappa_inf([1 2; 3 4]) = 7 * 3 = 21 (A^-1 = [-2 1; 1.5 -0.5]).
    EXPECT_DOUBLE_EQ(ref::kappa_inf(from_rows(2, 2, {1, 2, 3, 4})), 21.0);
    EXPECT_EQ(ref::kappa_inf(from_rows(2, 2, {1, 2, 2, 4})), HUGE_VAL);
    // Skeel's condition number of a diagonal system is 1; of T = [1 0; -1 1] with
    // x = (1, 1) (b = (1, 0)): |T^-1||T||x| = [1 0; 1 1] (1, 2) = (1, 3), so 3.
    EXPECT_EQ(ref::cond_trsv(Uplo::Lower, Trans::No, Diag::NonUnit, from_rows(2, 2, {2, 0, 0, -8}), column({1, 3})),
              1.0);
    EXPECT_DOUBLE_EQ(
        ref::cond_trsv(Uplo::Lower, Trans::No, Diag::NonUnit, from_rows(2, 2, {1, 0, -1, 1}), column({1, 0})), 3.0);
    // The Hilbert matrix of order 8 in doubles (rounded entries): kappa_inf about 3.4e10.
    Matrix H(8, 8);
    for (dim_t i = 0; i < 8; ++i)
        for (dim_t j = 0; j < 8; ++j) H(i, j) = 1.0 / static_cast<double>(i + j + 1);
    const double kh = ref::kappa_inf(H);
    EXPECT_GT(kh, 3.0e10);
    EXPECT_LT(kh, 4.0e10);
}

TEST(GenMpfrRef, TransposedFormsAgree)
{
    // op(T) = T^T for a lower T is the upper T^T without transposition.
    for (Diag diag : kDiags) {
        const gen::TrsvProblem p = gen::trsv(20, 1e20, 6, Uplo::Lower, diag);
        Matrix Tt(20, 20);
        for (dim_t i = 0; i < 20; ++i)
            for (dim_t j = 0; j < 20; ++j) Tt(i, j) = p.T(j, i);
        EXPECT_TRUE(same_bits(ref::trsv(Uplo::Lower, Trans::Yes, diag, p.T, p.b),
                              ref::trsv(Uplo::Upper, Trans::No, diag, Tt, p.b)));
        EXPECT_EQ(ref::cond_trsv(Uplo::Lower, Trans::Yes, diag, p.T, p.b),
                  ref::cond_trsv(Uplo::Upper, Trans::No, diag, Tt, p.b));
    }
    // An explicit precision is one pass at that precision.
    const Matrix A = gen::lu_matrix(16, 1e30, 2);
    EXPECT_NEAR(ref::kappa_inf(A, 512) / ref::kappa_inf(A), 1.0, 1e-12);
}

// --- MPFR references against the blis backend and long double --------------------------------------

TEST(GenMpfrRef, AgreesWithBlisOnWellConditionedData)
{
    auto blas = blis();
    const dim_t n = 300;
    const Matrix x = flamex::test::random_matrix(n, 1, 1), y = flamex::test::random_matrix(n, 1, 2);
    double sum_abs = 0;
    for (dim_t i = 0; i < n; ++i) sum_abs += std::fabs(x(i, 0) * y(i, 0));
    const double gamma = n * kUnit / (1 - n * kUnit);
    EXPECT_LE(std::fabs(blas->dot(x, y) - ref::dot(x, y)), gamma * sum_abs + kUnit * std::fabs(ref::dot(x, y)));

    const Matrix A = flamex::test::random_matrix(n, n, 3);
    Matrix yb(n, 1);
    blas->gemv(Trans::No, 1.0, A, x, 0.0, yb);
    const Matrix yr = ref::gemv(A, x);
    for (dim_t i = 0; i < n; ++i) {
        double row_abs = 0;
        for (dim_t j = 0; j < n; ++j) row_abs += std::fabs(A(i, j) * x(j, 0));
        EXPECT_LE(std::fabs(yb(i, 0) - yr(i, 0)), gamma * row_abs + kUnit * std::fabs(yr(i, 0))) << i;
    }
    EXPECT_LT(ref::gemv_error(yb, A, x), 1e-12);

    // A diagonally dominant triangular system: relative error of blis's trsv tiny.
    const Matrix D = flamex::test::diagonally_dominant(80, 4);
    Matrix xb = flamex::test::random_matrix(80, 1, 5);
    const Matrix rhs = xb;
    blas->trsv(Uplo::Lower, Trans::No, Diag::NonUnit, D, xb);
    EXPECT_LT(ref::trsv_error(xb, Uplo::Lower, Trans::No, Diag::NonUnit, D, rhs), 1e-13);
    const Matrix xr = ref::trsv(Uplo::Lower, Trans::No, Diag::NonUnit, D, rhs);
    EXPECT_LT(flamex::test::max_relative_difference(xb, xr), 1e-13);
}

namespace {

// ||P A - L U||_inf in long double (the test's own evaluation).
double residual_long_double(Obj A, Obj LU, const Pivots& p)
{
    const dim_t m = A.length(), n = A.width(), k = std::min(m, n);
    std::vector<long double> PA(static_cast<std::size_t>(m * n));
    for (dim_t j = 0; j < n; ++j)
        for (dim_t i = 0; i < m; ++i) PA[static_cast<std::size_t>(i + j * m)] = A(i, j);
    for (dim_t i = 0; i < p.size(); ++i)
        for (dim_t j = 0; j < n; ++j)
            std::swap(PA[static_cast<std::size_t>(i + j * m)], PA[static_cast<std::size_t>(i + p[i] + j * m)]);
    long double worst = 0;
    for (dim_t i = 0; i < m; ++i) {
        long double row = 0;
        for (dim_t j = 0; j < n; ++j) {
            long double s = 0;
            for (dim_t l = 0; l <= std::min({i, j, k - 1}); ++l)
                s += (l == i ? 1.0L : static_cast<long double>(LU(i, l))) * LU(l, j);
            row += std::fabs(PA[static_cast<std::size_t>(i + j * m)] - s);
        }
        worst = max_nan(worst, row);
    }
    return static_cast<double>(worst);
}

} // namespace

TEST(GenMpfrRef, LuResidualAgreesWithLongDouble)
{
    auto blas = blis();
    const auto& variant = flamex::find_lu_variant("lu_piv_unb_var3");
    for (auto [m, n] : {std::pair<dim_t, dim_t>{40, 40}, {30, 20}, {20, 30}}) {
        const Matrix A = flamex::test::random_matrix(m, n, static_cast<std::uint64_t>(m * 100 + n));
        Matrix LU = A;
        Pivots p(std::min(m, n));
        flamex::lu(*blas, variant, LU, p);
        const double exact = ref::lu_residual(A, LU, p);
        const double approx = residual_long_double(A, LU, p);
        EXPECT_GT(exact, 0.0);
        EXPECT_NEAR(exact, approx, 1e-2 * exact) << m << "x" << n;
        EXPECT_LT(exact, 10 * n * kUnit * flamex::test::norm_inf(A)); // a backward stable factorization
        // LAPACK's ipiv convention gives the same value.
        EXPECT_EQ(ref::lu_residual(A, LU, p.to_lapack()), exact);
    }
    // An exact factorization (small integers, no pivoting) has residual exactly 0;
    // U(2,2) off by one leaves exactly 1.
    Matrix LU = from_rows(3, 3, {2, 1, -1, 3, 4, 2, -1, 0.5, 6});
    Matrix A(3, 3);
    for (dim_t i = 0; i < 3; ++i)
        for (dim_t j = 0; j < 3; ++j)
            for (dim_t l = 0; l <= std::min(i, j); ++l) A(i, j) += (l == i ? 1.0 : LU(i, l)) * LU(l, j);
    EXPECT_EQ(ref::lu_residual(A, LU, flamex::PivObj()), 0.0);
    LU(2, 2) += 1;
    EXPECT_EQ(ref::lu_residual(A, LU, flamex::PivObj()), 1.0);
    // A residual below long double's reach: L = [1 0; 1+2^-40 1], U = [1+2^-40 0; 0 1],
    // A = RN(L U) = [1+2^-40 0; 1+2^-39 1] misses (1+2^-40)^2 by exactly 2^-80.
    const double g = 1 + std::ldexp(1.0, -40);
    EXPECT_EQ(ref::lu_residual(from_rows(2, 2, {g, 0, 1 + std::ldexp(1.0, -39), 1}), from_rows(2, 2, {g, 0, g, 1}),
                               flamex::PivObj()),
              std::ldexp(1.0, -80));
}

TEST(GenMpfrRef, RelativeErrorsAndBadInput)
{
    ref::Real e(200);
    mpfr_set_ui(e.get(), 1, MPFR_RNDN);
    mpfr_add_d(e.get(), e.get(), std::ldexp(1.0, -60), MPFR_RNDN);
    EXPECT_NEAR(ref::relative_error(1.0, e.get()), std::ldexp(1.0, -60), 1e-30);
    // (3, -7, 11, 2) . (4, 6, -1, 9) = -23
    EXPECT_EQ(ref::dot_error(-23.0, column({3, -7, 11, 2}), column({4, 6, -1, 9})), 0.0);
    EXPECT_DOUBLE_EQ(ref::dot_error(-13.0, column({3, -7, 11, 2}), column({4, 6, -1, 9})), 10.0 / 23.0);
    ref::RealVector ex;
    ex.emplace_back(64);
    ex.emplace_back(64);
    mpfr_set_si(ex[0].get(), 4, MPFR_RNDN);
    mpfr_set_si(ex[1].get(), -8, MPFR_RNDN);
    EXPECT_EQ(ref::relative_error(column({4, -7}), ex), 1.0 / 8.0);
    EXPECT_EQ(ref::relative_error(column({0, 0}), ref::RealVector(2, ref::Real(64))), 0.0);
    // Copies and moves keep the value.
    ref::Real a(100);
    mpfr_set_d(a.get(), 0.1, MPFR_RNDN);
    ref::Real b = a, c(std::move(a));
    EXPECT_EQ(b.to_double(), 0.1);
    EXPECT_EQ(c.to_double(), 0.1);
    EXPECT_EQ(b.precision(), 100);

    EXPECT_THROW(ref::dot(column({1, std::nan("")}), column({1, 1})), Error);
    EXPECT_THROW(ref::dot(column({1, 2}), column({1})), Error);
    EXPECT_THROW(ref::cond_gemv(from_rows(2, 2, {1, 2, 3, 4}), column({1, 2, 3})), Error);
    EXPECT_THROW(ref::kappa_inf(from_rows(2, 3, {1, 2, 3, 4, 5, 6})), Error);
    EXPECT_THROW(ref::lu_residual(from_rows(2, 2, {1, 2, 3, 4}), from_rows(2, 3, {1, 2, 3, 4, 5, 6}), flamex::PivObj()),
                 Error);
}
