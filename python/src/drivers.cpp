// flamex.lu, flamex.solve, flamex.trsv_solve and flamex.variants: the drivers of
// variants/lu.hpp. Pivots are returned in LAPACK's convention (1-based absolute
// rows, Pivots::to_lapack), the convention of files and of getrf.
#include "bindings.hpp"

#include "variants/lu.hpp"

namespace flamex::python {

namespace {

// block None: the backend's choice for A's size (LuControl::block = 0).
LuControl control_of(std::optional<dim_t> block, const std::optional<std::string>& inner)
{
    LuControl control;
    if (block) {
        if (*block < 1) throw Error("lu: block size must be at least 1, got " + std::to_string(*block));
        control.block = *block;
    }
    if (inner) control.inner = &find_lu_variant(*inner);
    return control;
}

py::array int_array(const std::vector<int>& v)
{
    py::array_t<int> a(static_cast<py::ssize_t>(v.size()));
    std::copy(v.begin(), v.end(), a.mutable_data());
    return a;
}

// b as an n x 1 view: a vector, or an (n, 1) matrix (trsv_solve's b).
void require_column(Obj b, const char* what)
{
    if (b.width() != 1 && !(b.length() == 1 && b.width() >= 1))
        throw LayoutError(std::string(what) + ": expected a vector (n,) or (n, 1), got " + std::to_string(b.length()) + "x" +
                          std::to_string(b.width()));
}

// The solution takes b's shape ((n,) or (n, 1) or (1, n)); a view b gives (n, 1).
py::object shape_of(py::handle b, const PyObj& rhs)
{
    if (py::isinstance<PyObj>(b)) return py::make_tuple(rhs.view.vector_length(), 1);
    return rhs.keep.attr("shape");
}

} // namespace

void bind_drivers(py::module_& m)
{
    // What a variant written in Python returns, as the C++ variants do.
    py::class_<LuInfo>(m, "LuInfo", R"(What an LU variant returns: the first zero pivot, if any.

A variant written in Python creates one (``flamex.LuInfo()``) and records a zero pivot
with flamex.record_zero_pivot, as the C++ variants do.

Attributes
----------
zero_pivot : int
    0, or the 1-based column of the first zero pivot (LAPACK's info).)")
        .def(py::init<>(), "A LuInfo with no zero pivot recorded (zero_pivot == 0).")
        .def_readwrite("zero_pivot", &LuInfo::zero_pivot, "0, or the 1-based column of the first zero pivot")
        .def("ok", &LuInfo::ok, R"(Whether no zero pivot was recorded.

Returns
-------
bool
    True when zero_pivot == 0.)")
        .def("__repr__", [](const LuInfo& i) { return "flamex.LuInfo(zero_pivot=" + std::to_string(i.zero_pivot) + ")"; });
    m.def("record_zero_pivot", [](const PyBackend& blas, py::handle alpha11, dim_t j, LuInfo& info) {
        return record_zero_pivot(*blas.blas, as_obj(alpha11, "alpha11", false), j, info);
    }, py::arg("blas"), py::arg("alpha11"), py::arg("j"), py::arg("info"),
       R"(Record a zero pivot, as the C++ LU variants do.

Parameters
----------
blas : flamex.Backend
    The backend holding alpha11 (its element() reads it).
alpha11 : flamex.Obj or numpy.ndarray
    The 1 x 1 pivot.
j : int
    The pivot's column, 0-based.
info : flamex.LuInfo
    Updated in place: zero_pivot becomes j + 1 when alpha11 is zero and no earlier
    zero pivot was recorded.

Returns
-------
bool
    True when alpha11 is zero.)");

    m.def("lu", [](py::handle A, const std::string& variant, py::handle backend, std::optional<dim_t> block,
                   std::optional<std::string> inner, int threads, bool overwrite_a, bool check_finite) {
        const LuVariant& v = find_lu_variant(variant);
        const LuControl control = control_of(block, inner);
        const PyBackend blas = backend_of(backend, threads);
        const InPlace a = in_place_or_copy(A, "A", overwrite_a);
        if (check_finite) require_finite("lu", "A", a.obj.view, false);
        Pivots p(a.obj.view.min_dim());
        LuInfo info;
        {
            py::gil_scoped_release nogil;
            info = lu(*blas.blas, v, a.obj.view, p, control);
        }
        return py::make_tuple(a.result, int_array(p.to_lapack()), info.zero_pivot);
    }, py::arg("A"), py::arg("variant") = "lu_piv_unb_var3", py::arg("backend") = py::none(), py::arg("block") = py::none(),
       py::arg("inner") = py::none(), py::arg("threads") = 1, py::arg("overwrite_a") = false,
       py::arg("check_finite") = true,
       R"(LU factorization P A = L U by a flamex variant.

A singular matrix is still factored (LAPACK's getrf convention): the first zero pivot
is reported in `info`, not raised.

Parameters
----------
A : array_like, shape (m, n)
    The matrix. Copied unless overwrite_a.
variant : str, optional
    An LU variant (flamex.variants("lu")), default "lu_piv_unb_var3".
backend : flamex.Backend or str or None, optional
    The backend (None: $FLAMEX_BACKEND, else "blis").
block : int or None, optional
    The block size of a blocked variant; None: the backend's choice for A's size
    (128; the exact backend 256 from min(m, n) = 512, docs/exact-tuning.md).
inner : str or None, optional
    The unblocked variant a blocked one calls on its panels.
threads : int, optional
    Threads of a backend named by string.
overwrite_a : bool, optional
    Factor A in place: A must be a Fortran-ordered float64 array or a flamex.Obj.
check_finite : bool, optional
    Check that A holds no NaN or infinity first (default True, as scipy.linalg).

Returns
-------
LU : numpy.ndarray, shape (m, n)
    L (unit lower, below the diagonal) and U; A itself with overwrite_a.
ipiv : numpy.ndarray of int32, shape (min(m, n),)
    LAPACK's pivots: row i was swapped with row ipiv[i] - 1 (the identity for
    variants without pivoting).
info : int
    0, or the 1-based column of the first zero pivot (getrf's info).

Raises
------
flamex.Error
    An unknown variant or backend, a bad layout with overwrite_a, or (check_finite)
    a NaN or infinity in A, named as "A[i, j]" (a ValueError).)");

    m.def("solve", [](py::handle A, py::handle b, const std::string& variant, py::handle backend, int refine, std::optional<dim_t> block,
                      std::optional<std::string> inner, int threads, bool report, bool check_finite) -> py::object {
        const LuVariant& v = find_lu_variant(variant);
        const LuControl control = control_of(block, inner);
        const PyBackend blas = backend_of(backend, threads);
        const PyObj a = input_obj(A, "A");
        const PyObj rhs = input_obj(b, "b");
        // A 1-D b is one right-hand side and x is 1-D; a 2-D b or a view holds k in its
        // columns and x is (n, k), except that a 1 x n view (a row) is one, as trsv_solve reads it.
        const bool is_view = py::isinstance<PyObj>(b);
        const bool one_d = !is_view && py::cast<py::array>(rhs.keep).ndim() == 1;
        const bool row_view = is_view && rhs.view.length() == 1 && rhs.view.width() > 1;
        if (check_finite) {
            require_finite("solve", "A", a.view, false);
            require_finite("solve", "b", rhs.view, one_d);
        }
        const Obj vb = one_d || row_view ? as_column(rhs.view) : rhs.view;
        py::array x = fortran_zeros(vb.length(), vb.width());
        const Obj vx = as_obj(x, "x", true);
        SolveReport r;
        {
            py::gil_scoped_release nogil;
            r = solve(*blas.blas, v, a.view, vb, vx, refine, control);
        }
        if (!r.info.ok())
            throw ColumnFailure("SingularMatrixError",
                                "solve: the matrix is singular: zero pivot in column " + std::to_string(r.info.zero_pivot) +
                                    " (" + v.name + ")",
                                r.info.zero_pivot);
        const py::object out = one_d ? x.attr("reshape")(-1) : py::object(x);
        if (!report) return out;
        return py::make_tuple(out, py::dict(py::arg("refinement_steps") = r.refinement_steps,
                                               py::arg("residual_norm") = r.residual_norm));
    }, py::arg("A"), py::arg("b"), py::arg("variant") = "lu_piv_unb_var3", py::arg("backend") = py::none(),
       py::arg("refine") = 0, py::arg("block") = py::none(), py::arg("inner") = py::none(), py::arg("threads") = 1,
       py::arg("report") = false, py::arg("check_finite") = true,
       R"(Solve A x = b by LU, two triangular solves and optional iterative refinement.

One factorization for every right-hand side; each column of b is solved and refined
on its own, bit-identical to solving it alone. A and b are not modified.

Parameters
----------
A : array_like, shape (n, n)
    The matrix.
b : array_like, shape (n,) or (n, k)
    One right-hand side, or k in the columns.
variant : str, optional
    The LU variant (flamex.variants("lu")), default "lu_piv_unb_var3".
backend : flamex.Backend or str or None, optional
    The backend (None: $FLAMEX_BACKEND, else "blis").
refine : int, optional
    At most this many steps of iterative refinement per column (default 0).
block : int or None, optional
    The block size of a blocked variant; None: the backend's choice for A's size
    (128; the exact backend 256 from min(m, n) = 512, docs/exact-tuning.md).
inner : str or None, optional
    The unblocked variant a blocked one calls.
threads : int, optional
    Threads of a backend named by string.
report : bool, optional
    Also return the refinement's report.
check_finite : bool, optional
    Check that A and b hold no NaN or infinity first (default True, as scipy.linalg).

Returns
-------
x : numpy.ndarray
    The solution, in b's shape.
report : dict
    Only with report=True, as (x, report): "refinement_steps", the most steps any
    column took, and "residual_norm", the largest ||b_j - A x_j||_inf.

Raises
------
flamex.SingularMatrixError
    A zero pivot; .column is its 1-based column.
flamex.Error
    Bad shapes, an unknown variant or backend, or (check_finite) a NaN or infinity,
    named as "A[i, j]" or "b[i]" (a ValueError).)");

    m.def("trsv_solve", [](py::handle T, py::handle b, Uplo uplo, Trans trans, Diag diag, py::handle backend, int refine) {
        const PyBackend blas = backend_of(backend);
        const PyObj t = input_obj(T, "T");
        const PyObj rhs = input_obj(b, "b");
        require_column(rhs.view, "b");
        py::array x = fortran_zeros(rhs.view.vector_length(), 1);
        const Obj vx = as_obj(x, "x", true);
        {
            py::gil_scoped_release nogil;
            trsv_refined(*blas.blas, uplo, trans, diag, t.view, as_column(rhs.view), vx, refine);
        }
        return x.attr("reshape")(shape_of(b, rhs), py::arg("order") = "F");
    }, py::arg("T"), py::arg("b"), py::arg("uplo") = Uplo::Lower, py::arg("trans") = Trans::No, py::arg("diag") = Diag::NonUnit,
       py::arg("backend") = py::none(), py::arg("refine") = 0,
       R"(Solve op(T) x = b for a triangular T by the backend's trsv (the CLI's flamex trsv).

Parameters
----------
T : array_like, shape (n, n)
    The triangular matrix; only its `uplo` triangle is read.
b : array_like, shape (n,), (n, 1) or (1, n)
    The right-hand side.
uplo : flamex.Uplo, optional
    LOWER (default) or UPPER.
trans : flamex.Trans, optional
    NO_TRANSPOSE (default) or TRANSPOSE: op(T) = T or T^T.
diag : flamex.Diag, optional
    NONUNIT (default) or UNIT (the diagonal is taken as ones).
backend : flamex.Backend or str or None, optional
    The backend (None: $FLAMEX_BACKEND, else "blis").
refine : int, optional
    At most this many steps of iterative refinement (default 0).

Returns
-------
x : numpy.ndarray
    The solution, in b's shape ((n, 1) for a view b).

Raises
------
flamex.Error
    Shapes that do not conform, or an unknown backend (a ValueError).)");
}

} // namespace flamex::python
