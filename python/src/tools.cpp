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
       "(x, y) with cond_dot = 2 sum|x_i y_i| / |x^T y| near cond (Ogita-Rump-Oishi GenDot).");
    gen.def("gemv", [](dim_t m, dim_t n, double cond, std::uint64_t seed, bool all_rows) {
        gen::GemvProblem p;
        {
            FLAMEX_NOGIL;
            p = gen::gemv(m, n, cond, seed, all_rows ? gen::GemvStyle::AllRows : gen::GemvStyle::OneIllRow);
        }
        return py::make_tuple(to_numpy(std::move(p.A)), vector_out(std::move(p.x)));
    }, py::arg("m"), py::arg("n"), py::arg("cond"), py::arg("seed") = 0, py::arg("all_rows") = false,
       "(A, x) with cond_gemv = || |A||x| || / ||Ax|| near cond (one ill-conditioned row, or all rows).");
    gen.def("trsv", [](dim_t n, double cond, std::uint64_t seed, Uplo uplo, Diag diag) {
        gen::TrsvProblem p;
        {
            FLAMEX_NOGIL;
            p = gen::trsv(n, cond, seed, uplo, diag);
        }
        return py::make_tuple(to_numpy(std::move(p.T)), vector_out(std::move(p.b)));
    }, py::arg("n"), py::arg("cond"), py::arg("seed") = 0, py::arg("uplo") = Uplo::Lower, py::arg("diag") = Diag::NonUnit,
       "(T, b) with Skeel's cond(T, x) near cond.");
    gen.def("lu", [](dim_t n, double cond, std::uint64_t seed) {
        Matrix A;
        {
            FLAMEX_NOGIL;
            A = gen::lu_matrix(n, cond, seed);
        }
        return to_numpy(std::move(A));
    }, py::arg("n"), py::arg("cond"), py::arg("seed") = 0, "A dense n x n matrix with kappa_inf(A) near cond.");
    gen.def("spd", [](dim_t n, double cond, std::uint64_t seed) {
        Matrix A;
        {
            FLAMEX_NOGIL;
            A = gen::spd_matrix(n, cond, seed);
        }
        return to_numpy(std::move(A));
    }, py::arg("n"), py::arg("cond"), py::arg("seed") = 0,
       "A symmetric positive definite n x n matrix Q diag(d) Q^T with kappa_2(A) near cond (exactly symmetric).");
    gen.def("uniform_matrix", [](dim_t m, dim_t n, std::uint64_t seed) { return to_numpy(gen::uniform_matrix(m, n, seed)); },
            py::arg("m"), py::arg("n"), py::arg("seed") = 0, "Entries uniform in [-1, 1).");
    gen.def("diagonally_dominant", [](dim_t n, std::uint64_t seed) { return to_numpy(gen::diagonally_dominant(n, seed)); },
            py::arg("n"), py::arg("seed") = 0, "Uniform in [-1, 1) plus n on the diagonal.");
    gen.def("well_conditioned_lower", [](dim_t n, std::uint64_t seed) { return to_numpy(gen::well_conditioned_lower(n, seed)); },
            py::arg("n"), py::arg("seed") = 0, "Uniform / n below the diagonal, +-[1, 2) on it.");
}

void bind_mpfr(py::module_& mp)
{
    // Each reference: inputs converted with the GIL, MPFR without it.
    mp.def("dot", [](py::handle x, py::handle y) {
        const PyObj vx = input_obj(x, "x"), vy = input_obj(y, "y");
        FLAMEX_NOGIL;
        return mpfr_ref::dot(vx.view, vy.view);
    }, py::arg("x"), py::arg("y"), "The correctly rounded x^T y (exact in MPFR, one rounding).");
    mp.def("gemv", [](py::handle A, py::handle x) {
        const PyObj vA = input_obj(A, "A"), vx = input_obj(x, "x");
        Matrix y;
        {
            FLAMEX_NOGIL;
            y = mpfr_ref::gemv(vA.view, vx.view);
        }
        return vector_out(std::move(y));
    }, py::arg("A"), py::arg("x"), "RN(A x), one rounding per component.");
    mp.def("norm_inf", [](py::handle A) {
        const PyObj vA = input_obj(A, "A");
        FLAMEX_NOGIL;
        return mpfr_ref::norm_inf(vA.view);
    }, py::arg("A"), "||A||_inf, exact then rounded.");
    mp.def("trsv", [](py::handle T, py::handle b, Uplo uplo, Trans trans, Diag diag) {
        const PyObj vT = input_obj(T, "T"), vb = input_obj(b, "b");
        Matrix x;
        {
            FLAMEX_NOGIL;
            x = mpfr_ref::trsv(uplo, trans, diag, vT.view, vb.view);
        }
        return vector_out(std::move(x));
    }, py::arg("T"), py::arg("b"), py::arg("uplo") = Uplo::Lower, py::arg("trans") = Trans::No, py::arg("diag") = Diag::NonUnit,
       "The correctly rounded solution of op(T) x = b (validated).");
    mp.def("solve", [](py::handle A, py::handle b) {
        const PyObj vA = input_obj(A, "A"), vb = input_obj(b, "b");
        Matrix x;
        {
            FLAMEX_NOGIL;
            x = mpfr_ref::solve(vA.view, vb.view);
        }
        return vector_out(std::move(x));
    }, py::arg("A"), py::arg("b"), "The correctly rounded solution of A x = b (validated).");
    mp.def("cond_dot", [](py::handle x, py::handle y) {
        const PyObj vx = input_obj(x, "x"), vy = input_obj(y, "y");
        FLAMEX_NOGIL;
        return mpfr_ref::cond_dot(vx.view, vy.view);
    }, py::arg("x"), py::arg("y"), "2 sum |x_i y_i| / |x^T y|");
    mp.def("cond_gemv", [](py::handle A, py::handle x) {
        const PyObj vA = input_obj(A, "A"), vx = input_obj(x, "x");
        FLAMEX_NOGIL;
        return mpfr_ref::cond_gemv(vA.view, vx.view);
    }, py::arg("A"), py::arg("x"), "|| |A| |x| ||_inf / || A x ||_inf");
    mp.def("cond_trsv", [](py::handle T, py::handle b, Uplo uplo, Trans trans, Diag diag) {
        const PyObj vT = input_obj(T, "T"), vb = input_obj(b, "b");
        FLAMEX_NOGIL;
        return mpfr_ref::cond_trsv(uplo, trans, diag, vT.view, vb.view);
    }, py::arg("T"), py::arg("b"), py::arg("uplo") = Uplo::Lower, py::arg("trans") = Trans::No, py::arg("diag") = Diag::NonUnit,
       "Skeel's cond(T, x) for the exact solution of op(T) x = b.");
    mp.def("kappa_inf", [](py::handle A) {
        const PyObj vA = input_obj(A, "A");
        FLAMEX_NOGIL;
        return mpfr_ref::kappa_inf(vA.view);
    }, py::arg("A"), "kappa_inf(A) = ||A||_inf ||A^-1||_inf (inverse in MPFR).");
    mp.def("lu_residual", [](py::handle A, py::handle LU, std::vector<int> ipiv) {
        const PyObj vA = input_obj(A, "A"), vLU = input_obj(LU, "LU");
        FLAMEX_NOGIL;
        return mpfr_ref::lu_residual(vA.view, vLU.view, ipiv);
    }, py::arg("A"), py::arg("LU"), py::arg("ipiv"), "||P A - L U||_inf exactly, with LAPACK's ipiv (empty: no pivoting).");
    mp.def("solve_error", [](py::handle x, py::handle A, py::handle b) {
        const PyObj vx = input_obj(x, "x"), vA = input_obj(A, "A"), vb = input_obj(b, "b");
        FLAMEX_NOGIL;
        return mpfr_ref::solve_error(vx.view, vA.view, vb.view);
    }, py::arg("x"), py::arg("A"), py::arg("b"), "||x - x*||_inf / ||x*||_inf against the exact solution of A x = b.");
    mp.def("dot_error", [](double computed, py::handle x, py::handle y) {
        const PyObj vx = input_obj(x, "x"), vy = input_obj(y, "y");
        FLAMEX_NOGIL;
        return mpfr_ref::dot_error(computed, vx.view, vy.view);
    }, py::arg("computed"), py::arg("x"), py::arg("y"), "|computed - x^T y| / |x^T y|, exactly.");
    mp.def("gemv_error", [](py::handle y, py::handle A, py::handle x) {
        const PyObj vy = input_obj(y, "y"), vA = input_obj(A, "A"), vx = input_obj(x, "x");
        FLAMEX_NOGIL;
        return mpfr_ref::gemv_error(vy.view, vA.view, vx.view);
    }, py::arg("y"), py::arg("A"), py::arg("x"), "||y - A x||_inf / ||A x||_inf, against the exact A x.");
    mp.def("trsv_error", [](py::handle x, py::handle T, py::handle b, Uplo uplo, Trans trans, Diag diag) {
        const PyObj vx = input_obj(x, "x"), vT = input_obj(T, "T"), vb = input_obj(b, "b");
        FLAMEX_NOGIL;
        return mpfr_ref::trsv_error(vx.view, uplo, trans, diag, vT.view, vb.view);
    }, py::arg("x"), py::arg("T"), py::arg("b"), py::arg("uplo") = Uplo::Lower, py::arg("trans") = Trans::No,
       py::arg("diag") = Diag::NonUnit, "Relative forward error of a computed solution of op(T) x = b.");
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
       "A Matrix Market file (array or coordinate; real, integer or pattern; general, symmetric or\n"
       "skew-symmetric) as a dense Fortran-ordered float64 array. Errors name the file and line.");
    m.def("write_matrix_market", [](const std::string& path, py::handle A, const std::string& comment) {
        const PyObj vA = input_obj(A, "A");
        if (py::cast<py::array>(vA.keep).ndim() == 1 && !py::isinstance<PyObj>(A))
            throw LayoutError("write_matrix_market: A must be 2-D (reshape a vector to (n, 1))");
        FLAMEX_NOGIL;
        io::write_matrix_market(path, vA.view, comment);
    }, py::arg("path"), py::arg("A"), py::arg("comment") = "",
       "Writes A as '%%MatrixMarket matrix array real general' with 17 significant digits.");
    m.def("read_pivots", [](const std::string& path, dim_t rows) {
        const Pivots p = io::read_pivots(path, rows);
        const std::vector<int> ipiv = p.to_lapack();
        return py::array_t<int>(static_cast<py::ssize_t>(ipiv.size()), ipiv.data());
    }, py::arg("path"), py::arg("rows") = 0, "A pivot file as LAPACK's ipiv (1-based rows).");
    m.def("write_pivots", [](const std::string& path, const std::vector<int>& ipiv) {
        io::write_pivots(path, Pivots::from_lapack(ipiv));
    }, py::arg("path"), py::arg("ipiv"), "Writes LAPACK's ipiv, one 1-based row per line.");
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
