// The abstract BLAS: the only arithmetic a variant may use.
//
// Every operation takes FLAME views (offsets and strides included). Vectors are
// m x 1 or 1 x n views. Backends are chosen by name at run time:
//   blis    BLIS's typed API, the fast baseline (not reproducible across threads);
//   exact   correctly rounded, bit-reproducible kernels on the CPU;
//   opencl  the exact kernels on an OpenCL device.
// A variant written against this interface runs unchanged on all of them.
//
// Symmetric and triangular operands are square views of which only one triangle
// (uplo) is read, or written: syrk neither reads nor writes C's other triangle;
// with Diag::Unit the diagonal of T is not read either (taken as ones). syrk with a
// vector A (n x 1 with NO_TRANSPOSE, 1 x n with TRANSPOSE) is BLAS's syr.
//
// Contract for every backend:
//  - dimensions are checked and a mismatch throws flamex::Error naming the operation;
//  - invscal divides (never multiplies by a reciprocal);
//  - iamax returns the first index of the largest magnitude (deterministic ties);
//  - beta == 0 in dots, gemv, gemm and syrk means the output is not read (BLAS
//    convention): rho, y or C may hold NaN or inf and the result is alpha op(...) alone;
//  - sqrt and reciprocal act on a 1x1 view where the backend holds it (no round
//    trip through the host): one correctly rounded IEEE operation,
//    sqrt(-x) = NaN, sqrt(-0) = -0, 1 / +-0 = +-inf, a true division (never an
//    approximate reciprocal) on every backend;
//  - diag_invscal, diag_dots and diag_gemv scale by the diagonal of a square view D
//    (d_l = D(l, l); nothing else of D is read), as LDL^T's D is stored on the
//    diagonal of A: diag_invscal divides (one IEEE division per element); in
//    diag_dots and diag_gemv each product x_l d_l y_l (a_il d_l x_l) is one term of
//    the sum, so on exact backends an output is round(alpha S + beta y) with S the
//    exact sum of these triple products (as dots and gemv), beta == 0 not reading y.
//    alpha is +1 or -1 (else flamex::Error): the sign of an update. Any other alpha
//    times a sum of triple products can need bits beyond the exact accumulators'
//    range (2^-3232 .. 2^3360; a product of three doubles reaches 2^-3222);
//  - between acquire(A) and release(A) the contents of A's base buffer belong to
//    the backend: the host reads elements only through element().
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "flame/flame.hpp"

namespace flamex {

enum class Trans { No, Yes };
enum class Uplo { Lower, Upper };
enum class Diag { NonUnit, Unit };

inline constexpr Trans NO_TRANSPOSE = Trans::No, TRANSPOSE = Trans::Yes;
inline constexpr Uplo LOWER = Uplo::Lower, UPPER = Uplo::Upper;
inline constexpr Diag NONUNIT = Diag::NonUnit, UNIT = Diag::Unit;

struct BackendOptions {
    int threads = 1;       // worker threads a backend may use (results never depend on it
                           // for exact backends)
    dim_t block = 0;       // internal block size of a backend's kernels; 0 = its default
    std::string device;    // device index or name, for device backends
};

class Blas {
public:
    virtual ~Blas() = default;
    virtual std::string name() const = 0;
    // True when every result is bit-identical for any threads / block / device.
    virtual bool reproducible() const = 0;

    virtual double sum(Obj x) const = 0;                                  // sum_i x_i
    virtual double dot(Obj x, Obj y) const = 0;                           // x^T y
    virtual void dots(double alpha, Obj x, Obj y, double beta, Obj rho) const = 0; // rho := alpha x^T y + beta rho
    virtual void scal(double alpha, Obj x) const = 0;                     // x := alpha x
    virtual void invscal(double alpha, Obj x) const = 0;                  // x := x / alpha
    virtual void axpy(double alpha, Obj x, Obj y) const = 0;              // y := alpha x + y
    virtual void copy(Obj x, Obj y) const = 0;                            // y := x (any shapes of equal size)
    virtual void gemv(Trans trans, double alpha, Obj A, Obj x, double beta, Obj y) const = 0;
    virtual void trsv(Uplo uplo, Trans trans, Diag diag, Obj T, Obj x) const = 0; // x := op(T)^{-1} x
    virtual void ger(double alpha, Obj x, Obj y, Obj A) const = 0;        // A := alpha x y^T + A
    virtual void gemm(Trans transa, Trans transb, double alpha, Obj A, Obj B, double beta, Obj C) const = 0;
    // B := alpha op(T)^{-1} B (side LEFT) or alpha B op(T)^{-1} (side RIGHT)
    virtual void trsm(Side side, Uplo uplo, Trans trans, Diag diag, double alpha, Obj T, Obj B) const = 0;
    // C := alpha op(A) op(A)^T + beta C, op(A) = A (NO_TRANSPOSE) or A^T; only C's
    // uplo triangle is read and written.
    virtual void syrk(Uplo uplo, Trans trans, double alpha, Obj A, double beta, Obj C) const = 0;
    virtual void trmv(Uplo uplo, Trans trans, Diag diag, Obj T, Obj x) const = 0; // x := op(T) x
    // B := alpha op(T) B (side LEFT) or alpha B op(T) (side RIGHT)
    virtual void trmm(Side side, Uplo uplo, Trans trans, Diag diag, double alpha, Obj T, Obj B) const = 0;
    virtual void diag_invscal(Obj D, Obj x) const = 0; // x_l := x_l / d_l, D k x k, x of length k
    // rho := alpha sum_l x_l d_l y_l + beta rho (alpha = +-1; rho 1x1, D k x k, x and y of length k)
    virtual void diag_dots(double alpha, Obj x, Obj D, Obj y, double beta, Obj rho) const = 0;
    // y := alpha A diag(D) x + beta y (alpha = +-1; A m x k, D k x k, x of length k, y of length m)
    virtual void diag_gemv(double alpha, Obj A, Obj D, Obj x, double beta, Obj y) const = 0;
    virtual void sqrt(Obj alpha) const = 0;       // alpha := sqrt(alpha), alpha 1x1
    virtual void reciprocal(Obj alpha) const = 0; // alpha := 1 / alpha, alpha 1x1
    virtual dim_t iamax(Obj x) const = 0;
    // For i = 0..size(p)-1 swap rows i and i + p[i] of A (FLAME's pivot offsets).
    virtual void apply_pivots(PivObj p, Obj A) const = 0;

    // The order-fixed updates (variants/lu_*_blk_var5_fma.cpp): IEEE operations in a
    // fixed order, with the arithmetic of this backend's ger and invscal.
    //   gemm_ordered  C := C - A B, each c_ij taking fma(-1 * a_il, b_lj, c_ij) for
    //                 l = 0, 1, ..., k-1 in that order: k calls of ger(-1, a_l, b_l^T, C).
    //   trsm_ordered  B := L^{-1} B, L lower triangular: row l of B, once the rows
    //                 above it have updated it, is divided by l_ll (invscal; not for
    //                 UNIT), then updates the rows below it (ger(-1, ...)).
    // The defaults are those ger and invscal calls (blas/ordered.cpp); `exact` gives
    // the same bits faster (blas/ordered_gemm.hpp). On backends whose ger is one
    // fma(alpha * x_i, y_j, a_ij) per element (exact, opencl) the blocked
    // lu_*_blk_var5_fma are thereby bit-identical to unb var5; blis's dger is not
    // (its bits depend on the shape), so there they are not.
    virtual void gemm_ordered(Obj A, Obj B, Obj C) const;
    virtual void trsm_ordered(Diag diag, Obj L, Obj B) const;

    // The block size of a blocked LU on an m x n matrix whose caller names none
    // (LuControl::block = 0, variants/lu.hpp): 128 unless the backend measured a
    // better one (exact: blas/exact_backend.hpp). Results of a call that names a block
    // never depend on this.
    virtual dim_t lu_block(dim_t m, dim_t n) const
    {
        (void)m;
        (void)n;
        return 128;
    }

    // Host access and residency; host-memory backends need nothing here.
    virtual double element(Obj A, dim_t i, dim_t j) const { return A(i, j); }
    virtual void acquire(Obj A) const { (void)A; }
    virtual void release(Obj A) const { (void)A; }
};

// Holds A with the backend for a scope: what a factorization or solve does between
// its first and last operation.
class Resident {
public:
    Resident(const Blas& blas, Obj A) : blas_(blas), A_(A) { blas_.acquire(A_); }
    ~Resident() { blas_.release(A_); }
    Resident(const Resident&) = delete;
    Resident& operator=(const Resident&) = delete;

private:
    const Blas& blas_;
    Obj A_;
};

// --- the backend registry -------------------------------------------------------

struct BackendInfo {
    std::string name;
    std::string description;
    std::function<std::unique_ptr<Blas>(const BackendOptions&)> make;
};

const std::vector<BackendInfo>& backends();
// Throws flamex::Error listing the known names when `name` is unknown.
std::unique_ptr<Blas> make_backend(const std::string& name, const BackendOptions& options = {});
// FLAMEX_BACKEND if set, else "blis".
std::string default_backend_name();

// Checks shared by every backend; each throws flamex::Error naming `op`.
namespace check {
void vector(const char* op, Obj x);
void same_length(const char* op, Obj x, Obj y);
void scalar(const char* op, Obj rho);
void gemv(const char* op, Trans trans, Obj A, Obj x, Obj y);
void trsv(const char* op, Obj T, Obj x); // trmv too
void ger(const char* op, Obj x, Obj y, Obj A);
void gemm(const char* op, Trans transa, Trans transb, Obj A, Obj B, Obj C);
void trsm(const char* op, Side side, Obj T, Obj B); // trmm too
void syrk(const char* op, Trans trans, Obj A, Obj C);
void diagonal(const char* op, Obj D, Obj x); // D square, its order x's length
void diagonal_sign(const char* op, double alpha); // alpha of diag_dots, diag_gemv: +-1
void pivots(const char* op, PivObj p, Obj A);
} // namespace check

} // namespace flamex
