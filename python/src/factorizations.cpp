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

py::list variant_list(const std::string& operation)
{
    py::list out;
    if (operation == "lu") {
        for (const LuVariant& v : lu_variants()) {
            py::dict d = describe(v);
            d["pivoting"] = v.pivoting;
            out.append(d);
        }
    } else if (operation == "chol") {
        for (const CholVariant& v : chol_variants()) out.append(describe(v));
    } else if (operation == "ldlt") {
        for (const LdltDriverVariant& v : ldlt_driver_variants())
            out.append(py::dict(py::arg("name") = v.name, py::arg("blocked") = false, py::arg("number") = v.number,
                                py::arg("summary") = v.summary, py::arg("on_backend") = v.on_backend));
    } else if (operation == "trinv") {
        for (const TrinvVariant& v : trinv_variants()) out.append(describe(v));
    } else if (operation == "trsm_lln") {
        for (const TrsmVariant& v : trsm_variants()) out.append(describe(v));
    } else {
        throw Error("variants: unknown operation '" + operation + "' (known: lu, chol, ldlt, trinv, trsm_lln)");
    }
    return out;
}

} // namespace

void bind_factorizations(py::module_& m)
{
    m.def("variants", &variant_list, py::arg("operation") = "lu",
          R"(The registered variants of an operation ("lu", "chol", "ldlt", "trinv", "trsm_lln"),
as dicts (name, blocked, number, summary; LU's also pivoting, LDL^T's on_backend):
what `flamex lu --list` (chol, ldlt, trinv) prints.)");

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
       R"(Cholesky factor L (A = L L^T, L lower) from A's lower triangle by a flamex variant.

Returns L with zeros above the diagonal; with overwrite_a, A (a Fortran-ordered float64
array or view) has L written over its lower triangle, its strict upper triangle
untouched, and is returned. Raises flamex.NotPositiveDefiniteError (.column, 1-based)
where an updated diagonal element is not positive.)");

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
       R"(LDL^T without pivoting (A = L D L^T, L unit lower, D diagonal) from A's lower triangle.

Returns the factors in one matrix: L strictly below the diagonal, D on it, zeros above
(with overwrite_a, in A's lower triangle, the strict upper untouched). The ldlt_blas_*
variants run on the backend; ldlt_unb_var1..3 are plain loops on the host, whatever
the backend (flamex.variants("ldlt")'s on_backend). Raises flamex.ZeroPivotError
(.column) on a zero or non-finite pivot.)");

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
       R"(The inverse of A's lower triangle L (non-unit) by a flamex variant.

Returns L^{-1} with zeros above the diagonal; with overwrite_a, written over A's lower
triangle, the strict upper untouched. Raises flamex.SingularMatrixError (.column) on a
zero on the diagonal, before anything is computed (A is then unchanged).)");

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
       R"(X = L^{-1} B for the lower triangle L (non-unit) of the square L and an (n, k) or (n,) B.

Returns X in B's shape; with overwrite_b, B (a Fortran-ordered float64 array or view)
is overwritten and returned. Raises flamex.SingularMatrixError (.column) on a zero on
L's diagonal, before anything is computed.)");
}

} // namespace flamex::python
