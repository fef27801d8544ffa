// flamex.Backend: the abstract BLAS (blas/blas.hpp) of any backend on numpy arrays
// and flamex views, with the C++ argument order so that a variant written in Python
// reads like its C++ file. Arguments an operation writes must be views (see
// views.hpp); the GIL is released while the backend computes.
#include "bindings.hpp"

#include "opencl/devices.hpp"

#include <cmath>

namespace flamex::python {

PyBackend backend_of(py::handle backend, int threads)
{
    if (py::isinstance<PyBackend>(backend)) return backend.cast<PyBackend>();
    BackendOptions options;
    options.threads = threads;
    const std::string name = backend.is_none() ? default_backend_name() : backend.cast<std::string>();
    return {make_backend(name, options)};
}

PyObj input_obj(py::handle h, const char* what)
{
    if (py::isinstance<PyObj>(h)) return h.cast<PyObj>();
    const py::module_ np = py::module_::import("numpy");
    // asfortranarray returns the array itself when it already conforms.
    const py::object a = np.attr("asfortranarray")(h, py::arg("dtype") = np.attr("float64"));
    return to_pyobj(a, what, false);
}

InPlace in_place_or_copy(py::handle A, const char* what, bool overwrite, bool vector_allowed)
{
    InPlace out;
    if (overwrite) {
        out.obj = to_pyobj(A, what, true);
        out.result = py::isinstance<PyObj>(A) ? py::object(window_array(out.obj)) : py::reinterpret_borrow<py::object>(A);
    } else {
        // The one copy such an operation makes by design.
        out.result = py::module_::import("numpy").attr("array")(A, py::arg("dtype") = "float64", py::arg("order") = "F");
        out.obj = to_pyobj(out.result, what, true);
    }
    const auto dims = py::cast<py::array>(out.result).ndim();
    if (dims != 2 && !(vector_allowed && dims == 1))
        throw LayoutError(std::string(what) + " must be a 2-D array" + (vector_allowed ? " or a vector" : "") + ", got " +
                          std::to_string(dims) + " dimensions");
    if (dims == 1) out.obj.view = as_column(out.obj.view); // a strided 1-D array is a 1 x n view
    return out;
}

void require_finite(const char* op, const char* what, Obj v, bool one_d)
{
    dim_t bad_i = -1, bad_j = -1;
    {
        py::gil_scoped_release nogil;
        for (dim_t j = 0; j < v.width() && bad_i < 0; ++j)
            for (dim_t i = 0; i < v.length(); ++i)
                if (!std::isfinite(v(i, j))) {
                    bad_i = i;
                    bad_j = j;
                    break;
                }
    }
    if (bad_i < 0) return;
    const double x = v(bad_i, bad_j);
    const std::string index = one_d ? "[" + std::to_string(bad_i + bad_j) + "]"
                                    : "[" + std::to_string(bad_i) + ", " + std::to_string(bad_j) + "]";
    throw Error(std::string(op) + ": " + what + index + " is " + (std::isnan(x) ? "nan" : x > 0 ? "inf" : "-inf") +
                ": the input must not contain infinities or NaNs (check_finite=False skips this check)");
}

namespace {

// Each operation: convert (with the GIL), then compute without it.
#define FLAMEX_NOGIL py::gil_scoped_release nogil

void bind_backend_class(py::module_& m)
{
    py::class_<PyBackend>(m, "Backend", R"(An abstract BLAS backend: made by flamex.backend(name, threads=...).

Its methods take the C++ argument order, so that a variant written in Python reads
like its C++ file. Arguments an operation writes must be flamex views or
Fortran-ordered float64 arrays; the GIL is released while the backend computes.

Attributes
----------
name : str
    The backend's name.
reproducible : bool
    True when every result is bit-identical for any threads, block size and device.)")
        .def_property_readonly("name", [](const PyBackend& b) { return b.blas->name(); }, "the backend's name")
        .def_property_readonly("reproducible", [](const PyBackend& b) { return b.blas->reproducible(); },
                               "True when every result is bit-identical for any threads, block size and device")
        .def("sum", [](const PyBackend& b, py::handle x) {
            const Obj vx = as_obj(x, "x", false);
            FLAMEX_NOGIL;
            return b.blas->sum(vx);
        }, py::arg("x"), R"(sum_i x_i, as the backend computes it (exact backends: correctly rounded).

Parameters
----------
x : flamex.Obj or numpy.ndarray
    A vector.

Returns
-------
float
    The sum.

Raises
------
flamex.Error
    Shapes that do not conform, or a layout the operation cannot use (a ValueError).)")
        .def("dot", [](const PyBackend& b, py::handle x, py::handle y) {
            const Obj vx = as_obj(x, "x", false), vy = as_obj(y, "y", false);
            FLAMEX_NOGIL;
            return b.blas->dot(vx, vy);
        }, py::arg("x"), py::arg("y"), R"(The dot product x^T y, as the backend computes it (exact backends: correctly rounded).

Parameters
----------
x : flamex.Obj or numpy.ndarray
    A vector.
y : flamex.Obj or numpy.ndarray
    A vector of x's length.

Returns
-------
float
    x^T y.

Raises
------
flamex.Error
    Shapes that do not conform, or a layout the operation cannot use (a ValueError).)")
        .def("dots", [](const PyBackend& b, double alpha, py::handle x, py::handle y, double beta, py::handle rho) {
            const Obj vx = as_obj(x, "x", false), vy = as_obj(y, "y", false), vr = as_obj(rho, "rho", true);
            FLAMEX_NOGIL;
            b.blas->dots(alpha, vx, vy, beta, vr);
        }, py::arg("alpha"), py::arg("x"), py::arg("y"), py::arg("beta"), py::arg("rho"), R"(rho := alpha x^T y + beta rho.

Parameters
----------
alpha : float
    The scalar on the dot product.
x : flamex.Obj or numpy.ndarray
    A vector.
y : flamex.Obj or numpy.ndarray
    A vector of x's length.
beta : float
    The scalar on rho.
rho : flamex.Obj or numpy.ndarray
    1 x 1 (written: a Fortran-ordered float64 array or a view).

Returns
-------
None
    The result is written into the output argument.

Raises
------
flamex.Error
    Shapes that do not conform, or a layout the operation cannot use (a ValueError).)")
        .def("scal", [](const PyBackend& b, double alpha, py::handle x) {
            const Obj vx = as_obj(x, "x", true);
            FLAMEX_NOGIL;
            b.blas->scal(alpha, vx);
        }, py::arg("alpha"), py::arg("x"), R"(x := alpha x.

Parameters
----------
alpha : float
    The scalar.
x : flamex.Obj or numpy.ndarray
    A vector (written: a Fortran-ordered float64 array or a view).

Returns
-------
None
    The result is written into the output argument.

Raises
------
flamex.Error
    Shapes that do not conform, or a layout the operation cannot use (a ValueError).)")
        .def("invscal", [](const PyBackend& b, double alpha, py::handle x) {
            const Obj vx = as_obj(x, "x", true);
            FLAMEX_NOGIL;
            b.blas->invscal(alpha, vx);
        }, py::arg("alpha"), py::arg("x"), R"(x := x / alpha, a division per element (never a multiplication by a reciprocal).

Parameters
----------
alpha : float
    The divisor.
x : flamex.Obj or numpy.ndarray
    A vector (written: a Fortran-ordered float64 array or a view).

Returns
-------
None
    The result is written into the output argument.

Raises
------
flamex.Error
    Shapes that do not conform, or a layout the operation cannot use (a ValueError).)")
        .def("axpy", [](const PyBackend& b, double alpha, py::handle x, py::handle y) {
            const Obj vx = as_obj(x, "x", false), vy = as_obj(y, "y", true);
            FLAMEX_NOGIL;
            b.blas->axpy(alpha, vx, vy);
        }, py::arg("alpha"), py::arg("x"), py::arg("y"), R"(y := alpha x + y.

Parameters
----------
alpha : float
    The scalar.
x : flamex.Obj or numpy.ndarray
    A vector.
y : flamex.Obj or numpy.ndarray
    A vector of x's length (written: a Fortran-ordered float64 array or a view).

Returns
-------
None
    The result is written into the output argument.

Raises
------
flamex.Error
    Shapes that do not conform, or a layout the operation cannot use (a ValueError).)")
        .def("copy", [](const PyBackend& b, py::handle x, py::handle y) {
            const Obj vx = as_obj(x, "x", false), vy = as_obj(y, "y", true);
            FLAMEX_NOGIL;
            b.blas->copy(vx, vy);
        }, py::arg("x"), py::arg("y"), R"(y := x.

Parameters
----------
x : flamex.Obj or numpy.ndarray
    A vector.
y : flamex.Obj or numpy.ndarray
    A vector of x's length (written: a Fortran-ordered float64 array or a view).

Returns
-------
None
    The result is written into the output argument.

Raises
------
flamex.Error
    Shapes that do not conform, or a layout the operation cannot use (a ValueError).)")
        .def("gemv", [](const PyBackend& b, Trans trans, double alpha, py::handle A, py::handle x, double beta, py::handle y) {
            const Obj vA = as_obj(A, "A", false), vx = as_obj(x, "x", false), vy = as_obj(y, "y", true);
            FLAMEX_NOGIL;
            b.blas->gemv(trans, alpha, vA, vx, beta, vy);
        }, py::arg("trans"), py::arg("alpha"), py::arg("A"), py::arg("x"), py::arg("beta"), py::arg("y"),
           R"(y := alpha op(A) x + beta y (y not read when beta == 0).

Parameters
----------
trans : flamex.Trans
    NO_TRANSPOSE or TRANSPOSE: op(A) = A or A^T.
alpha : float
    The scalar on op(A) x.
A : flamex.Obj or numpy.ndarray
    The matrix.
x : flamex.Obj or numpy.ndarray
    A vector.
beta : float
    The scalar on y.
y : flamex.Obj or numpy.ndarray
    A vector (written: a Fortran-ordered float64 array or a view).

Returns
-------
None
    The result is written into the output argument.

Raises
------
flamex.Error
    Shapes that do not conform, or a layout the operation cannot use (a ValueError).)")
        .def("trsv", [](const PyBackend& b, Uplo uplo, Trans trans, Diag diag, py::handle T, py::handle x) {
            const Obj vT = as_obj(T, "T", false), vx = as_obj(x, "x", true);
            FLAMEX_NOGIL;
            b.blas->trsv(uplo, trans, diag, vT, vx);
        }, py::arg("uplo"), py::arg("trans"), py::arg("diag"), py::arg("T"), py::arg("x"), R"(x := op(T)^{-1} x for a triangular T.

Parameters
----------
uplo : flamex.Uplo
    LOWER or UPPER: the triangle read.
trans : flamex.Trans
    NO_TRANSPOSE or TRANSPOSE: op(A) = A or A^T.
diag : flamex.Diag
    NONUNIT, or UNIT: the diagonal taken as ones, not read.
T : flamex.Obj or numpy.ndarray
    The square triangular matrix.
x : flamex.Obj or numpy.ndarray
    A vector (written: a Fortran-ordered float64 array or a view).

Returns
-------
None
    The result is written into the output argument.

Raises
------
flamex.Error
    Shapes that do not conform, or a layout the operation cannot use (a ValueError).)")
        .def("ger", [](const PyBackend& b, double alpha, py::handle x, py::handle y, py::handle A) {
            const Obj vx = as_obj(x, "x", false), vy = as_obj(y, "y", false), vA = as_obj(A, "A", true);
            FLAMEX_NOGIL;
            b.blas->ger(alpha, vx, vy, vA);
        }, py::arg("alpha"), py::arg("x"), py::arg("y"), py::arg("A"), R"(A := alpha x y^T + A, the rank-1 update.

Parameters
----------
alpha : float
    The scalar.
x : flamex.Obj or numpy.ndarray
    A vector of A's length.
y : flamex.Obj or numpy.ndarray
    A vector of A's width.
A : flamex.Obj or numpy.ndarray
    The matrix (written: a Fortran-ordered float64 array or a view).

Returns
-------
None
    The result is written into the output argument.

Raises
------
flamex.Error
    Shapes that do not conform, or a layout the operation cannot use (a ValueError).)")
        .def("gemm", [](const PyBackend& b, Trans ta, Trans tb, double alpha, py::handle A, py::handle B, double beta, py::handle C) {
            const Obj vA = as_obj(A, "A", false), vB = as_obj(B, "B", false), vC = as_obj(C, "C", true);
            FLAMEX_NOGIL;
            b.blas->gemm(ta, tb, alpha, vA, vB, beta, vC);
        }, py::arg("transa"), py::arg("transb"), py::arg("alpha"), py::arg("A"), py::arg("B"), py::arg("beta"), py::arg("C"),
           R"(C := alpha op(A) op(B) + beta C (C not read when beta == 0).

Parameters
----------
transa : flamex.Trans
    op(A) = A or A^T.
transb : flamex.Trans
    op(B) = B or B^T.
alpha : float
    The scalar on the product.
A : flamex.Obj or numpy.ndarray
    The left factor.
B : flamex.Obj or numpy.ndarray
    The right factor.
beta : float
    The scalar on C.
C : flamex.Obj or numpy.ndarray
    The result (written: a Fortran-ordered float64 array or a view).

Returns
-------
None
    The result is written into the output argument.

Raises
------
flamex.Error
    Shapes that do not conform, or a layout the operation cannot use (a ValueError).)")
        .def("trsm", [](const PyBackend& b, Side side, Uplo uplo, Trans trans, Diag diag, double alpha, py::handle T, py::handle B) {
            const Obj vT = as_obj(T, "T", false), vB = as_obj(B, "B", true);
            FLAMEX_NOGIL;
            b.blas->trsm(side, uplo, trans, diag, alpha, vT, vB);
        }, py::arg("side"), py::arg("uplo"), py::arg("trans"), py::arg("diag"), py::arg("alpha"), py::arg("T"), py::arg("B"),
           R"(B := alpha op(T)^{-1} B (LEFT) or alpha B op(T)^{-1} (RIGHT) for a triangular T.

Parameters
----------
side : flamex.Side
    LEFT or RIGHT: T applied from the left or the right.
uplo : flamex.Uplo
    LOWER or UPPER: the triangle read.
trans : flamex.Trans
    NO_TRANSPOSE or TRANSPOSE: op(A) = A or A^T.
diag : flamex.Diag
    NONUNIT, or UNIT: the diagonal taken as ones, not read.
alpha : float
    The scalar.
T : flamex.Obj or numpy.ndarray
    The square triangular matrix.
B : flamex.Obj or numpy.ndarray
    The right-hand sides (written: a Fortran-ordered float64 array or a view).

Returns
-------
None
    The result is written into the output argument.

Raises
------
flamex.Error
    Shapes that do not conform, or a layout the operation cannot use (a ValueError).)")
        .def("syrk", [](const PyBackend& b, Uplo uplo, Trans trans, double alpha, py::handle A, double beta, py::handle C) {
            const Obj vA = as_obj(A, "A", false), vC = as_obj(C, "C", true);
            FLAMEX_NOGIL;
            b.blas->syrk(uplo, trans, alpha, vA, beta, vC);
        }, py::arg("uplo"), py::arg("trans"), py::arg("alpha"), py::arg("A"), py::arg("beta"), py::arg("C"),
           R"(C := alpha op(A) op(A)^T + beta C, only C's uplo triangle read and written (C not read when beta == 0).

Parameters
----------
uplo : flamex.Uplo
    LOWER or UPPER: the triangle read.
trans : flamex.Trans
    NO_TRANSPOSE or TRANSPOSE: op(A) = A or A^T.
alpha : float
    The scalar on the product.
A : flamex.Obj or numpy.ndarray
    The factor.
beta : float
    The scalar on C.
C : flamex.Obj or numpy.ndarray
    Square (written: a Fortran-ordered float64 array or a view).

Returns
-------
None
    The result is written into the output argument.

Raises
------
flamex.Error
    Shapes that do not conform, or a layout the operation cannot use (a ValueError).)")
        .def("trmv", [](const PyBackend& b, Uplo uplo, Trans trans, Diag diag, py::handle T, py::handle x) {
            const Obj vT = as_obj(T, "T", false), vx = as_obj(x, "x", true);
            FLAMEX_NOGIL;
            b.blas->trmv(uplo, trans, diag, vT, vx);
        }, py::arg("uplo"), py::arg("trans"), py::arg("diag"), py::arg("T"), py::arg("x"), R"(x := op(T) x for a triangular T.

Parameters
----------
uplo : flamex.Uplo
    LOWER or UPPER: the triangle read.
trans : flamex.Trans
    NO_TRANSPOSE or TRANSPOSE: op(A) = A or A^T.
diag : flamex.Diag
    NONUNIT, or UNIT: the diagonal taken as ones, not read.
T : flamex.Obj or numpy.ndarray
    The square triangular matrix.
x : flamex.Obj or numpy.ndarray
    A vector (written: a Fortran-ordered float64 array or a view).

Returns
-------
None
    The result is written into the output argument.

Raises
------
flamex.Error
    Shapes that do not conform, or a layout the operation cannot use (a ValueError).)")
        .def("trmm", [](const PyBackend& b, Side side, Uplo uplo, Trans trans, Diag diag, double alpha, py::handle T, py::handle B) {
            const Obj vT = as_obj(T, "T", false), vB = as_obj(B, "B", true);
            FLAMEX_NOGIL;
            b.blas->trmm(side, uplo, trans, diag, alpha, vT, vB);
        }, py::arg("side"), py::arg("uplo"), py::arg("trans"), py::arg("diag"), py::arg("alpha"), py::arg("T"), py::arg("B"),
           R"(B := alpha op(T) B (LEFT) or alpha B op(T) (RIGHT) for a triangular T.

Parameters
----------
side : flamex.Side
    LEFT or RIGHT: T applied from the left or the right.
uplo : flamex.Uplo
    LOWER or UPPER: the triangle read.
trans : flamex.Trans
    NO_TRANSPOSE or TRANSPOSE: op(A) = A or A^T.
diag : flamex.Diag
    NONUNIT, or UNIT: the diagonal taken as ones, not read.
alpha : float
    The scalar.
T : flamex.Obj or numpy.ndarray
    The square triangular matrix.
B : flamex.Obj or numpy.ndarray
    The matrix multiplied (written: a Fortran-ordered float64 array or a view).

Returns
-------
None
    The result is written into the output argument.

Raises
------
flamex.Error
    Shapes that do not conform, or a layout the operation cannot use (a ValueError).)")
        .def("diag_invscal", [](const PyBackend& b, py::handle D, py::handle x) {
            const Obj vD = as_obj(D, "D", false), vx = as_obj(x, "x", true);
            FLAMEX_NOGIL;
            b.blas->diag_invscal(vD, vx);
        }, py::arg("D"), py::arg("x"), R"(x_l := x_l / D[l, l], a division per element.

Parameters
----------
D : flamex.Obj or numpy.ndarray
    A square matrix whose diagonal is read.
x : flamex.Obj or numpy.ndarray
    A vector of D's order (written: a Fortran-ordered float64 array or a view).

Returns
-------
None
    The result is written into the output argument.

Raises
------
flamex.Error
    Shapes that do not conform, or a layout the operation cannot use (a ValueError).)")
        .def("diag_dots", [](const PyBackend& b, double alpha, py::handle x, py::handle D, py::handle y, double beta, py::handle rho) {
            const Obj vx = as_obj(x, "x", false), vD = as_obj(D, "D", false), vy = as_obj(y, "y", false),
                      vr = as_obj(rho, "rho", true);
            FLAMEX_NOGIL;
            b.blas->diag_dots(alpha, vx, vD, vy, beta, vr);
        }, py::arg("alpha"), py::arg("x"), py::arg("D"), py::arg("y"), py::arg("beta"), py::arg("rho"),
           R"(rho := alpha sum_l x_l D[l, l] y_l + beta rho (rho not read when beta == 0).

Parameters
----------
alpha : float
    +1 or -1.
x : flamex.Obj or numpy.ndarray
    A vector.
D : flamex.Obj or numpy.ndarray
    A square matrix whose diagonal is read.
y : flamex.Obj or numpy.ndarray
    A vector.
beta : float
    The scalar on rho.
rho : flamex.Obj or numpy.ndarray
    1 x 1 (written: a Fortran-ordered float64 array or a view).

Returns
-------
None
    The result is written into the output argument.

Raises
------
flamex.Error
    Shapes that do not conform, or a layout the operation cannot use (a ValueError).)")
        .def("diag_gemv", [](const PyBackend& b, double alpha, py::handle A, py::handle D, py::handle x, double beta, py::handle y) {
            const Obj vA = as_obj(A, "A", false), vD = as_obj(D, "D", false), vx = as_obj(x, "x", false),
                      vy = as_obj(y, "y", true);
            FLAMEX_NOGIL;
            b.blas->diag_gemv(alpha, vA, vD, vx, beta, vy);
        }, py::arg("alpha"), py::arg("A"), py::arg("D"), py::arg("x"), py::arg("beta"), py::arg("y"),
           R"(y := alpha A diag(D) x + beta y (y not read when beta == 0).

Parameters
----------
alpha : float
    +1 or -1.
A : flamex.Obj or numpy.ndarray
    The matrix.
D : flamex.Obj or numpy.ndarray
    A square matrix whose diagonal is read.
x : flamex.Obj or numpy.ndarray
    A vector.
beta : float
    The scalar on y.
y : flamex.Obj or numpy.ndarray
    A vector (written: a Fortran-ordered float64 array or a view).

Returns
-------
None
    The result is written into the output argument.

Raises
------
flamex.Error
    Shapes that do not conform, or a layout the operation cannot use (a ValueError).)")
        .def("sqrt", [](const PyBackend& b, py::handle alpha) {
            const Obj v = as_obj(alpha, "alpha", true);
            FLAMEX_NOGIL;
            b.blas->sqrt(v);
        }, py::arg("alpha"), R"(alpha := sqrt(alpha), correctly rounded.

Parameters
----------
alpha : flamex.Obj or numpy.ndarray
    1 x 1 (written: a Fortran-ordered float64 array or a view).

Returns
-------
None
    The result is written into the output argument.

Raises
------
flamex.Error
    Shapes that do not conform, or a layout the operation cannot use (a ValueError).)")
        .def("reciprocal", [](const PyBackend& b, py::handle alpha) {
            const Obj v = as_obj(alpha, "alpha", true);
            FLAMEX_NOGIL;
            b.blas->reciprocal(v);
        }, py::arg("alpha"), R"(alpha := 1 / alpha, a correctly rounded division.

Parameters
----------
alpha : flamex.Obj or numpy.ndarray
    1 x 1 (written: a Fortran-ordered float64 array or a view).

Returns
-------
None
    The result is written into the output argument.

Raises
------
flamex.Error
    Shapes that do not conform, or a layout the operation cannot use (a ValueError).)")
        .def("iamax", [](const PyBackend& b, py::handle x) {
            const Obj vx = as_obj(x, "x", false);
            FLAMEX_NOGIL;
            return b.blas->iamax(vx);
        }, py::arg("x"), R"(The index of the element of largest magnitude (the first of equals).

Parameters
----------
x : flamex.Obj or numpy.ndarray
    A vector.

Returns
-------
int
    The 0-based index.

Raises
------
flamex.Error
    Shapes that do not conform, or a layout the operation cannot use (a ValueError).)")
        .def("apply_pivots", [](const PyBackend& b, py::handle p, py::handle A) {
            const PivObj vp = as_piv(p, "p", false);
            const Obj vA = as_obj(A, "A", true);
            FLAMEX_NOGIL;
            b.blas->apply_pivots(vp, vA);
        }, py::arg("p"), py::arg("A"), R"(Apply FLAME pivots: for i in range(len(p)), swap rows i and i + p[i] of A.

Parameters
----------
p : flamex.PivObj or numpy.ndarray of int32
    The pivot offsets (FLAME's, relative to i).
A : flamex.Obj or numpy.ndarray
    The matrix (written: a Fortran-ordered float64 array or a view).

Returns
-------
None
    The result is written into the output argument.

Raises
------
flamex.Error
    Shapes that do not conform, or a layout the operation cannot use (a ValueError).)")
        .def("element", [](const PyBackend& b, py::handle A, dim_t i, dim_t j) {
            const Obj vA = as_obj(A, "A", false);
            return b.blas->element(vA.sub(i, j, 1, 1), 0, 0);
        }, py::arg("A"), py::arg("i"), py::arg("j"), R"(One element of A, as the backend holds it (a device backend reads it back).

Parameters
----------
A : flamex.Obj or numpy.ndarray
    The matrix.
i : int
    The row, 0-based.
j : int
    The column, 0-based.

Returns
-------
float
    A[i, j].

Raises
------
flamex.Error
    Shapes that do not conform, or a layout the operation cannot use (a ValueError).)")
        .def("__repr__", [](const PyBackend& b) { return "flamex.backend('" + b.blas->name() + "')"; });
}

} // namespace

void bind_blas(py::module_& m)
{
    py::enum_<Trans>(m, "Trans", "op(A): NO_TRANSPOSE (A) or TRANSPOSE (A^T).").value("NO_TRANSPOSE", Trans::No).value("TRANSPOSE", Trans::Yes).export_values();
    py::enum_<Uplo>(m, "Uplo", "The triangle of a matrix an operation reads: LOWER or UPPER.").value("LOWER", Uplo::Lower).value("UPPER", Uplo::Upper).export_values();
    py::enum_<Diag>(m, "Diag", "A triangle's diagonal: NONUNIT (read) or UNIT (taken as ones, not read).").value("NONUNIT", Diag::NonUnit).value("UNIT", Diag::Unit).export_values();
    bind_backend_class(m);

    m.def("backend", [](py::object name, int threads, dim_t block, const std::string& device) {
        BackendOptions options;
        options.threads = threads;
        options.block = block;
        options.device = device;
        const std::string n = name.is_none() ? default_backend_name() : name.cast<std::string>();
        FLAMEX_NOGIL; // an OpenCL backend builds its programs here
        return PyBackend{make_backend(n, options)};
    }, py::arg("name") = py::none(), py::arg("threads") = 1, py::arg("block") = 0, py::arg("device") = "",
       R"(A backend: the abstract BLAS every variant calls.

Parameters
----------
name : str or None, optional
    A name from flamex.backends() (None: $FLAMEX_BACKEND, else "blis").
threads : int, optional
    Threads of the CPU backends (default 1).
block : int, optional
    The backend's own block size (0: its default).
device : str, optional
    The OpenCL device of the opencl backends, by index or name ("": the default).

Returns
-------
flamex.Backend
    The backend.

Raises
------
flamex.Error
    An unknown name (a ValueError).
flamex.OpenCLError
    An OpenCL backend without a platform or device, or a kernel that fails to build.)");

    m.def("backends", [] {
        py::list out;
        for (const BackendInfo& b : backends()) out.append(py::dict(py::arg("name") = b.name, py::arg("description") = b.description));
        return out;
    }, R"(The registered backends, what `flamex backends` lists.

Returns
-------
list of dict
    One dict a backend: "name" and "description".)");

    m.def("devices", [] {
        py::list out;
        for (const OpenClDeviceInfo& d : opencl_devices())
            out.append(py::dict(py::arg("index") = d.index, py::arg("name") = d.name, py::arg("platform") = d.platform,
                                py::arg("vendor") = d.vendor, py::arg("type") = d.type, py::arg("version") = d.version,
                                py::arg("fp64") = d.fp64, py::arg("compute_units") = d.compute_units,
                                py::arg("global_memory") = d.global_memory, py::arg("description") = describe_device(d)));
        return out;
    }, R"(The OpenCL devices, the list `flamex devices` prints.

Returns
-------
list of dict
    One dict a device: "index", "name", "platform", "vendor", "type", "version",
    "fp64", "compute_units", "global_memory" (bytes) and "description".

Raises
------
flamex.OpenCLError
    There is no OpenCL platform.)");
}

} // namespace flamex::python
