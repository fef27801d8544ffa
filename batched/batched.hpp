// Batched solvers for very many independent small symmetric systems
//
//     A_k x_k = y_k,   k = 0 .. count-1,   A_k symmetric of order n, 1 <= n <= 64,
//
// after Abbas-Turki and Graillat, "Resolution of a large number of small random
// symmetric linear systems in single precision arithmetic on GPUs" (J. Supercomput.
// 2017): the regression (Gram) matrices of a nested Monte Carlo for CVA, where
// nothing is known in advance about any one system's conditioning.
//
// This header is the whole public API of the CPU implementation, and the contract
// the OpenCL kernels are written against: the data layout, the per-system status
// and report, the methods and their options. The per-system building blocks
// (Householder tridiagonalization, PCR, divide and conquer) are in
// batched/per_system.hpp, LDL^T in variants/ldlt.hpp.
//
// ---------------------------------------------------------------------------------
// DATA LAYOUT (host memory, and the binary file's payload, in the same order)
//
//   Batch<T>::A   count * n * n scalars. System k's matrix is the n x n block
//                 starting at A[k * n * n], column-major, full storage:
//                     A_k(i, j) = A[k * n * n + i + j * n].
//                 Both triangles are stored (generators and files keep them equal),
//                 but every method and the residual check read ONLY THE LOWER
//                 TRIANGLE (i >= j); the strict upper triangle is never read.
//   Batch<T>::y   count * n scalars; system k's right-hand side is y[k * n + i].
//   Result<T>::x  count * n scalars; the solution of system k is x[k * n + i].
//   Result<T>::report[k]   one SystemReport per system (status, method, residual).
//
// T is float (IEEE binary32, the paper's precision) or double (binary64); both are
// instantiated for everything here. Matrices are consecutive with no padding, so a
// batch is two flat arrays a device can take as they are.
//
// INTERLEAVED LAYOUT (InterleavedBatch<T>), for callers that can produce it directly
// (generate_regression_interleaved does): the systems in blocks of B = 64 / sizeof(T)
// (16 in single, 8 in double precision: one 64-byte line holds one entry of a whole
// block), lane l of a block being system b B + l of block b. Only the lower triangles
// are stored, packed by columns: entry (i, j), i >= j, of system k is
//     A[((k / B) * packed_size(n) + packed_index(n, i, j)) * B + k % B],
// packed_index(n, i, j) = j n - j (j - 1) / 2 + i - j, and its right-hand side
//     y[((k / B) * n + i) * B + k % B].
// The last block is padded to B systems (count rounded up); the padding lanes are
// never read. This is the form the lane kernels work in, so solve() copies a block
// as it is, where the system-major Batch is transposed on the fly; the results
// (Result<T>, system-major x) are the same bits for both layouts.
//
// ---------------------------------------------------------------------------------
// METHODS (Method, and `flamex batch solve --method`)
//
//   ldlt             A = L D L^T without pivoting, then two triangular solves and a
//                    diagonal scaling (variants/ldlt.hpp; Options::ldlt_variant picks
//                    the FLAME variant). A zero or non-finite pivot d_j is a
//                    breakdown of that system only: Status::Breakdown, column j.
//   householder-pcr  A = Q U Q^T (Householder tridiagonalization, reflectors kept),
//                    then parallel cyclic reduction on U z = Q^T y for any n (the
//                    paper's permutation scheme, no zero padding), then x = Q z.
//                    PCR is stable in the forward sense only: its residual grows
//                    like kappa u, and that is what the check of auto detects.
//   dc               A = Q U Q^T, then U = V diag(lambda) V^T by divide and conquer
//                    (Cuppen's tearing, secular equation, deflation, Gu-Eisenstat
//                    eigenvectors), then the truncated solve
//                        x = Q V diag(1/lambda_i, or 0 if |lambda_i| < threshold *
//                            max_j |lambda_j|) V^T Q^T y.
//   auto             the paper's adaptive strategy: householder-pcr for every system,
//                    the residual check, and dc (reusing the same tridiagonalization)
//                    only for the systems the check flags: Status::Repaired.
//
// RESIDUAL CHECK. For each solved system
//     residual = ||A x - y||_inf / (||A||_inf ||x||_inf + ||y||_inf),
// evaluated in double precision (for float systems too) from the stored lower
// triangle; 0 when A x = y exactly, NaN when x or A x is not finite.
// A system with residual > tolerance (or NaN) is flagged. The default tolerance,
// 16 n u (u = 2^-24 or 2^-53), is the size of the backward error a stable method
// leaves; at n = 30 it is 2.9e-5 in single and 5.3e-14 in double precision.
// A truncated dc solution (discarded > 0) is a regularized one: its residual is the
// size of the components of y it dropped, often above the tolerance (dc then reports
// Flagged; auto keeps Repaired and reports that residual).
//
// PER-SYSTEM STATE (what a work-group needs): ldlt works in place on the lower
// triangle (n(n+1)/2; the CPU copies all n^2) plus x (n); householder-pcr on a copy of A
// (n^2: it receives the reflectors), d, e, tau (3n), and PCR's 3n values and n
// indices (double-buffered here, where a GPU has a barrier); dc adds V (n^2) and
// O(n^2) merge scratch (per_system.hpp, DcWork).
//
// REPRODUCIBILITY. Every system is computed by one thread, start to end, by the same
// sequence of operations, whichever thread that is: the results (x and reports) are
// bit-identical for any Options::threads. (Timing is the only thing that varies.)
//
// ONE SIMD LANE PER SYSTEM (ldlt, householder-pcr, auto). On the CPU these methods run
// the paper's "SIMD" organization: blocks of 16 systems in single and 8 in double
// precision (AVX-512; 8 and 4 with AVX2; 1 without either, chosen at run time or by
// FLAMEX_BATCH_ISA=avx512|avx2|scalar) are transposed on the fly from the
// system-major layout (or copied from the interleaved one) into an interleaved
// workspace, lane l of every vector holding system l's entry, and solved in lock
// step (batched/lanes.hpp). Per lane the operations and
// their order are the per-system code's (variants/ldlt.hpp, batched/per_system.hpp),
// with no fused multiply-add, so the results are bit-identical to it whatever the
// instruction set, the batch size (a last partial block included) or the thread
// count; a breakdown, a NaN or an infinity stays in its lane and is reported for its
// system. The residual check runs in the lanes too (in double). dc runs in lanes too
// (batched/dc_lanes.hpp: each lane its own recursion, deflation and secular roots);
// auto gathers the systems its check flags, from anywhere in the batch, into full
// blocks of lanes for dc.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "flame/flame.hpp"

namespace flamex::batched {

inline constexpr int kMaxOrder = 64;

enum class Precision { Single, Double };
const char* precision_name(Precision p); // "single", "double"
std::optional<Precision> parse_precision(std::string_view name);
template <class T>
constexpr Precision precision_of()
{
    return sizeof(T) == 4 ? Precision::Single : Precision::Double;
}

// --- the batch ---------------------------------------------------------------------

template <class T>
struct Batch {
    int n = 0;              // order of every system, 1 .. kMaxOrder
    std::size_t count = 0;  // number of systems
    std::vector<T> A;       // count * n * n, see DATA LAYOUT above
    std::vector<T> y;       // count * n

    Batch() = default;
    // Zero-filled; throws flamex::Error when n is outside [1, kMaxOrder] or the sizes
    // overflow.
    Batch(int n, std::size_t count);

    T* matrix(std::size_t k) { return A.data() + k * static_cast<std::size_t>(n) * n; }
    const T* matrix(std::size_t k) const { return A.data() + k * static_cast<std::size_t>(n) * n; }
    T* rhs(std::size_t k) { return y.data() + k * static_cast<std::size_t>(n); }
    const T* rhs(std::size_t k) const { return y.data() + k * static_cast<std::size_t>(n); }
    // System k's matrix as a FLAME view (column-major, leading dimension n).
    View<T> view(std::size_t k) { return View<T>(matrix(k), 1, n, 0, 0, n, n); }
};

// The same systems in another precision (each value rounded to nearest, or widened
// exactly).
template <class To, class From>
Batch<To> convert(const Batch<From>& b);

// Packed lower triangle by columns (the interleaved layout's entry order).
constexpr int packed_index(int n, int i, int j) { return j * n - j * (j - 1) / 2 + i - j; }
constexpr int packed_size(int n) { return n * (n + 1) / 2; }

// The interleaved layout (DATA LAYOUT above).
template <class T>
struct InterleavedBatch {
    static constexpr int kBlock = 64 / static_cast<int>(sizeof(T)); // systems per block
    int n = 0;
    std::size_t count = 0;
    std::vector<T> A; // blocks() * packed_size(n) * kBlock
    std::vector<T> y; // blocks() * n * kBlock

    InterleavedBatch() = default;
    // Zero-filled (padding included); throws flamex::Error as Batch's does.
    InterleavedBatch(int n, std::size_t count);

    std::size_t blocks() const { return (count + kBlock - 1) / kBlock; }
    // Entry (i, j), i >= j, of system k; y_i of system k.
    std::size_t a_index(std::size_t k, int i, int j) const
    {
        return ((k / kBlock) * static_cast<std::size_t>(packed_size(n)) + static_cast<std::size_t>(packed_index(n, i, j))) * kBlock + k % kBlock;
    }
    std::size_t y_index(std::size_t k, int i) const { return ((k / kBlock) * static_cast<std::size_t>(n) + i) * kBlock + k % kBlock; }
    // System k into the system-major form (both triangles; y), and back (its lower
    // triangle).
    void get(std::size_t k, T* matrix, T* rhs) const;
    void set(std::size_t k, const T* matrix, const T* rhs);
};

template <class T>
InterleavedBatch<T> interleave(const Batch<T>& b);
template <class T>
Batch<T> deinterleave(const InterleavedBatch<T>& b); // both triangles stored
template <class To, class From>
InterleavedBatch<To> convert(const InterleavedBatch<From>& b);

// --- methods, statuses, options --------------------------------------------------

enum class Method : std::uint8_t { Ldlt = 0, HouseholderPcr = 1, DivideConquer = 2, Auto = 3 };
const char* method_name(Method m); // "ldlt", "householder-pcr", "dc", "auto"
std::optional<Method> parse_method(std::string_view name);

enum class Status : std::uint8_t {
    Ok = 0,           // solved, residual within tolerance (or not checked)
    Breakdown = 1,    // ldlt: pivot d_j zero or non-finite; column = j (1-based); x is NaN
    Flagged = 2,      // solved, but residual > tolerance (or NaN); x kept as computed
    Repaired = 3,     // auto: householder-pcr was flagged, dc solved it (x, residual are dc's)
    InvalidInput = 4, // a NaN or infinity in the lower triangle of A or in y; x is NaN
};
const char* status_name(Status s); // "ok", "breakdown", "flagged", "repaired", "invalid"
inline constexpr int kStatusCount = 5;

// Defaults of the two knobs; both depend only on the precision (and n).
template <class T>
double default_tolerance(int n); // 16 n u
template <class T>
double default_threshold();      // 1e-5 single (the paper's cut at condition 1e5), 1e-12 double

struct Options {
    Method method = Method::Auto;
    double tolerance = -1.0; // residual check; < 0: default_tolerance<T>(n)
    double threshold = -1.0; // dc truncation, relative to max |lambda|; < 0: default_threshold<T>()
                             // (eigenvalues exactly 0 are always discarded)
    int threads = 1;         // std::threads over the systems (results do not depend on it)
    int ldlt_variant = 3;    // FLAME variant of LDL^T: 1 bordered, 2 left-looking, 3 right-looking
    bool residuals = true;   // false: skip the check (residual NaN, no Flagged) except in auto,
                             // which needs it; for timing the bare solvers
};

struct SystemReport {
    Status status = Status::Ok;
    Method solved_by = Method::Ldlt;  // the method whose x this is (never Auto)
    std::uint16_t discarded = 0;      // eigenvalues cut by the dc truncation
    std::int32_t column = 0;          // Breakdown: the 1-based column of the bad pivot
    double residual = 0.0;            // of the returned x (see RESIDUAL CHECK); NaN if none
    double first_residual = 0.0;      // auto: of householder-pcr's x, before any repair;
                                      // otherwise equal to residual
};

template <class T>
struct Result {
    int n = 0;
    std::size_t count = 0;
    std::vector<T> x;                   // count * n
    std::vector<SystemReport> report;   // count
    double seconds = 0.0;               // wall time of the solve (threads included)
    double tolerance = 0.0, threshold = 0.0; // the values used
};

// Solves every system of the batch. Throws flamex::Error only for bad arguments
// (an inconsistent batch, threads < 1, unknown ldlt_variant); numerical trouble is
// reported per system and never affects the other systems.
template <class T>
Result<T> solve(const Batch<T>& batch, const Options& options);
// The same on the interleaved layout: the same bits in x and the reports.
template <class T>
Result<T> solve(const InterleavedBatch<T>& batch, const Options& options);

// --- statistics -----------------------------------------------------------------

struct ResidualStats {
    std::size_t systems = 0;   // systems with a finite residual
    double min = 0, median = 0, max = 0; // over those (0 when there are none)
};

struct Summary {
    std::size_t count = 0;
    std::size_t by_status[kStatusCount] = {};   // indexed by Status
    std::size_t by_method[4] = {};              // systems whose x each method produced
    ResidualStats residual[4];                  // final residuals, by solved_by
    ResidualStats first_residual_of_repaired;   // auto: householder-pcr's residual of the repaired
    std::size_t count_of(Status s) const { return by_status[static_cast<int>(s)]; }
};

template <class T>
Summary summarize(const Result<T>& result);

// --- generators ------------------------------------------------------------------
// Seeded and reproducible: system k depends only on (seed, k) and the spec, never on
// the thread count. Random numbers come from std::mt19937_64 with distributions
// written here (the standard's are implementation-defined).

struct SpdSpec {
    int n = 16;
    std::size_t count = 1000;
    double cond_min = 1.0;   // each system draws kappa_k log-uniformly in [cond_min, cond_max]
    double cond_max = 1e6;
    std::uint64_t seed = 0;
    int threads = 1;
};

// A_k = Q_k diag(lambda) Q_k^T with Q_k a product of n-1 Householder reflectors of
// Gaussian vectors (Haar-distributed), lambda_1 = 1, lambda_n = kappa_k and the
// others log-uniform in between; y_k uniform in [-1, 1]^n. Built in double, then
// rounded to T (so in single precision a kappa_k beyond ~1e7 is numerically
// singular or indefinite, as it would be on the device). kappa_out, if given,
// receives the kappa_k.
template <class T>
Batch<T> generate_spd(const SpdSpec& spec, std::vector<double>* kappa_out = nullptr);

// The paper's section 2.2: the Longstaff-Schwartz regression matrices of a nested
// Monte Carlo in the Black & Scholes model with d = n - 1 independent assets,
//     S^i = S0 exp((mu - sigma^2/2) t + sigma sqrt(t) G^i),  G^i ~ N(0, 1),
// basis psi(S) = (1, S^1, ..., S^d) (n = 30 in the paper: d = 29), and for system k
// (outer trajectory k) M = paths inner trajectories:
//     A_k = (1/M) sum_j psi(S_(j)) psi(S_(j))^T,   y_k = (1/M) sum_j psi(S_(j)) P_(j),
// P the payoff of an at-the-money put on the basket average, (strike - mean_i S^i)^+
// (with d = 0, on one simulated asset). The paper's parameters are the defaults.
// The sums are accumulated in T, as the simulation does on the device: with
// sigma sqrt(t) ~ 0.03 every S^i is close to 1, the columns of the design matrix are
// nearly collinear with the constant, and the Gram matrices are ill-conditioned for
// single precision: kappa_2 from 7.6e5 to 1.3e6 (median 1.0e6) at n = 30, M = 300,
// so kappa u ~ 0.06; with M near or below n (rank <= M) kappa reaches 1e9 .. 1e12,
// numerically singular in single precision.
struct RegressionSpec {
    int n = 30;
    std::size_t count = 1000;
    int paths = 300; // M, >= 1
    double sigma = 0.1, mu = 0.1, s0 = 1.0, t = 0.1, strike = 1.0;
    std::uint64_t seed = 0;
    int threads = 1;
};

template <class T>
Batch<T> generate_regression(const RegressionSpec& spec);
// The same systems (the same bits), written directly in the interleaved layout.
template <class T>
InterleavedBatch<T> generate_regression_interleaved(const RegressionSpec& spec);

// 2-norm condition numbers max|lambda| / min|lambda| of every system (inf when
// singular), from the eigenvalues computed in double precision by Householder and
// divide and conquer (lower triangles). For reports and tests.
template <class T>
std::vector<double> condition_numbers(const Batch<T>& batch, int threads = 1);

// The batch file format (read_batch, write_batch, write_solutions, read_solutions) is
// io/batch_file.hpp.

} // namespace flamex::batched
