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

// A zero pivot where the caller asked for a solution: flamex.SingularMatrixError.
struct SingularMatrix : std::runtime_error {
    SingularMatrix(const std::string& what, dim_t col) : std::runtime_error(what), column(col) {}
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

void bind_blas(py::module_& m);    // blas.cpp: Backend, backends(), devices()
void bind_drivers(py::module_& m); // drivers.cpp: lu, solve, variants
void bind_tools(py::module_& m);   // tools.cpp: gen, mpfr, Matrix Market
void bind_batched(py::module_& m); // batched.cpp: the batched symmetric solvers

} // namespace flamex::python
