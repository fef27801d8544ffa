#include "blas/recording.hpp"

#include <cstdio>

namespace flamex {

namespace {

template <class T>
std::string view(const char* name, View<T> A)
{
    return std::string(name) + "(" + std::to_string(A.offset_m()) + "," + std::to_string(A.offset_n()) + " " +
           std::to_string(A.length()) + "x" + std::to_string(A.width()) + ")";
}

std::string real(double x)
{
    char text[32];
    std::snprintf(text, sizeof text, "%.17g", x);
    return text;
}
const char* flag(Trans t) { return t == Trans::No ? "No" : "Yes"; }
const char* flag(Uplo u) { return u == Uplo::Lower ? "Lower" : "Upper"; }
const char* flag(Diag d) { return d == Diag::Unit ? "Unit" : "NonUnit"; }
const char* flag(Side s) { return s == LEFT ? "Left" : "Right"; }

} // namespace

double RecordingBlas::sum(Obj x) const
{
    record("sum " + view("x", x));
    return inner_.sum(x);
}

double RecordingBlas::dot(Obj x, Obj y) const
{
    record("dot " + view("x", x) + " " + view("y", y));
    return inner_.dot(x, y);
}

void RecordingBlas::dots(double alpha, Obj x, Obj y, double beta, Obj rho) const
{
    record("dots " + real(alpha) + " " + view("x", x) + " " + view("y", y) + " " + real(beta) + " " + view("rho", rho));
    inner_.dots(alpha, x, y, beta, rho);
}

void RecordingBlas::scal(double alpha, Obj x) const
{
    record("scal " + real(alpha) + " " + view("x", x));
    inner_.scal(alpha, x);
}

void RecordingBlas::invscal(double alpha, Obj x) const
{
    record("invscal " + real(alpha) + " " + view("x", x));
    inner_.invscal(alpha, x);
}

void RecordingBlas::axpy(double alpha, Obj x, Obj y) const
{
    record("axpy " + real(alpha) + " " + view("x", x) + " " + view("y", y));
    inner_.axpy(alpha, x, y);
}

void RecordingBlas::copy(Obj x, Obj y) const
{
    record("copy " + view("x", x) + " " + view("y", y));
    inner_.copy(x, y);
}

void RecordingBlas::gemv(Trans trans, double alpha, Obj A, Obj x, double beta, Obj y) const
{
    record(std::string("gemv ") + flag(trans) + " " + real(alpha) + " " + view("A", A) + " " + view("x", x) + " " +
           real(beta) + " " + view("y", y));
    inner_.gemv(trans, alpha, A, x, beta, y);
}

void RecordingBlas::trsv(Uplo uplo, Trans trans, Diag diag, Obj T, Obj x) const
{
    record(std::string("trsv ") + flag(uplo) + " " + flag(trans) + " " + flag(diag) + " " + view("T", T) + " " +
           view("x", x));
    inner_.trsv(uplo, trans, diag, T, x);
}

void RecordingBlas::ger(double alpha, Obj x, Obj y, Obj A) const
{
    record("ger " + real(alpha) + " " + view("x", x) + " " + view("y", y) + " " + view("A", A));
    inner_.ger(alpha, x, y, A);
}

void RecordingBlas::gemm(Trans transa, Trans transb, double alpha, Obj A, Obj B, double beta, Obj C) const
{
    record(std::string("gemm ") + flag(transa) + " " + flag(transb) + " " + real(alpha) + " " + view("A", A) + " " +
           view("B", B) + " " + real(beta) + " " + view("C", C));
    inner_.gemm(transa, transb, alpha, A, B, beta, C);
}

void RecordingBlas::trsm(Side side, Uplo uplo, Trans trans, Diag diag, double alpha, Obj T, Obj B) const
{
    record(std::string("trsm ") + flag(side) + " " + flag(uplo) + " " + flag(trans) + " " + flag(diag) + " " +
           real(alpha) + " " + view("T", T) + " " + view("B", B));
    inner_.trsm(side, uplo, trans, diag, alpha, T, B);
}

void RecordingBlas::syrk(Uplo uplo, Trans trans, double alpha, Obj A, double beta, Obj C) const
{
    record(std::string("syrk ") + flag(uplo) + " " + flag(trans) + " " + real(alpha) + " " + view("A", A) + " " +
           real(beta) + " " + view("C", C));
    inner_.syrk(uplo, trans, alpha, A, beta, C);
}

void RecordingBlas::trmv(Uplo uplo, Trans trans, Diag diag, Obj T, Obj x) const
{
    record(std::string("trmv ") + flag(uplo) + " " + flag(trans) + " " + flag(diag) + " " + view("T", T) + " " +
           view("x", x));
    inner_.trmv(uplo, trans, diag, T, x);
}

void RecordingBlas::trmm(Side side, Uplo uplo, Trans trans, Diag diag, double alpha, Obj T, Obj B) const
{
    record(std::string("trmm ") + flag(side) + " " + flag(uplo) + " " + flag(trans) + " " + flag(diag) + " " +
           real(alpha) + " " + view("T", T) + " " + view("B", B));
    inner_.trmm(side, uplo, trans, diag, alpha, T, B);
}

void RecordingBlas::diag_invscal(Obj D, Obj x) const
{
    record("diag_invscal " + view("D", D) + " " + view("x", x));
    inner_.diag_invscal(D, x);
}

void RecordingBlas::diag_dots(double alpha, Obj x, Obj D, Obj y, double beta, Obj rho) const
{
    record("diag_dots " + real(alpha) + " " + view("x", x) + " " + view("D", D) + " " + view("y", y) + " " +
           real(beta) + " " + view("rho", rho));
    inner_.diag_dots(alpha, x, D, y, beta, rho);
}

void RecordingBlas::diag_gemv(double alpha, Obj A, Obj D, Obj x, double beta, Obj y) const
{
    record("diag_gemv " + real(alpha) + " " + view("A", A) + " " + view("D", D) + " " + view("x", x) + " " +
           real(beta) + " " + view("y", y));
    inner_.diag_gemv(alpha, A, D, x, beta, y);
}

void RecordingBlas::sqrt(Obj alpha) const
{
    record("sqrt " + view("alpha", alpha));
    inner_.sqrt(alpha);
}

void RecordingBlas::reciprocal(Obj alpha) const
{
    record("reciprocal " + view("alpha", alpha));
    inner_.reciprocal(alpha);
}

void RecordingBlas::gemm_ordered(Obj A, Obj B, Obj C) const
{
    record("gemm_ordered " + view("A", A) + " " + view("B", B) + " " + view("C", C));
    inner_.gemm_ordered(A, B, C);
}

void RecordingBlas::trsm_ordered(Diag diag, Obj L, Obj B) const
{
    record(std::string("trsm_ordered ") + flag(diag) + " " + view("L", L) + " " + view("B", B));
    inner_.trsm_ordered(diag, L, B);
}

dim_t RecordingBlas::iamax(Obj x) const
{
    record("iamax " + view("x", x));
    return inner_.iamax(x);
}

void RecordingBlas::apply_pivots(PivObj p, Obj A) const
{
    record("apply_pivots " + view("p", p) + " " + view("A", A));
    inner_.apply_pivots(p, A);
}

double RecordingBlas::element(Obj A, dim_t i, dim_t j) const
{
    record("element " + view("A", A) + " " + std::to_string(i) + " " + std::to_string(j));
    return inner_.element(A, i, j);
}

} // namespace flamex
