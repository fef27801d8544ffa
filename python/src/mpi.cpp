// flamex.mpi (the extension flamex._flamex_mpi): the distributed layer (mpi/mpi.hpp)
// on mpi4py communicators. Every function is collective over `comm`.
//   sum(comm, x), dot(comm, x, y), nrm2(comm, x): this rank's share of a vector (any
//     1-D float64 array, any length, any stride); the exact result on every rank,
//     the same for any split. sum_allreduce / dot_allreduce: the doubles baseline.
//   lu(comm, A, grid=(P, Q), block=64, variant="var5"): A on rank 0 (None elsewhere)
//     factored on a P x Q grid: (LU, ipiv, info), LU on rank 0 (None elsewhere),
//     ipiv LAPACK's (as flamex.lu's) and info on every rank. variant: "var5"
//     (order-fixed: flamex.lu's lu_piv_unb_var5 on exact, bit for bit), "var3"
//     (exact: lu_piv_unb_var3's), "pdgetrf" (ScaLAPACK).
//   solve(comm, A, b, grid, block, variant): x on every rank (flamex.solve's on exact).
// Errors on any rank raise flamex.Error on every rank, naming the rank.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <mpi4py/mpi4py.h>

#include "mpi/mpi.hpp"

namespace py = pybind11;
using namespace flamex;

namespace {

MPI_Comm comm_of(const py::handle& comm)
{
    if (!PyObject_TypeCheck(comm.ptr(), &PyMPIComm_Type)) throw py::type_error("comm: expected an mpi4py.MPI.Comm");
    return *PyMPIComm_Get(comm.ptr());
}

using Array = py::array_t<double, py::array::forcecast>;

struct Vector {
    exact::index_t n, inc;
    const double* p;
};

Vector vector_of(const Array& x, const char* name)
{
    if (x.ndim() != 1) throw py::value_error(std::string(name) + ": expected a 1-D array");
    if (x.strides(0) % static_cast<py::ssize_t>(sizeof(double)) != 0)
        throw py::value_error(std::string(name) + ": stride is not a whole number of doubles");
    return {static_cast<exact::index_t>(x.shape(0)), static_cast<exact::index_t>(x.strides(0) / 8), x.data()};
}

// A on rank 0 as a flamex Matrix (other ranks: empty); a missing or bad A there
// raises on every rank.
Matrix matrix_on_root(MPI_Comm comm, const py::object& A)
{
    Matrix M;
    mpi::collective(comm, [&] {
        if (mpi::rank(comm) != 0) return;
        if (A.is_none()) throw Error("A is None on rank 0");
        const Array a = py::cast<Array>(A);
        if (a.ndim() != 2) throw Error("A must be a 2-D array");
        M = Matrix(a.shape(0), a.shape(1));
        const auto v = a.unchecked<2>();
        for (dim_t j = 0; j < M.width(); ++j)
            for (dim_t i = 0; i < M.length(); ++i) M(i, j) = v(i, j);
    });
    return M;
}

py::array_t<double> to_numpy(const Matrix& M)
{
    py::array_t<double, py::array::f_style> out({M.length(), M.width()});
    auto v = out.mutable_unchecked<2>();
    for (dim_t j = 0; j < M.width(); ++j)
        for (dim_t i = 0; i < M.length(); ++i) v(i, j) = M(i, j);
    return out;
}

} // namespace

PYBIND11_MODULE(_flamex_mpi, m)
{
    if (import_mpi4py() < 0) throw py::error_already_set();
    m.doc() = "flamex.mpi: exact reductions and the distributed LU on mpi4py communicators (mpi/mpi.hpp).";
    py::register_exception_translator([](std::exception_ptr p) {
        try {
            if (p) std::rethrow_exception(p);
        } catch (const Error& e) {
            const py::object cls = py::module_::import("flamex.errors").attr("Error");
            PyErr_SetObject(cls.ptr(), cls(e.what()).ptr());
        }
    });
    m.def("sum", [](py::handle comm, const Array& x) {
        const Vector v = vector_of(x, "x");
        return mpi::sum(comm_of(comm), v.n, v.p, v.inc);
    }, py::arg("comm"), py::arg("x"), "The correctly rounded sum of every rank's x, on every rank.");
    m.def("dot", [](py::handle comm, const Array& x, const Array& y) {
        const Vector a = vector_of(x, "x"), b = vector_of(y, "y");
        if (a.n != b.n) throw py::value_error("dot: x and y differ in length on this rank");
        return mpi::dot(comm_of(comm), a.n, a.p, a.inc, b.p, b.inc);
    }, py::arg("comm"), py::arg("x"), py::arg("y"), "The correctly rounded sum of every rank's x^T y, on every rank.");
    m.def("nrm2", [](py::handle comm, const Array& x) {
        const Vector v = vector_of(x, "x");
        return mpi::nrm2(comm_of(comm), v.n, v.p, v.inc);
    }, py::arg("comm"), py::arg("x"), "The correctly rounded 2-norm of the vector every rank holds a share of.");
    m.def("sum_allreduce", [](py::handle comm, const Array& x) {
        const Vector v = vector_of(x, "x");
        return mpi::sum_allreduce(comm_of(comm), v.n, v.p, v.inc);
    }, py::arg("comm"), py::arg("x"), "The baseline: local double sums, MPI_Allreduce(MPI_SUM).");
    m.def("dot_allreduce", [](py::handle comm, const Array& x, const Array& y) {
        const Vector a = vector_of(x, "x"), b = vector_of(y, "y");
        if (a.n != b.n) throw py::value_error("dot: x and y differ in length on this rank");
        return mpi::dot_allreduce(comm_of(comm), a.n, a.p, a.inc, b.p, b.inc);
    }, py::arg("comm"), py::arg("x"), py::arg("y"), "The baseline: local double dots, MPI_Allreduce(MPI_SUM).");
    m.def("lu", [](py::handle comm_obj, py::object A, std::pair<int, int> grid, dim_t block, const std::string& variant) {
        const MPI_Comm comm = comm_of(comm_obj);
        const bool root = mpi::rank(comm) == 0;
        const mpi::Grid g(comm, grid.first, grid.second);
        Matrix M = matrix_on_root(comm, A);
        mpi::DistMatrix D = mpi::scatter(g, root ? M.view() : Obj(), block, block);
        Pivots p(std::min(D.length(), D.width()));
        const mpi::DistLuInfo info = mpi::lu(variant, D, p.view());
        mpi::gather(D, root ? M.view() : Obj());
        const std::vector<int> ipiv = p.to_lapack();
        return py::make_tuple(root ? py::object(to_numpy(M)) : py::none(), py::array_t<int>(ipiv.size(), ipiv.data()),
                              info.zero_pivot);
    }, py::arg("comm"), py::arg("A"), py::arg("grid") = std::pair<int, int>{1, 1}, py::arg("block") = 64,
       py::arg("variant") = "var5", "LU with partial pivoting on a P x Q grid: (LU on rank 0, ipiv, info).");
    m.def("solve", [](py::handle comm_obj, py::object A, const Array& b, std::pair<int, int> grid, dim_t block,
                      const std::string& variant) {
        const MPI_Comm comm = comm_of(comm_obj);
        const bool root = mpi::rank(comm) == 0;
        const mpi::Grid g(comm, grid.first, grid.second);
        Matrix M = matrix_on_root(comm, A);
        mpi::DistMatrix D = mpi::scatter(g, root ? M.view() : Obj(), block, block);
        const Vector v = vector_of(b, "b");
        Matrix bm(v.n, 1), x(v.n, 1);
        for (dim_t i = 0; i < v.n; ++i) bm(i, 0) = v.p[i * v.inc];
        Pivots p(D.length());
        const mpi::DistLuInfo info = mpi::solve(variant, D, p.view(), bm.view(), x.view());
        if (info.zero_pivot) throw Error("solve: zero pivot in column " + std::to_string(info.zero_pivot));
        py::array_t<double> out(v.n);
        for (dim_t i = 0; i < v.n; ++i) out.mutable_at(i) = x(i, 0);
        return out;
    }, py::arg("comm"), py::arg("A"), py::arg("b"), py::arg("grid") = std::pair<int, int>{1, 1}, py::arg("block") = 64,
       py::arg("variant") = "var5", "x := A^{-1} b on a P x Q grid (A on rank 0, b on every rank): x on every rank.");
}
