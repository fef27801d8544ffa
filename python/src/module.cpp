// The flamex Python module (flamex._flamex): the FLAME object layer on numpy
// arrays, the abstract BLAS and its backends, the LU drivers, the generators and
// MPFR references, Matrix Market I/O and the batched solvers.
//
// The bindings only convert: every check and every algorithm is the library's.
// Errors: flamex::Error becomes flamex.Error (a ValueError), or flamex.OpenCLError
// when the message is the OpenCL layer's ("opencl: ..."), carrying the build log
// when there is one; layout and dtype problems found here are ValueErrors. Nothing
// in the library aborts on bad input, so no Python call can end the interpreter.
#include "bindings.hpp"

#include <string>
#include <tuple>
#include <type_traits>

namespace flamex::python {

namespace {

// The exception classes live in flamex/errors.py, so that they are plain Python
// classes (picklable, subclassable, documented where users look).
py::object error_class(const char* name) { return py::module_::import("flamex.errors").attr(name); }

void raise(const py::object& cls, const py::object& instance) { PyErr_SetObject(cls.ptr(), instance.ptr()); }

void translate_errors()
{
    py::register_exception_translator([](std::exception_ptr p) {
        try {
            if (p) std::rethrow_exception(p);
        } catch (const ColumnFailure& e) {
            const py::object cls = error_class(e.python_class);
            raise(cls, cls(e.what(), e.column));
        } catch (const Error& e) {
            const std::string what = e.what();
            if (what.rfind("opencl", 0) == 0) {
                const py::object cls = error_class("OpenCLError");
                const std::string marker = "build log:\n";
                const auto at = what.find(marker);
                raise(cls, cls(what, at == std::string::npos ? std::string() : what.substr(at + marker.size())));
            } else {
                const py::object cls = error_class("Error");
                raise(cls, cls(what));
            }
        }
    });
}

template <class T>
void bind_view_class(py::module_& m, const char* name, const char* doc)
{
    py::class_<PyView<T>>(m, name, doc)
        .def_property_readonly("shape", [](const PyView<T>& v) { return py::make_tuple(v.view.length(), v.view.width()); },
                               "(length, width)")
        .def_property_readonly("length", [](const PyView<T>& v) { return v.view.length(); }, "the window's rows")
        .def_property_readonly("width", [](const PyView<T>& v) { return v.view.width(); }, "the window's columns")
        .def_property_readonly("offset", [](const PyView<T>& v) { return py::make_tuple(v.view.offset_m(), v.view.offset_n()); },
                               "(row, column) of the window's first element in the base array")
        .def_property_readonly("base", [](const PyView<T>& v) { return v.keep; }, "the array whose memory this view is a window of")
        .def_property_readonly("array", &window_array<T>, "the window as a numpy array (no copy: writes go to the base array)")
        .def("__array__", [](const PyView<T>& v, py::object dtype) {
                 py::array a = window_array(v);
                 return dtype.is_none() ? a : py::array(a.attr("astype")(dtype));
             }, py::arg("dtype") = py::none())
        // Element access goes through View::sub, so an index outside the window is an error.
        .def("__getitem__", [](const PyView<T>& v, std::pair<dim_t, dim_t> ij) { return v.view.sub(ij.first, ij.second, 1, 1)(0, 0); })
        .def("__setitem__", [](const PyView<T>& v, std::pair<dim_t, dim_t> ij, T value) {
                 v.view.sub(ij.first, ij.second, 1, 1)(0, 0) = value;
             })
        .def("__repr__", [name](const PyView<T>& v) {
            return std::string("flamex.") + name + "(" + std::to_string(v.view.length()) + "x" + std::to_string(v.view.width()) +
                   " at (" + std::to_string(v.view.offset_m()) + ", " + std::to_string(v.view.offset_n()) + "))";
        });
}

// Partitioning works on float64 matrices and int32 pivot vectors alike; the first
// argument decides which.
bool is_pivot(py::handle h)
{
    if (py::isinstance<PyPiv>(h)) return true;
    return py::isinstance<py::array>(h) && py::reinterpret_borrow<py::array>(h).dtype().is(py::dtype::of<int>());
}

template <class T>
PyView<T> to_view(py::handle h, const char* what)
{
    if constexpr (std::is_same_v<T, double>)
        return to_pyobj(h, what, false);
    else
        return to_pypiv(h, what, false);
}

// The views a partition returns share the first argument's owner.
template <class T, class Tuple>
py::tuple wrap_all(const py::object& keep, const Tuple& views)
{
    py::list out;
    std::apply([&](const auto&... v) { (out.append(py::cast(PyView<T>{v, keep})), ...); }, views);
    return py::tuple(out);
}

template <class F>
py::tuple on_either(py::handle first, F f)
{
    return is_pivot(first) ? f(int{}) : f(double{});
}

void bind_partitioning(py::module_& m)
{
    py::enum_<Quadrant>(m, "Quadrant", "A quadrant of a 2 x 2 partition: TL, TR, BL, BR.").value("TL", TL).value("TR", TR).value("BL", BL).value("BR", BR).export_values();
    py::enum_<Side>(m, "Side", "A side of a 2 x 1 or 1 x 2 partition (TOP, BOTTOM, LEFT, RIGHT), or of a trsm/trmm (LEFT, RIGHT).").value("TOP", TOP).value("BOTTOM", BOTTOM).value("LEFT", LEFT).value("RIGHT", RIGHT).export_values();

    m.def("view", [](py::handle A) -> py::object {
              if (is_pivot(A)) return py::cast(to_pypiv(A, "A", true));
              return py::cast(to_pyobj(A, "A", true));
          }, py::arg("A"),
          R"(A FLAME view of an array, without copying.

Parameters
----------
A : numpy.ndarray or flamex.Obj
    A Fortran-ordered float64 array (or a slice of one with unit row stride), or an
    int32 pivot vector.

Returns
-------
flamex.Obj or flamex.PivObj
    The whole array as a view; writes through it go to A.

Raises
------
ValueError
    A C-ordered array, a non-unit row stride or the wrong dtype.)");

    m.def("part_2x2", [](py::handle A, dim_t mb, dim_t nb, Quadrant q) {
        return on_either(A, [&](auto t) {
            using T = decltype(t);
            const auto a = to_view<T>(A, "A");
            return wrap_all<T>(a.keep, part_2x2(a.view, mb, nb, q));
        });
    }, py::arg("A"), py::arg("mb"), py::arg("nb"), py::arg("quadrant"),
       R"(Partition A into 2 x 2 quadrants (FLA_Part_2x2).

Parameters
----------
A : flamex.Obj or numpy.ndarray or flamex.PivObj
    The matrix (or pivot vector) partitioned.
mb : int
    The rows of the `quadrant` block.
nb : int
    Its columns.
quadrant : flamex.Quadrant
    The quadrant that gets the mb x nb block: TL, TR, BL or BR.

Returns
-------
tuple of flamex.Obj or flamex.PivObj
    (ATL, ATR, ABL, ABR), views of A's memory.

Raises
------
ValueError
    A layout that is not a FLAME view, or sizes outside the view (flamex.Error).)");
    m.def("part_2x1", [](py::handle A, dim_t mb, Side s) {
        return on_either(A, [&](auto t) {
            using T = decltype(t);
            const auto a = to_view<T>(A, "A");
            return wrap_all<T>(a.keep, part_2x1(a.view, mb, s));
        });
    }, py::arg("A"), py::arg("mb"), py::arg("side"),
       R"(Partition A into a top and a bottom part (FLA_Part_2x1).

Parameters
----------
A : flamex.Obj or numpy.ndarray or flamex.PivObj
    The matrix (or pivot vector) partitioned.
mb : int
    The rows of the `side` part.
side : flamex.Side
    TOP or BOTTOM: the part with mb rows.

Returns
-------
tuple of flamex.Obj or flamex.PivObj
    (AT, AB), views of A's memory.

Raises
------
ValueError
    A layout that is not a FLAME view, or sizes outside the view (flamex.Error).)");
    m.def("part_1x2", [](py::handle A, dim_t nb, Side s) {
        return on_either(A, [&](auto t) {
            using T = decltype(t);
            const auto a = to_view<T>(A, "A");
            return wrap_all<T>(a.keep, part_1x2(a.view, nb, s));
        });
    }, py::arg("A"), py::arg("nb"), py::arg("side"),
       R"(Partition A into a left and a right part (FLA_Part_1x2).

Parameters
----------
A : flamex.Obj or numpy.ndarray or flamex.PivObj
    The matrix partitioned.
nb : int
    The columns of the `side` part.
side : flamex.Side
    LEFT or RIGHT: the part with nb columns.

Returns
-------
tuple of flamex.Obj or flamex.PivObj
    (AL, AR), views of A's memory.

Raises
------
ValueError
    A layout that is not a FLAME view, or sizes outside the view (flamex.Error).)");

    m.def("repart_2x2_to_3x3", [](py::handle ATL, py::handle ATR, py::handle ABL, py::handle ABR, dim_t mb, dim_t nb, Quadrant q) {
        return on_either(ATL, [&](auto t) {
            using T = decltype(t);
            const auto tl = to_view<T>(ATL, "ATL");
            return wrap_all<T>(tl.keep, repart_2x2_to_3x3(tl.view, to_view<T>(ATR, "ATR").view, to_view<T>(ABL, "ABL").view,
                                                          to_view<T>(ABR, "ABR").view, mb, nb, q));
        });
    }, py::arg("ATL"), py::arg("ATR"), py::arg("ABL"), py::arg("ABR"), py::arg("mb"), py::arg("nb"), py::arg("quadrant"),
       R"(Repartition 2 x 2 quadrants into 3 x 3 blocks (FLA_Repart_2x2_to_3x3).

Parameters
----------
ATL : flamex.Obj or numpy.ndarray
    The top-left quadrant.
ATR : flamex.Obj or numpy.ndarray
    The top-right quadrant.
ABL : flamex.Obj or numpy.ndarray
    The bottom-left quadrant.
ABR : flamex.Obj or numpy.ndarray
    The bottom-right quadrant.
mb : int
    The rows of A11.
nb : int
    The columns of A11.
quadrant : flamex.Quadrant
    The quadrant A11 is taken from.

Returns
-------
tuple of flamex.Obj or flamex.PivObj
    (A00, A01, A02, A10, A11, A12, A20, A21, A22), views of the same memory.

Raises
------
ValueError
    A layout that is not a FLAME view, or sizes outside the view (flamex.Error).)");
    m.def("repart_2x1_to_3x1", [](py::handle AT, py::handle AB, dim_t mb, Side s) {
        return on_either(AT, [&](auto t) {
            using T = decltype(t);
            const auto top = to_view<T>(AT, "AT");
            return wrap_all<T>(top.keep, repart_2x1_to_3x1(top.view, to_view<T>(AB, "AB").view, mb, s));
        });
    }, py::arg("AT"), py::arg("AB"), py::arg("mb"), py::arg("side"),
       R"(Repartition a top and a bottom part into three (FLA_Repart_2x1_to_3x1).

Parameters
----------
AT : flamex.Obj or numpy.ndarray or flamex.PivObj
    The top part.
AB : flamex.Obj or numpy.ndarray or flamex.PivObj
    The bottom part.
mb : int
    The rows of A1.
side : flamex.Side
    TOP or BOTTOM: the part A1 is taken from.

Returns
-------
tuple of flamex.Obj or flamex.PivObj
    (A0, A1, A2), views of the same memory.

Raises
------
ValueError
    A layout that is not a FLAME view, or sizes outside the view (flamex.Error).)");
    m.def("repart_1x2_to_1x3", [](py::handle AL, py::handle AR, dim_t nb, Side s) {
        return on_either(AL, [&](auto t) {
            using T = decltype(t);
            const auto left = to_view<T>(AL, "AL");
            return wrap_all<T>(left.keep, repart_1x2_to_1x3(left.view, to_view<T>(AR, "AR").view, nb, s));
        });
    }, py::arg("AL"), py::arg("AR"), py::arg("nb"), py::arg("side"),
       R"(Repartition a left and a right part into three (FLA_Repart_1x2_to_1x3).

Parameters
----------
AL : flamex.Obj or numpy.ndarray
    The left part.
AR : flamex.Obj or numpy.ndarray
    The right part.
nb : int
    The columns of A1.
side : flamex.Side
    LEFT or RIGHT: the part A1 is taken from.

Returns
-------
tuple of flamex.Obj or flamex.PivObj
    (A0, A1, A2), views of the same memory.

Raises
------
ValueError
    A layout that is not a FLAME view, or sizes outside the view (flamex.Error).)");

    m.def("cont_with_3x3_to_2x2", [](py::handle A00, py::handle A01, py::handle A02, py::handle A10, py::handle A11,
                                     py::handle A12, py::handle A20, py::handle A21, py::handle A22, Quadrant q) {
        return on_either(A00, [&](auto t) {
            using T = decltype(t);
            const auto a00 = to_view<T>(A00, "A00");
            return wrap_all<T>(a00.keep,
                               cont_with_3x3_to_2x2(a00.view, to_view<T>(A01, "A01").view, to_view<T>(A02, "A02").view,
                                                    to_view<T>(A10, "A10").view, to_view<T>(A11, "A11").view,
                                                    to_view<T>(A12, "A12").view, to_view<T>(A20, "A20").view,
                                                    to_view<T>(A21, "A21").view, to_view<T>(A22, "A22").view, q));
        });
    }, py::arg("A00"), py::arg("A01"), py::arg("A02"), py::arg("A10"), py::arg("A11"), py::arg("A12"), py::arg("A20"),
       py::arg("A21"), py::arg("A22"), py::arg("quadrant"),
       R"(Continue with 2 x 2 quadrants after a step (FLA_Cont_with_3x3_to_2x2).

Parameters
----------
A00 : flamex.Obj or numpy.ndarray
    The block A00.
A01 : flamex.Obj or numpy.ndarray
    The block A01.
A02 : flamex.Obj or numpy.ndarray
    The block A02.
A10 : flamex.Obj or numpy.ndarray
    The block A10.
A11 : flamex.Obj or numpy.ndarray
    The block A11.
A12 : flamex.Obj or numpy.ndarray
    The block A12.
A20 : flamex.Obj or numpy.ndarray
    The block A20.
A21 : flamex.Obj or numpy.ndarray
    The block A21.
A22 : flamex.Obj or numpy.ndarray
    The block A22.
quadrant : flamex.Quadrant
    The quadrant A11 joins.

Returns
-------
tuple of flamex.Obj or flamex.PivObj
    (ATL, ATR, ABL, ABR), views of the same memory.

Raises
------
ValueError
    A layout that is not a FLAME view, or sizes outside the view (flamex.Error).)");
    m.def("cont_with_3x1_to_2x1", [](py::handle A0, py::handle A1, py::handle A2, Side s) {
        return on_either(A0, [&](auto t) {
            using T = decltype(t);
            const auto a0 = to_view<T>(A0, "A0");
            return wrap_all<T>(a0.keep, cont_with_3x1_to_2x1(a0.view, to_view<T>(A1, "A1").view, to_view<T>(A2, "A2").view, s));
        });
    }, py::arg("A0"), py::arg("A1"), py::arg("A2"), py::arg("side"),
       R"(Continue with a top and a bottom part after a step (FLA_Cont_with_3x1_to_2x1).

Parameters
----------
A0 : flamex.Obj or numpy.ndarray or flamex.PivObj
    The top block.
A1 : flamex.Obj or numpy.ndarray or flamex.PivObj
    The middle block.
A2 : flamex.Obj or numpy.ndarray or flamex.PivObj
    The bottom block.
side : flamex.Side
    TOP or BOTTOM: the part A1 joins.

Returns
-------
tuple of flamex.Obj or flamex.PivObj
    (AT, AB), views of the same memory.

Raises
------
ValueError
    A layout that is not a FLAME view, or sizes outside the view (flamex.Error).)");
    m.def("cont_with_1x3_to_1x2", [](py::handle A0, py::handle A1, py::handle A2, Side s) {
        return on_either(A0, [&](auto t) {
            using T = decltype(t);
            const auto a0 = to_view<T>(A0, "A0");
            return wrap_all<T>(a0.keep, cont_with_1x3_to_1x2(a0.view, to_view<T>(A1, "A1").view, to_view<T>(A2, "A2").view, s));
        });
    }, py::arg("A0"), py::arg("A1"), py::arg("A2"), py::arg("side"),
       R"(Continue with a left and a right part after a step (FLA_Cont_with_1x3_to_1x2).

Parameters
----------
A0 : flamex.Obj or numpy.ndarray
    The left block.
A1 : flamex.Obj or numpy.ndarray
    The middle block.
A2 : flamex.Obj or numpy.ndarray
    The right block.
side : flamex.Side
    LEFT or RIGHT: the part A1 joins.

Returns
-------
tuple of flamex.Obj or flamex.PivObj
    (AL, AR), views of the same memory.

Raises
------
ValueError
    A layout that is not a FLAME view, or sizes outside the view (flamex.Error).)");

    // merge_2x1(A0, A1, ...) and merge_1x2(...): views adjacent in one base, joined.
    m.def("merge_2x1", [](py::args blocks) {
        if (blocks.size() < 2) throw LayoutError("merge_2x1: needs at least two views");
        auto acc = to_pyobj(blocks[0], "view", false);
        for (size_t k = 1; k < blocks.size(); ++k) acc.view = merge_2x1(acc.view, as_obj(blocks[k], "view", false));
        return acc;
    }, R"(Join views adjacent in one base into one view (merge_2x1: stacked top to bottom).

Parameters
----------
*blocks : flamex.Obj or numpy.ndarray
    Two or more views, each directly below the one before.

Returns
-------
flamex.Obj
    The view covering them all.

Raises
------
ValueError
    Fewer than two views, or views that are not adjacent in one base.)");
    m.def("merge_1x2", [](py::args blocks) {
        if (blocks.size() < 2) throw LayoutError("merge_1x2: needs at least two views");
        auto acc = to_pyobj(blocks[0], "view", false);
        for (size_t k = 1; k < blocks.size(); ++k) acc.view = merge_1x2(acc.view, as_obj(blocks[k], "view", false));
        return acc;
    }, R"(Join views adjacent in one base into one view (merge_1x2: side by side, left to right).

Parameters
----------
*blocks : flamex.Obj or numpy.ndarray
    Two or more views, each directly right of the one before.

Returns
-------
flamex.Obj
    The view covering them all.

Raises
------
ValueError
    Fewer than two views, or views that are not adjacent in one base.)");
}

} // namespace
} // namespace flamex::python

PYBIND11_MODULE(_flamex, m)
{
    using namespace flamex;
    using namespace flamex::python;
    m.doc() = "flamex: FLAME-style dense linear algebra with exact and reproducible backends";
    translate_errors();
    bind_view_class<double>(m, "Obj", R"(A FLAME view (window) of a float64 column-major array; never a copy.

Made by flamex.view and the partitioning functions. numpy.asarray(view) (or
view.array) is the window as an array of the same memory; view[i, j] reads and
writes one element (an index outside the window is an error).

Attributes
----------
shape : tuple of int
    (length, width).
length : int
    The window's rows.
width : int
    The window's columns.
offset : tuple of int
    (row, column) of the window's first element in the base array.
base : numpy.ndarray
    The array whose memory this view is a window of.
array : numpy.ndarray
    The window as an array (no copy).)");
    bind_view_class<int>(m, "PivObj", R"(A FLAME view of an int32 pivot vector (0-based offsets), as flamex.Obj is of a matrix.

Attributes
----------
shape : tuple of int
    (length, 1) or (1, width).
length : int
    The window's rows.
width : int
    The window's columns.
offset : tuple of int
    (row, column) of the window's first element in the base array.
base : numpy.ndarray
    The array whose memory this view is a window of.
array : numpy.ndarray
    The window as an array (no copy).)");
    bind_partitioning(m);
    bind_blas(m);
    bind_drivers(m);
    bind_factorizations(m);
    bind_operations(m);
    bind_derive(m);
    bind_tools(m);
    bind_batched(m);
    bind_config(m);
}
