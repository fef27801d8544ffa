// The dimension checks every backend shares (blas/blas.hpp, namespace check): a file
// of their own so that a consumer of one backend alone (blas_abi/, the exact
// backend behind libblas.so.3) links them without the backend registry.
#include <string>

#include "blas/blas.hpp"

namespace flamex {

namespace check {
namespace {
std::string dims(Obj A) { return std::to_string(A.length()) + "x" + std::to_string(A.width()); }
[[noreturn]] void fail(const char* op, const std::string& what) { throw Error(std::string(op) + ": " + what); }
dim_t rows_of(Trans t, Obj A) { return t == Trans::No ? A.length() : A.width(); }
dim_t cols_of(Trans t, Obj A) { return t == Trans::No ? A.width() : A.length(); }
} // namespace

void vector(const char* op, Obj x)
{
    if (!x.is_vector()) fail(op, "expected a vector, got a " + dims(x) + " matrix");
}

void same_length(const char* op, Obj x, Obj y)
{
    vector(op, x);
    vector(op, y);
    if (x.vector_length() != y.vector_length())
        fail(op, "vector lengths differ (" + std::to_string(x.vector_length()) + " and " +
                     std::to_string(y.vector_length()) + ")");
}

void scalar(const char* op, Obj rho)
{
    if (rho.length() != 1 || rho.width() != 1) fail(op, "expected a 1x1 scalar, got " + dims(rho));
}

void gemv(const char* op, Trans trans, Obj A, Obj x, Obj y)
{
    vector(op, x);
    vector(op, y);
    if (x.vector_length() != cols_of(trans, A) || y.vector_length() != rows_of(trans, A))
        fail(op, "op(A) is " + std::to_string(rows_of(trans, A)) + "x" + std::to_string(cols_of(trans, A)) +
                     " but x has " + std::to_string(x.vector_length()) + " and y " +
                     std::to_string(y.vector_length()) + " elements");
}

void trsv(const char* op, Obj T, Obj x)
{
    vector(op, x);
    if (T.length() != T.width()) fail(op, "triangular matrix is " + dims(T) + ", not square");
    if (x.vector_length() != T.length())
        fail(op, "T is " + dims(T) + " but x has " + std::to_string(x.vector_length()) + " elements");
}

void ger(const char* op, Obj x, Obj y, Obj A)
{
    vector(op, x);
    vector(op, y);
    if (x.vector_length() != A.length() || y.vector_length() != A.width())
        fail(op, "A is " + dims(A) + " but x has " + std::to_string(x.vector_length()) + " and y " +
                     std::to_string(y.vector_length()) + " elements");
}

void gemm(const char* op, Trans transa, Trans transb, Obj A, Obj B, Obj C)
{
    if (rows_of(transa, A) != C.length() || cols_of(transb, B) != C.width() || cols_of(transa, A) != rows_of(transb, B))
        fail(op, "op(A) " + std::to_string(rows_of(transa, A)) + "x" + std::to_string(cols_of(transa, A)) +
                     ", op(B) " + std::to_string(rows_of(transb, B)) + "x" + std::to_string(cols_of(transb, B)) +
                     " and C " + dims(C) + " do not conform");
}

void trsm(const char* op, Side side, Obj T, Obj B)
{
    if (T.length() != T.width()) fail(op, "triangular matrix is " + dims(T) + ", not square");
    const dim_t need = side == Side::Left ? B.length() : B.width();
    if (side != Side::Left && side != Side::Right) fail(op, "side must be LEFT or RIGHT");
    if (T.length() != need) fail(op, "T is " + dims(T) + " but B is " + dims(B));
}

void syrk(const char* op, Trans trans, Obj A, Obj C)
{
    if (C.length() != C.width()) fail(op, "C is " + dims(C) + ", not square");
    if (rows_of(trans, A) != C.length())
        fail(op, "op(A) is " + std::to_string(rows_of(trans, A)) + "x" + std::to_string(cols_of(trans, A)) +
                     " but C is " + dims(C));
}

void diagonal(const char* op, Obj D, Obj x)
{
    vector(op, x);
    if (D.length() != D.width()) fail(op, "diagonal matrix D is " + dims(D) + ", not square");
    if (x.vector_length() != D.length())
        fail(op, "D is " + dims(D) + " but x has " + std::to_string(x.vector_length()) + " elements");
}

void diagonal_sign(const char* op, double alpha)
{
    if (alpha != 1.0 && alpha != -1.0) fail(op, "alpha must be 1 or -1, got " + std::to_string(alpha));
}

void pivots(const char* op, PivObj p, Obj A)
{
    if (p.width() != 1 && !p.empty()) fail(op, "pivots must be a column vector");
    if (p.length() > A.length())
        fail(op, std::to_string(p.length()) + " pivots for a matrix of " + std::to_string(A.length()) + " rows");
    for (dim_t i = 0; i < p.length(); ++i)
        if (p(i, 0) < 0 || i + p(i, 0) >= A.length())
            fail(op, "pivot " + std::to_string(i) + " (offset " + std::to_string(p(i, 0)) + ") leaves the matrix");
}
} // namespace check

} // namespace flamex
