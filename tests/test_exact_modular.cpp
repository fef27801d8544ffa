// The exact gemm's Modular engine (blas/exact_gemm.hpp, blas/exact_modular.hpp,
// blas/exact_int8_gemm.hpp): its CRT reconstruction and residues against MPFR, its
// int8 gemm against plain integer sums, its bound at its worst case, the int32
// chunking of k, and the CRT range near its limit (with one modulus fewer caught).
// The whole gemm corpus runs with the engine forced in test_exact_gemm (kEngines).
// Skipped where the CPU lacks AVX-512 VNNI or FLAMEX_EXACT_ISA forces a set below
// AVX-512 (the engine does not apply there: forced, it is Four).
#include <gtest/gtest.h>
#include <mpfr.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <numeric>
#include <random>
#include <vector>

#include "blas/exact_gemm.hpp"
#include "blas/exact_int8_gemm.hpp"
#include "blas/exact_modular.hpp"
#include "support/exact_reference.hpp"

namespace {

namespace eg = flamex::exact_gemm;
namespace md = flamex::exact_gemm::modular;
namespace i8 = flamex::exact_gemm::int8;
using Rng = std::mt19937_64;

// An MPFR integer of up to 320 bits (RAII).
struct Int {
    mpfr_t v;
    Int() { mpfr_init2(v, 320); mpfr_set_zero(v, 1); }
    ~Int() { mpfr_clear(v); }
    Int(const Int&) = delete;
    Int& operator=(const Int&) = delete;
};

// r = x mod m in [0, m) (x an integer: fmod is exact).
int mod_of(const Int& x, int m)
{
    Int r;
    mpfr_fmod_ui(r.v, x.v, static_cast<unsigned long>(m), MPFR_RNDN);
    long v = mpfr_get_si(r.v, MPFR_RNDN);
    if (v < 0) v += m;
    return static_cast<int>(v);
}

// |x - hi - lo| <= 2^-100 (4 |x| + 2^32), exactly; false otherwise.
bool within_reconstruction_bound(const Int& x, double hi, double lo)
{
    Int d, b;
    mpfr_sub_d(d.v, x.v, hi, MPFR_RNDN);
    mpfr_sub_d(d.v, d.v, lo, MPFR_RNDN);
    mpfr_abs(d.v, d.v, MPFR_RNDN);
    mpfr_abs(b.v, x.v, MPFR_RNDN);
    mpfr_mul_ui(b.v, b.v, 4, MPFR_RNDN);
    mpfr_add_d(b.v, b.v, 0x1p32, MPFR_RNDN);
    mpfr_mul_2si(b.v, b.v, -100, MPFR_RNDN);
    return mpfr_cmp(d.v, b.v) <= 0;
}

} // namespace

// Random integers of every size up to M / 4 and the extremes (0, +-1, +-floor(M / 4),
// powers of two, all residues m_t - 1 or 0), for every number of moduli: the residues
// taken in MPFR, the reconstruction within its bound of the integer (hi, lo integers).
TEST(ExactModular, CrtReconstructsRandomAndExtremeIntegers)
{
    Rng rng(41);
    int wrong = 0, checked = 0;
    for (int count = 1; count <= md::kMaxModuli; ++count) {
        const md::Basis& b = md::basis(count);
        Int big_m, quarter;
        mpfr_set_ui(big_m.v, 1, MPFR_RNDN);
        for (int t = 0; t < count; ++t) mpfr_mul_d(big_m.v, big_m.v, b.m[t], MPFR_RNDN);
        mpfr_div_2ui(quarter.v, big_m.v, 2, MPFR_RNDN);
        mpfr_floor(quarter.v, quarter.v);
        std::vector<Int> xs(40);
        mpfr_set_si(xs[0].v, 0, MPFR_RNDN);
        mpfr_set_si(xs[1].v, 1, MPFR_RNDN);
        mpfr_set_si(xs[2].v, -1, MPFR_RNDN);
        mpfr_set(xs[3].v, quarter.v, MPFR_RNDN);
        mpfr_neg(xs[4].v, quarter.v, MPFR_RNDN);
        mpfr_sub_ui(xs[5].v, quarter.v, 1, MPFR_RNDN);
        mpfr_set_ui_2exp(xs[6].v, 1, static_cast<mpfr_exp_t>(std::floor(b.log2_m)) - 3, MPFR_RNDN);
        mpfr_neg(xs[7].v, xs[6].v, MPFR_RNDN);
        for (std::size_t s = 8; s < xs.size(); ++s) { // random: uniform bits, random length, random sign
            const int bits = std::uniform_int_distribution<int>(1, static_cast<int>(b.log2_m) - 3)(rng);
            mpfr_set_ui(xs[s].v, 0, MPFR_RNDN);
            for (int done = 0; done < bits; done += 32) {
                mpfr_mul_2ui(xs[s].v, xs[s].v, 32, MPFR_RNDN);
                mpfr_add_ui(xs[s].v, xs[s].v, static_cast<unsigned long>(rng() & 0xffffffffu), MPFR_RNDN);
            }
            mpfr_div_2ui(xs[s].v, xs[s].v, static_cast<unsigned long>((bits + 31) / 32 * 32 - bits), MPFR_RNDN);
            mpfr_floor(xs[s].v, xs[s].v);
            if (rng() & 1) mpfr_neg(xs[s].v, xs[s].v, MPFR_RNDN);
        }
        for (const Int& x : xs) {
            if (mpfr_cmpabs(x.v, quarter.v) > 0) continue; // (count 1: 2^(bits) may pass M / 4)
            int r[md::kMaxModuli];
            for (int t = 0; t < count; ++t) r[t] = mod_of(x, static_cast<int>(b.m[t]));
            double hi = 0, lo = 0;
            md::reconstruct(r, b, hi, lo);
            ++checked;
            const bool ok = within_reconstruction_bound(x, hi, lo) && hi == std::nearbyint(hi) && lo == std::nearbyint(lo);
            if (!ok && ++wrong <= 5) ADD_FAILURE() << count << " moduli: x = " << mpfr_get_d(x.v, MPFR_RNDN) << " hi " << hi << " lo " << lo;
        }
        // Every residue m_t - 1: x = -1; every residue 0: x = 0.
        int r[md::kMaxModuli];
        for (int t = 0; t < count; ++t) r[t] = static_cast<int>(b.m[t]) - 1;
        double hi = 0, lo = 0;
        md::reconstruct(r, b, hi, lo);
        EXPECT_EQ(hi + lo, -1.0) << count;
    }
    EXPECT_EQ(wrong, 0);
    EXPECT_GT(checked, 700);
}

// The moduli are pairwise coprime, at most 256, and M = prod m_t is what log2_m says.
TEST(ExactModular, BasisIsPairwiseCoprime)
{
    const md::Basis& b = md::basis(md::kMaxModuli);
    double log2m = 0;
    for (int t = 0; t < b.count; ++t) {
        EXPECT_LE(b.m[t], 256.0);
        log2m += std::log2(b.m[t]);
        for (int s = 0; s < t; ++s) EXPECT_EQ(std::gcd(static_cast<int>(b.m[t]), static_cast<int>(b.m[s])), 1);
    }
    EXPECT_NEAR(b.log2_m, log2m, 1e-5);
    EXPECT_LE(b.log2_m, log2m);
    EXPECT_EQ(md::moduli_for(2048, 62), 18);
}

// split: round(v 2^P) (to nearest even) and the rests' sum, and residue() of the pieces,
// against MPFR, on random entries, entries just below 1, halves (ties) and zeros.
TEST(ExactModular, ResiduesOfTheSplitIntegers)
{
    Rng rng(42);
    const md::Basis& b = md::basis(md::kMaxModuli);
    int wrong = 0;
    for (const int P : {1, 20, 53, 61, 62}) {
        const std::int64_t rows = 7, k = 33;
        std::vector<double> v(static_cast<std::size_t>(rows * k));
        for (std::size_t q = 0; q < v.size(); ++q) {
            const int kind = static_cast<int>(q % 5);
            const double u = std::uniform_real_distribution<double>(-1.0, 1.0)(rng);
            v[q] = kind == 0 ? u : kind == 1 ? (u < 0 ? -1.0 : 1.0) * (1.0 - 0x1p-53)
                 : kind == 2 ? std::ldexp(std::floor(u * 1024) + 0.5, -P) // a tie at 2^P
                 : kind == 3 ? 0.0 : std::ldexp(u, -std::uniform_int_distribution<int>(0, 70)(rng));
            if (std::fabs(v[q]) >= 1.0) v[q] = 0.5;
        }
        std::vector<std::uint16_t> pieces(static_cast<std::size_t>(4 * rows * k));
        std::vector<double> rest(static_cast<std::size_t>(rows));
        md::split(rows, k, v.data(), P, pieces.data(), rest.data());
        for (std::int64_t i = 0; i < rows; ++i) {
            double want_rest = 0;
            for (std::int64_t l = 0; l < k; ++l) {
                const std::size_t q = static_cast<std::size_t>(i + l * rows);
                Int x;
                mpfr_set_d(x.v, v[q], MPFR_RNDN);
                mpfr_mul_2si(x.v, x.v, P, MPFR_RNDN);
                Int xr;
                mpfr_rint(xr.v, x.v, MPFR_RNDN); // ties to even
                want_rest += std::fabs(mpfr_get_d(x.v, MPFR_RNDN) - mpfr_get_d(xr.v, MPFR_RNDN));
                const std::uint16_t y[4] = {pieces[q], pieces[static_cast<std::size_t>(rows * k) + q],
                                            pieces[static_cast<std::size_t>(2 * rows * k) + q],
                                            pieces[static_cast<std::size_t>(3 * rows * k) + q]};
                for (int t = 0; t < b.count; ++t)
                    if (md::residue(y, b, t) != mod_of(xr, static_cast<int>(b.m[t])) && ++wrong <= 5)
                        ADD_FAILURE() << "P " << P << " v " << v[q] << " modulus " << b.m[t];
            }
            EXPECT_NEAR(rest[static_cast<std::size_t>(i)], want_rest, 1e-9 * (1 + want_rest)) << P;
        }
    }
    EXPECT_EQ(wrong, 0);
}

// The int8 gemm: every size's edges (rows past a 6-panel, columns past a 64-panel, k
// past a group of 4 and past a KC block of 4096), extreme entries (255 x -128), and a range
// of terms, against plain integer sums.
TEST(ExactModular, Int8GemmMatchesIntegerSums)
{
    if (!i8::available()) GTEST_SKIP() << "no AVX-512 VNNI on this CPU";
    Rng rng(43);
    for (const auto& [m, n, k] : std::vector<std::array<std::int64_t, 3>>{{1, 1, 1}, {7, 65, 5}, {13, 130, 300}, {6, 64, 512}, {5, 70, 4100}}) {
        std::vector<std::uint8_t> A(static_cast<std::size_t>(m * k));
        std::vector<std::int8_t> B(static_cast<std::size_t>(k * n));
        for (auto& a : A) a = rng() % 3 == 0 ? 255 : static_cast<std::uint8_t>(rng());
        for (auto& x : B) x = rng() % 3 == 0 ? -128 : static_cast<std::int8_t>(rng());
        std::vector<std::int32_t> C(static_cast<std::size_t>(m * n), 7);
        i8::gemm_u8s8(m, n, k, A.data(), k, B.data(), k, C.data(), n);
        for (std::int64_t i = 0; i < m; ++i)
            for (std::int64_t j = 0; j < n; ++j) {
                std::int64_t s = 0;
                for (std::int64_t l = 0; l < k; ++l) s += A[static_cast<std::size_t>(i * k + l)] * B[static_cast<std::size_t>(j * k + l)];
                ASSERT_EQ(C[static_cast<std::size_t>(i * n + j)], s) << m << "x" << n << "x" << k << " (" << i << "," << j << ")";
            }
    }
    EXPECT_THROW(i8::gemm_u8s8(1, 1, i8::kMaxDepth + 4, nullptr, 0, nullptr, 0, nullptr, 1), flamex::Error);
}

namespace {

// C := A B + C through plan/run with the Modular engine (or another) forced (whatever
// the settings say), every element against MPFR (correctly rounded); the profile's
// Modular tiles and int8 products returned.
int modular_gemm_wrong(std::int64_t m, std::int64_t n, std::int64_t k, const std::vector<double>& A,
                       const std::vector<double>& B, const std::vector<double>& C0, eg::Profile& prof,
                       eg::Engine engine = eg::Engine::Modular)
{
    std::vector<double> C = C0;
    eg::Plan plan;
    eg::reset_profile();
    if (!eg::plan(m, n, k, 1.0, {A.data(), 1, m}, {B.data(), 1, k}, 1.0, C.data(), 1, m, {0, 0, engine}, plan))
        return -1;
    eg::run(plan, 0, n);
    prof = eg::profile();
    int wrong = 0;
    for (std::int64_t j = 0; j < n; ++j)
        for (std::int64_t i = 0; i < m; ++i) {
            flamex::test::Big s;
            for (std::int64_t l = 0; l < k; ++l) s.add_product(A[static_cast<std::size_t>(i + l * m)], B[static_cast<std::size_t>(l + j * k)]);
            s.add(C0[static_cast<std::size_t>(i + j * m)]);
            const double want = flamex::test::reference_round(s.get());
            wrong += std::memcmp(&want, &C[static_cast<std::size_t>(i + j * m)], sizeof want) != 0;
        }
    return wrong;
}

} // namespace

// k in chunks of 8 and of 4 terms (the int32 limit lowered from 2^16): each chunk's
// products reduced and summed (exact_modular.hpp, add_residues); bits against MPFR.
TEST(ExactModular, DepthChunksMatchMpfr)
{
    if (!eg::modular_available()) GTEST_SKIP() << "the Modular engine does not apply here (no VNNI, or FLAMEX_EXACT_ISA)";
    flamex::test::widen_mpfr_range();
    Rng rng(44);
    const std::int64_t m = 70, n = 67, k = 301;
    std::vector<double> A(static_cast<std::size_t>(m * k)), B(static_cast<std::size_t>(k * n)), C(static_cast<std::size_t>(m * n));
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    for (auto& x : A) x = u(rng);
    for (auto& x : B) x = u(rng);
    for (auto& x : C) x = u(rng);
    for (const std::int64_t depth : {std::int64_t{8}, std::int64_t{4}, std::int64_t{0}}) {
        eg::set_modular_settings({0, 0, depth});
        eg::Profile prof;
        EXPECT_EQ(modular_gemm_wrong(m, n, k, A, B, C, prof), 0) << depth;
        const eg::ModularGeometry g = eg::modular_geometry(k);
        const std::uint64_t chunks = depth == 0 ? 1 : static_cast<std::uint64_t>((k + depth - 1) / depth);
        EXPECT_EQ(prof.products, chunks * static_cast<std::uint64_t>(g.moduli) * prof.tiles_modular) << depth;
        EXPECT_GT(prof.tiles_modular, 0u);
        EXPECT_LE(prof.per_element + prof.screened, static_cast<std::uint64_t>(m * n / 64)) << depth; // uniform: nearly all kept
    }
    eg::set_modular_settings({});
}

// The CRT range near its limit: every entry of magnitude 1 - 2^-53 (A', B' = 2^P -
// 2^(P-53) rounded), one sign per row and column, so |A'B'| = k (2^P - ...)^2, with the
// default geometry, then with 17 moduli and the largest P they allow at this k (M / 4
// about 1.6 |A'B'|); then the same with one modulus fewer must be wrong somewhere (the
// reconstruction wraps).
TEST(ExactModular, CrtRangeAtItsLimit)
{
    if (!eg::modular_available()) GTEST_SKIP() << "the Modular engine does not apply here (no VNNI, or FLAMEX_EXACT_ISA)";
    flamex::test::widen_mpfr_range();
    Rng rng(45);
    const std::int64_t m = 64, n = 64, k = 300;
    const double top = 1.0 - 0x1p-53;
    std::vector<double> A(static_cast<std::size_t>(m * k)), B(static_cast<std::size_t>(k * n)), C(static_cast<std::size_t>(m * n));
    for (std::int64_t i = 0; i < m; ++i)
        for (std::int64_t l = 0; l < k; ++l) // rows of one sign; every 8th row with a random last entry
            A[static_cast<std::size_t>(i + l * m)] = (i % 2 ? -top : top) * (i % 8 == 7 && l == k - 1 ? std::uniform_real_distribution<double>(0.5, 1.0)(rng) : 1.0);
    for (std::int64_t j = 0; j < n; ++j)
        for (std::int64_t l = 0; l < k; ++l) B[static_cast<std::size_t>(l + j * k)] = j % 3 ? top : -top;
    for (auto& x : C) x = std::uniform_real_distribution<double>(-1.0, 1.0)(rng);
    // The default geometry (18 moduli, P = 62: |A'B'| = 2^132.2 against M / 4 = 2^138.5).
    eg::Profile prof;
    eg::set_modular_settings({});
    EXPECT_EQ(modular_gemm_wrong(m, n, k, A, B, C, prof), 0);
    EXPECT_GT(prof.tiles_modular, 0u);
    eg::set_modular_settings({0, 17, 0});
    const eg::ModularGeometry g = eg::modular_geometry(k);
    EXPECT_EQ(g.moduli, 17);
    EXPECT_EQ(g.P, 61);
    // 4 k 2^(2P) within a factor 2 of M: the largest |A'B'| near a quarter of M.
    EXPECT_LT(md::basis(17).log2_m - (2 + std::log2(static_cast<double>(k)) + 2 * g.P), 1.0);
    EXPECT_EQ(modular_gemm_wrong(m, n, k, A, B, C, prof), 0);
    EXPECT_GT(prof.tiles_modular, 0u);
    EXPECT_LE(prof.per_element + prof.screened, static_cast<std::uint64_t>(m * n / 64));
    eg::set_modular_settings({g.P, 16, 0}); // one modulus too few for P: M / 4 < |A'B'|
    EXPECT_GT(modular_gemm_wrong(m, n, k, A, B, C, prof), 0);
    eg::set_modular_settings({});

    // The Hybrid engine (A'B' by the same CRT, A' R_B and R_A b by dgemm): its default
    // geometry at this k, 9 moduli and P = 30 (|A'B'| = 2^68.2 against M / 4 = 2^69.6),
    // bits against MPFR; then 8 moduli at that P must be wrong somewhere.
    const eg::ModularGeometry h = eg::hybrid_geometry(k);
    EXPECT_EQ(h.moduli, 9);
    EXPECT_EQ(h.P, 30);
    EXPECT_LT(md::basis(9).log2_m - (2 + std::log2(static_cast<double>(k)) + 2 * h.P), 1.5);
    EXPECT_EQ(modular_gemm_wrong(m, n, k, A, B, C, prof, eg::Engine::Hybrid), 0);
    EXPECT_EQ(prof.tiles_hybrid, 1u);
    EXPECT_EQ(prof.tiles_modular, 0u);
    EXPECT_LE(prof.per_element + prof.screened, static_cast<std::uint64_t>(m * n / 64));
    eg::set_modular_settings({h.P, 8, 0});
    EXPECT_GT(modular_gemm_wrong(m, n, k, A, B, C, prof, eg::Engine::Hybrid), 0);
    eg::set_modular_settings({});
}

// Hybrid's geometry: 9 moduli and P >= 28 through k = 8192 (k = 2048: P = 29), P at the
// largest that 9 moduli allow, more moduli only where 9 would give P < 28.
TEST(ExactModular, HybridGeometry)
{
    for (const std::int64_t k : {std::int64_t{1}, std::int64_t{64}, std::int64_t{300}, std::int64_t{2048}, std::int64_t{8192},
                                 std::int64_t{1} << 20}) {
        const eg::ModularGeometry h = eg::hybrid_geometry(k);
        const double need = 2 + std::log2(static_cast<double>(k)) + 2 * h.P;
        EXPECT_GE(md::basis(h.moduli).log2_m, need) << k;          // M >= 4 k 2^(2P)
        EXPECT_LT(md::basis(h.moduli).log2_m, need + 2.0) << k;    // and P the largest
        EXPECT_GE(h.P, 28) << k;
        if (k <= 8192) {
            EXPECT_EQ(h.moduli, 9) << k;
        }
    }
    EXPECT_EQ(eg::hybrid_geometry(2048).P, 29);
}

// The Modular sums (product_sums, forced) at the bound's worst case: scaled entries
// N + 1/2 - delta (delta in [2^-12, 2^-8]) with P = 40, so that every rest is just
// under +1/2 and every A', B' near 2^P: the dropped R_A B + A' R_B come within about
// 2^-8 of the bound 2^-P (sum |R_A| + sum |R_B|) 2^(e_i + f_j). The exact sum (MPFR)
// must lie within err of hi + lo, and come within 1% of it (a bound 1% too tight fails).
TEST(ExactModular, SumsLieWithinTheirBoundAtItsWorstCase)
{
    if (!eg::modular_available()) GTEST_SKIP() << "the Modular engine does not apply here (no VNNI, or FLAMEX_EXACT_ISA)";
    flamex::test::widen_mpfr_range();
    Rng rng(46);
    const int P = 40;
    eg::set_modular_settings({P, 0, 0});
    const std::int64_t m = 6, n = 5;
    double worst = 0;
    for (const std::int64_t k : {std::int64_t{1}, std::int64_t{200}, std::int64_t{700}}) {
        std::vector<double> A(static_cast<std::size_t>(m * k)), B(static_cast<std::size_t>(k * n));
        std::uniform_int_distribution<std::int64_t> big((std::int64_t{1} << P) - (std::int64_t{1} << (P - 10)), (std::int64_t{1} << P) - 2);
        auto entry = [&] {
            const double delta = std::ldexp(static_cast<double>(std::uniform_int_distribution<int>(1, 16)(rng)), -12);
            return std::ldexp(static_cast<double>(big(rng)) + 0.5 - delta, -P);
        };
        for (auto& x : A) x = entry();
        for (auto& x : B) x = entry();
        eg::ProductSums sums;
        ASSERT_TRUE(eg::product_sums(m, n, k, {A.data(), 1, m}, {B.data(), 1, k}, sums, eg::Engine::Modular));
        for (std::int64_t j = 0; j < n; ++j)
            for (std::int64_t i = 0; i < m; ++i) {
                const std::size_t q = static_cast<std::size_t>(i + j * m);
                ASSERT_EQ(sums.per_element[q], 0);
                flamex::test::Big d;
                for (std::int64_t l = 0; l < k; ++l) d.add_product(A[static_cast<std::size_t>(i + l * m)], B[static_cast<std::size_t>(l + j * k)]);
                d.add(-sums.hi[q]);
                d.add(-sums.lo[q]);
                mpfr_abs(d.get(), d.get(), MPFR_RNDN);
                const double e = mpfr_get_d(d.get(), MPFR_RNDU);
                EXPECT_LE(e, sums.err[q]) << "k " << k << " (" << i << "," << j << ")";
                worst = std::max(worst, e / sums.err[q]);
            }
    }
    std::printf("Modular: |S - hi - lo| / err up to %.6f\n", worst);
    EXPECT_GT(worst, 0.99);
    eg::set_modular_settings({});
}

// The Modular bound where it is nearly attained, against MPFR, at the default geometry
// (P = 62 at k = 256). Row i of op(A): a_i0 = 1 - 2^-53 (e_i = 0: A' = 2^62 - 2^9, no
// rest), then k - 1 small entries (N + r) 2^-62, N < 2^50, r in [1/8, 3/8]: each with
// a rest +r. Every b_lj in [1 - 2^-40, 1) (B' = b 2^62, no rest). The dropped sum
// R_A b 2^-62 is then 2^-62 sum_l r_l b_lj, at least 1 - 2^-40 of the rests' term of the
// bound, 2^-62 (1 + 2^-30) sum_l r_l: |S - hi - lo| reaches 1 - 2^-29 of err (the
// slack 2^-30 covers the norms' rounding, and k 2^-97 the reconstruction). The gemm on
// the same data with c_ij placed so that the computed sum lies delta below a midpoint
// and the exact one above it, delta just below the error made: the true bound leaves
// the element undecided (the screen rounds it up), a bound (1 - 2^-28) of it keeps the
// computed sum's side, rounded down, wrong (beta 1: the vectorized decision, beta 2
// the general one). Then entries without rests (all in [1/2, 1): A', B' integers), where
// err is k 2^-97 alone: A'B' near k 2^124 has more bits than its double-double, whose
// error must lie within err (that term dropped fails here). A bound one ulp tighter
// (times 1 - 2^-52) is caught by no test: it stays within the slack above, and within
// decide's own (its interval is widened by 2^-40 and its double-double sum's 2^-96),
// so it cannot keep a wrong result.
TEST(ExactModular, BoundAttainedAtTheDefaultGeometryDecidesAgainstMpfr)
{
    if (!eg::modular_available()) GTEST_SKIP() << "the Modular engine does not apply here (no VNNI, or FLAMEX_EXACT_ISA)";
    flamex::test::widen_mpfr_range();
    Rng rng(47);
    const std::int64_t m = 4, n = 4, k = 256;
    ASSERT_EQ(eg::modular_geometry(k).P, 62);
    std::vector<double> A(static_cast<std::size_t>(m * k)), B(static_cast<std::size_t>(k * n));
    std::uniform_int_distribution<std::int64_t> small(std::int64_t{1} << 48, (std::int64_t{1} << 50) - 1);
    std::uniform_int_distribution<int> eighths(1, 3);
    std::uniform_int_distribution<std::int64_t> top((std::int64_t{1} << 53) - (std::int64_t{1} << 13), (std::int64_t{1} << 53) - 1);
    for (std::int64_t i = 0; i < m; ++i) {
        A[static_cast<std::size_t>(i)] = 1.0 - 0x1p-53;
        for (std::int64_t l = 1; l < k; ++l)
            A[static_cast<std::size_t>(i + l * m)] = std::ldexp(static_cast<double>(small(rng)) + eighths(rng) / 8.0, -62);
    }
    for (auto& x : B) x = std::ldexp(static_cast<double>(top(rng)), -53);
    auto exact_minus = [&](std::int64_t i, std::int64_t j, flamex::test::Big& s) {
        for (std::int64_t l = 0; l < k; ++l) s.add_product(A[static_cast<std::size_t>(i + l * m)], B[static_cast<std::size_t>(l + j * k)]);
    };
    eg::ProductSums sums;
    ASSERT_TRUE(eg::product_sums(m, n, k, {A.data(), 1, m}, {B.data(), 1, k}, sums, eg::Engine::Modular));
    std::vector<double> error(static_cast<std::size_t>(m * n)); // S - hi - lo, rounded down (positive here)
    double tightest = 1.0;
    for (std::int64_t j = 0; j < n; ++j)
        for (std::int64_t i = 0; i < m; ++i) {
            const std::size_t q = static_cast<std::size_t>(i + j * m);
            ASSERT_EQ(sums.per_element[q], 0);
            flamex::test::Big d;
            exact_minus(i, j, d);
            d.add(-sums.hi[q]);
            d.add(-sums.lo[q]);
            ASSERT_GT(mpfr_sgn(d.get()), 0);
            error[q] = mpfr_get_d(d.get(), MPFR_RNDD);
            EXPECT_LE(mpfr_get_d(d.get(), MPFR_RNDU), sums.err[q]) << "(" << i << "," << j << ")";
            tightest = std::min(tightest, error[q] / sums.err[q]);
        }
    std::printf("Modular, rests at the bound: |S - hi - lo| / err at least 1 - 2^%.2f\n", std::log2(1.0 - tightest));
    EXPECT_GT(tightest, 1.0 - 0x1p-29);
    for (const double beta : {1.0, 2.0}) {
        std::vector<double> C0(static_cast<std::size_t>(m * n)), want(C0.size());
        for (std::int64_t j = 0; j < n; ++j)
            for (std::int64_t i = 0; i < m; ++i) {
                const std::size_t q = static_cast<std::size_t>(i + j * m);
                const double h = sums.hi[q], l = sums.lo[q], r = h + l;
                const double u = std::nextafter(r, 2.0 * r) - r;
                ASSERT_LT(sums.err[q], 0.25 * u); // the bound alone decides nearly every c
                // c: h + l + c = M - delta (M = r + u / 2) with delta the error made less
                // about 2^-100, c rounded; then S + c - M, exactly, positive and below
                // 2^-35 of the error: the exact sum just above M, the computed one below.
                const double delta = std::ldexp(std::floor(std::ldexp(error[q], 100)) - 1.0, -100);
                const double c = (((r - h) - l) + 0.5 * u) - delta;
                flamex::test::Big gap; // S + c - M
                exact_minus(i, j, gap);
                gap.add(c);
                gap.add(-r);
                gap.add(-0.5 * u);
                ASSERT_GT(mpfr_sgn(gap.get()), 0);
                ASSERT_LT(mpfr_get_d(gap.get(), MPFR_RNDU), error[q] * 0x1p-35);
                C0[q] = c / beta;
                flamex::test::Big s;
                exact_minus(i, j, s);
                s.add(c);
                want[q] = flamex::test::reference_round(s.get());
                ASSERT_EQ(want[q], r + u); // above the midpoint: rounded up
            }
        std::vector<double> C = C0;
        eg::Plan plan;
        eg::reset_profile();
        ASSERT_TRUE(eg::plan(m, n, k, 1.0, {A.data(), 1, m}, {B.data(), 1, k}, beta, C.data(), 1, m,
                             {m, n, eg::Engine::Modular}, plan));
        eg::run(plan, 0, n);
        EXPECT_EQ(eg::profile().tiles_modular, 1u);
        for (std::size_t q = 0; q < C.size(); ++q)
            EXPECT_EQ(C[q], want[q]) << "beta " << beta << " element " << q << ": " << flamex::test::bits_of(C[q])
                                     << " against MPFR's " << flamex::test::bits_of(want[q]);
    }

    // No rests: err is the reconstruction's term alone, k 2^-97 2^(e_i + f_j).
    std::uniform_real_distribution<double> half(0.5, 1.0);
    for (auto& x : A) x = half(rng);
    for (auto& x : B) x = half(rng);
    ASSERT_TRUE(eg::product_sums(m, n, k, {A.data(), 1, m}, {B.data(), 1, k}, sums, eg::Engine::Modular));
    int inexact = 0;
    for (std::int64_t j = 0; j < n; ++j)
        for (std::int64_t i = 0; i < m; ++i) {
            const std::size_t q = static_cast<std::size_t>(i + j * m);
            ASSERT_EQ(sums.per_element[q], 0);
            flamex::test::Big d;
            exact_minus(i, j, d);
            d.add(-sums.hi[q]);
            d.add(-sums.lo[q]);
            inexact += mpfr_sgn(d.get()) != 0;
            mpfr_abs(d.get(), d.get(), MPFR_RNDN);
            EXPECT_LE(mpfr_get_d(d.get(), MPFR_RNDU), sums.err[q]) << "no rests (" << i << "," << j << ")";
        }
    EXPECT_GT(inexact, 0); // the data is what it claims: the double-double does not hold A'B'
}
