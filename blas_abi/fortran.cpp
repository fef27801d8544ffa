// The Fortran BLAS entry points of the real double routines (name_, arguments by
// reference, character lengths appended by the compiler and not needed here):
// the reference's argument checks in its order, its quick returns, then the
// framework (abi.hpp).
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>

#include "blas/backend_factories.hpp"
#include "blas_abi/abi.hpp"

namespace flamex::blas_abi {

const Blas& exact()
{
    static const std::unique_ptr<Blas> backend = [] {
        BackendOptions options;
        if (const char* env = std::getenv("FLAMEX_THREADS"); env != nullptr && *env != '\0') {
            const int t = std::atoi(env);
            options.threads = t >= 1 ? t : 1;
        }
        return make_exact_backend(options);
    }();
    return *backend;
}

void report(const char* name, int info)
{
    char padded[7] = "      ";
    for (int i = 0; i < 6 && name[i] != '\0'; ++i)
        padded[i] = name[i];
    xerbla_(padded, &info, 6);
}

void fatal(const char* name, const char* what) noexcept
{
    std::fprintf(stderr, "flamex libblas: %s: %s\n", name, what);
    std::abort();
}

} // namespace flamex::blas_abi

using namespace flamex;
using namespace flamex::blas_abi;
using flamex::forms::Part;

namespace {
Trans trans_of(const char* t) { return is(t, 'N') ? Trans::No : Trans::Yes; }
bool trans_ok(const char* t) { return is(t, 'N') || is(t, 'T') || is(t, 'C'); }
bool uplo_ok(const char* u) { return is(u, 'U') || is(u, 'L'); }
bool diag_ok(const char* d) { return is(d, 'U') || is(d, 'N'); }
bool side_ok(const char* s) { return is(s, 'L') || is(s, 'R'); }
Uplo uplo_of(const char* u) { return is(u, 'L') ? Uplo::Lower : Uplo::Upper; }
Diag diag_of(const char* d) { return is(d, 'U') ? Diag::Unit : Diag::NonUnit; }
} // namespace

extern "C" {

// --- level 1 -----------------------------------------------------------------------

double ddot_(const int* n, const double* x, const int* incx, const double* y, const int* incy)
{
    if (*n <= 0) return 0.0;
    double r = 0.0;
    guarded("DDOT", [&] { r = exact().dot(vec(x, *n, *incx), vec(y, *n, *incy)); });
    return r;
}

double dsdot_(const int* n, const float* x, const int* incx, const float* y, const int* incy)
{
    if (*n <= 0) return 0.0;
    return forms::dot_float(*n, start(x, *n, *incx), *incx, start(y, *n, *incy), *incy);
}

double dasum_(const int* n, const double* x, const int* incx)
{
    if (*n <= 0 || *incx <= 0) return 0.0;
    return forms::asum(*n, x, *incx);
}

double dnrm2_(const int* n, const double* x, const int* incx)
{
    if (*n <= 0) return 0.0;
    return forms::nrm2(*n, start(x, *n, *incx), *incx);
}

int idamax_(const int* n, const double* x, const int* incx)
{
    if (*n < 1 || *incx <= 0) return 0;
    return static_cast<int>(forms::iamax_reference(*n, x, *incx)) + 1;
}

void daxpy_(const int* n, const double* alpha, const double* x, const int* incx, double* y, const int* incy)
{
    if (*n <= 0 || *alpha == 0.0) return;
    forms::axpy(*n, *alpha, start(x, *n, *incx), *incx, start(y, *n, *incy), *incy);
}

void dscal_(const int* n, const double* alpha, double* x, const int* incx)
{
    if (*n <= 0 || *incx <= 0) return;
    guarded("DSCAL", [&] { exact().scal(*alpha, vec(x, *n, *incx)); });
}

void dcopy_(const int* n, const double* x, const int* incx, double* y, const int* incy)
{
    if (*n <= 0) return;
    forms::copy(*n, start(x, *n, *incx), *incx, start(y, *n, *incy), *incy);
}

void dswap_(const int* n, double* x, const int* incx, double* y, const int* incy)
{
    if (*n <= 0) return;
    forms::swap(*n, start(x, *n, *incx), *incx, start(y, *n, *incy), *incy);
}

void drot_(const int* n, double* x, const int* incx, double* y, const int* incy, const double* c, const double* s)
{
    if (*n <= 0) return;
    forms::rot(*n, start(x, *n, *incx), *incx, start(y, *n, *incy), *incy, *c, *s);
}

// The CBLAS helpers for Fortran functions (the result through the last argument).
void ddotsub_(const int* n, const double* x, const int* incx, const double* y, const int* incy, double* r)
{
    *r = ddot_(n, x, incx, y, incy);
}
void dsdotsub_(const int* n, const float* x, const int* incx, const float* y, const int* incy, double* r)
{
    *r = dsdot_(n, x, incx, y, incy);
}
void dasumsub_(const int* n, const double* x, const int* incx, double* r) { *r = dasum_(n, x, incx); }
void dnrm2sub_(const int* n, const double* x, const int* incx, double* r) { *r = dnrm2_(n, x, incx); }
void idamaxsub_(const int* n, const double* x, const int* incx, int* r) { *r = idamax_(n, x, incx); }

// --- level 2 -----------------------------------------------------------------------

void dgemv_(const char* trans, const int* m, const int* n, const double* alpha, const double* a, const int* lda,
            const double* x, const int* incx, const double* beta, double* y, const int* incy)
{
    int info = 0;
    if (!trans_ok(trans))
        info = 1;
    else if (*m < 0)
        info = 2;
    else if (*n < 0)
        info = 3;
    else if (*lda < max1(*m))
        info = 6;
    else if (*incx == 0)
        info = 8;
    else if (*incy == 0)
        info = 11;
    if (info != 0) return report("DGEMV", info);
    if (*m == 0 || *n == 0 || (*alpha == 0.0 && *beta == 1.0)) return;
    const Trans t = trans_of(trans);
    const index_t lenx = t == Trans::No ? *n : *m, leny = t == Trans::No ? *m : *n;
    if (*alpha == 0.0) return forms::scale_vector(leny, *beta, start(y, leny, *incy), *incy);
    guarded("DGEMV",
            [&] { exact().gemv(t, *alpha, mat(a, *m, *n, *lda), vec(x, lenx, *incx), *beta, vec(y, leny, *incy)); });
}

void dgbmv_(const char* trans, const int* m, const int* n, const int* kl, const int* ku, const double* alpha,
            const double* a, const int* lda, const double* x, const int* incx, const double* beta, double* y,
            const int* incy)
{
    int info = 0;
    if (!trans_ok(trans))
        info = 1;
    else if (*m < 0)
        info = 2;
    else if (*n < 0)
        info = 3;
    else if (*kl < 0)
        info = 4;
    else if (*ku < 0)
        info = 5;
    else if (*lda < *kl + *ku + 1)
        info = 8;
    else if (*incx == 0)
        info = 10;
    else if (*incy == 0)
        info = 13;
    if (info != 0) return report("DGBMV", info);
    if (*m == 0 || *n == 0 || (*alpha == 0.0 && *beta == 1.0)) return;
    const bool t = !is(trans, 'N');
    const index_t lenx = t ? *m : *n, leny = t ? *n : *m;
    if (*alpha == 0.0) return forms::scale_vector(leny, *beta, start(y, leny, *incy), *incy);
    guarded("DGBMV", [&] {
        forms::gbmv(t, *m, *n, *kl, *ku, *alpha, a, *lda, start(x, lenx, *incx), *incx, *beta, start(y, leny, *incy),
                    *incy);
    });
}

void dsymv_(const char* uplo, const int* n, const double* alpha, const double* a, const int* lda, const double* x,
            const int* incx, const double* beta, double* y, const int* incy)
{
    int info = 0;
    if (!uplo_ok(uplo))
        info = 1;
    else if (*n < 0)
        info = 2;
    else if (*lda < max1(*n))
        info = 5;
    else if (*incx == 0)
        info = 7;
    else if (*incy == 0)
        info = 10;
    if (info != 0) return report("DSYMV", info);
    if (*n == 0 || (*alpha == 0.0 && *beta == 1.0)) return;
    if (*alpha == 0.0) return forms::scale_vector(*n, *beta, start(y, *n, *incy), *incy);
    guarded("DSYMV", [&] {
        forms::symv(is(uplo, 'L'), *n, *alpha, a, *lda, start(x, *n, *incx), *incx, *beta, start(y, *n, *incy), *incy);
    });
}

void dsbmv_(const char* uplo, const int* n, const int* k, const double* alpha, const double* a, const int* lda,
            const double* x, const int* incx, const double* beta, double* y, const int* incy)
{
    int info = 0;
    if (!uplo_ok(uplo))
        info = 1;
    else if (*n < 0)
        info = 2;
    else if (*k < 0)
        info = 3;
    else if (*lda < *k + 1)
        info = 6;
    else if (*incx == 0)
        info = 8;
    else if (*incy == 0)
        info = 11;
    if (info != 0) return report("DSBMV", info);
    if (*n == 0 || (*alpha == 0.0 && *beta == 1.0)) return;
    if (*alpha == 0.0) return forms::scale_vector(*n, *beta, start(y, *n, *incy), *incy);
    guarded("DSBMV", [&] {
        forms::sbmv(is(uplo, 'L'), *n, *k, *alpha, a, *lda, start(x, *n, *incx), *incx, *beta, start(y, *n, *incy),
                    *incy);
    });
}

void dspmv_(const char* uplo, const int* n, const double* alpha, const double* ap, const double* x, const int* incx,
            const double* beta, double* y, const int* incy)
{
    int info = 0;
    if (!uplo_ok(uplo))
        info = 1;
    else if (*n < 0)
        info = 2;
    else if (*incx == 0)
        info = 6;
    else if (*incy == 0)
        info = 9;
    if (info != 0) return report("DSPMV", info);
    if (*n == 0 || (*alpha == 0.0 && *beta == 1.0)) return;
    if (*alpha == 0.0) return forms::scale_vector(*n, *beta, start(y, *n, *incy), *incy);
    guarded("DSPMV", [&] {
        forms::spmv(is(uplo, 'L'), *n, *alpha, ap, start(x, *n, *incx), *incx, *beta, start(y, *n, *incy), *incy);
    });
}

namespace {
// UPLO, TRANS, DIAG, N checked as the triangular level-2 routines do; 0 when fine.
int triangular_info(const char* uplo, const char* trans, const char* diag, const int* n)
{
    if (!uplo_ok(uplo)) return 1;
    if (!trans_ok(trans)) return 2;
    if (!diag_ok(diag)) return 3;
    if (*n < 0) return 4;
    return 0;
}
} // namespace

void dtrmv_(const char* uplo, const char* trans, const char* diag, const int* n, const double* a, const int* lda,
            double* x, const int* incx)
{
    int info = triangular_info(uplo, trans, diag, n);
    if (info == 0 && *lda < max1(*n))
        info = 6;
    else if (info == 0 && *incx == 0)
        info = 8;
    if (info != 0) return report("DTRMV", info);
    if (*n == 0) return;
    guarded("DTRMV", [&] {
        exact().trmv(uplo_of(uplo), trans_of(trans), diag_of(diag), mat(a, *n, *n, *lda), vec(x, *n, *incx));
    });
}

void dtrsv_(const char* uplo, const char* trans, const char* diag, const int* n, const double* a, const int* lda,
            double* x, const int* incx)
{
    int info = triangular_info(uplo, trans, diag, n);
    if (info == 0 && *lda < max1(*n))
        info = 6;
    else if (info == 0 && *incx == 0)
        info = 8;
    if (info != 0) return report("DTRSV", info);
    if (*n == 0) return;
    guarded("DTRSV", [&] {
        exact().trsv(uplo_of(uplo), trans_of(trans), diag_of(diag), mat(a, *n, *n, *lda), vec(x, *n, *incx));
    });
}

void dtbmv_(const char* uplo, const char* trans, const char* diag, const int* n, const int* k, const double* a,
            const int* lda, double* x, const int* incx)
{
    int info = triangular_info(uplo, trans, diag, n);
    if (info == 0 && *k < 0)
        info = 5;
    else if (info == 0 && *lda < *k + 1)
        info = 7;
    else if (info == 0 && *incx == 0)
        info = 9;
    if (info != 0) return report("DTBMV", info);
    if (*n == 0) return;
    guarded("DTBMV", [&] {
        forms::tbmv(is(uplo, 'L'), !is(trans, 'N'), is(diag, 'U'), *n, *k, a, *lda, start(x, *n, *incx), *incx);
    });
}

void dtbsv_(const char* uplo, const char* trans, const char* diag, const int* n, const int* k, const double* a,
            const int* lda, double* x, const int* incx)
{
    int info = triangular_info(uplo, trans, diag, n);
    if (info == 0 && *k < 0)
        info = 5;
    else if (info == 0 && *lda < *k + 1)
        info = 7;
    else if (info == 0 && *incx == 0)
        info = 9;
    if (info != 0) return report("DTBSV", info);
    if (*n == 0) return;
    guarded("DTBSV", [&] {
        forms::tbsv(is(uplo, 'L'), !is(trans, 'N'), is(diag, 'U'), *n, *k, a, *lda, start(x, *n, *incx), *incx);
    });
}

void dtpmv_(const char* uplo, const char* trans, const char* diag, const int* n, const double* ap, double* x,
            const int* incx)
{
    int info = triangular_info(uplo, trans, diag, n);
    if (info == 0 && *incx == 0) info = 7;
    if (info != 0) return report("DTPMV", info);
    if (*n == 0) return;
    guarded("DTPMV",
            [&] { forms::tpmv(is(uplo, 'L'), !is(trans, 'N'), is(diag, 'U'), *n, ap, start(x, *n, *incx), *incx); });
}

void dtpsv_(const char* uplo, const char* trans, const char* diag, const int* n, const double* ap, double* x,
            const int* incx)
{
    int info = triangular_info(uplo, trans, diag, n);
    if (info == 0 && *incx == 0) info = 7;
    if (info != 0) return report("DTPSV", info);
    if (*n == 0) return;
    guarded("DTPSV",
            [&] { forms::tpsv(is(uplo, 'L'), !is(trans, 'N'), is(diag, 'U'), *n, ap, start(x, *n, *incx), *incx); });
}

void dger_(const int* m, const int* n, const double* alpha, const double* x, const int* incx, const double* y,
           const int* incy, double* a, const int* lda)
{
    int info = 0;
    if (*m < 0)
        info = 1;
    else if (*n < 0)
        info = 2;
    else if (*incx == 0)
        info = 5;
    else if (*incy == 0)
        info = 7;
    else if (*lda < max1(*m))
        info = 9;
    if (info != 0) return report("DGER", info);
    if (*m == 0 || *n == 0 || *alpha == 0.0) return;
    guarded("DGER", [&] { exact().ger(*alpha, vec(x, *m, *incx), vec(y, *n, *incy), mat(a, *m, *n, *lda)); });
}

void dsyr_(const char* uplo, const int* n, const double* alpha, const double* x, const int* incx, double* a,
           const int* lda)
{
    int info = 0;
    if (!uplo_ok(uplo))
        info = 1;
    else if (*n < 0)
        info = 2;
    else if (*incx == 0)
        info = 5;
    else if (*lda < max1(*n))
        info = 7;
    if (info != 0) return report("DSYR", info);
    if (*n == 0 || *alpha == 0.0) return;
    guarded("DSYR", [&] { forms::syr(is(uplo, 'L'), *n, *alpha, start(x, *n, *incx), *incx, a, *lda); });
}

void dspr_(const char* uplo, const int* n, const double* alpha, const double* x, const int* incx, double* ap)
{
    int info = 0;
    if (!uplo_ok(uplo))
        info = 1;
    else if (*n < 0)
        info = 2;
    else if (*incx == 0)
        info = 5;
    if (info != 0) return report("DSPR", info);
    if (*n == 0 || *alpha == 0.0) return;
    guarded("DSPR", [&] { forms::spr(is(uplo, 'L'), *n, *alpha, start(x, *n, *incx), *incx, ap); });
}

void dsyr2_(const char* uplo, const int* n, const double* alpha, const double* x, const int* incx, const double* y,
            const int* incy, double* a, const int* lda)
{
    int info = 0;
    if (!uplo_ok(uplo))
        info = 1;
    else if (*n < 0)
        info = 2;
    else if (*incx == 0)
        info = 5;
    else if (*incy == 0)
        info = 7;
    else if (*lda < max1(*n))
        info = 9;
    if (info != 0) return report("DSYR2", info);
    if (*n == 0 || *alpha == 0.0) return;
    guarded("DSYR2", [&] {
        forms::syr2(is(uplo, 'L'), *n, *alpha, start(x, *n, *incx), *incx, start(y, *n, *incy), *incy, a, *lda);
    });
}

void dspr2_(const char* uplo, const int* n, const double* alpha, const double* x, const int* incx, const double* y,
            const int* incy, double* ap)
{
    int info = 0;
    if (!uplo_ok(uplo))
        info = 1;
    else if (*n < 0)
        info = 2;
    else if (*incx == 0)
        info = 5;
    else if (*incy == 0)
        info = 7;
    if (info != 0) return report("DSPR2", info);
    if (*n == 0 || *alpha == 0.0) return;
    guarded("DSPR2", [&] {
        forms::spr2(is(uplo, 'L'), *n, *alpha, start(x, *n, *incx), *incx, start(y, *n, *incy), *incy, ap);
    });
}

// --- level 3 -----------------------------------------------------------------------

void dgemm_(const char* transa, const char* transb, const int* m, const int* n, const int* k, const double* alpha,
            const double* a, const int* lda, const double* b, const int* ldb, const double* beta, double* c,
            const int* ldc)
{
    const Trans ta = trans_of(transa), tb = trans_of(transb);
    const index_t nrowa = ta == Trans::No ? *m : *k, nrowb = tb == Trans::No ? *k : *n;
    int info = 0;
    if (!trans_ok(transa))
        info = 1;
    else if (!trans_ok(transb))
        info = 2;
    else if (*m < 0)
        info = 3;
    else if (*n < 0)
        info = 4;
    else if (*k < 0)
        info = 5;
    else if (*lda < max1(nrowa))
        info = 8;
    else if (*ldb < max1(nrowb))
        info = 10;
    else if (*ldc < max1(*m))
        info = 13;
    if (info != 0) return report("DGEMM", info);
    if (*m == 0 || *n == 0 || ((*alpha == 0.0 || *k == 0) && *beta == 1.0)) return;
    if (*alpha == 0.0 || *k == 0) return forms::scale_matrix(Part::All, *m, *n, *beta, c, *ldc);
    guarded("DGEMM", [&] {
        exact().gemm(ta, tb, *alpha, mat(a, nrowa, ta == Trans::No ? *k : *m, *lda),
                     mat(b, nrowb, tb == Trans::No ? *n : *k, *ldb), *beta, mat(c, *m, *n, *ldc));
    });
}

void dsymm_(const char* side, const char* uplo, const int* m, const int* n, const double* alpha, const double* a,
            const int* lda, const double* b, const int* ldb, const double* beta, double* c, const int* ldc)
{
    const bool left = is(side, 'L');
    const index_t nrowa = left ? *m : *n;
    int info = 0;
    if (!side_ok(side))
        info = 1;
    else if (!uplo_ok(uplo))
        info = 2;
    else if (*m < 0)
        info = 3;
    else if (*n < 0)
        info = 4;
    else if (*lda < max1(nrowa))
        info = 7;
    else if (*ldb < max1(*m))
        info = 9;
    else if (*ldc < max1(*m))
        info = 12;
    if (info != 0) return report("DSYMM", info);
    if (*m == 0 || *n == 0 || (*alpha == 0.0 && *beta == 1.0)) return;
    if (*alpha == 0.0) return forms::scale_matrix(Part::All, *m, *n, *beta, c, *ldc);
    guarded("DSYMM",
            [&] { forms::symm(exact(), left, is(uplo, 'L'), *m, *n, *alpha, a, *lda, b, *ldb, *beta, c, *ldc); });
}

void dsyrk_(const char* uplo, const char* trans, const int* n, const int* k, const double* alpha, const double* a,
            const int* lda, const double* beta, double* c, const int* ldc)
{
    const Trans t = trans_of(trans);
    const index_t nrowa = t == Trans::No ? *n : *k;
    int info = 0;
    if (!uplo_ok(uplo))
        info = 1;
    else if (!trans_ok(trans))
        info = 2;
    else if (*n < 0)
        info = 3;
    else if (*k < 0)
        info = 4;
    else if (*lda < max1(nrowa))
        info = 7;
    else if (*ldc < max1(*n))
        info = 10;
    if (info != 0) return report("DSYRK", info);
    if (*n == 0 || ((*alpha == 0.0 || *k == 0) && *beta == 1.0)) return;
    const Part part = is(uplo, 'L') ? Part::Lower : Part::Upper;
    if (*alpha == 0.0 || *k == 0) return forms::scale_matrix(part, *n, *n, *beta, c, *ldc);
    guarded("DSYRK", [&] {
        exact().syrk(uplo_of(uplo), t, *alpha, mat(a, nrowa, t == Trans::No ? *k : *n, *lda), *beta,
                     mat(c, *n, *n, *ldc));
    });
}

void dsyr2k_(const char* uplo, const char* trans, const int* n, const int* k, const double* alpha, const double* a,
             const int* lda, const double* b, const int* ldb, const double* beta, double* c, const int* ldc)
{
    const bool t = !is(trans, 'N');
    const index_t nrowa = t ? *k : *n;
    int info = 0;
    if (!uplo_ok(uplo))
        info = 1;
    else if (!trans_ok(trans))
        info = 2;
    else if (*n < 0)
        info = 3;
    else if (*k < 0)
        info = 4;
    else if (*lda < max1(nrowa))
        info = 7;
    else if (*ldb < max1(nrowa))
        info = 9;
    else if (*ldc < max1(*n))
        info = 12;
    if (info != 0) return report("DSYR2K", info);
    if (*n == 0 || ((*alpha == 0.0 || *k == 0) && *beta == 1.0)) return;
    const Part part = is(uplo, 'L') ? Part::Lower : Part::Upper;
    if (*alpha == 0.0 || *k == 0) return forms::scale_matrix(part, *n, *n, *beta, c, *ldc);
    guarded("DSYR2K",
            [&] { forms::syr2k(exact(), is(uplo, 'L'), t, *n, *k, *alpha, a, *lda, b, *ldb, *beta, c, *ldc); });
}

namespace {
// SIDE, UPLO, TRANSA, DIAG, M, N, LDA, LDB as dtrmm and dtrsm check them.
int trmm_info(const char* side, const char* uplo, const char* transa, const char* diag, const int* m, const int* n,
              const int* lda, const int* ldb)
{
    const index_t nrowa = is(side, 'L') ? *m : *n;
    if (!side_ok(side)) return 1;
    if (!uplo_ok(uplo)) return 2;
    if (!trans_ok(transa)) return 3;
    if (!diag_ok(diag)) return 4;
    if (*m < 0) return 5;
    if (*n < 0) return 6;
    if (*lda < max1(nrowa)) return 9;
    if (*ldb < max1(*m)) return 11;
    return 0;
}
} // namespace

void dtrmm_(const char* side, const char* uplo, const char* transa, const char* diag, const int* m, const int* n,
            const double* alpha, const double* a, const int* lda, double* b, const int* ldb)
{
    if (const int info = trmm_info(side, uplo, transa, diag, m, n, lda, ldb); info != 0) return report("DTRMM", info);
    if (*m == 0 || *n == 0) return;
    if (*alpha == 0.0) return forms::scale_matrix(Part::All, *m, *n, 0.0, b, *ldb);
    const bool left = is(side, 'L');
    const index_t na = left ? *m : *n;
    guarded("DTRMM", [&] {
        exact().trmm(left ? Side::Left : Side::Right, uplo_of(uplo), trans_of(transa), diag_of(diag), *alpha,
                     mat(a, na, na, *lda), mat(b, *m, *n, *ldb));
    });
}

void dtrsm_(const char* side, const char* uplo, const char* transa, const char* diag, const int* m, const int* n,
            const double* alpha, const double* a, const int* lda, double* b, const int* ldb)
{
    if (const int info = trmm_info(side, uplo, transa, diag, m, n, lda, ldb); info != 0) return report("DTRSM", info);
    if (*m == 0 || *n == 0) return;
    if (*alpha == 0.0) return forms::scale_matrix(Part::All, *m, *n, 0.0, b, *ldb);
    const bool left = is(side, 'L');
    const index_t na = left ? *m : *n;
    guarded("DTRSM", [&] {
        exact().trsm(left ? Side::Left : Side::Right, uplo_of(uplo), trans_of(transa), diag_of(diag), *alpha,
                     mat(a, na, na, *lda), mat(b, *m, *n, *ldb));
    });
}

} // extern "C"
