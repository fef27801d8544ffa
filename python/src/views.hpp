// numpy arrays as FLAME views, and back, without copying.
//
// A FLAME view is a base pointer, a row and a column stride (in elements) and a
// window; a numpy array is a data pointer, byte strides and a shape. They describe
// the same memory when the row stride is one element, i.e. for Fortran-ordered
// arrays and any slice of one that keeps unit row stride (column slices, row
// ranges, blocks). Everything else is rejected rather than copied, because a
// silent copy would make in-place operations write to a temporary the caller never
// sees:
//   - C-ordered 2-D arrays (use numpy.asfortranarray);
//   - 2-D arrays whose row stride is not one element, or whose strides are negative,
//     zero or not multiples of the element size;
//   - the wrong dtype (float64 for matrices, int32 for FLAME pivot offsets).
// A 1-D array is a vector: m x 1 when contiguous, and 1 x m with column stride s
// (the way a row of a column-major matrix is laid out) when its stride is s > 1
// elements; the abstract BLAS accepts vectors in either orientation.
//
// A PyView keeps the Python object that owns the memory alive, so a view handed
// back to Python (by part_2x2 and friends) stays valid after the array's last
// Python name is gone.
#pragma once

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <string>

#include "flame/flame.hpp"

namespace flamex::python {

namespace py = pybind11;

template <class T>
struct PyView {
    View<T> view;
    py::object keep; // the owner of view's memory (an ndarray), or None
};

using PyObj = PyView<double>;
using PyPiv = PyView<int>;

// Thrown by the conversions; the module translates it to ValueError.
struct LayoutError : std::invalid_argument {
    using std::invalid_argument::invalid_argument;
};

// `what` names the argument in error messages; `writable`: the operation writes it.
View<double> as_obj(py::handle h, const char* what, bool writable);
View<int> as_piv(py::handle h, const char* what, bool writable);
PyObj to_pyobj(py::handle h, const char* what, bool writable);
PyPiv to_pypiv(py::handle h, const char* what, bool writable);

// A vector view (n x 1, or 1 x n as a strided 1-D array gives) as n x 1.
Obj as_column(Obj v);

// The numpy array over a view's window (shape (m, n), writes go to the view).
template <class T>
py::array window_array(const PyView<T>& v);

// A Matrix the library returned, handed to numpy without a copy: the array's base
// owns the Matrix (and so libflame's buffer).
py::array to_numpy(Matrix&& A);

// A fresh Fortran-ordered float64 m x n array.
py::array_t<double, py::array::f_style> fortran_zeros(dim_t m, dim_t n);

} // namespace flamex::python
