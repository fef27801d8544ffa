// numpy <-> FLAME views; see views.hpp for the rules.
#include "views.hpp"

#include <algorithm>
#include <utility>

namespace flamex::python {

namespace {

std::string type_name(py::handle h) { return py::str(py::type::handle_of(h).attr("__name__")).cast<std::string>(); }

template <class T>
const char* dtype_words()
{
    return sizeof(T) == sizeof(double) ? "float64 (numpy.float64)" : "int32 (FLAME pivot offsets, numpy.int32)";
}

template <class T>
View<T> array_view(py::handle h, const char* what, bool writable)
{
    const std::string arg = what;
    if (!py::isinstance<py::array>(h))
        throw LayoutError(arg + ": expected a numpy array or a flamex view, got " + type_name(h));
    const auto a = py::reinterpret_borrow<py::array>(h);
    if (!a.dtype().is(py::dtype::of<T>()))
        throw LayoutError(arg + ": dtype must be " + dtype_words<T>() + ", got " +
                          py::str(a.dtype()).cast<std::string>() + " (numpy.asfortranarray(" + what +
                          ", dtype=...) makes a converted copy)");
    if (writable && !a.writeable()) throw LayoutError(arg + ": the array is read-only and this operation writes it");
    if (a.ndim() != 1 && a.ndim() != 2)
        throw LayoutError(arg + ": expected a 1-D or 2-D array, got " + std::to_string(a.ndim()) + " dimensions");

    const auto item = static_cast<py::ssize_t>(sizeof(T));
    for (py::ssize_t k = 0; k < a.ndim(); ++k)
        if (a.strides(k) % item != 0)
            throw LayoutError(arg + ": strides that are not a multiple of the element size cannot be a FLAME view; "
                                    "pass numpy.asfortranarray(" + arg + ")");
    // numpy's data() is the address of element (0, 0) whatever the strides.
    T* data = static_cast<T*>(const_cast<void*>(a.data()));

    if (a.ndim() == 1) {
        const dim_t m = a.shape(0);
        const dim_t s = m <= 1 ? 1 : a.strides(0) / item;
        if (s == 1) return View<T>(data, 1, m > 0 ? m : 1, 0, 0, m, 1);
        if (s > 1) return View<T>(data, 1, s, 0, 0, 1, m); // a row of a column-major matrix
        throw LayoutError(arg + ": a vector with a negative or zero stride cannot be a FLAME view; pass numpy.ascontiguousarray(" +
                          arg + ")");
    }

    const dim_t m = a.shape(0), n = a.shape(1);
    // A stride along an axis of length 0 or 1 is never used, nor any stride of an empty
    // array: numpy leaves them arbitrary (a (0, n) array has column stride 0).
    const dim_t rs = m <= 1 || n == 0 ? 1 : a.strides(0) / item;
    const dim_t cs = n <= 1 || m == 0 ? (m > 0 ? m : 1) : a.strides(1) / item;
    if (rs != 1) {
        if (a.strides(1) == item && n > 1)
            throw LayoutError(arg + ": a C-ordered (row-major) array is not a FLAME view, which is column-major; pass numpy.asfortranarray(" +
                              arg + ") (a copy), or " + arg + ".T to work on its transpose in place");
        throw LayoutError(arg + ": row stride of " + std::to_string(a.strides(0) / item) +
                          " elements; a FLAME view needs unit row stride (pass numpy.asfortranarray(" + arg + "))");
    }
    if (cs < m || cs < 1)
        throw LayoutError(arg + ": column stride of " + std::to_string(a.strides(1) / item) + " elements for " +
                          std::to_string(m) + " rows overlaps or reverses columns; pass numpy.asfortranarray(" + arg + ")");
    return View<T>(data, rs, cs, 0, 0, m, n);
}

} // namespace

View<double> as_obj(py::handle h, const char* what, bool writable)
{
    if (py::isinstance<PyObj>(h)) return h.cast<const PyObj&>().view;
    return array_view<double>(h, what, writable);
}

View<int> as_piv(py::handle h, const char* what, bool writable)
{
    if (py::isinstance<PyPiv>(h)) return h.cast<const PyPiv&>().view;
    return array_view<int>(h, what, writable);
}

PyObj to_pyobj(py::handle h, const char* what, bool writable)
{
    if (py::isinstance<PyObj>(h)) return h.cast<PyObj>();
    return {array_view<double>(h, what, writable), py::reinterpret_borrow<py::object>(h)};
}

PyPiv to_pypiv(py::handle h, const char* what, bool writable)
{
    if (py::isinstance<PyPiv>(h)) return h.cast<PyPiv>();
    return {array_view<int>(h, what, writable), py::reinterpret_borrow<py::object>(h)};
}

Obj as_column(Obj v) { return v.width() == 1 ? v : Obj(v.buffer(), v.col_stride(), v.row_stride(), 0, 0, v.width(), 1); }

template <class T>
py::array window_array(const PyView<T>& v)
{
    const auto item = static_cast<py::ssize_t>(sizeof(T));
    const View<T>& w = v.view;
    // With a base object numpy wraps the memory instead of copying it.
    return py::array(py::dtype::of<T>(), {w.length(), w.width()}, {w.row_stride() * item, w.col_stride() * item},
                     w.buffer(), v.keep);
}

template py::array window_array(const PyView<double>&);
template py::array window_array(const PyView<int>&);

py::array_t<double, py::array::f_style> fortran_zeros(dim_t m, dim_t n)
{
    py::array_t<double, py::array::f_style> a({m, n});
    if (m * n > 0) std::fill_n(a.mutable_data(), m * n, 0.0);
    return a;
}

py::array to_numpy(Matrix&& A)
{
    if (A.length() == 0 || A.width() == 0) return fortran_zeros(A.length(), A.width());
    auto* owned = new Matrix(std::move(A));
    py::capsule owner(owned, [](void* p) { delete static_cast<Matrix*>(p); });
    const Obj v = owned->view();
    const auto item = static_cast<py::ssize_t>(sizeof(double));
    return py::array(py::dtype::of<double>(), {v.length(), v.width()}, {v.row_stride() * item, v.col_stride() * item},
                     v.buffer(), owner);
}

} // namespace flamex::python
