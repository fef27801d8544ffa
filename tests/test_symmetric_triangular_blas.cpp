// syrk, trmv, trmm, sqrt, reciprocal, diag_invscal, diag_dots and diag_gemv (the
// operations Cholesky, LDL^T and the triangular inverse need) against MPFR.
//
// `exact`, bit for bit, with 1 and 2 threads (the threading threshold lowered, the
// split asserted) and small block sizes:
//   syrk   c_ij := RN(alpha (op(A) op(A)^T)_ij + beta c_ij) on C's uplo triangle,
//          the other triangle untouched (it holds NaN, never read), C not read
//          when beta == 0;
//   trmv,  each output RN(alpha S), S the exact sum of its row's triangle of
//   trmm   products (the diagonal one the old x_k itself with a unit diagonal,
//          which is NaN in storage and must not be read), every side / uplo /
//          trans / diag;
//   sqrt,  RN(sqrt(x)) and RN(1 / x) over the whole exponent range, subnormals and
//   reciprocal specials included -- on every backend, since the contract says
//          correctly rounded everywhere;
//   diag_dots, each output RN(alpha S + beta y) (alpha = +-1), S the exact sum of the
//   diag_gemv  triple products a_il d_l x_l, D NaN off its diagonal (never read), y not
//          read when beta == 0; diag_invscal one division per element (every backend).
// Data for the diagonal-scaled ones: pairs of columns whose second cancels the
// first's naively rounded triple product (S is then a sum of rounding errors, which
// only an exact triple product gets right), GenDot rows scaled by powers of two,
// exponents over the whole range (triple products far outside binary64), specials.
// Data: rows that are Ogita-Rump-Oishi GenDot pairs (condition numbers up to 1e100),
// C planted with -RN(S) so that beta C cancels alpha S to its last bits, triangular
// rows whose diagonal product cancels the rest of the row to the rounding error,
// exponents over the whole range (products that overflow or underflow binary64),
// NaN, inf and signed zeros; views offset in NaN-filled storage and row-major.
// `blis` and `opencl-plain`: within gamma_(k+2) (|alpha| |op(A)| |op(A)^T| + |beta| |C|)
// of the exact result, the same read / write rules, and the correctly rounded scalars.
#include <gtest/gtest.h>
#include <mpfr.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "blas/blas.hpp"
#include "reference/generators.hpp"
#include "support/backend_checks.hpp"
#include "support/exact_blas_reference.hpp"
#include "support/exact_reference.hpp"
#include "support/test_support.hpp"

namespace {

using flamex::Blas;
using flamex::Diag;
using flamex::dim_t;
using flamex::Matrix;
using flamex::Obj;
using flamex::Side;
using flamex::Trans;
using flamex::Uplo;
using flamex::test::exref::ExactValue;
namespace exref = flamex::test::exref;
namespace gen = flamex::gen;
using Rng = std::mt19937_64;

const double NaN = std::numeric_limits<double>::quiet_NaN();
const double INF = std::numeric_limits<double>::infinity();

double random_double(Rng& rng, int emin, int emax) { return flamex::test::random_double(rng, emin, emax); }

// --- backends -------------------------------------------------------------------------

using Config = flamex::test::BackendConfig;
using flamex::test::describe;
const std::vector<Config> CONFIGS = {{1, 0}, {2, 0}, {1, 5}, {2, 3}};

const Blas& backend(const std::string& name, Config c = {1, 0}) { return flamex::test::cached_backend(name, c); }

// --- storage --------------------------------------------------------------------------

// A copy of A as a view: 0 the whole of a column-major matrix, 1 a window of a
// NaN-filled larger one, 2 a row-major window (column stride 1) of one.
struct Stored {
    Matrix storage;
    Obj view;
};

Stored store(const Matrix& A, int layout)
{
    const dim_t m = A.length(), n = A.width();
    Stored s;
    if (layout == 0) {
        s.storage = A;
        s.view = s.storage.view();
        return s;
    }
    s.storage = layout == 1 ? Matrix(m + 4, n + 3) : Matrix(n + 3, m + 2);
    const Obj base = s.storage.view();
    for (dim_t j = 0; j < base.width(); ++j)
        for (dim_t i = 0; i < base.length(); ++i) base(i, j) = NaN;
    s.view = layout == 1 ? base.sub(2, 1, m, n)
                         : Obj(base.buffer(), base.col_stride(), base.row_stride(), 1, 2, m, n, base.owner());
    for (dim_t j = 0; j < n; ++j)
        for (dim_t i = 0; i < m; ++i) s.view(i, j) = A(i, j);
    return s;
}

Matrix transposed(const Matrix& A)
{
    Matrix T(A.width(), A.length());
    for (dim_t j = 0; j < A.width(); ++j)
        for (dim_t i = 0; i < A.length(); ++i) T(j, i) = A(i, j);
    return T;
}

const char* name(Uplo u) { return u == Uplo::Lower ? "L" : "U"; }
const char* name(Trans t) { return t == Trans::No ? "N" : "T"; }
const char* name(Diag d) { return d == Diag::Unit ? "U" : "N"; }
const char* name(Side s) { return s == Side::Left ? "left" : "right"; }

bool in_triangle(Uplo uplo, dim_t i, dim_t j) { return uplo == Uplo::Lower ? i >= j : i <= j; }

// --- syrk -----------------------------------------------------------------------------

// The exact (op(A) op(A)^T)_ij, opA the n x k op(A).
ExactValue syrk_sum(const Matrix& opA, dim_t i, dim_t j)
{
    ExactValue s;
    for (dim_t l = 0; l < opA.width(); ++l) s.add_product(opA(i, l), opA(j, l));
    return s;
}

// RN(alpha S + beta c); c not read when beta == 0.
double scaled(ExactValue S, double alpha, double beta, double c)
{
    S.scale(alpha);
    if (beta != 0) S.add_product(beta, c);
    EXPECT_TRUE(S.exact()) << "the MPFR reference rounded (a bug of the test)";
    return S.to_double();
}

// Runs syrk on blas with A stored for trans (op(A) = opA) and C0 (NaN outside the
// uplo triangle) and compares every element of C with MPFR: the triangle bit for
// bit, the rest untouched. Returns the number of wrong elements.
int check_syrk(const Blas& blas, Uplo uplo, Trans trans, double alpha, const Matrix& opA, double beta,
               const Matrix& C0, int layout, const std::string& what)
{
    const dim_t n = opA.length();
    Matrix C1 = C0;
    for (dim_t j = 0; j < n; ++j)
        for (dim_t i = 0; i < n; ++i)
            if (!in_triangle(uplo, i, j)) C1(i, j) = NaN;
    const Stored As = store(trans == Trans::No ? opA : transposed(opA), layout);
    Stored Cs = store(C1, (layout + 1) % 3);
    blas.syrk(uplo, trans, alpha, As.view, beta, Cs.view);
    int wrong = 0;
    for (dim_t j = 0; j < n; ++j)
        for (dim_t i = 0; i < n; ++i) {
            const double got = Cs.view(i, j);
            const bool inside = in_triangle(uplo, i, j);
            const double want = inside ? scaled(syrk_sum(opA, i, j), alpha, beta, C1(i, j)) : C1(i, j);
            if (!exref::same_double(got, want) && ++wrong <= 3)
                ADD_FAILURE() << "syrk " << name(uplo) << name(trans) << " C(" << i << "," << j << ") "
                              << (inside ? "" : "(outside the triangle) ") << "got " << exref::hex(got)
                              << ", MPFR says " << exref::hex(want) << "; alpha " << alpha << ", beta " << beta
                              << ", " << what;
        }
    return wrong;
}

// op(A) (n x k) whose rows are GenDot pairs of condition `cond` (rows 2p, 2p + 1),
// and C0 holding -RN(S_ij) on every third element of the triangle (so that
// alpha = beta = 1 leaves only the rounding error of S), random elsewhere.
std::pair<Matrix, Matrix> ill_conditioned_syrk(dim_t n, dim_t k, double cond, std::uint64_t seed, Uplo uplo)
{
    Matrix opA(n, k), C0(n, n);
    for (dim_t p = 0; 2 * p < n; ++p) {
        const gen::DotProblem d = gen::dot(std::max<dim_t>(k, 2), cond, seed + static_cast<std::uint64_t>(p));
        for (dim_t l = 0; l < k; ++l) {
            opA(2 * p, l) = d.x(l, 0);
            if (2 * p + 1 < n) opA(2 * p + 1, l) = d.y(l, 0);
        }
    }
    Rng rng(seed);
    for (dim_t j = 0; j < n; ++j)
        for (dim_t i = 0; i < n; ++i) {
            ExactValue s = syrk_sum(opA, i, j);
            C0(i, j) = in_triangle(uplo, i, j) && (i + 2 * j) % 3 == 0 ? -s.to_double() : random_double(rng, -4, 4);
        }
    return {opA, C0};
}

TEST(ExactSyrk, IllConditionedRowsAndCancellingC)
{
    const flamex::test::ExpectThreadsSplit split;
    int wrong = 0;
    struct Shape {
        dim_t n, k;
    };
    for (Shape s : {Shape{1, 1}, Shape{2, 5}, Shape{7, 33}, Shape{20, 3}, Shape{40, 67}})
        for (double cond : {1e8, 1e32, 1e100})
            for (Uplo uplo : {Uplo::Lower, Uplo::Upper})
                for (Trans trans : {Trans::No, Trans::Yes}) {
                    const auto [opA, C0] =
                        ill_conditioned_syrk(s.n, s.k, cond, static_cast<std::uint64_t>(s.n * 100 + s.k), uplo);
                    int layout = 0;
                    for (Config cfg : CONFIGS)
                        for (auto [alpha, beta] : {std::pair{1.0, 1.0}, {-1.0, 0.0}, {0.75, -3.0}, {1.0, 0.0}}) {
                            const std::string what = std::to_string(s.n) + "x" + std::to_string(s.k) + ", cond " +
                                                     std::to_string(cond) + ", " + describe(cfg);
                            wrong += check_syrk(backend("exact", cfg), uplo, trans, alpha, opA, beta, C0,
                                                layout++ % 3, what);
                        }
                }
    EXPECT_EQ(wrong, 0);
}

TEST(ExactSyrk, WideExponentsSpecialsAndVectors)
{
    const flamex::test::ExpectThreadsSplit split;
    Rng rng(7);
    int wrong = 0;
    for (int range = 0; range < 4; ++range)
        for (dim_t k : {dim_t{1}, dim_t{9}, dim_t{40}}) { // k = 1: syr
            const dim_t n = 13;
            Matrix opA(n, k), C0(n, n);
            for (dim_t l = 0; l < k; ++l)
                for (dim_t i = 0; i < n; ++i) {
                    // 0: the whole range (overflowing and underflowing products);
                    // 1: subnormal results; 2: huge; 3: NaN, inf and signed zeros
                    double v = random_double(rng, -560, 560);
                    if (range == 1) v = random_double(rng, -560, -500);
                    if (range == 2) v = random_double(rng, 500, 515);
                    if (range == 3) {
                        const int pick = static_cast<int>(rng() % 12);
                        v = pick == 0 ? NaN : pick == 1 ? -INF : pick == 2 ? INF : pick < 6 ? -0.0 : pick < 8 ? 0.0
                                                                                               : random_double(rng, -3, 3);
                    }
                    opA(i, l) = v;
                }
            for (dim_t j = 0; j < n; ++j)
                for (dim_t i = 0; i < n; ++i) C0(i, j) = range == 3 && (i + j) % 4 == 0 ? -0.0 : random_double(rng, -20, 20);
            for (Uplo uplo : {Uplo::Lower, Uplo::Upper})
                for (Trans trans : {Trans::No, Trans::Yes})
                    for (Config cfg : CONFIGS)
                        for (auto [alpha, beta] : {std::pair{1.0, 0.0}, {-1.0, 1.0}, {0x1p-600, 0x1p600}, {0.0, 1.0}})
                            wrong += check_syrk(backend("exact", cfg), uplo, trans, alpha, opA, beta, C0,
                                                static_cast<int>(k + range) % 3,
                                                "range " + std::to_string(range) + ", k " + std::to_string(k) + ", " +
                                                    describe(cfg));
        }
    EXPECT_EQ(wrong, 0);
}

TEST(ExactSyrk, BetaZeroDoesNotReadCAndLargeOnesSplit)
{
    const flamex::test::ExpectThreadsSplit split;
    int wrong = 0;
    for (Uplo uplo : {Uplo::Lower, Uplo::Upper})
        for (Trans trans : {Trans::No, Trans::Yes}) {
            auto [opA, C0] = ill_conditioned_syrk(100, 60, 1e40, 99, uplo);
            for (dim_t j = 0; j < 100; ++j)
                for (dim_t i = j % 2; i < 100; i += 2) C0(i, j) = NaN; // beta == 0: never read
            for (Config cfg : CONFIGS)
                wrong += check_syrk(backend("exact", cfg), uplo, trans, -0.5, opA, 0.0, C0, 1, "100x60, " + describe(cfg));
        }
    EXPECT_EQ(wrong, 0);
}

// --- trmv, trmm -------------------------------------------------------------------------

// The effective triangle E (n x n) a right-hand side is multiplied by: op(T) for
// side LEFT, op(T)^T for RIGHT; lower iff E is.
bool effective_lower(Side side, Uplo uplo, Trans trans)
{
    const bool op_lower = (uplo == Uplo::Lower) == (trans == Trans::No);
    return side == Side::Left ? op_lower : !op_lower;
}

// T as stored such that the effective triangle is E, with NaN where the backend
// must not read (the other triangle, a unit diagonal).
Matrix stored_triangle(const Matrix& E, Side side, Uplo uplo, Trans trans, Diag diag)
{
    // LEFT: op(T) = E; RIGHT: op(T) = E^T.
    const bool transpose = (side == Side::Left) == (trans == Trans::Yes);
    Matrix T = transpose ? transposed(E) : E;
    for (dim_t j = 0; j < T.width(); ++j)
        for (dim_t i = 0; i < T.length(); ++i)
            if (!in_triangle(uplo, i, j) || (i == j && diag == Diag::Unit)) T(i, j) = NaN;
    return T;
}

// E (lower or upper, diag) and a vector v such that every output of E v cancels to
// its rounding error: the diagonal product (or, with a unit diagonal, v_k itself)
// is minus the rounded sum of the rest of row k.
std::pair<Matrix, std::vector<double>> cancelling_triangle(dim_t n, bool lower, Diag diag, Rng& rng)
{
    Matrix E(n, n);
    std::vector<double> v(static_cast<std::size_t>(n));
    for (dim_t j = 0; j < n; ++j)
        for (dim_t i = 0; i < n; ++i) E(i, j) = (lower ? i > j : i < j) ? random_double(rng, -20, 20) : 0.0;
    for (double& x : v) x = random_double(rng, -20, 20);
    for (dim_t s = 0; s < n; ++s) {
        const dim_t k = lower ? s : n - 1 - s; // unit: v_k from the entries solved before it
        ExactValue rest;
        for (dim_t j = 0; j < n; ++j)
            if (j != k && (lower ? j < k : j > k)) rest.add_product(E(k, j), v[static_cast<std::size_t>(j)]);
        const double r = rest.to_double();
        if (diag == Diag::Unit) {
            if (r != 0) v[static_cast<std::size_t>(k)] = -r;
            E(k, k) = 1.0;
        } else {
            const double vk = v[static_cast<std::size_t>(k)];
            E(k, k) = r != 0 ? -r / vk : 1.0; // then E(k, k) vk nearly cancels the rest
        }
    }
    return {E, v};
}

// RN(alpha (E b)_k), the diagonal product b_k itself when unit.
double triangle_output(const Matrix& E, bool lower, Diag diag, double alpha, const std::function<double(dim_t)>& b,
                       dim_t k)
{
    ExactValue s;
    const dim_t n = E.length();
    for (dim_t j = lower ? 0 : k + 1; j < (lower ? k : n); ++j) s.add_product(E(k, j), b(j));
    if (diag == Diag::Unit)
        s.add(b(k));
    else
        s.add_product(E(k, k), b(k));
    return scaled(s, alpha, 0.0, 0.0);
}

// trmm(side, uplo, trans, diag, alpha) with effective triangle E on B0 (each column
// for LEFT, each row for RIGHT, a right-hand side); trmv when B0 is one column,
// side LEFT and alpha 1 (then run as trmv, its vector stored per `layout`).
int check_trmm(const Blas& blas, Side side, Uplo uplo, Trans trans, Diag diag, double alpha, const Matrix& E,
               const Matrix& B0, int layout, bool as_trmv, const std::string& what)
{
    const bool lower = effective_lower(side, uplo, trans);
    const Stored Ts = store(stored_triangle(E, side, uplo, trans, diag), layout);
    const bool row = as_trmv && layout == 2;
    Stored Bs = store(row ? transposed(B0) : B0, as_trmv ? (layout == 2 ? 1 : layout) : (layout + 1) % 3);
    if (as_trmv)
        blas.trmv(uplo, trans, diag, Ts.view, Bs.view);
    else
        blas.trmm(side, uplo, trans, diag, alpha, Ts.view, Bs.view);
    const Obj X = Bs.view;
    const auto out = [&](dim_t k, dim_t r) {
        if (row) return X(0, k);
        return side == Side::Left ? X(k, r) : X(r, k);
    };
    const dim_t n = E.length(), nrhs = side == Side::Left ? B0.width() : B0.length();
    int wrong = 0;
    for (dim_t r = 0; r < nrhs; ++r) {
        const auto b = [&](dim_t j) { return side == Side::Left ? B0(j, r) : B0(r, j); };
        for (dim_t k = 0; k < n; ++k) {
            const double want = triangle_output(E, lower, diag, alpha, b, k), got = out(k, r);
            if (!exref::same_double(got, want) && ++wrong <= 3)
                ADD_FAILURE() << (as_trmv ? "trmv " : "trmm ") << name(side) << " " << name(uplo) << name(trans)
                              << name(diag) << " alpha " << alpha << ", output " << k << " of right-hand side " << r
                              << ": got " << exref::hex(got) << ", MPFR says " << exref::hex(want) << "; " << what;
        }
    }
    return wrong;
}

TEST(ExactTrmv, CancellingRowsEveryCase)
{
    const flamex::test::ExpectThreadsSplit split;
    Rng rng(21);
    int wrong = 0;
    for (dim_t n : {dim_t{1}, dim_t{2}, dim_t{5}, dim_t{33}, dim_t{70}, dim_t{150}})
        for (Uplo uplo : {Uplo::Lower, Uplo::Upper})
            for (Trans trans : {Trans::No, Trans::Yes})
                for (Diag diag : {Diag::NonUnit, Diag::Unit}) {
                    const bool lower = effective_lower(Side::Left, uplo, trans);
                    const auto [E, v] = cancelling_triangle(n, lower, diag, rng);
                    const Matrix x(n, 1, v);
                    for (int layout = 0; layout < 3; ++layout)
                        for (Config cfg : CONFIGS)
                            wrong += check_trmm(backend("exact", cfg), Side::Left, uplo, trans, diag, 1.0, E, x, layout,
                                                true, "n " + std::to_string(n) + ", " + describe(cfg));
                }
    EXPECT_EQ(wrong, 0);
}

TEST(ExactTrmm, CancellingRightHandSidesEveryCase)
{
    const flamex::test::ExpectThreadsSplit split;
    Rng rng(22);
    int wrong = 0;
    struct Shape {
        dim_t n, nrhs;
    };
    for (Shape s : {Shape{1, 3}, Shape{6, 1}, Shape{17, 9}, Shape{40, 70}})
        for (Side side : {Side::Left, Side::Right})
            for (Uplo uplo : {Uplo::Lower, Uplo::Upper})
                for (Trans trans : {Trans::No, Trans::Yes})
                    for (Diag diag : {Diag::NonUnit, Diag::Unit}) {
                        const bool lower = effective_lower(side, uplo, trans);
                        const auto [E, v] = cancelling_triangle(s.n, lower, diag, rng);
                        // right-hand sides: v scaled by powers of two (cancelling as v does),
                        // every third one random
                        Matrix B0 = side == Side::Left ? Matrix(s.n, s.nrhs) : Matrix(s.nrhs, s.n);
                        for (dim_t r = 0; r < s.nrhs; ++r)
                            for (dim_t j = 0; j < s.n; ++j) {
                                const double b = r % 3 == 2 ? random_double(rng, -30, 30)
                                                            : std::ldexp(v[static_cast<std::size_t>(j)], int(r % 7) - 3);
                                (side == Side::Left ? B0(j, r) : B0(r, j)) = b;
                            }
                        for (double alpha : {1.0, -1.0, 0.3, 0x1p-1000})
                            for (Config cfg : CONFIGS)
                                wrong += check_trmm(backend("exact", cfg), side, uplo, trans, diag, alpha, E, B0,
                                                    static_cast<int>(s.n + s.nrhs) % 3, false,
                                                    std::to_string(s.n) + " x " + std::to_string(s.nrhs) + ", " +
                                                        describe(cfg));
                    }
    EXPECT_EQ(wrong, 0);
}

TEST(ExactTrmm, WideExponentsAndSpecials)
{
    const flamex::test::ExpectThreadsSplit split;
    Rng rng(23);
    int wrong = 0;
    for (int range = 0; range < 3; ++range)
        for (Side side : {Side::Left, Side::Right})
            for (Uplo uplo : {Uplo::Lower, Uplo::Upper})
                for (Trans trans : {Trans::No, Trans::Yes})
                    for (Diag diag : {Diag::NonUnit, Diag::Unit}) {
                        const dim_t n = 11, nrhs = 4;
                        const auto value = [&] {
                            if (range == 0) return random_double(rng, -560, 560);
                            if (range == 1) return random_double(rng, -1075, -900);
                            const int pick = static_cast<int>(rng() % 10);
                            return pick == 0 ? NaN : pick == 1 ? -INF : pick < 4 ? -0.0 : pick < 5 ? 0.0
                                                                                      : random_double(rng, -3, 3);
                        };
                        Matrix E(n, n);
                        for (dim_t j = 0; j < n; ++j)
                            for (dim_t i = 0; i < n; ++i) E(i, j) = value();
                        Matrix B0 = side == Side::Left ? Matrix(n, nrhs) : Matrix(nrhs, n);
                        for (dim_t j = 0; j < B0.width(); ++j)
                            for (dim_t i = 0; i < B0.length(); ++i) B0(i, j) = range == 1 ? random_double(rng, 0, 200) : value();
                        for (double alpha : {1.0, -1.0, 0x1p700, 0.0})
                            for (Config cfg : CONFIGS)
                                wrong += check_trmm(backend("exact", cfg), side, uplo, trans, diag, alpha, E, B0,
                                                    range % 3, false, "range " + std::to_string(range) + ", " +
                                                                          describe(cfg));
                    }
    EXPECT_EQ(wrong, 0);
}

// --- sqrt, reciprocal on every backend ----------------------------------------------------

double mpfr_sqrt_rounded(double x)
{
    // sqrt of a binary64 is never subnormal: 53-bit rounding is binary64's.
    mpfr_t r;
    mpfr_init2(r, 53);
    mpfr_set_d(r, x, MPFR_RNDN);
    mpfr_sqrt(r, r, MPFR_RNDN);
    const double d = mpfr_get_d(r, MPFR_RNDN);
    mpfr_clear(r);
    return d;
}

double mpfr_reciprocal_rounded(double x)
{
    ExactValue one;
    one.add(1.0);
    return exref::quotient(one, x);
}

std::vector<double> scalar_inputs(int random_count)
{
    std::vector<double> v = {0.0,  -0.0, 1.0, -1.0, 2.0, 3.0,    0.1,  INF,   -INF,  NaN,   0x1p-1074, -0x1p-1074,
                             0x1p-1022, 0x1.fffffffffffffp-1023, 0x1p1023, 0x1.fffffffffffffp1023, 0x1p-1023, 0x1p-1025,
                             0x1.8p-1030, 0x1p1022, 0x1.0000000000001p1022, 0x1.fffffffffffffp1021};
    Rng rng(31);
    for (int i = 0; i < random_count; ++i) v.push_back(random_double(rng, -1075, 1023));
    for (int i = 0; i < random_count / 6; ++i) v.push_back(std::fabs(random_double(rng, -3, 3)));
    return v;
}

class EveryBackendScalar : public ::testing::TestWithParam<const char*> {
protected:
    void SetUp() override
    {
        const std::string b = GetParam();
        if (b == "opencl" || b == "opencl-plain") REQUIRE_OPENCL();
    }
};

TEST_P(EveryBackendScalar, SqrtAndReciprocalAreCorrectlyRounded)
{
    const Blas& blas = backend(GetParam());
    const bool device = std::string(GetParam()).rfind("opencl", 0) == 0; // a launch per scalar: fewer
    int wrong = 0;
    for (double x : scalar_inputs(device ? 300 : 3000)) {
        // the scalar as an element inside a matrix (offset), resident and not
        Matrix M(3, 2);
        const Obj alpha = M.view().sub(1, 1, 1, 1);
        alpha(0, 0) = x;
        blas.sqrt(alpha);
        if (!exref::same_double(alpha(0, 0), mpfr_sqrt_rounded(x)) && ++wrong <= 5)
            ADD_FAILURE() << "sqrt(" << exref::hex(x) << ") = " << exref::hex(alpha(0, 0)) << ", MPFR says "
                          << exref::hex(mpfr_sqrt_rounded(x));
        alpha(0, 0) = x;
        {
            const flamex::Resident held(blas, M);
            blas.reciprocal(alpha);
        }
        if (!exref::same_double(alpha(0, 0), mpfr_reciprocal_rounded(x)) && ++wrong <= 5)
            ADD_FAILURE() << "1 / " << exref::hex(x) << " = " << exref::hex(alpha(0, 0)) << ", MPFR says "
                          << exref::hex(mpfr_reciprocal_rounded(x));
    }
    EXPECT_EQ(wrong, 0);
}

// --- diag_invscal, diag_dots, diag_gemv ---------------------------------------------------

// D (k x k): d on its diagonal, NaN elsewhere (never read).
Matrix diagonal_matrix(const std::vector<double>& d)
{
    const dim_t k = static_cast<dim_t>(d.size());
    Matrix D(k, k);
    for (dim_t j = 0; j < k; ++j)
        for (dim_t i = 0; i < k; ++i) D(i, j) = i == j ? d[static_cast<std::size_t>(j)] : NaN;
    return D;
}

// The exact sum_l A(i, l) d_l x_l.
ExactValue diag_sum(const Matrix& A, dim_t i, const std::vector<double>& d, const std::vector<double>& x)
{
    ExactValue s;
    for (dim_t l = 0; l < A.width(); ++l)
        s.add_product(A(i, l), d[static_cast<std::size_t>(l)], x[static_cast<std::size_t>(l)]);
    return s;
}

Matrix row_matrix(const std::vector<double>& x)
{
    Matrix r(1, static_cast<dim_t>(x.size()));
    for (dim_t l = 0; l < r.width(); ++l) r(0, l) = x[static_cast<std::size_t>(l)];
    return r;
}

// diag_gemv with the m x k A (and diag_dots with its first row as x^T, the vector x as
// y) on blas, against MPFR bit for bit: x as a row of a bigger matrix, as LDL^T's
// a10^T. Returns the number of wrong outputs.
int check_diag(const Blas& blas, double alpha, const Matrix& A, const std::vector<double>& d,
               const std::vector<double>& x, double beta, const Matrix& y0, int layout, const std::string& what)
{
    const dim_t m = A.length();
    int wrong = 0;
    const Stored As = store(A, layout), Ds = store(diagonal_matrix(d), (layout + 1) % 3),
                 xs = store(row_matrix(x), (layout + 2) % 3);
    Stored ys = store(y0, layout);
    blas.diag_gemv(alpha, As.view, Ds.view, xs.view, beta, ys.view);
    for (dim_t i = 0; i < m; ++i) {
        const double want = scaled(diag_sum(A, i, d, x), alpha, beta, y0(i, 0));
        if (!exref::same_double(ys.view(i, 0), want) && ++wrong <= 3)
            ADD_FAILURE() << "diag_gemv y(" << i << ") got " << exref::hex(ys.view(i, 0)) << ", MPFR says "
                          << exref::hex(want) << "; alpha " << alpha << ", beta " << beta << ", " << what;
    }
    if (m == 0) return wrong;
    Matrix first_row(1, A.width()), rho0(1, 1);
    for (dim_t l = 0; l < A.width(); ++l) first_row(0, l) = A(0, l);
    rho0(0, 0) = y0(0, 0);
    const Stored rows = store(first_row, 1), xcol = store(Matrix(static_cast<dim_t>(x.size()), 1, x), layout);
    Stored rho = store(rho0, (layout + 1) % 3);
    blas.diag_dots(alpha, rows.view, Ds.view, xcol.view, beta, rho.view);
    const double want = scaled(diag_sum(A, 0, d, x), alpha, beta, y0(0, 0));
    if (!exref::same_double(rho.view(0, 0), want) && ++wrong <= 3)
        ADD_FAILURE() << "diag_dots got " << exref::hex(rho.view(0, 0)) << ", MPFR says " << exref::hex(want)
                      << "; alpha " << alpha << ", beta " << beta << ", " << what;
    return wrong;
}

// m x k rows (k even) in pairs of columns (l, l + 1): a_il, d_l, x_l random, then
// d_{l+1} = x_{l+1} = 1 and a_{i,l+1} = -RN(RN(a_il d_l) x_l), so that each pair sums
// to the rounding error of the naive triple product; y planted with -RN(S) in every
// other row, so that beta = 1 cancels what is left.
struct DiagProblem {
    Matrix A, y;
    std::vector<double> d, x;
};
DiagProblem cancelling_triples(dim_t m, dim_t k, Rng& rng, int spread)
{
    DiagProblem p{Matrix(m, k), Matrix(m, 1), std::vector<double>(static_cast<std::size_t>(k)),
                  std::vector<double>(static_cast<std::size_t>(k))};
    for (dim_t l = 0; l + 1 < k; l += 2) {
        const std::size_t u = static_cast<std::size_t>(l);
        p.d[u] = random_double(rng, -spread, spread);
        p.x[u] = random_double(rng, -spread, spread);
        p.d[u + 1] = p.x[u + 1] = 1.0;
        for (dim_t i = 0; i < m; ++i) {
            p.A(i, l) = random_double(rng, -spread, spread);
            p.A(i, l + 1) = -((p.A(i, l) * p.d[u]) * p.x[u]);
        }
    }
    for (dim_t i = 0; i < m; ++i) p.y(i, 0) = i % 2 ? -diag_sum(p.A, i, p.d, p.x).to_double() : random_double(rng, -4, 4);
    return p;
}

TEST(ExactDiagonalScaled, CancellingTripleProductsAndGenDotRows)
{
    const flamex::test::ExpectThreadsSplit split;
    Rng rng(77);
    int wrong = 0, layout = 0;
    struct Shape {
        dim_t m, k;
    };
    for (Shape s : {Shape{1, 2}, Shape{5, 8}, Shape{33, 40}, Shape{70, 120}}) {
        const DiagProblem p = cancelling_triples(s.m, s.k, rng, 20);
        for (Config cfg : CONFIGS)
            for (auto [alpha, beta] : {std::pair{1.0, 1.0}, {-1.0, 0.0}, {-1.0, -3.0}})
                wrong += check_diag(backend("exact", cfg), alpha, p.A, p.d, p.x, beta, p.y, layout++ % 3,
                                    "cancelling " + std::to_string(s.m) + "x" + std::to_string(s.k) + ", " + describe(cfg));
        // GenDot rows u, v (condition up to 1e100): d_l a power of two and x_l = v_l / d_l
        // exactly, so that the triple products are the products u_l v_l.
        for (double cond : {1e16, 1e50, 1e100}) {
            const gen::DotProblem g = gen::dot(s.k, cond, static_cast<std::uint64_t>(s.k + s.m));
            DiagProblem q{Matrix(s.m, s.k), Matrix(s.m, 1), std::vector<double>(static_cast<std::size_t>(s.k)),
                          std::vector<double>(static_cast<std::size_t>(s.k))};
            for (dim_t l = 0; l < s.k; ++l) {
                const int e = static_cast<int>(rng() % 61) - 30;
                q.d[static_cast<std::size_t>(l)] = std::ldexp(1.0, e);
                q.x[static_cast<std::size_t>(l)] = std::ldexp(g.y(l, 0), -e);
                for (dim_t i = 0; i < s.m; ++i) q.A(i, l) = i % 3 == 0 ? g.x(l, 0) : random_double(rng, -8, 8);
            }
            for (dim_t i = 0; i < s.m; ++i) q.y(i, 0) = random_double(rng, -4, 4);
            for (Config cfg : CONFIGS)
                wrong += check_diag(backend("exact", cfg), 1.0, q.A, q.d, q.x, 1.0, q.y, layout++ % 3,
                                    "GenDot cond " + std::to_string(cond) + ", " + describe(cfg));
        }
    }
    EXPECT_EQ(wrong, 0);
}

TEST(ExactDiagonalScaled, WideExponentsSpecialsAndBetaZero)
{
    const flamex::test::ExpectThreadsSplit split;
    Rng rng(78);
    int wrong = 0;
    for (int range = 0; range < 4; ++range) {
        const dim_t m = 11, k = 17;
        DiagProblem p{Matrix(m, k), Matrix(m, 1), std::vector<double>(static_cast<std::size_t>(k)),
                      std::vector<double>(static_cast<std::size_t>(k))};
        // 0: the whole range (triple products from 2^-3000 to 2^3000); 1: subnormal
        // results; 2: huge; 3: NaN, inf and signed zeros among ordinary values
        const auto value = [&] {
            if (range == 0) return random_double(rng, -1000, 1000);
            if (range == 1) return random_double(rng, -370, -340);
            if (range == 2) return random_double(rng, 330, 345);
            const int pick = static_cast<int>(rng() % 14);
            return pick == 0 ? NaN : pick == 1 ? -INF : pick == 2 ? INF : pick < 5 ? -0.0 : pick < 6 ? 0.0
                                                                                         : random_double(rng, -3, 3);
        };
        for (dim_t l = 0; l < k; ++l) {
            p.d[static_cast<std::size_t>(l)] = value();
            p.x[static_cast<std::size_t>(l)] = value();
            for (dim_t i = 0; i < m; ++i) p.A(i, l) = value();
        }
        for (dim_t i = 0; i < m; ++i) p.y(i, 0) = range == 3 && i % 3 == 0 ? -0.0 : random_double(rng, -20, 20);
        Matrix y_nan = p.y;
        for (dim_t i = 0; i < m; ++i) y_nan(i, 0) = NaN; // beta == 0: never read
        for (Config cfg : CONFIGS)
            for (auto [alpha, beta] : {std::pair{1.0, 1.0}, {-1.0, 1.0}, {-1.0, 0x1p600}, {1.0, -0x1p-600}, {-1.0, 0.0}})
                wrong += check_diag(backend("exact", cfg), alpha, p.A, p.d, p.x, beta, beta == 0.0 ? y_nan : p.y,
                                    range % 3, "range " + std::to_string(range) + ", " + describe(cfg));
    }
    EXPECT_EQ(wrong, 0);
}

TEST_P(EveryBackendScalar, DiagInvscalIsOneDivisionPerElement)
{
    const std::vector<double> xs = scalar_inputs(60), ds = scalar_inputs(60);
    const dim_t k = static_cast<dim_t>(std::min(xs.size(), ds.size()));
    std::vector<double> x(xs.begin(), xs.begin() + k), d(ds.rbegin(), ds.rbegin() + k);
    const Blas& blas = backend(GetParam());
    Matrix D = diagonal_matrix(d);
    Stored xr = store(row_matrix(x), 1);
    {
        const flamex::Resident held(blas, D);
        blas.diag_invscal(D, xr.view);
    }
    int wrong = 0;
    for (dim_t l = 0; l < k; ++l) {
        const double want = x[static_cast<std::size_t>(l)] / d[static_cast<std::size_t>(l)];
        if (!exref::same_double(xr.view(0, l), want) && ++wrong <= 5)
            ADD_FAILURE() << GetParam() << " diag_invscal: " << exref::hex(x[static_cast<std::size_t>(l)]) << " / "
                          << exref::hex(d[static_cast<std::size_t>(l)]) << " = " << exref::hex(xr.view(0, l))
                          << ", IEEE says " << exref::hex(want);
    }
    EXPECT_EQ(wrong, 0);
}

// --- blis and opencl-plain: within the classical bound -----------------------------------

class InexactBackend : public ::testing::TestWithParam<const char*> {
protected:
    void SetUp() override
    {
        if (std::string(GetParam()) == "opencl-plain") REQUIRE_OPENCL();
    }
    const Blas& blas() const { return backend(GetParam()); }
};

// |got - exact| <= gamma_(k+2) * bound (the classical error bound of a sum of k
// products, plus alpha and beta), NaN-blind never: a NaN fails.
bool within(double got, const ExactValue& exact_value, long double bound, dim_t k)
{
    const long double u = 0x1p-53L, gamma = (k + 2) * u / (1 - (k + 2) * u);
    mpfr_t diff;
    mpfr_init2(diff, 6700);
    mpfr_sub_d(diff, exact_value.get(), got, MPFR_RNDN);
    const long double err = std::fabs(static_cast<long double>(mpfr_get_d(diff, MPFR_RNDN)));
    mpfr_clear(diff);
    return !std::isnan(got) && err <= gamma * bound + 0x1p-1074L;
}

TEST_P(InexactBackend, SyrkWithinTheErrorBoundOfItsTriangle)
{
    Rng rng(41);
    for (Uplo uplo : {Uplo::Lower, Uplo::Upper})
        for (Trans trans : {Trans::No, Trans::Yes}) {
            const dim_t n = 23, k = 17;
            Matrix opA(n, k), C0(n, n);
            for (dim_t l = 0; l < k; ++l)
                for (dim_t i = 0; i < n; ++i) opA(i, l) = random_double(rng, -4, 4);
            for (dim_t j = 0; j < n; ++j)
                for (dim_t i = 0; i < n; ++i) C0(i, j) = in_triangle(uplo, i, j) ? random_double(rng, -4, 4) : NaN;
            for (auto [alpha, beta] : {std::pair{1.0, 1.0}, {-0.5, 0.0}, {3.0, -2.0}}) {
                const Stored As = store(trans == Trans::No ? opA : transposed(opA), 1);
                Stored Cs = store(C0, 2);
                if (beta == 0.0)
                    for (dim_t j = 0; j < n; ++j)
                        for (dim_t i = 0; i < n; ++i)
                            if (in_triangle(uplo, i, j)) Cs.view(i, j) = NaN; // not read
                blas().syrk(uplo, trans, alpha, As.view, beta, Cs.view);
                for (dim_t j = 0; j < n; ++j)
                    for (dim_t i = 0; i < n; ++i) {
                        const double got = Cs.view(i, j);
                        if (!in_triangle(uplo, i, j)) {
                            EXPECT_TRUE(std::isnan(got)) << "syrk wrote C(" << i << "," << j << ") outside its triangle";
                            continue;
                        }
                        ExactValue e = syrk_sum(opA, i, j);
                        long double bound = 0;
                        for (dim_t l = 0; l < k; ++l)
                            bound += std::fabs(static_cast<long double>(opA(i, l)) * opA(j, l));
                        bound = bound * std::fabs(alpha) + (beta != 0 ? std::fabs(beta * C0(i, j)) : 0.0L);
                        e.scale(alpha);
                        if (beta != 0) e.add_product(beta, C0(i, j));
                        EXPECT_TRUE(within(got, e, bound, k))
                            << GetParam() << " syrk " << name(uplo) << name(trans) << " C(" << i << "," << j
                            << ") = " << got << ", exact " << e.to_double() << ", alpha " << alpha << ", beta " << beta;
                    }
            }
        }
}

TEST_P(InexactBackend, TrmvAndTrmmWithinTheErrorBound)
{
    Rng rng(42);
    for (Side side : {Side::Left, Side::Right})
        for (Uplo uplo : {Uplo::Lower, Uplo::Upper})
            for (Trans trans : {Trans::No, Trans::Yes})
                for (Diag diag : {Diag::NonUnit, Diag::Unit})
                    for (bool as_trmv : {false, true}) {
                        if (as_trmv && side == Side::Right) continue;
                        const dim_t n = 19, nrhs = as_trmv ? 1 : 6;
                        const double alpha = as_trmv ? 1.0 : -1.5;
                        const bool lower = effective_lower(side, uplo, trans);
                        Matrix E(n, n);
                        for (dim_t j = 0; j < n; ++j)
                            for (dim_t i = 0; i < n; ++i) E(i, j) = random_double(rng, -3, 3);
                        Matrix B0 = side == Side::Left ? Matrix(n, nrhs) : Matrix(nrhs, n);
                        for (dim_t j = 0; j < B0.width(); ++j)
                            for (dim_t i = 0; i < B0.length(); ++i) B0(i, j) = random_double(rng, -3, 3);
                        const Stored Ts = store(stored_triangle(E, side, uplo, trans, diag), 1);
                        Stored Bs = store(B0, 1);
                        if (as_trmv)
                            blas().trmv(uplo, trans, diag, Ts.view, Bs.view);
                        else
                            blas().trmm(side, uplo, trans, diag, alpha, Ts.view, Bs.view);
                        for (dim_t r = 0; r < nrhs; ++r)
                            for (dim_t k = 0; k < n; ++k) {
                                const auto b = [&](dim_t j) { return side == Side::Left ? B0(j, r) : B0(r, j); };
                                ExactValue e;
                                long double bound = 0;
                                for (dim_t j = 0; j < n; ++j) {
                                    if (lower ? j > k : j < k) continue;
                                    const double t = j == k && diag == Diag::Unit ? 1.0 : E(k, j);
                                    e.add_product(t, b(j));
                                    bound += std::fabs(static_cast<long double>(t) * b(j));
                                }
                                e.scale(alpha);
                                const double got = side == Side::Left ? Bs.view(k, r) : Bs.view(r, k);
                                EXPECT_TRUE(within(got, e, bound * std::fabs(alpha), n))
                                    << GetParam() << (as_trmv ? " trmv " : " trmm ") << name(side) << " "
                                    << name(uplo) << name(trans) << name(diag) << " output " << k << " of " << r
                                    << " = " << got << ", exact " << e.to_double();
                            }
                    }
}

TEST_P(InexactBackend, DiagDotsAndDiagGemvWithinTheErrorBound)
{
    Rng rng(43);
    const dim_t m = 21, k = 15;
    Matrix A(m, k), y0(m, 1);
    std::vector<double> d(static_cast<std::size_t>(k)), x(static_cast<std::size_t>(k));
    for (dim_t l = 0; l < k; ++l) {
        d[static_cast<std::size_t>(l)] = random_double(rng, -4, 4);
        x[static_cast<std::size_t>(l)] = random_double(rng, -4, 4);
        for (dim_t i = 0; i < m; ++i) A(i, l) = random_double(rng, -4, 4);
    }
    for (dim_t i = 0; i < m; ++i) y0(i, 0) = random_double(rng, -4, 4);
    for (auto [alpha, beta] : {std::pair{1.0, 1.0}, {-1.0, 0.0}, {-1.0, -2.0}}) {
        const Stored As = store(A, 1), Ds = store(diagonal_matrix(d), 2), xs = store(row_matrix(x), 1);
        Stored ys = store(y0, 2);
        if (beta == 0.0)
            for (dim_t i = 0; i < m; ++i) ys.view(i, 0) = NaN; // not read
        Matrix rho(1, 1);
        rho(0, 0) = beta == 0.0 ? NaN : y0(0, 0);
        const Matrix xcol(k, 1, x);
        blas().diag_gemv(alpha, As.view, Ds.view, xs.view, beta, ys.view);
        blas().diag_dots(alpha, As.view.sub(0, 0, 1, k), Ds.view, xcol, beta, rho);
        for (dim_t i = 0; i < m; ++i) {
            ExactValue e = diag_sum(A, i, d, x);
            long double bound = 0;
            for (dim_t l = 0; l < k; ++l)
                bound += std::fabs(static_cast<long double>(A(i, l)) * d[static_cast<std::size_t>(l)] * x[static_cast<std::size_t>(l)]);
            bound = bound * std::fabs(alpha) + (beta != 0 ? std::fabs(beta * y0(i, 0)) : 0.0L);
            e.scale(alpha);
            if (beta != 0) e.add_product(beta, y0(i, 0));
            // d_l x_l is rounded first: one more rounding per product than a dot.
            EXPECT_TRUE(within(ys.view(i, 0), e, bound, k + 1))
                << GetParam() << " diag_gemv y(" << i << ") = " << ys.view(i, 0) << ", exact " << e.to_double();
            if (i == 0) {
                EXPECT_TRUE(within(rho(0, 0), e, bound, k + 1))
                    << GetParam() << " diag_dots = " << rho(0, 0) << ", exact " << e.to_double();
            }
        }
    }
}

INSTANTIATE_TEST_SUITE_P(Backends, EveryBackendScalar, ::testing::Values("blis", "exact", "opencl", "opencl-plain"),
                         [](const ::testing::TestParamInfo<const char*>& tp) {
                             std::string s = tp.param;
                             for (char& c : s)
                                 if (c == '-') c = '_';
                             return s;
                         });
INSTANTIATE_TEST_SUITE_P(Backends, InexactBackend, ::testing::Values("blis", "opencl-plain"),
                         [](const ::testing::TestParamInfo<const char*>& tp) {
                             std::string s = tp.param;
                             for (char& c : s)
                                 if (c == '-') c = '_';
                             return s;
                         });

} // namespace
