// Seeded generators of ill-conditioned problems for the accuracy experiments
// (section 5 of Iakymchuk, Graillat, Defour and Quintana-Orti, "Hierarchical
// approach for deriving a reproducible unblocked LU factorization", 2019): dot
// products, matrix-vector products,
// triangular systems and general matrices for LU, each of a requested condition
// number, measured by the MPFR functions in reference/mpfr_reference.hpp.
//
// Reproducibility. Every generator is a deterministic function of its arguments
// (sizes, target condition number, seed and options). Random numbers come from
// std::mt19937_64 (whose output the C++ standard fixes) through the distributions
// of gen::Random below, written here so that nothing depends on the standard
// library's distribution implementations. Everything else is IEEE-754 binary64
// arithmetic (+ - * / sqrt, correctly rounded), exact scalings by powers of two,
// and MPFR (correctly rounded); the few logarithms and powers the calibration
// needs are series written here, not libm. The data are therefore bit-identical
// across platforms, compilers and standard libraries: generators.cpp turns
// floating-point contraction off (GCC fuses a*b+c into an FMA by default whenever
// the target has one, e.g. with -march=native), and the fingerprint test pins
// the bits (checked with gcc 12 and clang 15, -O3 -march=native included).
//
// How the condition numbers are reached: by cancellation that the generators
// track in MPFR, never by a mere spread of exponents, and then calibrated: each
// generator has one real parameter that moves the condition number smoothly, and
// it adjusts it (secant steps on log2 of the condition number, from the same
// random stream) until the condition number is within a factor 2 of the target,
// or it returns the closest attempt. dot and gemv measure each attempt exactly in
// MPFR (O(n) and O(mn)); trsv and lu predict the condition number from their
// construction in double precision (the ill-conditioning sits in a known
// Schur complement; O(n^2) per attempt after an O(n^3) start) so that they stay
// usable for n in the thousands. The tests measure every kind with MPFR.
//
// What the generators reach (measured with MPFR; the tests check 1e2 .. 1e100 at
// n = 10, 100, 1000 for dot and n = 32, 64 for the others, within a factor 10;
// in practice within a factor 2-3):
//   dot   2 <= cond <= 1e300 (n >= 100); small n caps it, since each of the
//         floor(n/2) cancelling steps removes at most ~52 bits: n = 2 ~1e17,
//         n = 4 ~1e35, n = 10 ~1e85.
//   gemv  OneIllRow up to 1e150 (the ill row's dot condition is ~cond^2), AllRows
//         up to 1e300; small n caps them as for dot. Minimum ~1..10.
//   trsv  up to 1e250; n = 4 reaches ~1e50, n = 6 ~1e67. The minimum is the Skeel
//         condition number of the well-conditioned part (~80 at n = 64, ~1e3 at
//         n = 200).
//   lu    up to 1e250 (the predictor makes it land within 0.1%); n = 4 reaches
//         ~1e49, n = 6 ~1e72. The minimum is kappa_inf of a dense orthogonal-like
//         matrix, ~n (~80 at n = 64, ~200 at n = 200).
// Targets outside [1, 1e300] (below 2 for dot; above 1e150 for OneIllRow, 1e250
// for trsv and lu) and sizes below 2 throw flamex::Error; a target the size cannot
// reach gives the closest attempt, which measure_condition() reports.
// Cost: dot O(n), gemv O(n^2) MPFR operations per calibration step; trsv and lu
// O(n^3) double operations (lu: ~5 s at n = 1000) plus O(n^2) MPFR per step.
// Measuring trsv / lu condition numbers is O(n^3) in MPFR (n = 256: ~1 s / ~6 s).
//
// NOTE: tests/support/exact_reference.hpp (the exact layer's tests) carries a
// separate, header-only Ogita-Rump-Oishi GenDot (gen_dot, with std::uniform_*
// distributions) and an exact dot_condition; gen::dot here is the library
// version the CLI and the experiments use.
#pragma once

#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "blas/blas.hpp"
#include "flame/flame.hpp"

namespace flamex::gen {

// --- random numbers ---------------------------------------------------------------------

// splitmix64 of the seed combined with up to three stream tags: independent
// engine seeds for the sub-streams of one generator call.
std::uint64_t mix_seed(std::uint64_t seed, std::uint64_t a, std::uint64_t b = 0, std::uint64_t c = 0);

class Random {
public:
    explicit Random(std::uint64_t seed) : engine_(seed) {}
    std::uint64_t bits() { return engine_(); }
    // (bits >> 11) * 2^-53: uniform on the 2^53 multiples of 2^-53 in [0, 1).
    double uniform01();
    // 2 uniform01() - 1: uniform in [-1, 1) (exact).
    double symmetric();
    // symmetric(), redrawn while zero.
    double symmetric_nonzero();
    // A random sign times a magnitude uniform in [1/2, 1).
    double signed_half_to_one();
    // Uniform in [0, k) (k >= 1), unbiased (rejection).
    std::uint64_t below(std::uint64_t k);
    // Uniform integer in [lo, hi].
    long long integer(long long lo, long long hi);
    // A uniformly random permutation of 0 .. n-1 (Fisher-Yates with below()).
    std::vector<dim_t> permutation(dim_t n);

private:
    std::mt19937_64 engine_;
};

// --- well-conditioned data, for timings ---------------------------------------------------

Matrix uniform_matrix(dim_t m, dim_t n, std::uint64_t seed);      // entries in [-1, 1)
Matrix diagonally_dominant(dim_t n, std::uint64_t seed);          // uniform + n on the diagonal
Matrix well_conditioned_lower(dim_t n, std::uint64_t seed);       // uniform / n below, diagonal +-[1, 2)
// A's entries each times 2^k, k uniform in [-e, e]: the badly scaled LU of the exact
// benchmarks (its rows' products spread over about 2^+-2e, as wide-range data does).
Matrix badly_scaled(const Matrix& A, int e, std::uint64_t seed);

// --- the generators -------------------------------------------------------------------------

// x, y (n x 1) with cond = 2 sum|x_i y_i| / |x^T y| near `cond` (Ogita, Rump and
// Oishi's GenDot, 2005, re-derived): x and the first half of y are random with
// exponents spread over [0, log2(cond)/2]; the second half of y is chosen one
// entry at a time, y_i = RN((r 2^g_i - s) / x_i) with s the exact running sum x^T y
// so far (MPFR) and g_i decreasing linearly to a final exponent g, so that the
// exact sum cancels down to about 2^g; g is the calibrated parameter. The pairs
// are then shuffled.
struct DotProblem {
    Matrix x, y;
};
DotProblem dot(dim_t n, double cond, std::uint64_t seed);

// A (m x n) and x (n x 1) with cond = || |A| |x| ||_inf / || A x ||_inf near `cond`.
//  OneIllRow (the paper's): x and one row of A (index random) are a GenDot pair,
//   every other row is uniform in [0, 1). The uniform rows make ||Ax|| about
//   2^b for exponents spread over [0, b] while the GenDot row makes || |A||x| ||
//   about 2^(2b), so cond ~ 2^b: b is calibrated (the dot condition of the ill
//   row is then about cond^2).
//  AllRows: x as in GenDot, and every row cancels against x as the second half
//   of GenDot's y does (each row its own random first half and order), so every
//   component of A x is ill-conditioned; the final exponent is calibrated.
enum class GemvStyle { OneIllRow, AllRows };
struct GemvProblem {
    Matrix A, x;
    dim_t ill_row = -1; // OneIllRow: the GenDot row; AllRows: -1
};
GemvProblem gemv(dim_t m, dim_t n, double cond, std::uint64_t seed, GemvStyle style = GemvStyle::OneIllRow);

// T (n x n, triangular as uplo says, zeros in the other triangle, ones on the
// diagonal when diag is Unit) and b (n x 1) such that Skeel's condition number
// cond(T, x) = || |T^-1| |T| |x| ||_inf / ||x||_inf of T x = b is near `cond`.
// Construction (for Lower; Upper is its reversal J T J, J b, which keeps the
// condition number and puts the ill-conditioned row first, i.e. last in back
// substitution):
//   T = [ T11 0 ; t^T tau ],  b = [ b1 ; beta ]
//   T11 = D L with L the unit lower factor of GEPP on a uniform [-1,1) matrix (a
//   well-conditioned triangular matrix with entries in [-1, 1]) and D = I (Unit)
//   or a random diagonal with entries +-[1, 2); b1 uniform in [-1, 1).
//   x1 = T11^-1 b1 in MPFR. t is GenDot's y against the fixed x1: the half of its
//   entries facing the smaller |x1_j| are random with exponents in [0, E], the
//   others (in random order) cancel the exact running sum t^T x1 down to about 1.
//   tau = 1 (Unit) or random +-[1, 2); beta = RN(t^T x1 + tau r) for a random r
//   in +-[1/2, 1), so x_n ~ r. cond(T, x) then grows as 2^E: E is calibrated.
// This follows the idea of Louvet's generator as the paper cites it (the last
// component of the substitution is an ill-conditioned dot product whose data are
// the earlier, exactly known, components of the solution); it is not a
// transcription of the thesis, which was not available.
struct TrsvProblem {
    Matrix T, b;
    Uplo uplo = Uplo::Lower;
    Diag diag = Diag::NonUnit;
};
TrsvProblem trsv(dim_t n, double cond, std::uint64_t seed, Uplo uplo = Uplo::Lower, Diag diag = Diag::NonUnit);

// A dense n x n matrix with kappa_inf(A) = ||A||_inf ||A^-1||_inf near `cond`.
// Construction: Q, the orthogonal factor of Householder QR of a uniform [-1, 1)
// matrix, with its largest entry moved to (n-1, n-1) (so the leading block A11 has
// kappa_2 <= sqrt(n)); the last row is replaced by [t^T tau]:
//   A = [ A11 a12 ; t^T tau ],  Schur complement s = tau - t^T w,  w = A11^-1 a12,
// w computed to high precision (double LU of A11 plus iterative refinement with
// MPFR residuals). t is random (entries ~ 1/sqrt(n)) in half of its entries and,
// in the other half, GenDot-style cancelling against w so that the exact t^T w
// ends far below 1 (deep enough that a double tau can sit a distance s from it).
// tau = RN(t^T w + s) with s chosen (bisection on log2|s|) so that the predicted
// kappa_inf, from A^-1 = [A11^-1 + w z^T / s, -w / s ; -z^T / s, 1 / s] with
// z^T = t^T A11^-1, equals the target. Rows and columns are then randomly permuted
// (kappa_inf does not change). This is "the ill-conditioned triangular generator
// modified to cover a more general case" in the paper's words: one ill-conditioned
// dot product, here in the Schur complement of a dense matrix.
Matrix lu_matrix(dim_t n, double cond, std::uint64_t seed);

// A symmetric positive definite n x n matrix A = Q diag(d) Q^T with kappa_2(A) near
// `cond` (1 <= cond <= 1e300): Q as for lu_matrix (Householder QR of a uniform
// [-1, 1) matrix, seeded), d_i = cond^(-i/(n-1)) geometrically from 1 down to 1/cond.
// The lower triangle is computed and mirrored, so A is exactly symmetric. Rounding
// perturbs the small eigenvalues by about u: for cond beyond ~1/u the stored A need
// not be positive definite (the Cholesky experiments record where it stops).
Matrix spd_matrix(dim_t n, double cond, std::uint64_t seed);

// --- one interface for the command line --------------------------------------------------------

enum class Kind { Dot, Gemv, Trsv, Lu };

// "dot", "gemv", "trsv", "lu"; nullopt for anything else.
std::optional<Kind> parse_kind(std::string_view name);
const char* kind_name(Kind kind);
// What measure_condition() measures for `kind`, in words (for file comments).
std::string condition_definition(Kind kind);

struct Spec {
    Kind kind = Kind::Dot;
    dim_t n = 0;           // vector length; A, T are n x n
    double cond = 1e8;     // target condition number
    std::uint64_t seed = 0;
    Uplo uplo = Uplo::Lower;           // trsv
    Diag diag = Diag::NonUnit;         // trsv
    GemvStyle gemv_style = GemvStyle::OneIllRow; // gemv
};

// The generated operands, by the names files carry:
//   dot: x, y   gemv: A, x   trsv: T, b   lu: A, b (b = RN(A ones), correctly rounded)
struct Operand {
    std::string name;
    Matrix value;
};
struct Problem {
    Spec spec;
    std::vector<Operand> operands;
    // Throws flamex::Error for a name the problem does not have.
    const Matrix& operand(const std::string& name) const;
};

Problem generate(const Spec& spec);

// The condition number of the problem, measured with MPFR: cond_dot (dot),
// cond_gemv (gemv), cond_trsv (trsv, Skeel, for spec.uplo / spec.diag) or
// kappa_inf (lu). O(n) for dot, O(n^2) for gemv, O(n^3) MPFR operations otherwise.
double measure_condition(const Problem& problem);

// Generates the problem and writes PREFIX_<name>.mtx for each operand (Matrix
// Market array files via flamex::io, with comments naming the generator, size,
// target condition number, seed, options and, when `measure` is true, the measured
// condition number). Returns the paths written and the measured condition number
// (NaN when measure is false).
struct Written {
    std::vector<std::string> files;
    double measured_cond = 0.0;
};
Written write_problem(const Spec& spec, const std::string& prefix, bool measure = true);

} // namespace flamex::gen
