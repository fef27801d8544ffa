// flamex.chol, flamex.ldlt, flamex.trinv, flamex.trsm_lln and flamex.variants: the
// drivers and registries of variants/chol.hpp, variants/ldlt_blas.hpp (every LDL^T
// variant the CLI offers), variants/trinv.hpp, variants/trsm.hpp and variants/lu.hpp.
//
// Each transforms a matrix in place, as the library does: A itself with
// overwrite_a (overwrite_b), else a new Fortran-ordered copy. A numerical failure
// is an exception naming its column, as the CLI's message does; LU alone returns
// getrf's info instead (flamex.lu), because a singular LU is still a factorization.
#include "bindings.hpp"

#include "variants/chol.hpp"
#include "variants/ldlt_blas.hpp"
#include "variants/lu.hpp"
#include "variants/operations.hpp"
#include "variants/trinv.hpp"
#include "variants/trsm.hpp"

namespace flamex::python {

namespace {

// The block size and inner variant of a blocked variant; an inner variant given
// for an unblocked one is an error, as on the command line (the library ignores it).
template <class Control, class Variant, class Find>
Control control_of(const Variant& variant, dim_t block, const std::optional<std::string>& inner, Find find)
{
    Control control;
    control.block = block;
    if (inner) {
        if (!variant.blocked) throw Error("inner applies only to blocked variants; " + variant.name + " is unblocked");
        control.inner = &find(*inner);
    }
    return control;
}

// The strict upper triangle zeroed: a copy's result is the triangular factor alone,
// as scipy.linalg.cholesky's and the CLI's files are.
void zero_strict_upper(Obj A)
{
    for (dim_t j = 1; j < A.width(); ++j)
        for (dim_t i = 0; i < std::min(j, A.length()); ++i) A(i, j) = 0.0;
}

std::string column_message(const char* op, const std::string& failure, dim_t column, const std::string& variant)
{
    return std::string(op) + ": " + failure + " " + std::to_string(column) + " (" + variant + ")";
}

template <class Variant>
py::dict describe(const Variant& v)
{
    return py::dict(py::arg("name") = v.name, py::arg("blocked") = v.blocked, py::arg("number") = v.number,
                    py::arg("summary") = v.summary);
}

// "lu": every LU variant, with and without pivoting (`flamex lu --list`); any other
// name: that operation's variants on the generic path (variants/operations.hpp).
py::list variant_list(const std::string& operation)
{
    py::list out;
    if (operation == "lu") {
        for (const LuVariant& v : lu_variants()) {
            py::dict d = describe(v);
            d["pivoting"] = v.pivoting;
            out.append(d);
        }
        return out;
    }
    for (const OperationVariant& v : find_operation(operation).variants()) {
        py::dict d = describe(v);
        if (operation == "ldlt") d["on_backend"] = find_ldlt_driver_variant(v.name).on_backend;
        out.append(d);
    }
    return out;
}

} // namespace

void bind_factorizations(py::module_& m)
{
    m.def("variants", &variant_list, py::arg("operation") = "lu",
          R"(The registered variants of an operation, what `flamex lu --list` (chol, ...) prints.

Parameters
----------
operation : str, optional
    "lu" (default: every LU variant, with and without pivoting) or any operation of
    flamex.operations() ("chol", "ldlt", "trinv", "trsm_lln", "trmm_lln", ...).

Returns
-------
list of dict
    One dict a variant: "name", "blocked" (bool), "number" (libflame's variant
    number) and "summary"; LU's also "pivoting", LDL^T's "on_backend".

Raises
------
flamex.Error
    An unknown operation (a ValueError).)");

    m.def("chol", [](py::handle A, const std::string& variant, py::handle backend, dim_t block,
                     std::optional<std::string> inner, int threads, bool overwrite_a, bool check_finite) {
        const CholVariant& v = find_chol_variant(variant);
        const auto control = control_of<CholControl>(v, block, inner, find_chol_variant);
        const PyBackend blas = backend_of(backend, threads);
        const InPlace a = in_place_or_copy(A, "A", overwrite_a);
        if (check_finite) require_finite("chol", "A", a.obj.view, false);
        CholInfo info;
        {
            py::gil_scoped_release nogil;
            info = chol(*blas.blas, v, a.obj.view, control);
            if (info.ok() && !overwrite_a) zero_strict_upper(a.obj.view);
        }
        if (!info.ok())
            throw ColumnFailure("NotPositiveDefiniteError",
                                column_message("chol", "the matrix is not positive definite: column", info.not_positive_definite, v.name),
                                info.not_positive_definite);
        return a.result;
    }, py::arg("A"), py::arg("variant") = "chol_unb_var3", py::arg("backend") = py::none(), py::arg("block") = 128,
       py::arg("inner") = py::none(), py::arg("threads") = 1, py::arg("overwrite_a") = false,
       py::arg("check_finite") = true,
       R"(Cholesky factorization A = L L^T (L lower) from A's lower triangle, by a flamex variant.

Parameters
----------
A : array_like, shape (n, n)
    Symmetric positive definite; only the lower triangle is read. Copied unless
    overwrite_a.
variant : str, optional
    A Cholesky variant (flamex.variants("chol")), default "chol_unb_var3".
backend : flamex.Backend or str or None, optional
    The backend (None: $FLAMEX_BACKEND, else "blis").
block : int, optional
    The block size of a blocked variant (default 128).
inner : str or None, optional
    The unblocked variant a blocked one calls on its diagonal blocks (an error for an
    unblocked variant).
threads : int, optional
    Threads of a backend named by string.
overwrite_a : bool, optional
    Write L over A's lower triangle (the strict upper triangle untouched); A must be
    a Fortran-ordered float64 array or a flamex.Obj.
check_finite : bool, optional
    Check that A (all of it, as scipy.linalg) holds no NaN or infinity first
    (default True).

Returns
-------
L : numpy.ndarray, shape (n, n)
    The factor, zeros above the diagonal; A itself with overwrite_a.

Raises
------
flamex.NotPositiveDefiniteError
    An updated diagonal element is not positive; .column is its 1-based column.
flamex.Error
    A matrix that is not square, an unknown variant or backend, or (check_finite) a
    NaN or infinity, named as "A[i, j]" (a ValueError).)");

    m.def("ldlt", [](py::handle A, const std::string& variant, py::handle backend, int threads, bool overwrite_a,
                     bool check_finite) {
        const LdltDriverVariant& v = find_ldlt_driver_variant(variant);
        const PyBackend blas = backend_of(backend, threads);
        const InPlace a = in_place_or_copy(A, "A", overwrite_a);
        if (check_finite) require_finite("ldlt", "A", a.obj.view, false);
        LdltInfo info;
        {
            py::gil_scoped_release nogil;
            info = ldlt(*blas.blas, v, a.obj.view);
            if (info.ok() && !overwrite_a) zero_strict_upper(a.obj.view);
        }
        if (!info.ok())
            throw ColumnFailure("ZeroPivotError", column_message("ldlt", "zero or non-finite pivot in column", info.breakdown, v.name),
                                info.breakdown);
        return a.result;
    }, py::arg("A"), py::arg("variant") = "ldlt_unb_var3", py::arg("backend") = py::none(), py::arg("threads") = 1,
       py::arg("overwrite_a") = false, py::arg("check_finite") = true,
       R"(LDL^T factorization without pivoting, A = L D L^T (L unit lower, D diagonal).

The ldlt_blas_* variants run on the backend; ldlt_unb_var1..3 are plain loops on the
host, whatever the backend (flamex.variants("ldlt")'s on_backend).

Parameters
----------
A : array_like, shape (n, n)
    Symmetric; only the lower triangle is read. Copied unless overwrite_a.
variant : str, optional
    An LDL^T variant (flamex.variants("ldlt")), default "ldlt_unb_var3".
backend : flamex.Backend or str or None, optional
    The backend (None: $FLAMEX_BACKEND, else "blis").
threads : int, optional
    Threads of a backend named by string.
overwrite_a : bool, optional
    Write the factors over A's lower triangle (the strict upper triangle untouched);
    A must be a Fortran-ordered float64 array or a flamex.Obj.
check_finite : bool, optional
    Check that A holds no NaN or infinity first (default True, as scipy.linalg).

Returns
-------
LD : numpy.ndarray, shape (n, n)
    L strictly below the diagonal, D on it, zeros above; A itself with overwrite_a.

Raises
------
flamex.ZeroPivotError
    A zero or non-finite pivot; .column is its 1-based column.
flamex.Error
    A matrix that is not square, an unknown variant or backend, or (check_finite) a
    NaN or infinity, named as "A[i, j]" (a ValueError).)");

    m.def("trinv", [](py::handle A, const std::string& variant, py::handle backend, dim_t block,
                      std::optional<std::string> inner, int threads, bool overwrite_a, bool check_finite) {
        const TrinvVariant& v = find_trinv_variant(variant);
        const auto control = control_of<TrinvControl>(v, block, inner, find_trinv_variant);
        const PyBackend blas = backend_of(backend, threads);
        const InPlace a = in_place_or_copy(A, "A", overwrite_a);
        if (check_finite) require_finite("trinv", "A", a.obj.view, false);
        TrinvInfo info;
        {
            py::gil_scoped_release nogil;
            info = trinv(*blas.blas, v, a.obj.view, control);
            if (info.ok() && !overwrite_a) zero_strict_upper(a.obj.view);
        }
        if (!info.ok())
            throw ColumnFailure("SingularMatrixError",
                                column_message("trinv", "the matrix is singular: zero on the diagonal in column", info.zero_diagonal, v.name),
                                info.zero_diagonal);
        return a.result;
    }, py::arg("A"), py::arg("variant") = "trinv_unb_var3", py::arg("backend") = py::none(), py::arg("block") = 128,
       py::arg("inner") = py::none(), py::arg("threads") = 1, py::arg("overwrite_a") = false,
       py::arg("check_finite") = true,
       R"(Inverse of the lower triangle L (non-unit diagonal) of A, by a flamex variant.

Parameters
----------
A : array_like, shape (n, n)
    Only the lower triangle, L, is read. Copied unless overwrite_a.
variant : str, optional
    A triangular inversion variant (flamex.variants("trinv")), default "trinv_unb_var3".
backend : flamex.Backend or str or None, optional
    The backend (None: $FLAMEX_BACKEND, else "blis").
block : int, optional
    The block size of a blocked variant (default 128).
inner : str or None, optional
    The unblocked variant a blocked one calls on its diagonal blocks (an error for an
    unblocked variant).
threads : int, optional
    Threads of a backend named by string.
overwrite_a : bool, optional
    Write L^{-1} over A's lower triangle (the strict upper triangle untouched); A
    must be a Fortran-ordered float64 array or a flamex.Obj.
check_finite : bool, optional
    Check that A holds no NaN or infinity first (default True, as scipy.linalg).

Returns
-------
Linv : numpy.ndarray, shape (n, n)
    L^{-1}, zeros above the diagonal; A itself with overwrite_a.

Raises
------
flamex.SingularMatrixError
    A zero on the diagonal (.column, 1-based), found before anything is computed (A
    is then unchanged).
flamex.Error
    A matrix that is not square, an unknown variant or backend, or (check_finite) a
    NaN or infinity, named as "A[i, j]" (a ValueError).)");

    m.def("trsm_lln", [](py::handle L, py::handle B, const std::string& variant, py::handle backend, dim_t block,
                         std::optional<std::string> inner, int threads, bool overwrite_b, bool check_finite) {
        const TrsmVariant& v = find_trsm_variant(variant);
        const auto control = control_of<TrsmControl>(v, block, inner, find_trsm_variant);
        const PyBackend blas = backend_of(backend, threads);
        const PyObj l = input_obj(L, "L");
        const InPlace b = in_place_or_copy(B, "B", overwrite_b, true);
        if (check_finite) {
            require_finite("trsm_lln", "L", l.view, false);
            require_finite("trsm_lln", "B", b.obj.view, is_one_d(b.result));
        }
        TrsmInfo info;
        {
            py::gil_scoped_release nogil;
            info = trsm_lln(*blas.blas, v, l.view, b.obj.view, control);
        }
        if (!info.ok())
            throw ColumnFailure("SingularMatrixError",
                                column_message("trsm_lln", "the matrix is singular: zero on the diagonal in column", info.zero_diagonal, v.name),
                                info.zero_diagonal);
        return b.result;
    }, py::arg("L"), py::arg("B"), py::arg("variant") = "trsm_lln_unb_var2", py::arg("backend") = py::none(),
       py::arg("block") = 128, py::arg("inner") = py::none(), py::arg("threads") = 1, py::arg("overwrite_b") = false,
       py::arg("check_finite") = true,
       R"(Triangular solve with many right-hand sides, X = L^{-1} B (left, lower, no transpose).

Parameters
----------
L : array_like, shape (n, n)
    Only its lower triangle (non-unit diagonal) is read.
B : array_like, shape (n, k) or (n,)
    The right-hand sides. Copied unless overwrite_b.
variant : str, optional
    A trsm variant (flamex.variants("trsm_lln")), default "trsm_lln_unb_var2".
backend : flamex.Backend or str or None, optional
    The backend (None: $FLAMEX_BACKEND, else "blis").
block : int, optional
    The block size of a blocked variant (default 128).
inner : str or None, optional
    The unblocked variant a blocked one calls on its diagonal blocks (an error for an
    unblocked variant).
threads : int, optional
    Threads of a backend named by string.
overwrite_b : bool, optional
    Write X over B; B must be a Fortran-ordered float64 array or a flamex.Obj.
check_finite : bool, optional
    Check that L and B hold no NaN or infinity first (default True, as scipy.linalg).

Returns
-------
X : numpy.ndarray
    The solution, in B's shape; B itself with overwrite_b.

Raises
------
flamex.SingularMatrixError
    A zero on L's diagonal (.column, 1-based), found before anything is computed.
flamex.Error
    Shapes that do not conform, an unknown variant or backend, or (check_finite) a
    NaN or infinity, named as "L[i, j]", "B[i, j]" or "B[i]" (a ValueError).)");
}

} // namespace flamex::python
