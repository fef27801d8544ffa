// What the binding files share: the view conversions, the exception the solve
// binding throws for a zero pivot, and one registration function per file.
#pragma once

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <memory>
#include <stdexcept>
#include <string>

#include "blas/blas.hpp"
#include "views.hpp"

namespace flamex::python {

// A factorization, inversion or solve that stopped at a column where a result was
// asked for: raised as the flamex.errors class `python_class` (SingularMatrixError,
// NotPositiveDefiniteError, ZeroPivotError) with .column.
struct ColumnFailure : std::runtime_error {
    ColumnFailure(const char* cls, const std::string& what, dim_t col) : std::runtime_error(what), python_class(cls), column(col) {}
    const char* python_class;
    dim_t column; // 1-based, LAPACK's info
};

// A backend as the Python API names one: a flamex.Backend, a name, or None for
// default_backend_name() (FLAMEX_BACKEND, else blis).
struct PyBackend {
    std::shared_ptr<const Blas> blas;
};
PyBackend backend_of(py::handle backend, int threads = 1);

// A read-only input to a driver (lu without overwrite_a, solve, the references):
// a flamex view or a conforming array as it is, anything else array-like converted
// once to a Fortran-ordered float64 array (nothing is written back, so a copy loses
// nothing). In-place arguments never come through here.
PyObj input_obj(py::handle h, const char* what);

// The matrix an operation transforms in place: with `overwrite`, A itself (a
// Fortran-ordered float64 array or view; anything else is a ValueError) and the
// result is A; without, one new Fortran-ordered float64 copy of any array-like,
// which is the result. A must be 2-D unless vector_allowed (a 1-D array is then
// an n x 1 vector, and the result keeps its shape).
struct InPlace {
    PyObj obj;
    py::object result;
};
InPlace in_place_or_copy(py::handle A, const char* what, bool overwrite, bool vector_allowed = false);

// check_finite (lu, solve, chol, ldlt, trinv, trsm_lln; scipy.linalg's convention): a NaN
// or an infinity anywhere in the argument `what` of operation `op` is a flamex.Error (a
// ValueError) naming the argument, the first such entry in column-major order (A[i, j],
// or b[i] for a 1-D argument, indices within the view) and its value. Nothing is written.
void require_finite(const char* op, const char* what, Obj v, bool one_d);
inline bool is_one_d(py::handle h) { return py::isinstance<py::array>(h) && py::reinterpret_borrow<py::array>(h).ndim() == 1; }

void bind_blas(py::module_& m);    // blas.cpp: Backend, backends(), devices()
void bind_drivers(py::module_& m); // drivers.cpp: lu, solve, trsv_solve
void bind_factorizations(py::module_& m); // factorizations.cpp: chol, ldlt, trinv, trsm_lln, variants
void bind_operations(py::module_& m); // operations.cpp: run, operations
void bind_derive(py::module_& m);  // derive.cpp: derive, derive_invariants
void bind_tools(py::module_& m);   // tools.cpp: gen, mpfr, Matrix Market
void bind_batched(py::module_& m); // batched.cpp: the batched symmetric solvers
void bind_config(py::module_& m);  // config.cpp: __version__, _config() (show_config's facts)

} // namespace flamex::python
