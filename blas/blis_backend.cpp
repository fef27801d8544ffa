// The `blis` backend: BLIS's typed API on FLAME views, strides honoured.
// blis.h and FLAME.h cannot share a translation unit, so this file sees only
// flamex's own headers.
#include <blis.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "blas/backend_factories.hpp"

namespace flamex {
namespace {

trans_t to_blis(Trans t) { return t == Trans::No ? BLIS_NO_TRANSPOSE : BLIS_TRANSPOSE; }
uplo_t to_blis(Uplo u) { return u == Uplo::Lower ? BLIS_LOWER : BLIS_UPPER; }
diag_t to_blis(Diag d) { return d == Diag::Unit ? BLIS_UNIT_DIAG : BLIS_NONUNIT_DIAG; }
side_t to_blis(Side s) { return s == Side::Left ? BLIS_LEFT : BLIS_RIGHT; }

// d_l x_l for l < k (at least one element, so that data() is never null).
std::vector<double> diagonal_times(Obj D, Obj x)
{
    std::vector<double> w(static_cast<std::size_t>(std::max<dim_t>(x.vector_length(), 1)));
    for (dim_t l = 0; l < x.vector_length(); ++l) w[static_cast<std::size_t>(l)] = D(l, l) * x[l];
    return w;
}

class BlisBackend final : public Blas {
public:
    explicit BlisBackend(const BackendOptions& options) { bli_thread_set_num_threads(options.threads); }

    std::string name() const override { return "blis"; }
    bool reproducible() const override { return false; }

    double sum(Obj x) const override
    {
        check::vector("sum", x);
        double s = 0.0;
        for (dim_t i = 0; i < x.vector_length(); ++i) s += x[i];
        return s;
    }

    double dot(Obj x, Obj y) const override
    {
        check::same_length("dot", x, y);
        double rho = 0.0;
        bli_ddotv(BLIS_NO_CONJUGATE, BLIS_NO_CONJUGATE, x.vector_length(), x.buffer(), x.vector_inc(), y.buffer(),
                  y.vector_inc(), &rho);
        return rho;
    }

    void dots(double alpha, Obj x, Obj y, double beta, Obj rho) const override
    {
        check::same_length("dots", x, y);
        check::scalar("dots", rho);
        bli_ddotxv(BLIS_NO_CONJUGATE, BLIS_NO_CONJUGATE, x.vector_length(), &alpha, x.buffer(), x.vector_inc(),
                   y.buffer(), y.vector_inc(), &beta, rho.buffer());
    }

    void scal(double alpha, Obj x) const override
    {
        check::vector("scal", x);
        bli_dscalv(BLIS_NO_CONJUGATE, x.vector_length(), &alpha, x.buffer(), x.vector_inc());
    }

    void invscal(double alpha, Obj x) const override
    {
        check::vector("invscal", x);
        // A true division per element: BLIS may multiply by a rounded reciprocal.
        for (dim_t i = 0; i < x.vector_length(); ++i) x[i] = x[i] / alpha;
    }

    void axpy(double alpha, Obj x, Obj y) const override
    {
        check::same_length("axpy", x, y);
        bli_daxpyv(BLIS_NO_CONJUGATE, x.vector_length(), &alpha, x.buffer(), x.vector_inc(), y.buffer(),
                   y.vector_inc());
    }

    void copy(Obj x, Obj y) const override
    {
        if (x.is_vector() && y.is_vector()) {
            check::same_length("copy", x, y);
            bli_dcopyv(BLIS_NO_CONJUGATE, x.vector_length(), x.buffer(), x.vector_inc(), y.buffer(), y.vector_inc());
            return;
        }
        if (x.length() != y.length() || x.width() != y.width()) throw Error("copy: shapes differ");
        bli_dcopym(0, BLIS_NONUNIT_DIAG, BLIS_DENSE, BLIS_NO_TRANSPOSE, x.length(), x.width(), x.buffer(),
                   x.row_stride(), x.col_stride(), y.buffer(), y.row_stride(), y.col_stride());
    }

    void gemv(Trans trans, double alpha, Obj A, Obj x, double beta, Obj y) const override
    {
        check::gemv("gemv", trans, A, x, y);
        bli_dgemv(to_blis(trans), BLIS_NO_CONJUGATE, A.length(), A.width(), &alpha, A.buffer(), A.row_stride(),
                  A.col_stride(), x.buffer(), x.vector_inc(), &beta, y.buffer(), y.vector_inc());
    }

    void trsv(Uplo uplo, Trans trans, Diag diag, Obj T, Obj x) const override
    {
        check::trsv("trsv", T, x);
        double one = 1.0;
        bli_dtrsv(to_blis(uplo), to_blis(trans), to_blis(diag), T.length(), &one, T.buffer(), T.row_stride(),
                  T.col_stride(), x.buffer(), x.vector_inc());
    }

    void ger(double alpha, Obj x, Obj y, Obj A) const override
    {
        check::ger("ger", x, y, A);
        bli_dger(BLIS_NO_CONJUGATE, BLIS_NO_CONJUGATE, A.length(), A.width(), &alpha, x.buffer(), x.vector_inc(),
                 y.buffer(), y.vector_inc(), A.buffer(), A.row_stride(), A.col_stride());
    }

    void gemm(Trans transa, Trans transb, double alpha, Obj A, Obj B, double beta, Obj C) const override
    {
        check::gemm("gemm", transa, transb, A, B, C);
        const dim_t k = transa == Trans::No ? A.width() : A.length();
        bli_dgemm(to_blis(transa), to_blis(transb), C.length(), C.width(), k, &alpha, A.buffer(), A.row_stride(),
                  A.col_stride(), B.buffer(), B.row_stride(), B.col_stride(), &beta, C.buffer(), C.row_stride(),
                  C.col_stride());
    }

    void trsm(Side side, Uplo uplo, Trans trans, Diag diag, double alpha, Obj T, Obj B) const override
    {
        check::trsm("trsm", side, T, B);
        bli_dtrsm(to_blis(side), to_blis(uplo), to_blis(trans), to_blis(diag), B.length(), B.width(), &alpha,
                  T.buffer(), T.row_stride(), T.col_stride(), B.buffer(), B.row_stride(), B.col_stride());
    }

    void syrk(Uplo uplo, Trans trans, double alpha, Obj A, double beta, Obj C) const override
    {
        check::syrk("syrk", trans, A, C);
        const dim_t k = trans == Trans::No ? A.width() : A.length();
        bli_dsyrk(to_blis(uplo), to_blis(trans), C.length(), k, &alpha, A.buffer(), A.row_stride(), A.col_stride(),
                  &beta, C.buffer(), C.row_stride(), C.col_stride());
    }

    void trmv(Uplo uplo, Trans trans, Diag diag, Obj T, Obj x) const override
    {
        check::trsv("trmv", T, x);
        double one = 1.0;
        bli_dtrmv(to_blis(uplo), to_blis(trans), to_blis(diag), T.length(), &one, T.buffer(), T.row_stride(),
                  T.col_stride(), x.buffer(), x.vector_inc());
    }

    void trmm(Side side, Uplo uplo, Trans trans, Diag diag, double alpha, Obj T, Obj B) const override
    {
        check::trsm("trmm", side, T, B);
        bli_dtrmm(to_blis(side), to_blis(uplo), to_blis(trans), to_blis(diag), B.length(), B.width(), &alpha,
                  T.buffer(), T.row_stride(), T.col_stride(), B.buffer(), B.row_stride(), B.col_stride());
    }

    void diag_invscal(Obj D, Obj x) const override
    {
        check::diagonal("diag_invscal", D, x);
        for (dim_t l = 0; l < x.vector_length(); ++l) x[l] = x[l] / D(l, l);
    }

    // diag_dots and diag_gemv: BLIS's dotxv and gemv with the vector D y (D x) formed
    // first, one rounding per element.
    void diag_dots(double alpha, Obj x, Obj D, Obj y, double beta, Obj rho) const override
    {
        check::diagonal_sign("diag_dots", alpha);
        check::same_length("diag_dots", x, y);
        check::diagonal("diag_dots", D, y);
        check::scalar("diag_dots", rho);
        const std::vector<double> w = diagonal_times(D, y);
        bli_ddotxv(BLIS_NO_CONJUGATE, BLIS_NO_CONJUGATE, x.vector_length(), &alpha, x.buffer(), x.vector_inc(),
                   const_cast<double*>(w.data()), 1, &beta, rho.buffer());
    }

    void diag_gemv(double alpha, Obj A, Obj D, Obj x, double beta, Obj y) const override
    {
        check::diagonal_sign("diag_gemv", alpha);
        check::gemv("diag_gemv", Trans::No, A, x, y);
        check::diagonal("diag_gemv", D, x);
        const std::vector<double> w = diagonal_times(D, x);
        bli_dgemv(BLIS_NO_TRANSPOSE, BLIS_NO_CONJUGATE, A.length(), A.width(), &alpha, A.buffer(), A.row_stride(),
                  A.col_stride(), const_cast<double*>(w.data()), 1, &beta, y.buffer(), y.vector_inc());
    }

    void sqrt(Obj alpha) const override
    {
        check::scalar("sqrt", alpha);
        alpha(0, 0) = std::sqrt(alpha(0, 0));
    }

    void reciprocal(Obj alpha) const override
    {
        check::scalar("reciprocal", alpha);
        alpha(0, 0) = 1.0 / alpha(0, 0);
    }

    dim_t iamax(Obj x) const override
    {
        check::vector("iamax", x);
        dim_t index = 0;
        bli_damaxv(x.vector_length(), x.buffer(), x.vector_inc(), &index);
        return index;
    }

    void apply_pivots(PivObj p, Obj A) const override
    {
        check::pivots("apply_pivots", p, A);
        apply_pivots_reference(p, A);
    }
};

} // namespace

std::unique_ptr<Blas> make_blis_backend(const BackendOptions& options)
{
    return std::make_unique<BlisBackend>(options);
}

} // namespace flamex
