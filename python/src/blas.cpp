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
    py::class_<PyBackend>(m, "Backend", "An abstract BLAS backend (flamex.backend(name, threads=...)).")
        .def_property_readonly("name", [](const PyBackend& b) { return b.blas->name(); })
        .def_property_readonly("reproducible", [](const PyBackend& b) { return b.blas->reproducible(); },
                               "True when every result is bit-identical for any threads, block size and device")
        .def("sum", [](const PyBackend& b, py::handle x) {
            const Obj vx = as_obj(x, "x", false);
            FLAMEX_NOGIL;
            return b.blas->sum(vx);
        }, py::arg("x"), "sum_i x_i")
        .def("dot", [](const PyBackend& b, py::handle x, py::handle y) {
            const Obj vx = as_obj(x, "x", false), vy = as_obj(y, "y", false);
            FLAMEX_NOGIL;
            return b.blas->dot(vx, vy);
        }, py::arg("x"), py::arg("y"), "x^T y")
        .def("dots", [](const PyBackend& b, double alpha, py::handle x, py::handle y, double beta, py::handle rho) {
            const Obj vx = as_obj(x, "x", false), vy = as_obj(y, "y", false), vr = as_obj(rho, "rho", true);
            FLAMEX_NOGIL;
            b.blas->dots(alpha, vx, vy, beta, vr);
        }, py::arg("alpha"), py::arg("x"), py::arg("y"), py::arg("beta"), py::arg("rho"), "rho := alpha x^T y + beta rho (rho 1x1)")
        .def("scal", [](const PyBackend& b, double alpha, py::handle x) {
            const Obj vx = as_obj(x, "x", true);
            FLAMEX_NOGIL;
            b.blas->scal(alpha, vx);
        }, py::arg("alpha"), py::arg("x"), "x := alpha x")
        .def("invscal", [](const PyBackend& b, double alpha, py::handle x) {
            const Obj vx = as_obj(x, "x", true);
            FLAMEX_NOGIL;
            b.blas->invscal(alpha, vx);
        }, py::arg("alpha"), py::arg("x"), "x := x / alpha (a division, never a reciprocal)")
        .def("axpy", [](const PyBackend& b, double alpha, py::handle x, py::handle y) {
            const Obj vx = as_obj(x, "x", false), vy = as_obj(y, "y", true);
            FLAMEX_NOGIL;
            b.blas->axpy(alpha, vx, vy);
        }, py::arg("alpha"), py::arg("x"), py::arg("y"), "y := alpha x + y")
        .def("copy", [](const PyBackend& b, py::handle x, py::handle y) {
            const Obj vx = as_obj(x, "x", false), vy = as_obj(y, "y", true);
            FLAMEX_NOGIL;
            b.blas->copy(vx, vy);
        }, py::arg("x"), py::arg("y"), "y := x")
        .def("gemv", [](const PyBackend& b, Trans trans, double alpha, py::handle A, py::handle x, double beta, py::handle y) {
            const Obj vA = as_obj(A, "A", false), vx = as_obj(x, "x", false), vy = as_obj(y, "y", true);
            FLAMEX_NOGIL;
            b.blas->gemv(trans, alpha, vA, vx, beta, vy);
        }, py::arg("trans"), py::arg("alpha"), py::arg("A"), py::arg("x"), py::arg("beta"), py::arg("y"),
           "y := alpha op(A) x + beta y (y not read when beta == 0)")
        .def("trsv", [](const PyBackend& b, Uplo uplo, Trans trans, Diag diag, py::handle T, py::handle x) {
            const Obj vT = as_obj(T, "T", false), vx = as_obj(x, "x", true);
            FLAMEX_NOGIL;
            b.blas->trsv(uplo, trans, diag, vT, vx);
        }, py::arg("uplo"), py::arg("trans"), py::arg("diag"), py::arg("T"), py::arg("x"), "x := op(T)^{-1} x")
        .def("ger", [](const PyBackend& b, double alpha, py::handle x, py::handle y, py::handle A) {
            const Obj vx = as_obj(x, "x", false), vy = as_obj(y, "y", false), vA = as_obj(A, "A", true);
            FLAMEX_NOGIL;
            b.blas->ger(alpha, vx, vy, vA);
        }, py::arg("alpha"), py::arg("x"), py::arg("y"), py::arg("A"), "A := alpha x y^T + A")
        .def("gemm", [](const PyBackend& b, Trans ta, Trans tb, double alpha, py::handle A, py::handle B, double beta, py::handle C) {
            const Obj vA = as_obj(A, "A", false), vB = as_obj(B, "B", false), vC = as_obj(C, "C", true);
            FLAMEX_NOGIL;
            b.blas->gemm(ta, tb, alpha, vA, vB, beta, vC);
        }, py::arg("transa"), py::arg("transb"), py::arg("alpha"), py::arg("A"), py::arg("B"), py::arg("beta"), py::arg("C"),
           "C := alpha op(A) op(B) + beta C (C not read when beta == 0)")
        .def("trsm", [](const PyBackend& b, Side side, Uplo uplo, Trans trans, Diag diag, double alpha, py::handle T, py::handle B) {
            const Obj vT = as_obj(T, "T", false), vB = as_obj(B, "B", true);
            FLAMEX_NOGIL;
            b.blas->trsm(side, uplo, trans, diag, alpha, vT, vB);
        }, py::arg("side"), py::arg("uplo"), py::arg("trans"), py::arg("diag"), py::arg("alpha"), py::arg("T"), py::arg("B"),
           "B := alpha op(T)^{-1} B (LEFT) or alpha B op(T)^{-1} (RIGHT)")
        .def("syrk", [](const PyBackend& b, Uplo uplo, Trans trans, double alpha, py::handle A, double beta, py::handle C) {
            const Obj vA = as_obj(A, "A", false), vC = as_obj(C, "C", true);
            FLAMEX_NOGIL;
            b.blas->syrk(uplo, trans, alpha, vA, beta, vC);
        }, py::arg("uplo"), py::arg("trans"), py::arg("alpha"), py::arg("A"), py::arg("beta"), py::arg("C"),
           "C := alpha op(A) op(A)^T + beta C, only C's uplo triangle read and written (C not read when beta == 0)")
        .def("trmv", [](const PyBackend& b, Uplo uplo, Trans trans, Diag diag, py::handle T, py::handle x) {
            const Obj vT = as_obj(T, "T", false), vx = as_obj(x, "x", true);
            FLAMEX_NOGIL;
            b.blas->trmv(uplo, trans, diag, vT, vx);
        }, py::arg("uplo"), py::arg("trans"), py::arg("diag"), py::arg("T"), py::arg("x"), "x := op(T) x")
        .def("trmm", [](const PyBackend& b, Side side, Uplo uplo, Trans trans, Diag diag, double alpha, py::handle T, py::handle B) {
            const Obj vT = as_obj(T, "T", false), vB = as_obj(B, "B", true);
            FLAMEX_NOGIL;
            b.blas->trmm(side, uplo, trans, diag, alpha, vT, vB);
        }, py::arg("side"), py::arg("uplo"), py::arg("trans"), py::arg("diag"), py::arg("alpha"), py::arg("T"), py::arg("B"),
           "B := alpha op(T) B (LEFT) or alpha B op(T) (RIGHT)")
        .def("diag_invscal", [](const PyBackend& b, py::handle D, py::handle x) {
            const Obj vD = as_obj(D, "D", false), vx = as_obj(x, "x", true);
            FLAMEX_NOGIL;
            b.blas->diag_invscal(vD, vx);
        }, py::arg("D"), py::arg("x"), "x_l := x_l / D[l, l] (a division per element)")
        .def("diag_dots", [](const PyBackend& b, double alpha, py::handle x, py::handle D, py::handle y, double beta, py::handle rho) {
            const Obj vx = as_obj(x, "x", false), vD = as_obj(D, "D", false), vy = as_obj(y, "y", false),
                      vr = as_obj(rho, "rho", true);
            FLAMEX_NOGIL;
            b.blas->diag_dots(alpha, vx, vD, vy, beta, vr);
        }, py::arg("alpha"), py::arg("x"), py::arg("D"), py::arg("y"), py::arg("beta"), py::arg("rho"),
           "rho := alpha sum_l x_l D[l, l] y_l + beta rho (alpha = +-1; rho 1x1, not read when beta == 0)")
        .def("diag_gemv", [](const PyBackend& b, double alpha, py::handle A, py::handle D, py::handle x, double beta, py::handle y) {
            const Obj vA = as_obj(A, "A", false), vD = as_obj(D, "D", false), vx = as_obj(x, "x", false),
                      vy = as_obj(y, "y", true);
            FLAMEX_NOGIL;
            b.blas->diag_gemv(alpha, vA, vD, vx, beta, vy);
        }, py::arg("alpha"), py::arg("A"), py::arg("D"), py::arg("x"), py::arg("beta"), py::arg("y"),
           "y := alpha A diag(D) x + beta y (alpha = +-1; y not read when beta == 0)")
        .def("sqrt", [](const PyBackend& b, py::handle alpha) {
            const Obj v = as_obj(alpha, "alpha", true);
            FLAMEX_NOGIL;
            b.blas->sqrt(v);
        }, py::arg("alpha"), "alpha := sqrt(alpha) (alpha 1x1, correctly rounded)")
        .def("reciprocal", [](const PyBackend& b, py::handle alpha) {
            const Obj v = as_obj(alpha, "alpha", true);
            FLAMEX_NOGIL;
            b.blas->reciprocal(v);
        }, py::arg("alpha"), "alpha := 1 / alpha (alpha 1x1, a correctly rounded division)")
        .def("iamax", [](const PyBackend& b, py::handle x) {
            const Obj vx = as_obj(x, "x", false);
            FLAMEX_NOGIL;
            return b.blas->iamax(vx);
        }, py::arg("x"), "the first index of the largest magnitude")
        .def("apply_pivots", [](const PyBackend& b, py::handle p, py::handle A) {
            const PivObj vp = as_piv(p, "p", false);
            const Obj vA = as_obj(A, "A", true);
            FLAMEX_NOGIL;
            b.blas->apply_pivots(vp, vA);
        }, py::arg("p"), py::arg("A"), "for i in range(len(p)): swap rows i and i + p[i] of A (FLAME offsets)")
        .def("element", [](const PyBackend& b, py::handle A, dim_t i, dim_t j) {
            const Obj vA = as_obj(A, "A", false);
            return b.blas->element(vA.sub(i, j, 1, 1), 0, 0);
        }, py::arg("A"), py::arg("i"), py::arg("j"), "A(i, j) as the backend holds it")
        .def("__repr__", [](const PyBackend& b) { return "flamex.backend('" + b.blas->name() + "')"; });
}

} // namespace

void bind_blas(py::module_& m)
{
    py::enum_<Trans>(m, "Trans").value("NO_TRANSPOSE", Trans::No).value("TRANSPOSE", Trans::Yes).export_values();
    py::enum_<Uplo>(m, "Uplo").value("LOWER", Uplo::Lower).value("UPPER", Uplo::Upper).export_values();
    py::enum_<Diag>(m, "Diag").value("NONUNIT", Diag::NonUnit).value("UNIT", Diag::Unit).export_values();
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
       "A backend by name (None: $FLAMEX_BACKEND, else 'blis'); see flamex.backends().");

    m.def("backends", [] {
        py::list out;
        for (const BackendInfo& b : backends()) out.append(py::dict(py::arg("name") = b.name, py::arg("description") = b.description));
        return out;
    }, "The registered backends: dicts with name and description.");

    m.def("devices", [] {
        py::list out;
        for (const OpenClDeviceInfo& d : opencl_devices())
            out.append(py::dict(py::arg("index") = d.index, py::arg("name") = d.name, py::arg("platform") = d.platform,
                                py::arg("vendor") = d.vendor, py::arg("type") = d.type, py::arg("version") = d.version,
                                py::arg("fp64") = d.fp64, py::arg("compute_units") = d.compute_units,
                                py::arg("global_memory") = d.global_memory, py::arg("description") = describe_device(d)));
        return out;
    }, "The OpenCL devices (the list `flamex devices` prints), as dicts; flamex.OpenCLError without a platform.");
}

} // namespace flamex::python
