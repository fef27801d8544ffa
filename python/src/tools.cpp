// flamex.gen (seeded ill-conditioned problems, reference/generators.hpp), flamex.mpfr
// (MPFR references, reference/mpfr_reference.hpp) and the Matrix Market and pivot
// file I/O (io/matrix_market.hpp). Matrices come back as Fortran-ordered
// float64 arrays that own the library's buffer (no copy); vectors as 1-D arrays.
#include "bindings.hpp"

#include "reference/generators.hpp"
#include "io/matrix_market.hpp"
#include "reference/mpfr_reference.hpp"

namespace flamex::python {

namespace {

py::object vector_out(Matrix&& v) { return to_numpy(std::move(v)).attr("reshape")(-1, py::arg("order") = "F"); }

#define FLAMEX_NOGIL py::gil_scoped_release nogil

void bind_gen(py::module_& gen)
{
    gen.def("dot", [](dim_t n, double cond, std::uint64_t seed) {
        gen::DotProblem p;
        {
            FLAMEX_NOGIL;
            p = gen::dot(n, cond, seed);
        }
        return py::make_tuple(vector_out(std::move(p.x)), vector_out(std::move(p.y)));
    }, py::arg("n"), py::arg("cond"), py::arg("seed") = 0,
       R"(An ill-conditioned dot product (Ogita, Rump and Oishi's GenDot).

Parameters
----------
n : int
    The vectors' length.
cond : float
    The condition number aimed at.
seed : int, optional
    The generator's seed (default 0); the same seed gives the same bits.

Returns
-------
x, y : numpy.ndarray, shape (n,)
    With cond_dot = 2 sum |x_i y_i| / |x^T y| near cond.

Raises
------
flamex.Error
    Sizes or a condition number out of range (a ValueError).)");
    gen.def("gemv", [](dim_t m, dim_t n, double cond, std::uint64_t seed, bool all_rows) {
        gen::GemvProblem p;
        {
            FLAMEX_NOGIL;
            p = gen::gemv(m, n, cond, seed, all_rows ? gen::GemvStyle::AllRows : gen::GemvStyle::OneIllRow);
        }
        return py::make_tuple(to_numpy(std::move(p.A)), vector_out(std::move(p.x)));
    }, py::arg("m"), py::arg("n"), py::arg("cond"), py::arg("seed") = 0, py::arg("all_rows") = false,
       R"(An ill-conditioned matrix-vector product.

Parameters
----------
m : int
    A's rows.
n : int
    A's columns.
cond : float
    The condition number aimed at.
seed : int, optional
    The generator's seed (default 0); the same seed gives the same bits.
all_rows : bool, optional
    Every row ill-conditioned (default: one row).

Returns
-------
A : numpy.ndarray, shape (m, n)
    Fortran-ordered.
x : numpy.ndarray, shape (n,)
    With cond_gemv = || |A| |x| ||_inf / ||A x||_inf near cond.

Raises
------
flamex.Error
    Sizes or a condition number out of range (a ValueError).)");
    gen.def("trsv", [](dim_t n, double cond, std::uint64_t seed, Uplo uplo, Diag diag) {
        gen::TrsvProblem p;
        {
            FLAMEX_NOGIL;
            p = gen::trsv(n, cond, seed, uplo, diag);
        }
        return py::make_tuple(to_numpy(std::move(p.T)), vector_out(std::move(p.b)));
    }, py::arg("n"), py::arg("cond"), py::arg("seed") = 0, py::arg("uplo") = Uplo::Lower, py::arg("diag") = Diag::NonUnit,
       R"(An ill-conditioned triangular system.

Parameters
----------
n : int
    The order.
cond : float
    The condition number aimed at.
seed : int, optional
    The generator's seed (default 0); the same seed gives the same bits.
uplo : flamex.Uplo, optional
    LOWER (default) or UPPER: the triangle of T.
diag : flamex.Diag, optional
    NONUNIT (default) or UNIT.

Returns
-------
T : numpy.ndarray, shape (n, n)
    The triangular matrix.
b : numpy.ndarray, shape (n,)
    The right-hand side; Skeel's cond(T, x) is near cond.

Raises
------
flamex.Error
    Sizes or a condition number out of range (a ValueError).)");
    gen.def("lu", [](dim_t n, double cond, std::uint64_t seed) {
        Matrix A;
        {
            FLAMEX_NOGIL;
            A = gen::lu_matrix(n, cond, seed);
        }
        return to_numpy(std::move(A));
    }, py::arg("n"), py::arg("cond"), py::arg("seed") = 0, R"(A dense matrix for LU with a given condition number.

Parameters
----------
n : int
    The order.
cond : float
    The condition number aimed at.
seed : int, optional
    The generator's seed (default 0); the same seed gives the same bits.

Returns
-------
numpy.ndarray, shape (n, n)
    A, Fortran-ordered, with kappa_inf(A) near cond.

Raises
------
flamex.Error
    Sizes or a condition number out of range (a ValueError).)");
    gen.def("spd", [](dim_t n, double cond, std::uint64_t seed) {
        Matrix A;
        {
            FLAMEX_NOGIL;
            A = gen::spd_matrix(n, cond, seed);
        }
        return to_numpy(std::move(A));
    }, py::arg("n"), py::arg("cond"), py::arg("seed") = 0,
       R"(A symmetric positive definite matrix Q diag(d) Q^T with a given condition number.

Parameters
----------
n : int
    The order.
cond : float
    The condition number aimed at.
seed : int, optional
    The generator's seed (default 0); the same seed gives the same bits.

Returns
-------
numpy.ndarray, shape (n, n)
    A, exactly symmetric, with kappa_2(A) near cond.

Raises
------
flamex.Error
    Sizes or a condition number out of range (a ValueError).)");
    gen.def("uniform_matrix", [](dim_t m, dim_t n, std::uint64_t seed) { return to_numpy(gen::uniform_matrix(m, n, seed)); },
            py::arg("m"), py::arg("n"), py::arg("seed") = 0, R"(A matrix of entries uniform in [-1, 1).

Parameters
----------
m : int
    The rows.
n : int
    The columns.
seed : int, optional
    The generator's seed (default 0); the same seed gives the same bits.

Returns
-------
numpy.ndarray, shape (m, n)
    Fortran-ordered.

Raises
------
flamex.Error
    Sizes or a condition number out of range (a ValueError).)");
    gen.def("diagonally_dominant", [](dim_t n, std::uint64_t seed) { return to_numpy(gen::diagonally_dominant(n, seed)); },
            py::arg("n"), py::arg("seed") = 0, R"(A diagonally dominant matrix: uniform in [-1, 1) plus n on the diagonal.

Parameters
----------
n : int
    The order.
seed : int, optional
    The generator's seed (default 0); the same seed gives the same bits.

Returns
-------
numpy.ndarray, shape (n, n)
    Fortran-ordered.

Raises
------
flamex.Error
    Sizes or a condition number out of range (a ValueError).)");
    gen.def("well_conditioned_lower", [](dim_t n, std::uint64_t seed) { return to_numpy(gen::well_conditioned_lower(n, seed)); },
            py::arg("n"), py::arg("seed") = 0, R"(A well-conditioned lower triangle: uniform / n below the diagonal, +-[1, 2) on it.

Parameters
----------
n : int
    The order.
seed : int, optional
    The generator's seed (default 0); the same seed gives the same bits.

Returns
-------
numpy.ndarray, shape (n, n)
    Fortran-ordered, zeros above the diagonal.

Raises
------
flamex.Error
    Sizes or a condition number out of range (a ValueError).)");
}

void bind_mpfr(py::module_& mp)
{
    // Each reference: inputs converted with the GIL, MPFR without it.
    mp.def("dot", [](py::handle x, py::handle y) {
        const PyObj vx = input_obj(x, "x"), vy = input_obj(y, "y");
        FLAMEX_NOGIL;
        return mpfr_ref::dot(vx.view, vy.view);
    }, py::arg("x"), py::arg("y"), R"(The correctly rounded dot product x^T y (exact in MPFR, one rounding).

Parameters
----------
x : array_like
    A vector.
y : array_like
    A vector of x's length.

Returns
-------
float
    RN(x^T y).

Raises
------
flamex.Error
    Shapes that do not conform (a ValueError).)");
    mp.def("gemv", [](py::handle A, py::handle x) {
        const PyObj vA = input_obj(A, "A"), vx = input_obj(x, "x");
        Matrix y;
        {
            FLAMEX_NOGIL;
            y = mpfr_ref::gemv(vA.view, vx.view);
        }
        return vector_out(std::move(y));
    }, py::arg("A"), py::arg("x"), R"(The correctly rounded product A x, one rounding per component.

Parameters
----------
A : array_like
    The matrix, (m, n).
x : array_like
    A vector of length n.

Returns
-------
numpy.ndarray, shape (m,)
    RN(A x).

Raises
------
flamex.Error
    Shapes that do not conform (a ValueError).)");
    mp.def("norm_inf", [](py::handle A) {
        const PyObj vA = input_obj(A, "A");
        FLAMEX_NOGIL;
        return mpfr_ref::norm_inf(vA.view);
    }, py::arg("A"), R"(The infinity norm ||A||_inf, exact then rounded.

Parameters
----------
A : array_like
    The matrix.

Returns
-------
float
    ||A||_inf.)");
    mp.def("trsv", [](py::handle T, py::handle b, Uplo uplo, Trans trans, Diag diag) {
        const PyObj vT = input_obj(T, "T"), vb = input_obj(b, "b");
        Matrix x;
        {
            FLAMEX_NOGIL;
            x = mpfr_ref::trsv(uplo, trans, diag, vT.view, vb.view);
        }
        return vector_out(std::move(x));
    }, py::arg("T"), py::arg("b"), py::arg("uplo") = Uplo::Lower, py::arg("trans") = Trans::No, py::arg("diag") = Diag::NonUnit,
       R"(The correctly rounded solution of op(T) x = b for a triangular T (validated).

Parameters
----------
T : array_like
    The triangular matrix, (n, n).
b : array_like
    The right-hand side, (n,).
uplo : flamex.Uplo, optional
    LOWER (default) or UPPER: the triangle of T.
trans : flamex.Trans, optional
    NO_TRANSPOSE (default) or TRANSPOSE: op(T).
diag : flamex.Diag, optional
    NONUNIT (default) or UNIT.

Returns
-------
numpy.ndarray, shape (n,)
    x, each component correctly rounded.

Raises
------
flamex.Error
    Shapes that do not conform, or a singular T (a ValueError).)");
    mp.def("solve", [](py::handle A, py::handle b) {
        const PyObj vA = input_obj(A, "A"), vb = input_obj(b, "b");
        Matrix x;
        {
            FLAMEX_NOGIL;
            x = mpfr_ref::solve(vA.view, vb.view);
        }
        return vector_out(std::move(x));
    }, py::arg("A"), py::arg("b"), R"(The correctly rounded solution of A x = b (validated).

Parameters
----------
A : array_like
    The matrix, (n, n).
b : array_like
    The right-hand side, (n,).

Returns
-------
numpy.ndarray, shape (n,)
    x, each component correctly rounded.

Raises
------
flamex.Error
    Shapes that do not conform, or a singular A (a ValueError).)");
    mp.def("cond_dot", [](py::handle x, py::handle y) {
        const PyObj vx = input_obj(x, "x"), vy = input_obj(y, "y");
        FLAMEX_NOGIL;
        return mpfr_ref::cond_dot(vx.view, vy.view);
    }, py::arg("x"), py::arg("y"), R"(The condition number of a dot product, cond_dot = 2 sum |x_i y_i| / |x^T y|.

Parameters
----------
x : array_like
    A vector.
y : array_like
    A vector of x's length.

Returns
-------
float
    cond_dot (inf when x^T y == 0).

Raises
------
flamex.Error
    Shapes that do not conform (a ValueError).)");
    mp.def("cond_gemv", [](py::handle A, py::handle x) {
        const PyObj vA = input_obj(A, "A"), vx = input_obj(x, "x");
        FLAMEX_NOGIL;
        return mpfr_ref::cond_gemv(vA.view, vx.view);
    }, py::arg("A"), py::arg("x"), R"(The condition number of a matrix-vector product, || |A| |x| ||_inf / ||A x||_inf.

Parameters
----------
A : array_like
    The matrix.
x : array_like
    A vector of A's width.

Returns
-------
float
    cond_gemv.

Raises
------
flamex.Error
    Shapes that do not conform (a ValueError).)");
    mp.def("cond_trsv", [](py::handle T, py::handle b, Uplo uplo, Trans trans, Diag diag) {
        const PyObj vT = input_obj(T, "T"), vb = input_obj(b, "b");
        FLAMEX_NOGIL;
        return mpfr_ref::cond_trsv(uplo, trans, diag, vT.view, vb.view);
    }, py::arg("T"), py::arg("b"), py::arg("uplo") = Uplo::Lower, py::arg("trans") = Trans::No, py::arg("diag") = Diag::NonUnit,
       R"(Skeel's condition number cond(T, x) for the exact solution x of op(T) x = b.

Parameters
----------
T : array_like
    The triangular matrix.
b : array_like
    The right-hand side.
uplo : flamex.Uplo, optional
    LOWER (default) or UPPER: the triangle of T.
trans : flamex.Trans, optional
    NO_TRANSPOSE (default) or TRANSPOSE: op(T).
diag : flamex.Diag, optional
    NONUNIT (default) or UNIT.

Returns
-------
float
    cond(T, x).

Raises
------
flamex.Error
    Shapes that do not conform (a ValueError).)");
    mp.def("kappa_inf", [](py::handle A) {
        const PyObj vA = input_obj(A, "A");
        FLAMEX_NOGIL;
        return mpfr_ref::kappa_inf(vA.view);
    }, py::arg("A"), R"(The condition number kappa_inf(A) = ||A||_inf ||A^-1||_inf (the inverse in MPFR).

Parameters
----------
A : array_like
    The square matrix.

Returns
-------
float
    kappa_inf(A).

Raises
------
flamex.Error
    A matrix that is not square, or a singular one (a ValueError).)");
    mp.def("lu_residual", [](py::handle A, py::handle LU, std::vector<int> ipiv) {
        const PyObj vA = input_obj(A, "A"), vLU = input_obj(LU, "LU");
        FLAMEX_NOGIL;
        return mpfr_ref::lu_residual(vA.view, vLU.view, ipiv);
    }, py::arg("A"), py::arg("LU"), py::arg("ipiv"), R"(The residual ||P A - L U||_inf of an LU factorization, exactly.

Parameters
----------
A : array_like
    The matrix factored.
LU : array_like
    The factors, as flamex.lu returns them.
ipiv : sequence of int
    LAPACK's pivots (empty: no pivoting).

Returns
-------
float
    ||P A - L U||_inf, rounded once.

Raises
------
flamex.Error
    Shapes that do not conform (a ValueError).)");
    mp.def("solve_error", [](py::handle x, py::handle A, py::handle b) {
        const PyObj vx = input_obj(x, "x"), vA = input_obj(A, "A"), vb = input_obj(b, "b");
        FLAMEX_NOGIL;
        return mpfr_ref::solve_error(vx.view, vA.view, vb.view);
    }, py::arg("x"), py::arg("A"), py::arg("b"), R"(The relative forward error ||x - x*||_inf / ||x*||_inf against the exact solution x* of A x = b.

Parameters
----------
x : array_like
    The computed solution.
A : array_like
    The matrix.
b : array_like
    The right-hand side.

Returns
-------
float
    The relative error.

Raises
------
flamex.Error
    Shapes that do not conform (a ValueError).)");
    mp.def("dot_error", [](double computed, py::handle x, py::handle y) {
        const PyObj vx = input_obj(x, "x"), vy = input_obj(y, "y");
        FLAMEX_NOGIL;
        return mpfr_ref::dot_error(computed, vx.view, vy.view);
    }, py::arg("computed"), py::arg("x"), py::arg("y"), R"(The relative error |computed - x^T y| / |x^T y| of a dot product, exactly.

Parameters
----------
computed : float
    The computed dot product.
x : array_like
    A vector.
y : array_like
    A vector of x's length.

Returns
-------
float
    The relative error.

Raises
------
flamex.Error
    Shapes that do not conform (a ValueError).)");
    mp.def("gemv_error", [](py::handle y, py::handle A, py::handle x) {
        const PyObj vy = input_obj(y, "y"), vA = input_obj(A, "A"), vx = input_obj(x, "x");
        FLAMEX_NOGIL;
        return mpfr_ref::gemv_error(vy.view, vA.view, vx.view);
    }, py::arg("y"), py::arg("A"), py::arg("x"), R"(The relative error ||y - A x||_inf / ||A x||_inf of a computed product, against the exact A x.

Parameters
----------
y : array_like
    The computed product.
A : array_like
    The matrix.
x : array_like
    The vector.

Returns
-------
float
    The relative error.

Raises
------
flamex.Error
    Shapes that do not conform (a ValueError).)");
    mp.def("trsv_error", [](py::handle x, py::handle T, py::handle b, Uplo uplo, Trans trans, Diag diag) {
        const PyObj vx = input_obj(x, "x"), vT = input_obj(T, "T"), vb = input_obj(b, "b");
        FLAMEX_NOGIL;
        return mpfr_ref::trsv_error(vx.view, uplo, trans, diag, vT.view, vb.view);
    }, py::arg("x"), py::arg("T"), py::arg("b"), py::arg("uplo") = Uplo::Lower, py::arg("trans") = Trans::No,
       py::arg("diag") = Diag::NonUnit, R"(The relative forward error of a computed solution of op(T) x = b.

Parameters
----------
x : array_like
    The computed solution.
T : array_like
    The triangular matrix.
b : array_like
    The right-hand side.
uplo : flamex.Uplo, optional
    LOWER (default) or UPPER: the triangle of T.
trans : flamex.Trans, optional
    NO_TRANSPOSE (default) or TRANSPOSE: op(T).
diag : flamex.Diag, optional
    NONUNIT (default) or UNIT.

Returns
-------
float
    ||x - x*||_inf / ||x*||_inf.

Raises
------
flamex.Error
    Shapes that do not conform (a ValueError).)");
}

void bind_io(py::module_& m)
{
    m.def("read_matrix_market", [](const std::string& path) {
        Matrix A;
        {
            FLAMEX_NOGIL;
            A = io::read_matrix_market(path);
        }
        return to_numpy(std::move(A));
    }, py::arg("path"),
       R"(Read a Matrix Market file as a dense matrix.

Parameters
----------
path : str
    The file: array or coordinate; real, integer or pattern; general, symmetric or skew-symmetric.

Returns
-------
numpy.ndarray
    Fortran-ordered float64.

Raises
------
flamex.Error
    A file that cannot be read or parsed; the message names the file and line.)");
    m.def("write_matrix_market", [](const std::string& path, py::handle A, const std::string& comment) {
        const PyObj vA = input_obj(A, "A");
        if (py::cast<py::array>(vA.keep).ndim() == 1 && !py::isinstance<PyObj>(A))
            throw LayoutError("write_matrix_market: A must be 2-D (reshape a vector to (n, 1))");
        FLAMEX_NOGIL;
        io::write_matrix_market(path, vA.view, comment);
    }, py::arg("path"), py::arg("A"), py::arg("comment") = "",
       R"(Write a matrix as a Matrix Market array file ('%%MatrixMarket matrix array real general', 17 significant digits).

Parameters
----------
path : str
    The file written.
A : array_like, shape (m, n)
    The matrix (a vector must be reshaped to (n, 1)).
comment : str, optional
    A comment line written after the header.

Returns
-------
None
    The file is written.

Raises
------
flamex.Error
    A file that cannot be written, or a 1-D A (a ValueError).)");
    m.def("read_pivots", [](const std::string& path, dim_t rows) {
        const Pivots p = io::read_pivots(path, rows);
        const std::vector<int> ipiv = p.to_lapack();
        return py::array_t<int>(static_cast<py::ssize_t>(ipiv.size()), ipiv.data());
    }, py::arg("path"), py::arg("rows") = 0, R"(Read a pivot file (one 1-based row per line, as the CLI writes).

Parameters
----------
path : str
    The file.
rows : int, optional
    The matrix's rows, to check each pivot against (0: unchecked).

Returns
-------
numpy.ndarray of int32
    LAPACK's ipiv (1-based rows).

Raises
------
flamex.Error
    A file that cannot be read or parsed.)");
    m.def("write_pivots", [](const std::string& path, const std::vector<int>& ipiv) {
        io::write_pivots(path, Pivots::from_lapack(ipiv));
    }, py::arg("path"), py::arg("ipiv"), R"(Write LAPACK's pivots as a pivot file, one 1-based row per line.

Parameters
----------
path : str
    The file written.
ipiv : sequence of int
    LAPACK's pivots.

Returns
-------
None
    The file is written.

Raises
------
flamex.Error
    A file that cannot be written.)");
}

} // namespace

void bind_tools(py::module_& m)
{
    py::module_ gen = m.def_submodule("gen", "Seeded generators of ill-conditioned problems (reference/generators.hpp).");
    bind_gen(gen);
    py::module_ mp = m.def_submodule("mpfr", "MPFR references: exact dots, condition numbers, errors.");
    bind_mpfr(mp);
    bind_io(m);
}

} // namespace flamex::python
