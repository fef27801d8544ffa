// The CBLAS entry points of the real double routines: each is the Fortran routine
// of fortran.cpp on the column-major view of its operands (a row-major matrix is
// its transpose, column-major: transposes, uplo and side flip, m and n swap).
// An order that is neither is reported through cblas_xerbla (parameter 1); the
// other arguments are checked by the Fortran routine (xerbla_, its positions).
#include <cstdarg>
#include <cstdio>
#include <cstdlib>

#include "blas_abi/abi.hpp"

extern "C" {
// cblas.h's enumerations, by value.
enum { RowMajor = 101, ColMajor = 102 };
enum { NoTrans = 111, TransT = 112, ConjTrans = 113 };
enum { Upper = 121, Lower = 122 };
enum { NonUnit = 131, Unit = 132 };
enum { Left = 141, Right = 142 };

int CBLAS_CallFromC = 0;
int RowMajorStrg = 0;

__attribute__((weak)) void cblas_xerbla(int p, const char* rout, const char* form, ...)
{
    std::fprintf(stderr, "Parameter %d to routine %s was incorrect\n", p, rout);
    va_list args;
    va_start(args, form);
    std::vfprintf(stderr, form, args);
    va_end(args);
    std::exit(-1);
}

double ddot_(const int*, const double*, const int*, const double*, const int*);
double dsdot_(const int*, const float*, const int*, const float*, const int*);
double dasum_(const int*, const double*, const int*);
double dnrm2_(const int*, const double*, const int*);
int idamax_(const int*, const double*, const int*);
void daxpy_(const int*, const double*, const double*, const int*, double*, const int*);
void dscal_(const int*, const double*, double*, const int*);
void dcopy_(const int*, const double*, const int*, double*, const int*);
void dswap_(const int*, double*, const int*, double*, const int*);
void drot_(const int*, double*, const int*, double*, const int*, const double*, const double*);
void dgemv_(const char*, const int*, const int*, const double*, const double*, const int*, const double*, const int*,
            const double*, double*, const int*);
void dgbmv_(const char*, const int*, const int*, const int*, const int*, const double*, const double*, const int*,
            const double*, const int*, const double*, double*, const int*);
void dsymv_(const char*, const int*, const double*, const double*, const int*, const double*, const int*, const double*,
            double*, const int*);
void dsbmv_(const char*, const int*, const int*, const double*, const double*, const int*, const double*, const int*,
            const double*, double*, const int*);
void dspmv_(const char*, const int*, const double*, const double*, const double*, const int*, const double*, double*,
            const int*);
void dtrmv_(const char*, const char*, const char*, const int*, const double*, const int*, double*, const int*);
void dtrsv_(const char*, const char*, const char*, const int*, const double*, const int*, double*, const int*);
void dtbmv_(const char*, const char*, const char*, const int*, const int*, const double*, const int*, double*,
            const int*);
void dtbsv_(const char*, const char*, const char*, const int*, const int*, const double*, const int*, double*,
            const int*);
void dtpmv_(const char*, const char*, const char*, const int*, const double*, double*, const int*);
void dtpsv_(const char*, const char*, const char*, const int*, const double*, double*, const int*);
void dger_(const int*, const int*, const double*, const double*, const int*, const double*, const int*, double*,
           const int*);
void dsyr_(const char*, const int*, const double*, const double*, const int*, double*, const int*);
void dspr_(const char*, const int*, const double*, const double*, const int*, double*);
void dsyr2_(const char*, const int*, const double*, const double*, const int*, const double*, const int*, double*,
            const int*);
void dspr2_(const char*, const int*, const double*, const double*, const int*, const double*, const int*, double*);
void dgemm_(const char*, const char*, const int*, const int*, const int*, const double*, const double*, const int*,
            const double*, const int*, const double*, double*, const int*);
void dsymm_(const char*, const char*, const int*, const int*, const double*, const double*, const int*, const double*,
            const int*, const double*, double*, const int*);
void dsyrk_(const char*, const char*, const int*, const int*, const double*, const double*, const int*, const double*,
            double*, const int*);
void dsyr2k_(const char*, const char*, const int*, const int*, const double*, const double*, const int*, const double*,
             const int*, const double*, double*, const int*);
void dtrmm_(const char*, const char*, const char*, const char*, const int*, const int*, const double*, const double*,
            const int*, double*, const int*);
void dtrsm_(const char*, const char*, const char*, const char*, const int*, const int*, const double*, const double*,
            const int*, double*, const int*);
}

namespace {
// The Fortran letter of an enumeration value; with `flip`, the transposed
// meaning (row-major); an invalid value gives a letter the Fortran check rejects.
const char* trans_letter(int t, bool flip)
{
    if (t == NoTrans) return flip ? "T" : "N";
    if (t == TransT || t == ConjTrans) return flip ? "N" : "T";
    return "X";
}
const char* uplo_letter(int u, bool flip)
{
    if (u == Upper) return flip ? "L" : "U";
    if (u == Lower) return flip ? "U" : "L";
    return "X";
}
const char* side_letter(int s, bool flip)
{
    if (s == Left) return flip ? "R" : "L";
    if (s == Right) return flip ? "L" : "R";
    return "X";
}
const char* diag_letter(int d)
{
    if (d == NonUnit) return "N";
    if (d == Unit) return "U";
    return "X";
}
// Whether the order is valid (else reported: parameter 1).
bool order_ok(int order, const char* name)
{
    if (order == RowMajor || order == ColMajor) return true;
    cblas_xerbla(1, name, "Illegal Order setting, %d\n", order);
    return false;
}
} // namespace

extern "C" {

double cblas_ddot(int n, const double* x, int incx, const double* y, int incy) { return ddot_(&n, x, &incx, y, &incy); }
double cblas_dsdot(int n, const float* x, int incx, const float* y, int incy) { return dsdot_(&n, x, &incx, y, &incy); }
double cblas_dasum(int n, const double* x, int incx) { return dasum_(&n, x, &incx); }
double cblas_dnrm2(int n, const double* x, int incx) { return dnrm2_(&n, x, &incx); }
std::size_t cblas_idamax(int n, const double* x, int incx)
{
    const int i = idamax_(&n, x, &incx);
    return i > 0 ? static_cast<std::size_t>(i - 1) : 0; // CBLAS: 0-based
}
void cblas_daxpy(int n, double alpha, const double* x, int incx, double* y, int incy)
{
    daxpy_(&n, &alpha, x, &incx, y, &incy);
}
void cblas_dscal(int n, double alpha, double* x, int incx) { dscal_(&n, &alpha, x, &incx); }
void cblas_dcopy(int n, const double* x, int incx, double* y, int incy) { dcopy_(&n, x, &incx, y, &incy); }
void cblas_dswap(int n, double* x, int incx, double* y, int incy) { dswap_(&n, x, &incx, y, &incy); }
void cblas_drot(int n, double* x, int incx, double* y, int incy, double c, double s)
{
    drot_(&n, x, &incx, y, &incy, &c, &s);
}

void cblas_dgemv(int order, int trans, int m, int n, double alpha, const double* a, int lda, const double* x, int incx,
                 double beta, double* y, int incy)
{
    if (!order_ok(order, "cblas_dgemv")) return;
    if (order == ColMajor)
        dgemv_(trans_letter(trans, false), &m, &n, &alpha, a, &lda, x, &incx, &beta, y, &incy);
    else
        dgemv_(trans_letter(trans, true), &n, &m, &alpha, a, &lda, x, &incx, &beta, y, &incy);
}

void cblas_dgbmv(int order, int trans, int m, int n, int kl, int ku, double alpha, const double* a, int lda,
                 const double* x, int incx, double beta, double* y, int incy)
{
    if (!order_ok(order, "cblas_dgbmv")) return;
    if (order == ColMajor)
        dgbmv_(trans_letter(trans, false), &m, &n, &kl, &ku, &alpha, a, &lda, x, &incx, &beta, y, &incy);
    else
        dgbmv_(trans_letter(trans, true), &n, &m, &ku, &kl, &alpha, a, &lda, x, &incx, &beta, y, &incy);
}

void cblas_dsymv(int order, int uplo, int n, double alpha, const double* a, int lda, const double* x, int incx,
                 double beta, double* y, int incy)
{
    if (!order_ok(order, "cblas_dsymv")) return;
    dsymv_(uplo_letter(uplo, order == RowMajor), &n, &alpha, a, &lda, x, &incx, &beta, y, &incy);
}

void cblas_dsbmv(int order, int uplo, int n, int k, double alpha, const double* a, int lda, const double* x, int incx,
                 double beta, double* y, int incy)
{
    if (!order_ok(order, "cblas_dsbmv")) return;
    dsbmv_(uplo_letter(uplo, order == RowMajor), &n, &k, &alpha, a, &lda, x, &incx, &beta, y, &incy);
}

void cblas_dspmv(int order, int uplo, int n, double alpha, const double* ap, const double* x, int incx, double beta,
                 double* y, int incy)
{
    if (!order_ok(order, "cblas_dspmv")) return;
    dspmv_(uplo_letter(uplo, order == RowMajor), &n, &alpha, ap, x, &incx, &beta, y, &incy);
}

void cblas_dtrmv(int order, int uplo, int trans, int diag, int n, const double* a, int lda, double* x, int incx)
{
    if (!order_ok(order, "cblas_dtrmv")) return;
    const bool r = order == RowMajor;
    dtrmv_(uplo_letter(uplo, r), trans_letter(trans, r), diag_letter(diag), &n, a, &lda, x, &incx);
}

void cblas_dtrsv(int order, int uplo, int trans, int diag, int n, const double* a, int lda, double* x, int incx)
{
    if (!order_ok(order, "cblas_dtrsv")) return;
    const bool r = order == RowMajor;
    dtrsv_(uplo_letter(uplo, r), trans_letter(trans, r), diag_letter(diag), &n, a, &lda, x, &incx);
}

void cblas_dtbmv(int order, int uplo, int trans, int diag, int n, int k, const double* a, int lda, double* x, int incx)
{
    if (!order_ok(order, "cblas_dtbmv")) return;
    const bool r = order == RowMajor;
    dtbmv_(uplo_letter(uplo, r), trans_letter(trans, r), diag_letter(diag), &n, &k, a, &lda, x, &incx);
}

void cblas_dtbsv(int order, int uplo, int trans, int diag, int n, int k, const double* a, int lda, double* x, int incx)
{
    if (!order_ok(order, "cblas_dtbsv")) return;
    const bool r = order == RowMajor;
    dtbsv_(uplo_letter(uplo, r), trans_letter(trans, r), diag_letter(diag), &n, &k, a, &lda, x, &incx);
}

void cblas_dtpmv(int order, int uplo, int trans, int diag, int n, const double* ap, double* x, int incx)
{
    if (!order_ok(order, "cblas_dtpmv")) return;
    const bool r = order == RowMajor;
    dtpmv_(uplo_letter(uplo, r), trans_letter(trans, r), diag_letter(diag), &n, ap, x, &incx);
}

void cblas_dtpsv(int order, int uplo, int trans, int diag, int n, const double* ap, double* x, int incx)
{
    if (!order_ok(order, "cblas_dtpsv")) return;
    const bool r = order == RowMajor;
    dtpsv_(uplo_letter(uplo, r), trans_letter(trans, r), diag_letter(diag), &n, ap, x, &incx);
}

void cblas_dger(int order, int m, int n, double alpha, const double* x, int incx, const double* y, int incy, double* a,
                int lda)
{
    if (!order_ok(order, "cblas_dger")) return;
    if (order == ColMajor)
        dger_(&m, &n, &alpha, x, &incx, y, &incy, a, &lda);
    else
        dger_(&n, &m, &alpha, y, &incy, x, &incx, a, &lda);
}

void cblas_dsyr(int order, int uplo, int n, double alpha, const double* x, int incx, double* a, int lda)
{
    if (!order_ok(order, "cblas_dsyr")) return;
    dsyr_(uplo_letter(uplo, order == RowMajor), &n, &alpha, x, &incx, a, &lda);
}

void cblas_dspr(int order, int uplo, int n, double alpha, const double* x, int incx, double* ap)
{
    if (!order_ok(order, "cblas_dspr")) return;
    dspr_(uplo_letter(uplo, order == RowMajor), &n, &alpha, x, &incx, ap);
}

void cblas_dsyr2(int order, int uplo, int n, double alpha, const double* x, int incx, const double* y, int incy,
                 double* a, int lda)
{
    if (!order_ok(order, "cblas_dsyr2")) return;
    dsyr2_(uplo_letter(uplo, order == RowMajor), &n, &alpha, x, &incx, y, &incy, a, &lda);
}

void cblas_dspr2(int order, int uplo, int n, double alpha, const double* x, int incx, const double* y, int incy,
                 double* ap)
{
    if (!order_ok(order, "cblas_dspr2")) return;
    dspr2_(uplo_letter(uplo, order == RowMajor), &n, &alpha, x, &incx, y, &incy, ap);
}

void cblas_dgemm(int order, int transa, int transb, int m, int n, int k, double alpha, const double* a, int lda,
                 const double* b, int ldb, double beta, double* c, int ldc)
{
    if (!order_ok(order, "cblas_dgemm")) return;
    if (order == ColMajor)
        dgemm_(trans_letter(transa, false), trans_letter(transb, false), &m, &n, &k, &alpha, a, &lda, b, &ldb, &beta, c,
               &ldc);
    else
        dgemm_(trans_letter(transb, false), trans_letter(transa, false), &n, &m, &k, &alpha, b, &ldb, a, &lda, &beta, c,
               &ldc);
}

void cblas_dsymm(int order, int side, int uplo, int m, int n, double alpha, const double* a, int lda, const double* b,
                 int ldb, double beta, double* c, int ldc)
{
    if (!order_ok(order, "cblas_dsymm")) return;
    const bool r = order == RowMajor;
    if (!r)
        dsymm_(side_letter(side, false), uplo_letter(uplo, false), &m, &n, &alpha, a, &lda, b, &ldb, &beta, c, &ldc);
    else
        dsymm_(side_letter(side, true), uplo_letter(uplo, true), &n, &m, &alpha, a, &lda, b, &ldb, &beta, c, &ldc);
}

void cblas_dsyrk(int order, int uplo, int trans, int n, int k, double alpha, const double* a, int lda, double beta,
                 double* c, int ldc)
{
    if (!order_ok(order, "cblas_dsyrk")) return;
    const bool r = order == RowMajor;
    dsyrk_(uplo_letter(uplo, r), trans_letter(trans, r), &n, &k, &alpha, a, &lda, &beta, c, &ldc);
}

void cblas_dsyr2k(int order, int uplo, int trans, int n, int k, double alpha, const double* a, int lda, const double* b,
                  int ldb, double beta, double* c, int ldc)
{
    if (!order_ok(order, "cblas_dsyr2k")) return;
    const bool r = order == RowMajor;
    dsyr2k_(uplo_letter(uplo, r), trans_letter(trans, r), &n, &k, &alpha, a, &lda, b, &ldb, &beta, c, &ldc);
}

void cblas_dtrmm(int order, int side, int uplo, int transa, int diag, int m, int n, double alpha, const double* a,
                 int lda, double* b, int ldb)
{
    if (!order_ok(order, "cblas_dtrmm")) return;
    if (order == ColMajor)
        dtrmm_(side_letter(side, false), uplo_letter(uplo, false), trans_letter(transa, false), diag_letter(diag), &m,
               &n, &alpha, a, &lda, b, &ldb);
    else
        dtrmm_(side_letter(side, true), uplo_letter(uplo, true), trans_letter(transa, false), diag_letter(diag), &n, &m,
               &alpha, a, &lda, b, &ldb);
}

void cblas_dtrsm(int order, int side, int uplo, int transa, int diag, int m, int n, double alpha, const double* a,
                 int lda, double* b, int ldb)
{
    if (!order_ok(order, "cblas_dtrsm")) return;
    if (order == ColMajor)
        dtrsm_(side_letter(side, false), uplo_letter(uplo, false), trans_letter(transa, false), diag_letter(diag), &m,
               &n, &alpha, a, &lda, b, &ldb);
    else
        dtrsm_(side_letter(side, true), uplo_letter(uplo, true), trans_letter(transa, false), diag_letter(diag), &n, &m,
               &alpha, a, &lda, b, &ldb);
}

} // extern "C"
